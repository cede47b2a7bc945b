// The operand type rules (see operand_types.hpp). Every rule here was
// tried on ptxas 13 (-arch=sm_90a) in both directions, a legal and an
// illegal instance; the malformed cases under tests/malformed/cases/op_*
// and the odd-but-legal ones in tests/isa/operand_types_test.cpp keep them.
#include "isa/detail/operand_types.hpp"

#include <fmt/format.h>

#include <array>
#include <utility>

namespace ptxsim::isa::detail {

using parser::data_type;
using parser::operand_kind;

type_info info_of(data_type t) {
    switch (t) {
    case data_type::b16: return {type_kind::bit, 16};
    case data_type::b32: return {type_kind::bit, 32};
    case data_type::b64: return {type_kind::bit, 64};
    case data_type::b128: return {type_kind::bit, 128};
    case data_type::u16: case data_type::s16: return {type_kind::integer, 16};
    case data_type::u32: case data_type::s32: return {type_kind::integer, 32};
    case data_type::u64: case data_type::s64: return {type_kind::integer, 64};
    // 8-bit types are instruction types (ld.u8) and memory; an 8-bit
    // register is taken only where the type is 8-bit (register_fits).
    case data_type::u8: case data_type::s8: return {type_kind::integer, 8};
    case data_type::b8: return {type_kind::bit, 8};
    case data_type::f32: return {type_kind::floating, 32};
    case data_type::f64: return {type_kind::floating, 64};
    case data_type::f16: case data_type::bf16: return {type_kind::half, 16};
    case data_type::f16x2: case data_type::bf16x2: case data_type::tf32: return {type_kind::half, 32};
    case data_type::e4m3x2: case data_type::e5m2x2: return {type_kind::half, 16};
    case data_type::pred: return {type_kind::pred, 1};
    default: return {};
    }
}

namespace {

// Roles per table key; alternatives for different operand counts are
// separated by '|'. Keys not listed keep only the table's kind checks.
constexpr std::array<std::pair<std::string_view, std::string_view>, 71> role_table{{
    {"abs", "t,t"},          {"add", "t,t,t"},        {"addc", "t,t,t"},         {"and", "t,t,t"},
    {"bfe", "t,t,i,i"},      {"bfi", "t,t,t,i,i"},    {"bfind", "i,t"},          {"brev", "t,t"},
    {"clz", "i,t"},          {"cnot", "t,t"},         {"copysign", "t,t,t"},     {"cos", "t,t"},
    {"cvt", "T,U|T,U,U"},    {"cvta", "t,t"},         {"div", "t,t,t"},          {"ex2", "t,t"},
    {"fma", "t,t,t,t"},      {"ld", "T,m|T,m,-"},     {"ldu", "T,m"},            {"lg2", "t,t"},
    {"mad", "t,t,t,t"},      {"mad24", "t,t,t,t"},    {"madc", "t,t,t,t"},       {"max", "t,t,t|t,t,t,t"},
    {"min", "t,t,t|t,t,t,t"}, {"mov", "M,M"},         {"mul", "t,t,t"},          {"mul24", "t,t,t"},
    {"neg", "t,t"},          {"not", "t,t"},          {"or", "t,t,t"},           {"popc", "i,t"},
    {"prmt", "t,t,t,t"},     {"rcp", "t,t"},          {"red", "m,t|m,t,-"},      {"rem", "t,t,t"},
    {"rsqrt", "t,t"},        {"sad", "t,t,t,t"},      {"selp", "t,t,t,p"},       {"set", "t,u,u|t,u,u,p"},
    {"setp", "p,t,t|p,t,t,p"}, {"shf", "t,t,t,i"},    {"shfl.sync", "t,t,x,x,x"}, {"shl", "t,t,i"},
    {"shr", "t,t,i"},        {"sin", "t,t"},          {"slct", "t,t,t,u"},       {"sqrt", "t,t"},
    {"st", "m,T|m,T,-"},     {"sub", "t,t,t"},        {"subc", "t,t,t"},         {"tanh", "t,t"},
    {"testp", "p,t"},        {"vote.sync", "t,p,x"},  {"xor", "t,t,t"},          {"fns", "t,t,t,t"},
    // match's result is a 32-bit mask whatever the type (match.any.sync.b64 %r1, %rd1, m).
    {"match", "x,t,x"},      {"atom", ""},
    // multimem: the value register(s) exactly of the type (.f32 in a .b32 register too).
    {"multimem.ld_reduce", "t,m"}, {"multimem.st", "m,t"}, {"multimem.red", "m,t"},
    {"shfl", "t,t,x,x"}, {"isspacep", "p,-"}, // (legacy shfl without .sync; isspacep sets a predicate)
    {"vote", "t,p"},         {"shfl", "t,t,x,x"},     // the forms without .sync (before sm_70)
    {"mbarrier.init", "m,i"}, {"mbarrier.expect_tx", "m,i"}, {"mbarrier.complete_tx", "m,i"},
    // mapa's CTA rank, brx.idx's index: 32-bit integers; lop3's d|p takes a predicate q last.
    {"mapa", "t,t,i"},       {"brx.idx", "i,-"},      {"lop3", "t,t,t,t,-|t,t,t,t,-,p"},
}};

bool has_word(std::span<const std::string_view> words, std::string_view w) {
    for (auto x : words)
        if (x == w) return true;
    return false;
}

// The alternative of `all` ("a,b|a,b,c") with `count` roles, without commas.
std::string_view pick(std::string_view all, size_t count) {
    while (!all.empty()) {
        size_t bar = all.find('|');
        std::string_view alt = all.substr(0, bar);
        if ((alt.size() + 1) / 2 == count) return alt;
        if (bar == std::string_view::npos) break;
        all.remove_prefix(bar + 1);
    }
    return {};
}

} // namespace

std::string_view roles_for(std::string_view key, std::span<const std::string_view> words, size_t count) {
    // mul.wide / mad.wide: the result (and mad's addend) is twice as wide.
    if (has_word(words, "wide")) {
        if (key == "mul" && count == 3) return "w,t,t";
        if (key == "mad" && count == 4) return "w,t,t,w";
    }
    if (key == "atom") { // cas takes two values; the other operations one, then maybe a cache policy
        bool cas = has_word(words, "cas");
        if (count == 3) return cas ? "" : "t,m,t";
        if (count == 4) return cas ? "t,m,t,t" : "t,m,t,-";
        if (count == 5) return cas ? "t,m,t,t,-" : "";
        return {};
    }
    // redux.sync.and.b32 refuses a .f32 register although .b32 would take
    // one elsewhere: its integer forms want integer or bit registers.
    if (key == "redux.sync" && count == 3) return has_word(words, "f32") ? "t,t,x" : "i,i,x";
    // bar.sync a{, b}; bar.red.popc.u32 d, a{, b}, {!}c; bar.red.or.pred p, a{, b}, {!}c
    if (key == "bar" || key == "barrier")
        return pick(has_word(words, "pred") ? "i|i,i|p,i,p|p,i,i,p" : "i|i,i|i,i,p|i,i,i,p", count);
    // The phase is a 64-bit state, or with .parity a 32-bit parity; then a time limit.
    if (key == "mbarrier.test_wait" || key == "mbarrier.try_wait") {
        bool parity = has_word(words, "parity");
        if (count == 3) return parity ? "p,m,i" : "p,m,l";
        if (count == 4) return parity ? "p,m,i,i" : "p,m,l,i";
        return {};
    }
    for (const auto& [k, roles] : role_table)
        if (k == key) return pick(roles, count);
    return {};
}

bool register_fits(data_type want, data_type reg, bool wide) {
    type_info w = info_of(want), r = info_of(reg);
    if (w.kind == type_kind::unknown || r.kind == type_kind::unknown) return true;
    // An 8-bit register goes only where an 8-bit type does (ld.u8, st.s8,
    // cvt.u32.u8, any kind); ptxas refuses it with mov, add, a 32-bit ld ...
    if (r.bits == 8) return w.bits == 8;
    if (w.kind == type_kind::pred || r.kind == type_kind::pred) return want == reg;
    if (wide ? r.bits < w.bits : r.bits != w.bits) return false;
    switch (w.kind) {
    case type_kind::bit: return true;
    // ptxas takes an .f16x2 register for a 32-bit integer (add.u32 %x1, %x1, %r1), not for .f32
    case type_kind::integer:
        return r.kind == type_kind::bit || r.kind == type_kind::integer || reg == data_type::f16x2;
    case type_kind::floating:
    case type_kind::half: return reg == want || r.kind == type_kind::bit;
    default: return true;
    }
}

bool constant_fits(data_type want, operand_kind k) {
    type_info w = info_of(want);
    bool is_float = k == operand_kind::f32 || k == operand_kind::f64;
    switch (w.kind) {
    case type_kind::integer: return !is_float;
    case type_kind::floating: return is_float;
    case type_kind::bit: // a float constant for a bit type must have its width
        return !is_float || (k == operand_kind::f32 ? w.bits == 32 : w.bits == 64);
    case type_kind::half: return false; // no constant form: add.f16 %h1, %h1, 1 and ..., 0f3F800000 are refused
    case type_kind::pred: return !is_float; // mov.pred %p1, 1 is taken, 0f3F800000 is not
    default: return true;
    }
}

std::string describe(data_type want, bool wide) {
    type_info w = info_of(want);
    switch (w.kind) {
    case type_kind::pred: return "a predicate register (.pred)";
    case type_kind::bit:
        return wide ? fmt::format("a register of {} bits or more", w.bits) : fmt::format("a {}-bit register", w.bits);
    case type_kind::integer:
        return wide ? fmt::format("an integer or bit-type register of {} bits or more", w.bits)
                    : fmt::format("a {0}-bit integer register (.b{0}, .s{0} or .u{0})", w.bits);
    case type_kind::floating:
    case type_kind::half:
        return wide ? fmt::format("a .{} register or a bit-type register of {} bits or more", parser::to_string(want), w.bits)
                    : fmt::format("a .{} or .b{} register", parser::to_string(want), w.bits);
    default: return "a register";
    }
}

namespace {

bool is_int(data_type t) { return info_of(t).kind == type_kind::integer; }
bool is_scalar_float(data_type t) {
    return t == data_type::f16 || t == data_type::bf16 || t == data_type::f32 || t == data_type::f64;
}
// Packed and reduced-precision conversions that ptxas makes round, as far as
// they were tried (tf32 from f32, x2 pairs from f32, fp8 pairs and back).
bool packed_needs_rounding(data_type d, data_type a) {
    bool fp8 = [](data_type t) { return t == data_type::e4m3x2 || t == data_type::e5m2x2; }(d);
    bool fp8_src = a == data_type::e4m3x2 || a == data_type::e5m2x2;
    return (d == data_type::tf32 && a == data_type::f32) ||
           ((d == data_type::f16x2 || d == data_type::bf16x2) && a == data_type::f32) ||
           (fp8 && (a == data_type::f32 || a == data_type::f16x2)) || (d == data_type::f16x2 && fp8_src);
}

} // namespace

std::string cvt_rounding_problem(data_type d, data_type a, std::string_view rounding, std::string_view instr) {
    bool none = rounding.empty();
    bool int_round = rounding == "rni" || rounding == "rzi" || rounding == "rmi" || rounding == "rpi";
    bool float_round = !none && !int_round;
    auto needs = [&](std::string_view which, std::string_view why) {
        return fmt::format("'{}' needs a rounding modifier ({}): {}", instr, which, why);
    };
    auto refuses = [&](std::string_view why) {
        return fmt::format("'.{}' is not a rounding of '{}': {}", rounding, instr, why);
    };
    constexpr std::string_view float_modes = ".rn, .rz, .rm or .rp", int_modes = ".rni, .rzi, .rmi or .rpi";
    if (is_int(d) && is_int(a)) {
        if (!none) return refuses("a conversion between integer types does not round");
    } else if (is_scalar_float(d) && is_int(a)) {
        if (none) return needs(float_modes, "an integer-to-float conversion rounds");
        if (int_round) return refuses(fmt::format("an integer-to-float conversion takes {}", float_modes));
    } else if (is_int(d) && is_scalar_float(a)) {
        if (none) return needs(int_modes, "a float-to-integer conversion rounds to an integer");
        if (float_round) return refuses(fmt::format("a float-to-integer conversion takes {}", int_modes));
    } else if (is_scalar_float(d) && is_scalar_float(a)) {
        uint32_t db = info_of(d).bits, ab = info_of(a).bits;
        if (d == a) {
            if (float_round) return refuses(fmt::format("a conversion to the same type only rounds to an integer ({})", int_modes));
        } else if (db > ab && a == data_type::bf16) { // ptxas takes (and ignores) .rn ... here, not .rni
            if (int_round) return refuses(fmt::format("it takes {} or nothing", float_modes));
        } else if (db > ab) {
            if (!none) return refuses("a widening conversion is exact");
        } else if (db < ab) {
            if (none) return needs(float_modes, "a narrowing conversion rounds");
            if (int_round) return refuses(fmt::format("a narrowing conversion takes {}", float_modes));
        } else if (int_round) { // f16 <-> bf16
            return refuses(fmt::format("it takes {}", float_modes));
        }
    } else if (packed_needs_rounding(d, a) && none) {
        return needs(".rn, .rz or another of the modes the conversion allows", "the conversion rounds");
    } else if (packed_needs_rounding(d, a) && int_round) { // cvt.rzi.tf32.f32
        return refuses("a conversion to a packed or reduced-precision type rounds to a float (.rn, .rz, .rna ...)");
    }
    return {};
}

bool cvt_pair_exists(data_type d, data_type a) {
    auto packed = [](data_type t) {
        return t == data_type::tf32 || t == data_type::f16x2 || t == data_type::bf16x2 || t == data_type::e4m3x2 ||
               t == data_type::e5m2x2;
    };
    if (!packed(d) && !packed(a)) return true;
    bool fp8_d = d == data_type::e4m3x2 || d == data_type::e5m2x2, fp8_a = a == data_type::e4m3x2 || a == data_type::e5m2x2;
    return (a == data_type::f32 && (d == data_type::tf32 || d == data_type::f16x2 || d == data_type::bf16x2 || fp8_d)) ||
           (fp8_d && a == data_type::f16x2) || (d == data_type::f16x2 && fp8_a);
}

std::string_view comparisons_for(data_type t) {
    switch (info_of(t).kind) {
    case type_kind::bit: return ".eq, .ne";
    case type_kind::integer:
        return t == data_type::u16 || t == data_type::u32 || t == data_type::u64
                   ? ".eq, .ne, .lt, .le, .gt, .ge, .lo, .ls, .hi, .hs"
                   : ".eq, .ne, .lt, .le, .gt, .ge";
    case type_kind::floating:
    case type_kind::half: return ".eq, .ne, .lt, .le, .gt, .ge, .equ, .neu, .ltu, .leu, .gtu, .geu, .num, .nan";
    default: return {};
    }
}

std::string_view atom_types_for(std::string_view op, bool is_red) {
    if (op == "and" || op == "or" || op == "xor") return ".b32, .b64";
    if (op == "cas") return is_red ? "" : ".b16, .b32, .b64, .b128";
    if (op == "exch") return is_red ? "" : ".b32, .b64, .b128";
    if (op == "add") return ".u32, .s32, .u64, .f32, .f64, .f16, .f16x2, .bf16, .bf16x2";
    if (op == "inc" || op == "dec") return ".u32";
    // Half-precision min/max exist only in the vector forms (.v2 ...).
    if (op == "min" || op == "max") return ".u32, .s32, .u64, .s64";
    return {};
}

} // namespace ptxsim::isa::detail
