// multimem.ld_reduce, multimem.st and multimem.red: which operations each
// type takes and which vectors, as ptxas 13 enforces them for sm_90a
// (docs/lint.md, "multimem"; tests/malformed/cases/multimem_*):
//  - integers (.b32 .b64 .u32 .u64 .s32 .s64) are scalar; .add takes .u32,
//    .s32 and .u64, .min/.max the .u and .s types, .and/.or/.xor the .b
//    types; there is no .inc/.dec;
//  - floating point: .f64 is scalar, other types fill 32, 64 or 128 bits
//    with .vN (.v2.f16, .v4.f32, .v4.f16x2); ld_reduce takes .add on every
//    float type and .min/.max on the half types, multimem.red the same but
//    .min/.max only with a .vN (ptxas refuses multimem.red.min.f16x2);
//    ld_reduce's .acc::f32 goes with .add on a half type (multimem.red
//    takes it on every type);
//  - with .vN the value operand is a vector of N, without it a scalar.
// The sm_100 8-bit float types and .acc::f16 are not judged.
#include <fmt/format.h>

#include "isa/detail/check_operands.hpp"
#include "isa/detail/operand_types.hpp"

namespace ptxsim::isa::detail {
namespace {

using namespace parser;

bool is_half(data_type t) {
    return t == data_type::f16 || t == data_type::f16x2 || t == data_type::bf16 || t == data_type::bf16x2;
}

class multimem_checker {
public:
    multimem_checker(const instruction_view& v, std::vector<located_problem>& out) : v_(v), out_(out) {}

    void run() {
        const std::string& key = v_.row.key;
        std::string_view op;
        for (size_t i = v_.row.key_words.size(); i < v_.words.size(); ++i) {
            std::string_view w = v_.words[i];
            data_type t = data_type_from(w);
            if (t != data_type::none) type_ = t, type_at_ = i;
            else if (w == "v2" || w == "v4" || w == "v8") vec_ = static_cast<uint32_t>(w[1] - '0'), vec_at_ = i;
            else if (w == "add" || w == "min" || w == "max" || w == "and" || w == "or" || w == "xor" || w == "inc" ||
                     w == "dec")
                op = w, op_at_ = i;
            else if (w.starts_with("acc::")) acc_at_ = i;
        }
        if (type_ == data_type::none || type_ == data_type::e4m3 || type_ == data_type::e5m2 ||
            type_ == data_type::e4m3x2 || type_ == data_type::e5m2x2)
            return; // the sm_100 8-bit float types are not judged here
        type_info ti = info_of(type_);
        bool floating = ti.kind == type_kind::floating || ti.kind == type_kind::half;
        std::string name(to_string(type_));
        if (!floating && vec_)
            return fail(v_.word_pos[vec_at_], fmt::format("'{}' on integers is scalar: .{} takes no .v{}", key, name, vec_));
        if (floating && vec_ && type_ == data_type::f64)
            return fail(v_.word_pos[vec_at_], fmt::format("'{}.f64' is scalar: it takes no .v{}", key, vec_));
        uint32_t bits = ti.bits * (vec_ ? vec_ : 1);
        if (floating && bits != 32 && bits != 64 && bits != 128 && type_ != data_type::f64)
            return fail(v_.word_pos[vec_at_ ? vec_at_ : type_at_],
                        fmt::format("'{}' on .{} moves 32, 64 or 128 bits at once; {} is {} bits{}", key, name,
                                    vec_ ? fmt::format(".v{}.{}", vec_, name) : "." + name, bits,
                                    vec_ ? "" : " (use .v2 or more)"));
        if (!op.empty()) {
            std::string_view allowed;
            if (!floating)
                allowed = op == "add"                ? ".u32, .s32, .u64"
                          : op == "min" || op == "max" ? ".u32, .s32, .u64, .s64"
                          : op == "inc" || op == "dec" ? ""
                                                       : ".b32, .b64";
            else if (op == "add") allowed = "every floating-point type";
            else if ((op == "min" || op == "max") && key == "multimem.ld_reduce")
                allowed = ".f16, .f16x2, .bf16, .bf16x2";
            else if ((op == "min" || op == "max") && vec_) // multimem.red.min.f16x2 without .vN is refused
                allowed = ".f16, .f16x2, .bf16, .bf16x2 with .vN";
            bool fits = floating ? (op == "add" || (!allowed.empty() && is_half(type_)))
                                 : allowed.find("." + name + ",") != std::string_view::npos ||
                                       allowed.ends_with("." + name);
            if (!fits)
                return fail(v_.word_pos[op_at_], allowed.empty()
                                                     ? fmt::format("'{}' has no .{} on .{}", key, op, name)
                                                     : fmt::format("'{}.{}' takes {}, not .{}", key, op, allowed, name));
            // (multimem.red takes .acc::f32 on every type: ptxas 13 accepts and ignores it there)
            if (acc_at_ && key == "multimem.ld_reduce" && (op != "add" || !is_half(type_)))
                return fail(v_.word_pos[acc_at_], fmt::format("'.{}' goes with .add on .f16, .f16x2, .bf16 or .bf16x2, "
                                                              "not .{}.{}", v_.words[acc_at_], op, name));
        }
        // The value: ld_reduce's destination, st's and red's source.
        const auto& ops = v_.ins.operands;
        size_t at = key == "multimem.ld_reduce" ? 0 : 1;
        if (at >= ops.size()) return;
        const operand& value = ops[at];
        if (vec_ && !(value.kind == operand_kind::vector && value.elems.size() == vec_) &&
            !(value.kind == operand_kind::name && (flags_at(at) & node_vec_mask) == vec_))
            return fail(value.pos, fmt::format("'{}' with .v{} needs a vector of {} {{...}} here", key, vec_, vec_));
        if (!vec_ && value.kind == operand_kind::vector)
            fail(value.pos, fmt::format("'{}' without .v2/.v4/.v8 takes a scalar here, not a vector", key));
    }

private:
    void fail(pos_t p, std::string msg) {
        if (out_.empty()) out_.push_back({p, std::move(msg)});
    }
    uint8_t flags_at(size_t index) const {
        size_t node = 0;
        for (size_t i = 0; i < index; ++i) node += node_count(v_.ins.operands[i]);
        return node < v_.flags.size() ? v_.flags[node] : 0;
    }

    const instruction_view& v_;
    std::vector<located_problem>& out_;
    data_type type_ = data_type::none;
    size_t type_at_ = 0, vec_at_ = 0, op_at_ = 0, acc_at_ = 0;
    uint32_t vec_ = 0;
};

} // namespace

void check_multimem(const instruction_view& v, std::vector<located_problem>& out) {
    if (v.row.key.starts_with("multimem.")) multimem_checker(v, out).run();
}

} // namespace ptxsim::isa::detail
