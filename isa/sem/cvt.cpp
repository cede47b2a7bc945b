// cvt: every conversion between integer types, f16, bf16, f32, f64, tf32
// and the fp8 pairs (e4m3x2, e5m2x2), with the rounding, .ftz, .sat, .relu
// and .satfinite modifiers. Float work is isa/fp's exact implementation
// (tested against MPFR). Integer-to-integer conversions truncate or, with
// .sat, clamp; float-to-integer saturates as PTX defines (NaN gives 0).
// The sm_100a fp6/fp4/ue8m0 types are cvt_mx.cpp, stochastic rounding
// (cvt.rs) is cvt_rs.cpp.
#include <array>

#include "isa/fp/convert.hpp"
#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"

namespace ptxsim::isa::sem {
namespace {

using parser::data_type;
using fp::rounding;

enum cflags : uint8_t { c_sat = 1, c_ftz = 2, c_relu = 4, c_satfinite = 8, c_two_sources = 16, c_int_round = 32 };

// cvt{.ftz}{.sat}.f32.f32 (no .rni-style modifier): flush and saturate only.
uint64_t same_float(uint64_t v, data_type t, uint8_t flags) {
    uint32_t bits = bits_of(t);
    uint32_t mbits = t == data_type::f64 ? 52 : t == data_type::f32 ? 23 : t == data_type::bf16 ? 7 : 10;
    uint64_t sign = 1ull << (bits - 1), abs_mask = sign - 1, exp_mask = abs_mask & ~((1ull << mbits) - 1);
    v &= mask_bits(bits);
    bool nan = (v & exp_mask) == exp_mask && (v & ((1ull << mbits) - 1));
    if ((flags & c_ftz) && (v & exp_mask) == 0) v &= sign; // subnormal -> signed zero
    if (flags & c_sat) {
        uint64_t one = (exp_mask >> 1) & exp_mask; // the exponent bias with a zero fraction: 1.0
        if (nan || (v & sign)) v = 0;               // NaN, negative numbers and -0 give +0
        else if (v > one) v = one;
    }
    return v;
}

bool is_int(data_type t) { return !is_float(t) && t != data_type::tf32 && t != data_type::e4m3x2 && t != data_type::e5m2x2; }

fp::int_type int_kind(data_type t) {
    switch (t) {
    case data_type::s8: return fp::int_type::s8;
    case data_type::s16: return fp::int_type::s16;
    case data_type::s32: return fp::int_type::s32;
    case data_type::s64: return fp::int_type::s64;
    case data_type::u8: case data_type::b8: return fp::int_type::u8;
    case data_type::u16: case data_type::b16: return fp::int_type::u16;
    case data_type::u32: case data_type::b32: return fp::int_type::u32;
    default: return fp::int_type::u64;
    }
}

// Any float source widened exactly to f64 bits (f64 holds every f16/bf16/f32 value).
uint64_t to_f64(uint64_t v, data_type t) {
    switch (t) {
    case data_type::f16: return fp::cvt_f64_f32(fp::cvt_f32_f16(static_cast<uint16_t>(v)));
    case data_type::bf16: return fp::cvt_f64_f32(fp::cvt_f32_bf16(static_cast<uint16_t>(v)));
    case data_type::f32: return fp::cvt_f64_f32(static_cast<uint32_t>(v));
    default: return v;
    }
}

uint64_t int_to_int(uint64_t v, data_type from, data_type to, bool sat) {
    uint32_t fb = bits_of(from), tb = bits_of(to);
    bool from_signed = is_signed(from);
    int64_t sv = from_signed ? sign_extend(v, fb) : 0;
    uint64_t uv = v & mask_bits(fb);
    if (!sat) return (from_signed ? static_cast<uint64_t>(sv) : uv) & mask_bits(tb);
    if (is_signed(to)) {
        int64_t hi = static_cast<int64_t>(mask_bits(tb - 1)), lo = -hi - 1;
        if (from_signed) return static_cast<uint64_t>(std::min(std::max(sv, lo), hi)) & mask_bits(tb);
        return std::min<uint64_t>(uv, static_cast<uint64_t>(hi));
    }
    if (from_signed) return sv < 0 ? 0 : std::min<uint64_t>(static_cast<uint64_t>(sv), mask_bits(tb));
    return std::min<uint64_t>(uv, mask_bits(tb));
}

uint64_t convert(uint64_t v, uint64_t v2, data_type to, data_type from, rounding r, uint8_t flags) {
    fp::cvt_mods m{(flags & c_ftz) != 0, (flags & c_sat) != 0, (flags & c_relu) != 0, (flags & c_satfinite) != 0};
    // A signed result sits sign-extended in a register wider than its type
    // (cvt.s8.f32 into a .s16 register), as ld.s8 leaves it.
    auto widen = [&](uint64_t r) { return is_signed(to) ? static_cast<uint64_t>(sign_extend(r, bits_of(to))) : r; };
    if (is_int(to) && is_int(from)) return widen(int_to_int(v, from, to, flags & c_sat));
    if (is_int(to)) { // float to integer
        fp::int_type t = int_kind(to);
        uint64_t r64;
        switch (from) {
        case data_type::f16: r64 = fp::cvt_int_f16(static_cast<uint16_t>(v), t, r); break;
        case data_type::bf16: r64 = fp::cvt_int_bf16(static_cast<uint16_t>(v), t, r); break;
        case data_type::f32: r64 = fp::cvt_int_f32(static_cast<uint32_t>(v), t, r, m); break;
        default: r64 = fp::cvt_int_f64(v, t, r, m); break;
        }
        return widen(r64 & mask_bits(bits_of(to)));
    }
    if (is_int(from)) { // integer to float
        fp::int_type t = int_kind(from);
        uint64_t src = v & mask_bits(bits_of(from));
        switch (to) {
        case data_type::f16: return fp::cvt_f16_int(src, t, r, m);
        case data_type::bf16: return fp::cvt_bf16_int(src, t, r, m);
        case data_type::f32: return fp::cvt_f32_int(src, t, r, m);
        default: return fp::cvt_f64_int(src, t, r, m);
        }
    }
    if (to == from && !(flags & c_int_round)) return same_float(v, to, flags);
    if (to == from) { // round to an integral value in the same format
        switch (to) {
        case data_type::f16: return fp::cvt_int_round_f16(static_cast<uint16_t>(v), r, m);
        case data_type::bf16: return fp::cvt_int_round_bf16(static_cast<uint16_t>(v), r, m);
        case data_type::f32: return fp::cvt_int_round_f32(static_cast<uint32_t>(v), r, m);
        default: return fp::cvt_int_round_f64(v, r, m);
        }
    }
    // fp8 pairs: two f32 sources (cvt.rn.satfinite.e4m3x2.f32 d, a, b puts a in the upper byte)
    if (to == data_type::e4m3x2 || to == data_type::e5m2x2) {
        bool e4 = to == data_type::e4m3x2;
        auto one = [&](uint64_t x) -> uint64_t {
            if (from == data_type::f16x2 || from == data_type::f16)
                return e4 ? fp::cvt_e4m3_f16(static_cast<uint16_t>(x), r, m) : fp::cvt_e5m2_f16(static_cast<uint16_t>(x), r, m);
            return e4 ? fp::cvt_e4m3_f32(static_cast<uint32_t>(x), r, m) : fp::cvt_e5m2_f32(static_cast<uint32_t>(x), r, m);
        };
        if (from == data_type::f16x2) return one(v & 0xFFFF) | (one(v >> 16) << 8);
        return (one(v) << 8) | one(v2);
    }
    if (from == data_type::e4m3x2 || from == data_type::e5m2x2) { // to f16x2
        bool e4 = from == data_type::e4m3x2;
        auto one = [&](uint8_t x) -> uint64_t { return e4 ? fp::cvt_f16_e4m3(x, m) : fp::cvt_f16_e5m2(x, m); };
        return one(static_cast<uint8_t>(v)) | (one(static_cast<uint8_t>(v >> 8)) << 16);
    }
    if ((to == data_type::f16x2 || to == data_type::bf16x2) && (flags & c_two_sources)) {
        // cvt.rn.f16x2.f32 d, a, b: a goes to the upper half
        auto one = [&](uint64_t x) -> uint64_t {
            return to == data_type::f16x2 ? fp::cvt_f16_f32(static_cast<uint32_t>(x), r, m) : fp::cvt_bf16_f32(static_cast<uint32_t>(x), r, m);
        };
        return (one(v) << 16) | one(v2);
    }
    // A bf16 NaN widened to f32 only moves up 16 bits (a signalling NaN stays
    // signalling, observed on H200); the f64 detour below would quiet it.
    if (to == data_type::f32 && from == data_type::bf16 && (v & 0x7FFF) > 0x7F80 && !(flags & c_sat))
        return fp::cvt_f32_bf16(static_cast<uint16_t>(v));
    uint64_t wide = to_f64(v, from);
    switch (to) {
    case data_type::f16: return from == data_type::f32 ? fp::cvt_f16_f32(static_cast<uint32_t>(v), r, m) : fp::cvt_f16_f64(wide, r, m);
    case data_type::bf16: return from == data_type::f32 ? fp::cvt_bf16_f32(static_cast<uint32_t>(v), r, m) : fp::cvt_bf16_f64(wide, r, m);
    case data_type::tf32: return fp::cvt_tf32_f32(static_cast<uint32_t>(v), r, m);
    case data_type::f32: return from == data_type::f64 ? fp::cvt_f32_f64(v, r, m) : fp::cvt_f32_f64(wide, rounding::rn, m); // exact widening
    default: return wide; // f64 from a narrower float: exact
    }
}

// ---- Whole-warp paths the decoder picks for the conversions hot loops use,
// when no .ftz/.sat/.relu/.satfinite applies. Their results are convert()'s:
// the tables are filled from it, and the host conversions are exact IEEE
// operations in the default round-to-nearest-even mode (NaNs, whose payload
// rules are PTX's, go to convert()). tests/sim/cvt_fast_path_test.cpp
// compares them with the exact library.
const std::array<uint32_t, 65536>& f16_to_f32() {
    static const auto table = [] {
        std::array<uint32_t, 65536> t{};
        for (uint32_t i = 0; i < t.size(); ++i) t[i] = static_cast<uint32_t>(convert(i, 0, data_type::f32, data_type::f16, rounding::rn, 0));
        return t;
    }();
    return table;
}
template <data_type From>
const std::array<uint16_t, 256>& fp8_to_f16() {
    static const auto table = [] {
        std::array<uint16_t, 256> t{};
        for (uint32_t i = 0; i < t.size(); ++i) t[i] = static_cast<uint16_t>(convert(i, 0, data_type::f16x2, From, rounding::rn, 0));
        return t;
    }();
    return table;
}

void cvt_f32_f16_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const uint32_t* t = f16_to_f32().data();
    lanewise<1>(c, ins, mask, [t](uint64_t a, uint64_t, uint64_t) -> uint64_t { return t[a & 0xFFFF]; });
}
template <data_type From>
void cvt_f16x2_fp8x2_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const uint16_t* t = fp8_to_f16<From>().data();
    lanewise<1>(c, ins, mask, [t](uint64_t a, uint64_t, uint64_t) -> uint64_t {
        return t[a & 0xFF] | (uint64_t(t[(a >> 8) & 0xFF]) << 16);
    });
}
// Integer to float in round-to-nearest (f64 holds every 32-bit integer exactly).
template <data_type To, data_type From>
void cvt_float_int_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    lanewise<1>(c, ins, mask, [](uint64_t a, uint64_t, uint64_t) -> uint64_t {
        auto v = From == data_type::s32 ? static_cast<int64_t>(static_cast<int32_t>(a)) : static_cast<int64_t>(static_cast<uint32_t>(a));
        if constexpr (To == data_type::f32) return bits_f32(static_cast<float>(v));
        else return bits_f64(static_cast<double>(v));
    });
}
// f32 -> f64 (exact) and f64 -> f32 (rn) on the host, NaNs by convert().
template <data_type To, data_type From>
void cvt_float_float_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    lanewise<1>(c, ins, mask, [](uint64_t a, uint64_t, uint64_t) -> uint64_t {
        if constexpr (To == data_type::f64) {
            float f = as_f32(a);
            return f == f ? bits_f64(static_cast<double>(f)) : convert(a, 0, To, From, rounding::rn, 0);
        } else {
            double d = as_f64(a);
            return d == d ? bits_f32(static_cast<float>(d)) : convert(a, 0, To, From, rounding::rn, 0);
        }
    });
}

