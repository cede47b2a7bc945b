#include "parser/printer.hpp"

#include <fmt/format.h>

#include <ostream>
#include <sstream>

namespace ptxsim::parser {
namespace {

class printer {
public:
    printer(std::string& out, const module& m) : out_(out), m_(m) {}

    void run() {
        if (m_.has_version) out_ += fmt::format(".version {}.{}\n", m_.version.major, m_.version.minor);
        if (!m_.target.empty()) {
            out_ += ".target ";
            names(m_.target);
            out_ += '\n';
        }
        if (m_.address_size) out_ += fmt::format(".address_size {}\n", m_.address_size);
        for (const auto& item : m_.items) {
            std::visit([this](const auto& node) { top(node); }, item.node);
        }
    }

    void operand_text(const operand& op) {
        switch (op.kind) {
        case operand_kind::name:
            if (op.flags & op_negated) out_ += '!';
            if (op.flags & op_minus) out_ += '-';
            out_ += s(op.name);
            if (op.flags & op_has_offset) offset(op.value);
            break;
        case operand_kind::integer:
            if (op.flags & op_unsigned) out_ += fmt::format("{}U", static_cast<uint64_t>(op.value));
            else out_ += fmt::format("{}", op.value);
            break;
        case operand_kind::f32: out_ += fmt::format("0f{:08X}", static_cast<uint32_t>(op.value)); break;
        case operand_kind::f64: out_ += fmt::format("0d{:016X}", static_cast<uint64_t>(op.value)); break;
        case operand_kind::vector:
            out_ += '{';
            operands(op.elems);
            out_ += '}';
            break;
        case operand_kind::address:
            out_ += '[';
            if (op.name != no_symbol) {
                out_ += s(op.name);
                if (op.flags & op_has_offset) offset(op.value);
            } else {
                out_ += fmt::format("{}", op.value);
            }
            for (const auto& e : op.elems) {
                out_ += ", ";
                operand_text(e);
            }
            out_ += ']';
            break;
        case operand_kind::list:
            out_ += '(';
            operands(op.elems);
            out_ += ')';
            break;
        case operand_kind::pipe:
            operand_text(op.elems[0]);
            out_ += '|';
            operand_text(op.elems[1]);
            break;
        case operand_kind::sink: out_ += '_'; break;
        }
    }

    void instruction_text(const instruction& ins) {
        if (ins.guard != no_symbol) out_ += fmt::format("@{}{} ", ins.guard_negated ? "!" : "", s(ins.guard));
        out_ += s(ins.opcode);
        for (symbol mod : ins.modifiers) {
            out_ += '.';
            out_ += s(mod);
        }
        if (!ins.operands.empty()) {
            out_ += ' ';
            operands(ins.operands);
        }
        out_ += ';';
    }

private:
    std::string_view s(symbol x) const { return m_.str(x); }

    // ptxas reads [%rd1+-4] but not [%rd1-4]; +- is the form nvcc writes.
    void offset(int64_t v) { out_ += fmt::format("+{}", v); }

    void operands(list<operand> ops) {
        for (uint32_t i = 0; i < ops.size(); ++i) {
            if (i) out_ += ", ";
            operand_text(ops[i]);
        }
    }
    void names(list<symbol> xs) {
        for (uint32_t i = 0; i < xs.size(); ++i) {
            if (i) out_ += ", ";
            out_ += s(xs[i]);
        }
    }
    void indent() { out_.append(static_cast<size_t>(depth_), '\t'); }

