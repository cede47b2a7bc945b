#include "parser/ast_equal.hpp"

#include <fmt/format.h>

namespace ptxsim::parser {
namespace {

class comparer {
public:
    comparer(const module& a, const module& b) : a_(a), b_(b) {}
    std::string why;

    bool sym(symbol x, symbol y, const char* what) {
        if (a_.str(x) == b_.str(y)) return true;
        return differ(fmt::format("{}: '{}' vs '{}'", what, a_.str(x), b_.str(y)));
    }
    template <class T>
    bool val(const T& x, const T& y, const char* what) {
        if (x == y) return true;
        return differ(what);
    }
    bool differ(std::string w) {
        if (why.empty()) why = std::move(w);
        return false;
    }

    template <class T, class F>
    bool lists(list<T> x, list<T> y, const char* what, F&& each) {
        if (x.size() != y.size()) return differ(fmt::format("{}: {} vs {} elements", what, x.size(), y.size()));
        for (uint32_t i = 0; i < x.size(); ++i)
            if (!each(x[i], y[i])) return false;
        return true;
    }
    bool syms(list<symbol> x, list<symbol> y, const char* what) {
        return lists(x, y, what, [&](symbol p, symbol q) { return sym(p, q, what); });
    }
    template <class T>
    bool plain(list<T> x, list<T> y, const char* what) {
        return lists(x, y, what, [&](const T& p, const T& q) { return val(p, q, what); });
    }

    bool op(const operand& x, const operand& y) {
        return val(x.kind, y.kind, "operand kind") && val(x.flags, y.flags, "operand flags") &&
               sym(x.name, y.name, "operand name") && val(x.value, y.value, "operand value") &&
               lists(x.elems, y.elems, "operand elements", [&](const operand& p, const operand& q) { return op(p, q); });
    }
    bool ins(const instruction& x, const instruction& y) {
        return sym(x.guard, y.guard, "guard") && val(x.guard_negated, y.guard_negated, "guard negation") &&
               sym(x.opcode, y.opcode, "opcode") && syms(x.modifiers, y.modifiers, "modifiers") &&
               lists(x.operands, y.operands, "operands", [&](const operand& p, const operand& q) { return op(p, q); });
    }
    bool item(const init_item& x, const init_item& y) {
        return val(x.kind, y.kind, "initializer kind") && sym(x.sym, y.sym, "initializer symbol") &&
               sym(x.sym2, y.sym2, "initializer symbol") && val(x.value, y.value, "initializer value") &&
               lists(x.elems, y.elems, "initializer elements", [&](const init_item& p, const init_item& q) { return item(p, q); });
    }
    bool init(const initializer& x, const initializer& y) {
        return val(x.present, y.present, "initializer presence") && val(x.braced, y.braced, "initializer braces") &&
               plain(x.ints, y.ints, "initializer values") &&
               lists(x.items, y.items, "initializer items", [&](const init_item& p, const init_item& q) { return item(p, q); });
    }
    bool decl(const var_decl& x, const var_decl& y) {
        return val(x.link, y.link, "linkage") && val(x.space, y.space, "state space") &&
               sym(x.space_suffix, y.space_suffix, "state space suffix") && val(x.type, y.type, "type") &&
               val(x.vec, y.vec, "vector width") && val(x.align, y.align, "alignment") && sym(x.name, y.name, "name") &&
               val(x.range, y.range, "range") && val(x.is_range, y.is_range, "range") && plain(x.dims, y.dims, "dimensions") &&
               syms(x.attributes, y.attributes, "attributes") && val(x.is_ptr, y.is_ptr, ".ptr") &&
               val(x.ptr_has_space, y.ptr_has_space, ".ptr space") && val(x.ptr_space, y.ptr_space, ".ptr space") &&
               val(x.ptr_align, y.ptr_align, ".ptr alignment") && init(x.init, y.init);
    }
    bool decls(list<var_decl> x, list<var_decl> y, const char* what) {
        return lists(x, y, what, [&](const var_decl& p, const var_decl& q) { return decl(p, q); });
    }
    bool loc(const loc_directive& x, const loc_directive& y) {
        return val(x.file, y.file, ".loc") && val(x.line, y.line, ".loc") && val(x.col, y.col, ".loc") &&
               val(x.has_function, y.has_function, ".loc") && sym(x.function_name, y.function_name, ".loc function") &&
               val(x.function_offset, y.function_offset, ".loc") && val(x.has_inlined_at, y.has_inlined_at, ".loc") &&
               val(x.inlined_file, y.inlined_file, ".loc") && val(x.inlined_line, y.inlined_line, ".loc") &&
               val(x.inlined_col, y.inlined_col, ".loc");
    }

