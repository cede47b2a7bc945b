// Call arguments against formal parameters (see check_calls.hpp). Each rule
// was tried on ptxas 13 -arch=sm_90a: an argument fits its parameter when
// both are scalars of one size whose kinds agree (a bit type agrees with
// anything, .u and .s with each other, a float only with itself: .f64 for a
// .u64 parameter is refused), or both arrays of one size; the alignment
// (.align, else the element size) must be the same too. Registers and
// constants are compared only when the parameter is a .reg one or the
// register's type is known; an unsized array parameter is not judged.
#include "isa/detail/check_calls.hpp"

#include <fmt/format.h>

namespace ptxsim::isa::detail {
namespace {

using namespace parser;

enum class kind { bit, integer, floating, other };
kind kind_of(data_type t) {
    switch (t) {
    case data_type::b8: case data_type::b16: case data_type::b32: case data_type::b64: case data_type::b128:
        return kind::bit;
    case data_type::u8: case data_type::u16: case data_type::u32: case data_type::u64:
    case data_type::s8: case data_type::s16: case data_type::s32: case data_type::s64:
        return kind::integer;
    case data_type::f16: case data_type::f32: case data_type::f64: case data_type::bf16: return kind::floating;
    default: return kind::other;
    }
}

bool kinds_agree(data_type a, data_type f) {
    kind ka = kind_of(a), kf = kind_of(f);
    if (ka == kind::other || kf == kind::other) return true; // not judged
    return ka == kind::bit || kf == kind::bit || (ka == kind::integer && kf == kind::integer) || a == f;
}

uint64_t elements(const var_decl& v) {
    uint64_t n = 1;
    for (uint64_t d : v.dims) n *= d;
    return n;
}
uint64_t bytes(const var_decl& v) { return uint64_t{size_of(v.type)} * std::max<uint32_t>(1, v.vec) * elements(v); }
uint64_t alignment(const var_decl& v) {
    return v.align ? v.align : uint64_t{size_of(v.type)} * std::max<uint32_t>(1, v.vec);
}
bool unsized(const var_decl& v) {
    for (uint64_t d : v.dims)
        if (d == 0) return true;
    return false;
}

class call_checker {
public:
    call_checker(const module& m, const instruction& ins, const call_lookup& look, diagnostics& d)
        : m_(m), ins_(ins), look_(look), d_(d) {}

    void run() {
        const auto& ops = ins_.operands;
        size_t at = 0;
        const operand* rets = nullptr;
        if (at < ops.size() && ops[at].kind == operand_kind::list) rets = &ops[at++];
        if (at >= ops.size() || ops[at].kind != operand_kind::name) return;
        const operand& callee = ops[at++];
        const operand* args = nullptr;
        if (at < ops.size() && ops[at].kind == operand_kind::list) args = &ops[at++];
        const operand* proto = at < ops.size() && ops[at].kind == operand_kind::name ? &ops[at] : nullptr;
        // The lists hold whole names: ptxas reads (param0.x) or (%v.y) as a syntax error.
        for (const operand* list : {rets, args})
            if (list)
                for (const auto& e : list->elems)
                    if (e.kind == operand_kind::name && m_.str(e.name).find('.') != std::string_view::npos)
                        return error(e.pos, fmt::format("'{}' selects a component; a call's argument and return lists "
                                                        "take whole registers or variables", m_.str(e.name)));
        // A prototype or .calltargets list goes with an indirect call (a register callee).
        if (proto && look_.function(callee.name))
            return error(proto->pos, fmt::format("'{}' is a function: a direct call takes no prototype or call-target "
                                                 "list ('{}'); those are for a call through a register",
                                                 m_.str(callee.name), m_.str(proto->name)));

        list<var_decl> formal_rets, formal_params;
        std::string_view callee_name;
        if (const function* f = look_.function(callee.name)) {
            formal_rets = f->ret;
            formal_params = f->params;
            callee_name = m_.str(f->name);
        } else if (const prototype_decl* p = proto ? look_.prototype(proto->name) : nullptr) {
            formal_rets = p->ret;
            formal_params = p->params;
            callee_name = m_.str(p->label);
        } else {
            return; // a .calltargets list or an unknown name: reported elsewhere or not judged
        }
        for (const auto& p : formal_params)
            if (unsized(p)) return;
        size_t nrets = rets ? rets->elems.size() : 0, nargs = args ? args->elems.size() : 0;
        if (nrets != formal_rets.size() || nargs != formal_params.size()) {
            error(ins_.pos, fmt::format("the call passes {} argument{} and {} return value{}, but '{}' has {} "
                                        "parameter{} and {} return parameter{}", nargs, nargs == 1 ? "" : "s", nrets,
                                        nrets == 1 ? "" : "s", callee_name, formal_params.size(),
                                        formal_params.size() == 1 ? "" : "s", formal_rets.size(),
                                        formal_rets.size() == 1 ? "" : "s"));
            return;
        }
        size_t i = 0;
        for (const auto& f : formal_rets)
            if (!argument(rets->elems[i++], f, callee_name)) return;
        i = 0;
        for (const auto& f : formal_params)
            if (!argument(args->elems[i++], f, callee_name)) return;
    }

private:
    void error(pos_t p, std::string msg) { d_.error(*m_.source, p, std::move(msg)); }

    std::string shape(const var_decl& v) const {
        std::string s = v.align ? fmt::format(".align {} ", v.align) : "";
        s += v.vec ? fmt::format(".v{} .{}", v.vec, to_string(v.type)) : fmt::format(".{}", to_string(v.type));
        for (uint64_t d : v.dims) s += fmt::format("[{}]", d);
        return s;
    }

    // Whether `a` fits formal parameter `f`; reports when it does not.
    bool argument(const operand& a, const var_decl& f, std::string_view callee) {
        if (a.kind != operand_kind::name) return true; // a constant: not judged
        std::string_view name = m_.str(a.name), formal = m_.str(f.name);
        if (const var_decl* v = look_.variable(a.name); v && v->space != state_space::reg) {
            bool array_a = !v->dims.empty(), array_f = !f.dims.empty();
            bool fits = array_a == array_f && bytes(*v) == bytes(f) && (array_a || kinds_agree(v->type, f.type));
            if (!fits) {
                error(a.pos, fmt::format("argument '{}' ({}) does not match parameter '{}' ({}) of '{}'", name, shape(*v),
                                         formal, shape(f), callee));
                return false;
            }
            if (alignment(*v) != alignment(f)) {
                error(a.pos, fmt::format("argument '{}' is aligned to {} bytes, but parameter '{}' of '{}' to {}", name,
                                         alignment(*v), formal, callee, alignment(f)));
                return false;
            }
            return true;
        }
        data_type r = look_.register_type(a.name);
        if (r == data_type::none || !f.dims.empty() || f.vec) return true;
        if (size_of(r) != size_of(f.type) || !kinds_agree(r, f.type)) {
            error(a.pos, fmt::format("register '{}' (.{}) does not match parameter '{}' (.{}) of '{}'", name, to_string(r),
                                     formal, to_string(f.type), callee));
            return false;
        }
        return true;
    }

    const module& m_;
    const instruction& ins_;
    const call_lookup& look_;
    diagnostics& d_;
};

} // namespace

void check_call(const module& m, const instruction& ins, const call_lookup& look, diagnostics& d) {
    call_checker(m, ins, look, d).run();
}

} // namespace ptxsim::isa::detail
