// cvt between integer types, between f32 and f64, and between integers and
// floats. Float-to-integer rounds as the modifier says (.rni .rzi .rmi .rpi)
// and saturates as PTX defines it: NaN gives 0, out-of-range values clamp to
// the destination's range. The host's conversions are used only where they
// are exact or round to nearest-even in the default mode (int -> float,
// f64 -> f32 with .rn). Half, bf16, tf32 and fp8 conversions wait for isa/fp.
#include <cmath>

#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"

namespace ptxsim::isa::sem {
namespace {

using parser::data_type;

enum class irnd : uint8_t { none, rni, rzi, rmi, rpi };

int_fast64_t clamp_signed(int64_t v, uint32_t bits) {
    if (bits >= 64) return v;
    int64_t hi = (int64_t(1) << (bits - 1)) - 1, lo = -hi - 1;
    return std::min(std::max(v, lo), hi);
}
uint64_t clamp_unsigned_from_signed(int64_t v, uint32_t bits) {
    if (v < 0) return 0;
    return std::min<uint64_t>(static_cast<uint64_t>(v), mask_bits(bits));
}

// Float (as long double, exact for f32 and f64) to an integer type.
uint64_t float_to_int(long double x, irnd r, data_type to) {
    uint32_t bits = bits_of(to);
    if (x != x) return 0;
    switch (r) {
    case irnd::rni: x = std::nearbyint(x); break; // the default mode rounds half to even
    case irnd::rzi: x = std::trunc(x); break;
    case irnd::rmi: x = std::floor(x); break;
    case irnd::rpi: x = std::ceil(x); break;
    case irnd::none: x = std::trunc(x); break;
    }
    if (is_signed(to)) {
        long double lo = -std::ldexp(1.0L, static_cast<int>(bits - 1)), hi = std::ldexp(1.0L, static_cast<int>(bits - 1)) - 1;
        if (x <= lo) return static_cast<uint64_t>(static_cast<int64_t>(lo)) & mask_bits(bits);
        if (x >= hi) return static_cast<uint64_t>(static_cast<int64_t>(hi)) & mask_bits(bits);
        return static_cast<uint64_t>(static_cast<int64_t>(x)) & mask_bits(bits);
    }
    if (x <= 0) return 0;
    long double hi = std::ldexp(1.0L, static_cast<int>(bits)) - 1;
    if (x >= hi) return mask_bits(bits);
    return static_cast<uint64_t>(x);
}

long double float_value(uint64_t v, data_type t) { return t == data_type::f32 ? as_f32(v) : as_f64(v); }

void cvt_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const data_type to = ins.type, from = ins.type2;
    const uint32_t to_bits = bits_of(to), from_bits = bits_of(from);
    const auto r = static_cast<irnd>(ins.sub);
    const bool sat = ins.flags & 1, ftz = ins.flags & 2;
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t v = read(c, ins.ops[1], lane), out = 0;
        if (is_float(from) && ftz && from == data_type::f32 && std::fpclassify(as_f32(v)) == FP_SUBNORMAL)
            v = bits_f32(std::copysign(0.0f, as_f32(v)));
        if (!is_float(from) && !is_float(to)) {
            int64_t sv = is_signed(from) ? sign_extend(v, from_bits) : static_cast<int64_t>(v & mask_bits(from_bits));
            bool from_big_unsigned = !is_signed(from) && from_bits == 64 && (v >> 63);
            if (sat && is_signed(to)) out = from_big_unsigned ? mask_bits(to_bits - 1) : static_cast<uint64_t>(clamp_signed(sv, to_bits));
            else if (sat) out = from_big_unsigned ? mask_bits(to_bits) : clamp_unsigned_from_signed(sv, to_bits);
            else out = static_cast<uint64_t>(sv);
            out &= mask_bits(to_bits);
        } else if (is_float(from) && !is_float(to)) {
            out = float_to_int(float_value(v, from), r, to);
        } else if (!is_float(from) && is_float(to)) {
            // Integer to float rounds to nearest-even (the only mode the decoder accepts here).
            if (is_signed(from)) {
                int64_t sv = sign_extend(v, from_bits);
                out = to == data_type::f32 ? bits_f32(static_cast<float>(sv)) : bits_f64(static_cast<double>(sv));
            } else {
                uint64_t uv = v & mask_bits(from_bits);
                out = to == data_type::f32 ? bits_f32(static_cast<float>(uv)) : bits_f64(static_cast<double>(uv));
            }
        } else if (from == data_type::f32 && to == data_type::f64) {
            float f = as_f32(v);
            out = f != f ? 0x7FFFFFFFFFFFFFFFull : bits_f64(static_cast<double>(f));
        } else if (from == data_type::f64 && to == data_type::f32) {
            double d = as_f64(v);
            float f = static_cast<float>(d); // nearest-even
            if (ftz && std::fpclassify(f) == FP_SUBNORMAL) f = std::copysign(0.0f, f);
            out = f != f ? 0x7FFFFFFFu : bits_f32(f);
        } else { // same float type: round to an integral value
            long double x = float_value(v, from);
            if (x == x) {
                switch (r) {
                case irnd::rni: x = std::nearbyint(x); break;
                case irnd::rzi: x = std::trunc(x); break;
                case irnd::rmi: x = std::floor(x); break;
                case irnd::rpi: x = std::ceil(x); break;
                default: break;
                }
            }
            out = to == data_type::f32 ? (x != x ? 0x7FFFFFFFu : bits_f32(static_cast<float>(x)))
                                       : (x != x ? 0x7FFFFFFFFFFFFFFFull : bits_f64(static_cast<double>(x)));
        }
        if (sat && is_float(to)) {
            double d = to == data_type::f32 ? as_f32(out) : as_f64(out);
            d = d != d ? 0.0 : std::min(std::max(d, 0.0), 1.0);
            out = to == data_type::f32 ? bits_f32(static_cast<float>(d)) : bits_f64(d);
        }
        write(c, ins.ops[0], lane, out);
    });
}

std::string dec_cvt(const matched_instruction& m, exec_instruction& out) {
    auto ok_type = [](data_type t) { return t != data_type::none && (!is_float(t) || t == data_type::f32 || t == data_type::f64); };
    if (!ok_type(out.type) || !ok_type(out.type2)) return "conversions of half, bf16, tf32 and fp8 types are not implemented yet";
    std::string_view rnd = m.get("rnd");
    if (m.has("relu") || m.has("satfinite")) return "this cvt modifier is not implemented yet";
    bool f2i = is_float(out.type2) && !is_float(out.type);
    bool same_float = is_float(out.type2) && out.type == out.type2;
    if (f2i || same_float) {
        out.sub = static_cast<uint8_t>(rnd == "rni" ? irnd::rni : rnd == "rzi" ? irnd::rzi : rnd == "rmi" ? irnd::rmi
                                       : rnd == "rpi" ? irnd::rpi : irnd::none);
    } else if (!rnd.empty() && rnd != "rn") {
        return "directed rounding in conversions is not implemented yet";
    }
    if (m.has("sat")) out.flags |= 1;
    if (m.has("ftz")) out.flags |= 2;
    out.run = cvt_handler;
    return {};
}

constexpr entry entries[] = {{"cvt", dec_cvt}};

} // namespace

std::span<const entry> cvt_entries() { return entries; }

} // namespace ptxsim::isa::sem