// Integer to integer without .sat (cvt.u64.u32 and cvt.s64.s32 around most
// address computations) for the whole warp at once, as convert() does it:
// the source's bits extended by its signedness, the destination's bits kept,
// and a signed result sign-extended in its register.
void cvt_int_int_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const uint32_t fs = 64 - bits_of(ins.type2), ts = 64 - bits_of(ins.type);
    const bool from_signed = is_signed(ins.type2), to_signed = is_signed(ins.type);
    lanewise<1>(c, ins, mask, [=](uint64_t v, uint64_t, uint64_t) {
        uint64_t x = from_signed ? static_cast<uint64_t>(static_cast<int64_t>(v << fs) >> fs) : (v << fs) >> fs;
        x = (x << ts) >> ts;
        return to_signed ? static_cast<uint64_t>(static_cast<int64_t>(x << ts) >> ts) : x;
    });
}

// The fast handler for this conversion, or nullptr.
handler fast_cvt(data_type to, data_type from, rounding r, uint8_t flags, uint32_t nops) {
    if (flags || nops != 2) return nullptr;
    if (is_int(to) && is_int(from) && bits_of(to) && bits_of(from)) return cvt_int_int_handler;
    if (to == data_type::f32 && from == data_type::f16) return cvt_f32_f16_handler;
    if (to == data_type::f16x2 && from == data_type::e4m3x2) return cvt_f16x2_fp8x2_handler<data_type::e4m3x2>;
    if (to == data_type::f16x2 && from == data_type::e5m2x2) return cvt_f16x2_fp8x2_handler<data_type::e5m2x2>;
    if (to == data_type::f64 && from == data_type::f32) return cvt_float_float_handler<data_type::f64, data_type::f32>;
    if (to == data_type::f64 && from == data_type::s32) return cvt_float_int_handler<data_type::f64, data_type::s32>;
    if (to == data_type::f64 && from == data_type::u32) return cvt_float_int_handler<data_type::f64, data_type::u32>;
    if (r != rounding::rn) return nullptr;
    if (to == data_type::f32 && from == data_type::f64) return cvt_float_float_handler<data_type::f32, data_type::f64>;
    if (to == data_type::f32 && from == data_type::s32) return cvt_float_int_handler<data_type::f32, data_type::s32>;
    if (to == data_type::f32 && from == data_type::u32) return cvt_float_int_handler<data_type::f32, data_type::u32>;
    return nullptr;
}

