// Bit and byte manipulation: prmt (every mode), lop3, shf, bfe, bfi, bfind,
// fns, bmsk, szext, mul24/mad24, sad, dp4a/dp2a. Definitions follow the PTX
// ISA's pseudocode for each instruction.
#include <algorithm>

#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"

namespace ptxsim::isa::sem {
namespace {

using parser::data_type;

uint32_t u32(exec_context& c, const exec_instruction& ins, int i, uint32_t lane) {
    return static_cast<uint32_t>(read(c, ins.ops[i], lane));
}

enum class prmt_mode : uint8_t { def, f4e, b4e, rc8, ecl, ecr, rc16 };

uint32_t prmt(uint32_t a, uint32_t b, uint32_t c, prmt_mode mode) {
    uint64_t bytes = (uint64_t(b) << 32) | a; // b4..b7 from b, b0..b3 from a
    auto byte = [&](uint32_t i) { return static_cast<uint32_t>((bytes >> (8 * (i & 7))) & 0xFF); };
    uint32_t out = 0;
    if (mode == prmt_mode::def) {
        for (uint32_t k = 0; k < 4; ++k) {
            uint32_t sel = (c >> (4 * k)) & 0xF;
            uint32_t v = byte(sel & 7);
            if (sel & 8) v = (v & 0x80) ? 0xFF : 0x00; // replicate the sign bit
            out |= v << (8 * k);
        }
        return out;
    }
    // The special modes use c[1:0]; byte k of d takes source byte idx(k):
    // f4e s+k, b4e s-k (mod 8), rc8 s, ecl max(k,s), ecr min(k,s), rc16 2*(s&1)+(k&1).
    uint32_t s = c & 3;
    for (uint32_t k = 0; k < 4; ++k) {
        uint32_t idx = 0;
        switch (mode) {
        case prmt_mode::f4e: idx = s + k; break;
        case prmt_mode::b4e: idx = (s - k) & 7; break;
        case prmt_mode::rc8: idx = s; break;
        case prmt_mode::ecl: idx = std::max(k, s); break;
        case prmt_mode::ecr: idx = std::min(k, s); break;
        case prmt_mode::rc16: idx = 2 * (s & 1) + (k & 1); break;
        default: break;
        }
        out |= byte(idx) << (8 * k);
    }
    return out;
}

void prmt_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    for_lanes(mask, [&](uint32_t lane) {
        write(c, ins.ops[0], lane, prmt(u32(c, ins, 1, lane), u32(c, ins, 2, lane), u32(c, ins, 3, lane), static_cast<prmt_mode>(ins.sub)));
    });
}
std::string dec_prmt(const matched_instruction& m, exec_instruction& out) {
    std::string_view s = m.get("mode");
    out.sub = static_cast<uint8_t>(s.empty() ? prmt_mode::def : s == "f4e" ? prmt_mode::f4e : s == "b4e" ? prmt_mode::b4e
                                   : s == "rc8" ? prmt_mode::rc8 : s == "ecl" ? prmt_mode::ecl : s == "ecr" ? prmt_mode::ecr
                                   : prmt_mode::rc16);
    out.run = prmt_handler;
    return {};
}

// lop3.b32 d, a, b, c, immLut: each result bit is immLut[a_bit*4 + b_bit*2 + c_bit]
// lop3.{and,or}.b32 d|p, a, b, c, immLut, q: also p = (d != 0) and/or q
void lop3_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const int s = ins.dest_pair ? 2 : 1; // first source
    for_lanes(mask, [&](uint32_t lane) {
        uint32_t a = u32(c, ins, s, lane), b = u32(c, ins, s + 1, lane), cc = u32(c, ins, s + 2, lane), lut = u32(c, ins, s + 3, lane) & 0xFF;
        uint32_t r = 0;
        for (uint32_t i = 0; i < 8; ++i) {
            if (!((lut >> i) & 1)) continue;
            uint32_t ma = (i & 4) ? a : ~a, mb = (i & 2) ? b : ~b, mc = (i & 1) ? cc : ~cc;
            r |= ma & mb & mc;
        }
        write(c, ins.ops[0], lane, r);
        if (ins.dest_pair) {
            bool q = read(c, ins.ops[6], lane) & 1;
            write(c, ins.ops[1], lane, ins.flags & 1 ? (r != 0 && q) : (r != 0 || q));
        }
    });
}
std::string dec_lop3(const matched_instruction& m, exec_instruction& out) {
    // The predicate form is d|p, a, b, c, immLut, q: seven operands once the pipe is split.
    if (m.has("bool") != out.dest_pair || (out.dest_pair && out.nops != 7))
        return "lop3 takes d|p and q together with .and/.or, and neither without";
    out.flags = m.get("bool") == "and" ? 1 : 0;
    out.run = lop3_handler;
    return {};
}

// shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: funnel shift of the 64-bit b:a by c
void shf_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const bool left = ins.flags & 1, clamp = ins.flags & 2;
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t v = (uint64_t(u32(c, ins, 2, lane)) << 32) | u32(c, ins, 1, lane);
        uint32_t n = u32(c, ins, 3, lane);
        n = clamp ? std::min<uint32_t>(n, 32) : (n & 31);
        uint32_t r = left ? static_cast<uint32_t>((v << n) >> 32) : static_cast<uint32_t>(v >> n);
        write(c, ins.ops[0], lane, r);
    });
}
std::string dec_shf(const matched_instruction& m, exec_instruction& out) {
    out.flags = (m.get("dir") == "l" ? 1 : 0) | (m.get("mode") == "clamp" ? 2 : 0);
    out.run = shf_handler;
    return {};
}

// bfe.type d, a, pos, len: extract len bits at pos, sign-extended for signed types
void bfe_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const uint32_t bits = bits_of(ins.type);
    const bool sign = is_signed(ins.type);
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t a = read(c, ins.ops[1], lane) & mask_bits(bits);
        uint32_t pos = u32(c, ins, 2, lane) & 0xFF, len = u32(c, ins, 3, lane) & 0xFF;
        uint64_t r = 0;
        // Bits past the field (or past the top of a) are the field's sign for signed types, else 0.
        bool sbit = sign && len != 0 && ((a >> std::min(pos + len - 1, bits - 1)) & 1);
        for (uint32_t i = 0; i < bits; ++i) {
            bool bit = i < len && pos + i < bits ? (a >> (pos + i)) & 1 : sbit;
            r |= uint64_t(bit) << i;
        }
        write(c, ins.ops[0], lane, r);
    });
}
// bfi.type f, a, b, pos, len: insert the low len bits of a into b at pos
void bfi_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const uint32_t bits = bits_of(ins.type);
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t a = read(c, ins.ops[1], lane), b = read(c, ins.ops[2], lane) & mask_bits(bits);
        uint32_t pos = u32(c, ins, 3, lane) & 0xFF, len = u32(c, ins, 4, lane) & 0xFF;
        for (uint32_t i = 0; i < len && pos + i < bits; ++i) b = (b & ~(1ull << (pos + i))) | (((a >> i) & 1) << (pos + i));
        write(c, ins.ops[0], lane, b);
    });
}
// bfind.type d, a: position of the most significant non-sign bit; 0xFFFFFFFF when none
void bfind_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const uint32_t bits = bits_of(ins.type);
    const bool sign = is_signed(ins.type), shiftamt = ins.flags & 1;
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t a = read(c, ins.ops[1], lane) & mask_bits(bits);
        if (sign && ((a >> (bits - 1)) & 1)) a = ~a & mask_bits(bits);
        uint32_t r = 0xFFFFFFFFu;
        for (int i = static_cast<int>(bits) - 1; i >= 0; --i)
            if ((a >> i) & 1) {
                r = static_cast<uint32_t>(i);
                break;
            }
        if (shiftamt && r != 0xFFFFFFFFu) r = bits - 1 - r;
        write(c, ins.ops[0], lane, r);
    });
}