    bool stmt(const statement& x, const statement& y) {
        if (x.node.index() != y.node.index()) return differ("statement kind");
        return std::visit([&](const auto& p) { return stmt_same(p, std::get<std::decay_t<decltype(p)>>(y.node)); }, x.node);
    }
    bool stmts(list<statement> x, list<statement> y) {
        return lists(x, y, "statements", [&](const statement& p, const statement& q) { return stmt(p, q); });
    }
    bool stmt_same(const instruction& x, const instruction& y) { return ins(x, y); }
    bool stmt_same(const label_stmt& x, const label_stmt& y) { return sym(x.name, y.name, "label"); }
    bool stmt_same(const decl_stmt& x, const decl_stmt& y) { return decl(*x.decl, *y.decl); }
    bool stmt_same(const block_stmt* x, const block_stmt* y) { return stmts(x->body, y->body); }
    bool stmt_same(const loc_directive& x, const loc_directive& y) { return loc(x, y); }
    bool stmt_same(const pragma_directive& x, const pragma_directive& y) { return syms(x.strings, y.strings, ".pragma"); }
    bool stmt_same(const prototype_decl* x, const prototype_decl* y) {
        return sym(x->label, y->label, "prototype") && val(x->has_return, y->has_return, "prototype") &&
               decls(x->ret, y->ret, "prototype") && decls(x->params, y->params, "prototype") &&
               val(x->noreturn, y->noreturn, "prototype");
    }
    bool stmt_same(const targets_decl* x, const targets_decl* y) {
        return sym(x->label, y->label, "targets") && val(x->calls, y->calls, "targets") &&
               syms(x->targets, y->targets, "targets");
    }

    bool top(const toplevel& x, const toplevel& y) {
        if (x.node.index() != y.node.index()) return differ("module item kind");
        return std::visit([&](const auto& p) { return top_same(p, std::get<std::decay_t<decltype(p)>>(y.node)); }, x.node);
    }
    bool top_same(const function* x, const function* y) {
        return sym(x->name, y->name, "function") && val(x->link, y->link, "function linkage") &&
               val(x->is_entry, y->is_entry, "entry") && syms(x->attributes, y->attributes, "function attributes") &&
               val(x->has_ret, y->has_ret, "return list") && decls(x->ret, y->ret, "return parameters") &&
               val(x->has_params, y->has_params, "parameter list") && decls(x->params, y->params, "parameters") &&
               lists(x->directives, y->directives, "function directives",
                     [&](const perf_directive& p, const perf_directive& q) {
                         return sym(p.name, q.name, "directive") && plain(p.values, q.values, "directive values") &&
                                syms(p.strings, q.strings, "directive strings");
                     }) &&
               val(x->has_body, y->has_body, "body") && stmts(x->body, y->body);
    }
    bool top_same(const var_decl* x, const var_decl* y) { return decl(*x, *y); }
    bool top_same(const file_directive& x, const file_directive& y) {
        return val(x.index, y.index, ".file") && sym(x.path, y.path, ".file") && val(x.has_stamp, y.has_stamp, ".file") &&
               val(x.timestamp, y.timestamp, ".file") && val(x.size, y.size, ".file");
    }
    bool top_same(const section_directive* x, const section_directive* y) {
        return sym(x->name, y->name, ".section") &&
               lists(x->entries, y->entries, "section entries", [&](const section_entry& p, const section_entry& q) {
                   return sym(p.label, q.label, "section label") && val(p.type, q.type, "section type") &&
                          init(p.values, q.values);
               });
    }
    bool top_same(const pragma_directive& x, const pragma_directive& y) { return syms(x.strings, y.strings, ".pragma"); }
    bool top_same(const alias_directive& x, const alias_directive& y) {
        return sym(x.alias, y.alias, ".alias") && sym(x.target, y.target, ".alias");
    }
    bool top_same(const loc_directive& x, const loc_directive& y) { return loc(x, y); }

    bool modules() {
        return val(a_.has_version, b_.has_version, ".version") && val(a_.version.major, b_.version.major, ".version") &&
               val(a_.version.minor, b_.version.minor, ".version") && syms(a_.target, b_.target, ".target") &&
               val(a_.address_size, b_.address_size, ".address_size") &&
               lists(a_.items, b_.items, "module items", [&](const toplevel& p, const toplevel& q) { return top(p, q); });
    }

private:
    const module& a_;
    const module& b_;
};

} // namespace

bool ast_equal(const module& a, const module& b, std::string* why) {
    comparer c(a, b);
    bool same = c.modules();
    if (why) *why = c.why;
    return same;
}

} // namespace ptxsim::parser