void cvt_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const auto r = static_cast<rounding>(ins.sub);
    const bool two = ins.nops >= 3; // cvt.rn.f16x2.f32 d, a, b and the fp8-pair forms
    const uint8_t flags = static_cast<uint8_t>(ins.flags | (two ? c_two_sources : 0));
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t v = read(c, ins.ops[1], lane);
        uint64_t v2 = two ? read(c, ins.ops[2], lane) : 0;
        write(c, ins.ops[0], lane, convert(v, v2, ins.type, ins.type2, r, flags));
    });
}

std::string dec_cvt(const matched_instruction& m, exec_instruction& out) {
    std::string_view rnd = m.get("rnd");
    if (rnd == "rs") return decode_cvt_rs(m, out);
    // The sm_100a narrow types are cvt modifiers only, not parser data types.
    if (out.type == data_type::none || out.type2 == data_type::none) return decode_cvt_mx(m, out);
    if (rnd == "rni" || rnd == "rzi" || rnd == "rmi" || rnd == "rpi") out.flags |= c_int_round;
    if (rnd == "rni" || rnd == "rn" || rnd.empty()) out.sub = static_cast<uint8_t>(rounding::rn);
    else if (rnd == "rzi" || rnd == "rz") out.sub = static_cast<uint8_t>(rounding::rz);
    else if (rnd == "rmi" || rnd == "rm") out.sub = static_cast<uint8_t>(rounding::rm);
    else if (rnd == "rpi" || rnd == "rp") out.sub = static_cast<uint8_t>(rounding::rp);
    else if (rnd == "rna") out.sub = static_cast<uint8_t>(rounding::rna);
    // Float to integer without a rounding modifier truncates (ptxas requires one for floats; ints convert exactly).
    if (rnd.empty() && is_float(out.type2) && is_int(out.type)) out.sub = static_cast<uint8_t>(rounding::rz);
    if (m.has("sat")) out.flags |= c_sat;
    if (m.has("ftz")) out.flags |= c_ftz;
    if (m.has("relu")) out.flags |= c_relu;
    if (m.has("satfinite")) out.flags |= c_satfinite;
    handler fast = fast_cvt(out.type, out.type2, static_cast<rounding>(out.sub), out.flags, out.nops);
    out.run = fast ? fast : cvt_handler;
    return {};
}

constexpr entry entries[] = {{"cvt", dec_cvt}};

} // namespace

std::span<const entry> cvt_entries() { return entries; }

} // namespace ptxsim::isa::sem