    // ---------------------------------------------------------------- declarations
    void init_item_text(const init_item& it) {
        switch (it.kind) {
        case init_kind::integer: out_ += fmt::format("{}", it.value); break;
        case init_kind::f32: out_ += fmt::format("0f{:08X}", static_cast<uint32_t>(it.value)); break;
        case init_kind::f64: out_ += fmt::format("0d{:016X}", static_cast<uint64_t>(it.value)); break;
        case init_kind::symbol:
            out_ += s(it.sym);
            if (it.value) offset(it.value);
            break;
        case init_kind::generic:
            out_ += fmt::format("generic({})", s(it.sym));
            if (it.value) offset(it.value);
            break;
        case init_kind::difference:
            out_ += fmt::format("{}-{}", s(it.sym), s(it.sym2));
            if (it.value) offset(it.value);
            break;
        case init_kind::nested:
            out_ += '{';
            for (uint32_t i = 0; i < it.elems.size(); ++i) {
                if (i) out_ += ", ";
                init_item_text(it.elems[i]);
            }
            out_ += '}';
            break;
        }
    }
    void init_values(const initializer& init) {
        if (!init.ints.empty()) {
            for (uint32_t i = 0; i < init.ints.size(); ++i) {
                if (i) out_ += ',';
                out_ += fmt::format("{}", init.ints[i]);
            }
        } else {
            for (uint32_t i = 0; i < init.items.size(); ++i) {
                if (i) out_ += ", ";
                init_item_text(init.items[i]);
            }
        }
    }

    void decl_text(const var_decl& d) {
        if (d.link != linkage::none) out_ += fmt::format(".{} ", to_string(d.link));
        out_ += '.';
        out_ += to_string(d.space);
        if (d.space_suffix != no_symbol) out_ += fmt::format("::{}", s(d.space_suffix));
        for (symbol a : d.attributes) out_ += fmt::format(" .attribute{}", s(a));
        if (d.align) out_ += fmt::format(" .align {}", d.align);
        if (d.vec) out_ += fmt::format(" .v{}", d.vec);
        out_ += fmt::format(" .{}", to_string(d.type));
        if (d.is_ptr) {
            out_ += " .ptr";
            if (d.ptr_has_space) out_ += fmt::format(".{}", to_string(d.ptr_space));
            if (d.ptr_align) out_ += fmt::format(".align {}", d.ptr_align);
        }
        out_ += ' ';
        out_ += s(d.name);
        if (d.is_range) out_ += fmt::format("<{}>", d.range);
        for (uint64_t dim : d.dims) out_ += dim ? fmt::format("[{}]", dim) : std::string("[]");
        if (d.init.present) {
            out_ += " = ";
            if (d.init.braced) out_ += '{';
            init_values(d.init);
            if (d.init.braced) out_ += '}';
        }
    }

    void param_list(list<var_decl> ps) {
        out_ += '(';
        for (uint32_t i = 0; i < ps.size(); ++i) {
            out_ += i ? ",\n\t" : "\n\t";
            decl_text(ps[i]);
        }
        out_ += ps.empty() ? ")" : "\n)";
    }

    // ---------------------------------------------------------------- module items
    void top(const function* f) {
        out_ += '\n';
        if (f->link != linkage::none) out_ += fmt::format(".{} ", to_string(f->link));
        out_ += f->is_entry ? ".entry" : ".func";
        for (symbol a : f->attributes) out_ += fmt::format(" .attribute{}", s(a));
        if (f->has_ret) {
            out_ += ' ';
            param_list(f->ret);
        }
        out_ += ' ';
        out_ += s(f->name);
        if (f->has_params) param_list(f->params);
        out_ += '\n';
        for (const auto& pd : f->directives) {
            out_ += '.';
            out_ += s(pd.name);
            for (uint32_t i = 0; i < pd.values.size(); ++i) out_ += fmt::format("{}{}", i ? ", " : " ", pd.values[i]);
            for (uint32_t i = 0; i < pd.strings.size(); ++i) out_ += fmt::format("{}\"{}\"", i ? ", " : " ", s(pd.strings[i]));
            if (!pd.strings.empty()) out_ += ';';
            out_ += '\n';
        }
        if (!f->has_body) {
            out_ += ";\n";
            return;
        }
        out_ += "{\n";
        depth_ = 1;
        body(f->body);
        depth_ = 0;
        out_ += "}\n";
    }
    void top(const var_decl* d) {
        decl_text(*d);
        out_ += ";\n";
    }
    void top(const file_directive& f) {
        out_ += fmt::format(".file {} \"{}\"", f.index, s(f.path));
        if (f.has_stamp) out_ += fmt::format(", {}, {}", f.timestamp, f.size);
        out_ += '\n';
    }
    void top(const section_directive* sec) {
        out_ += fmt::format(".section .{}\n{{\n", s(sec->name));
        for (const auto& e : sec->entries) {
            if (e.label != no_symbol) {
                out_ += fmt::format("{}:\n", s(e.label));
            } else {
                out_ += fmt::format(".{} ", to_string(e.type));
                init_values(e.values);
                out_ += '\n';
            }
        }
        out_ += "}\n";
    }
    void top(const pragma_directive& p) {
        pragma_text(p);
        out_ += '\n';
    }
    void top(const alias_directive& a) { out_ += fmt::format(".alias {}, {};\n", s(a.alias), s(a.target)); }
    void top(const loc_directive& l) {
        loc_text(l);
        out_ += '\n';
    }