// fns.b32 d, mask, base, offset: the offset-th set bit of mask counting from base
void fns_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    for_lanes(mask, [&](uint32_t lane) {
        uint32_t m = u32(c, ins, 1, lane), base = u32(c, ins, 2, lane) & 31;
        int32_t off = static_cast<int32_t>(u32(c, ins, 3, lane));
        uint32_t r = 0xFFFFFFFFu;
        if (off == 0) {
            r = base;
        } else if (off > 0) {
            int count = 0;
            for (uint32_t i = base; i < 32; ++i)
                if ((m >> i) & 1 && ++count == off) {
                    r = i;
                    break;
                }
        } else {
            int count = 0;
            for (int i = static_cast<int>(base); i >= 0; --i)
                if ((m >> i) & 1 && --count == off) {
                    r = static_cast<uint32_t>(i);
                    break;
                }
        }
        write(c, ins.ops[0], lane, r);
    });
}

// bmsk.mode.b32 d, a, b: b ones starting at bit a
void bmsk_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const bool clamp = ins.flags & 1;
    for_lanes(mask, [&](uint32_t lane) {
        uint32_t a = u32(c, ins, 1, lane), b = u32(c, ins, 2, lane);
        if (!clamp) a &= 31, b &= 31;
        a = std::min<uint32_t>(a, 32);
        b = std::min<uint32_t>(b, 32);
        uint64_t r = ((1ull << std::min<uint32_t>(a + b, 32)) - 1) & ~((1ull << a) - 1);
        write(c, ins.ops[0], lane, static_cast<uint32_t>(r));
    });
}

// szext.mode.type d, a, b: sign- or zero-extend the low b bits of a
void szext_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const bool clamp = ins.flags & 1, sign = is_signed(ins.type);
    for_lanes(mask, [&](uint32_t lane) {
        uint32_t a = u32(c, ins, 1, lane), b = u32(c, ins, 2, lane);
        b = clamp ? std::min<uint32_t>(b, 32) : (b & 31);
        uint32_t r = b == 0 ? 0 : b >= 32 ? a : (sign ? static_cast<uint32_t>(sign_extend(a, b)) : a & static_cast<uint32_t>(mask_bits(b)));
        write(c, ins.ops[0], lane, r);
    });
}

// mul24/mad24 .lo/.hi: 24-bit operands, low or high 32 bits of the 48-bit product;
// mad24.hi.sat.s32 clamps the signed sum of the high half and c to s32.
void mul24_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const bool hi = ins.flags & 1, mad = ins.flags & 2, sat = ins.flags & 4, sign = is_signed(ins.type);
    for_lanes(mask, [&](uint32_t lane) {
        int64_t a = sign ? sign_extend(u32(c, ins, 1, lane), 24) : (u32(c, ins, 1, lane) & 0xFFFFFF);
        int64_t b = sign ? sign_extend(u32(c, ins, 2, lane), 24) : (u32(c, ins, 2, lane) & 0xFFFFFF);
        uint64_t p = static_cast<uint64_t>(a * b);
        uint32_t r = hi ? static_cast<uint32_t>(p >> 16) : static_cast<uint32_t>(p);
        if (sat) {
            int64_t s = static_cast<int64_t>(static_cast<int32_t>(r)) + static_cast<int32_t>(u32(c, ins, 3, lane));
            r = static_cast<uint32_t>(std::clamp<int64_t>(s, INT32_MIN, INT32_MAX));
        } else if (mad) {
            r += u32(c, ins, 3, lane);
        }
        write(c, ins.ops[0], lane, r);
    });
}

// sad.type d, a, b, c: c + |a - b|
void sad_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const uint32_t bits = bits_of(ins.type);
    const bool sign = is_signed(ins.type);
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t a = read(c, ins.ops[1], lane), b = read(c, ins.ops[2], lane);
        uint64_t d;
        if (sign) {
            int64_t x = sign_extend(a, bits), y = sign_extend(b, bits);
            d = static_cast<uint64_t>(x > y ? x - y : y - x);
        } else {
            a &= mask_bits(bits), b &= mask_bits(bits);
            d = a > b ? a - b : b - a;
        }
        write(c, ins.ops[0], lane, (read(c, ins.ops[3], lane) + d) & mask_bits(bits));
    });
}