    void pragma_text(const pragma_directive& p) {
        out_ += ".pragma ";
        for (uint32_t i = 0; i < p.strings.size(); ++i) out_ += fmt::format("{}\"{}\"", i ? ", " : "", s(p.strings[i]));
        out_ += ';';
    }
    void loc_text(const loc_directive& l) {
        out_ += fmt::format(".loc {} {} {}", l.file, l.line, l.col);
        if (l.has_function) {
            out_ += fmt::format(", function_name {}", s(l.function_name));
            if (l.function_offset) offset(l.function_offset);
        }
        if (l.has_inlined_at) out_ += fmt::format(", inlined_at {} {} {}", l.inlined_file, l.inlined_line, l.inlined_col);
    }

    // ---------------------------------------------------------------- statements
    void body(list<statement> stmts) {
        for (const auto& st : stmts) std::visit([this](const auto& node) { stmt(node); }, st.node);
    }
    void stmt(const instruction& ins) {
        indent();
        instruction_text(ins);
        out_ += '\n';
    }
    void stmt(const label_stmt& l) { out_ += fmt::format("{}:\n", s(l.name)); }
    void stmt(const decl_stmt& d) {
        indent();
        decl_text(*d.decl);
        out_ += ";\n";
    }
    void stmt(const block_stmt* b) {
        indent();
        out_ += "{\n";
        ++depth_;
        body(b->body);
        --depth_;
        indent();
        out_ += "}\n";
    }
    void stmt(const loc_directive& l) {
        indent();
        loc_text(l);
        out_ += '\n';
    }
    void stmt(const pragma_directive& p) {
        indent();
        pragma_text(p);
        out_ += '\n';
    }
    void stmt(const prototype_decl* p) {
        out_ += fmt::format("{}: .callprototype ", s(p->label));
        if (p->has_return) {
            param_list(p->ret);
            out_ += ' ';
        }
        out_ += "_ ";
        param_list(p->params);
        if (p->noreturn) out_ += " .noreturn";
        out_ += ";\n";
    }
    void stmt(const targets_decl* t) {
        out_ += fmt::format("{}: .{} ", s(t->label), t->calls ? "calltargets" : "branchtargets");
        names(t->targets);
        out_ += ";\n";
    }

    std::string& out_;
    const module& m_;
    int depth_ = 0;
};

} // namespace

std::string print(const module& m) {
    std::string out;
    out.reserve(m.source ? m.source->text().size() : 0);
    printer(out, m).run();
    return out;
}

void print(std::ostream& out, const module& m) { out << print(m); }

std::string print_instruction(const module& m, const instruction& ins) {
    std::string out;
    printer(out, m).instruction_text(ins);
    return out;
}

} // namespace ptxsim::parser