// dp4a.atype.btype d, a, b, c: c + dot of four byte pairs; dp2a: two half-words with two bytes
void dp_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const bool sa = is_signed(ins.type), sb = is_signed(ins.type2), two = ins.flags & 1, hi = ins.flags & 2;
    for_lanes(mask, [&](uint32_t lane) {
        uint32_t a = u32(c, ins, 1, lane), b = u32(c, ins, 2, lane);
        int64_t acc = static_cast<int32_t>(u32(c, ins, 3, lane));
        if (!sa && !sb) acc = u32(c, ins, 3, lane);
        if (!two) {
            for (int i = 0; i < 4; ++i) {
                int64_t x = sa ? static_cast<int8_t>(a >> (8 * i)) : static_cast<uint8_t>(a >> (8 * i));
                int64_t y = sb ? static_cast<int8_t>(b >> (8 * i)) : static_cast<uint8_t>(b >> (8 * i));
                acc += x * y;
            }
        } else {
            for (int i = 0; i < 2; ++i) {
                int64_t x = sa ? static_cast<int16_t>(a >> (16 * i)) : static_cast<uint16_t>(a >> (16 * i));
                int shift = 8 * (i + (hi ? 2 : 0));
                int64_t y = sb ? static_cast<int8_t>(b >> shift) : static_cast<uint8_t>(b >> shift);
                acc += x * y;
            }
        }
        write(c, ins.ops[0], lane, static_cast<uint32_t>(acc));
    });
}

template <void (*H)(exec_context&, const exec_instruction&, uint32_t)>
std::string plain(const matched_instruction&, exec_instruction& out) {
    out.run = H;
    return {};
}
std::string dec_bfind(const matched_instruction& m, exec_instruction& out) {
    out.flags = m.has("shiftamt") ? 1 : 0;
    out.run = bfind_handler;
    return {};
}
std::string dec_clamp_mode(const matched_instruction& m, exec_instruction& out) {
    out.flags = m.get("mode") == "clamp" ? 1 : 0;
    out.run = m.row->key == "bmsk" ? bmsk_handler : szext_handler;
    return {};
}
std::string dec_mul24(const matched_instruction& m, exec_instruction& out) {
    // ptxas takes .sat only as mad24.hi.sat.s32 (the table's rule gives the .s32).
    if (m.has("sat") && m.get("mode") != "hi") return "mad24.lo.sat is not valid PTX (only mad24.hi.sat.s32)";
    out.flags = static_cast<uint8_t>((m.get("mode") == "hi" ? 1 : 0) | (m.row->key == "mad24" ? 2 : 0) | (m.has("sat") ? 4 : 0));
    out.run = mul24_handler;
    return {};
}
std::string dec_dp(const matched_instruction& m, exec_instruction& out) {
    out.flags = (m.row->key == "dp2a" ? 1 : 0) | (m.get("mode") == "hi" ? 2 : 0);
    out.run = dp_handler;
    return {};
}

constexpr entry entries[] = {
    {"prmt", dec_prmt}, {"lop3", dec_lop3}, {"shf", dec_shf}, {"bfe", plain<bfe_handler>}, {"bfi", plain<bfi_handler>},
    {"bfind", dec_bfind}, {"fns", plain<fns_handler>}, {"bmsk", dec_clamp_mode}, {"szext", dec_clamp_mode},
    {"mul24", dec_mul24}, {"mad24", dec_mul24}, {"sad", plain<sad_handler>}, {"dp4a", dec_dp}, {"dp2a", dec_dp},
};

} // namespace

std::span<const entry> bits_entries() { return entries; }

} // namespace ptxsim::isa::sem
