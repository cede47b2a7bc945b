#pragma once
// Where wgmma's operands live (PTX ISA, "Asynchronous Warpgroup Level
// Matrix ..." sections): the per-lane register fragments of A and D, and
// the shared-memory matrix descriptor with its canonical layouts.
#include <cstdint>

namespace ptxsim::isa::sem::wgmma {

// Row and column (inside the warp's 16-row slice) of element i of D.
// Each 8-column block repeats the m16n8 accumulator pattern: two elements
// per lane per row, rows g and g + 8.
struct rc {
    uint32_t row, col;
};
inline rc d_element(uint32_t lane, uint32_t i) {
    const uint32_t g = lane >> 2, t = lane & 3;
    return {g + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * t + (i & 1)};
}

// The 64-bit matrix descriptor. Addresses and offsets are stored as
// multiples of 16 bytes.
enum class swizzle : uint8_t { none = 0, b128 = 1, b64 = 2, b32 = 3 };
struct descriptor {
    uint32_t start = 0, lbo = 0, sbo = 0; // bytes
    uint32_t base_offset = 0;
    swizzle mode = swizzle::none;
};
inline descriptor decode_descriptor(uint64_t d) {
    descriptor r;
    r.start = static_cast<uint32_t>(d & 0x3FFF) << 4;
    r.lbo = static_cast<uint32_t>((d >> 16) & 0x3FFF) << 4;
    r.sbo = static_cast<uint32_t>((d >> 32) & 0x3FFF) << 4;
    r.base_offset = static_cast<uint32_t>((d >> 49) & 7);
    r.mode = static_cast<swizzle>(d >> 62);
    return r;
}
// Bytes in one row of a swizzle atom (8 such rows form the atom).
inline uint32_t swizzle_bytes(swizzle s) {
    return s == swizzle::b128 ? 128 : s == swizzle::b64 ? 64 : s == swizzle::b32 ? 32 : 16;
}

// The shared address of byte `kbyte` along K (K-major) of row `mn` along M
// or N, or, MN-major (the transposed 16-bit forms), of byte `mnbyte` along
// M/N in K row `k`; before swizzling. The canonical layouts are built of
// 8-row by 16-byte core matrices (no swizzle) or 8-row by W-byte swizzle
// atoms (W = 32, 64, 128):
//  K-major, none:    core matrices K-adjacent at LBO, M/N-adjacent at SBO
//  K-major, W:       rows W bytes apart, 8-row groups SBO apart (LBO unused:
//                    a wgmma's 32 bytes of K fit in one row)
//  MN-major, none:   16 bytes of M/N per K row, K rows 16 bytes apart,
//                    8-row K groups LBO apart, 16-byte M/N blocks SBO apart
//  MN-major, W:      W bytes of M/N per K row, K rows W bytes apart,
//                    8-row K groups SBO apart, W-byte M/N blocks LBO apart
inline uint64_t k_major(const descriptor& d, uint32_t mn, uint32_t kbyte) {
    const uint32_t w = swizzle_bytes(d.mode);
    uint64_t a = d.start + (mn % 8) * w + (mn / 8) * uint64_t{d.sbo};
    if (d.mode == swizzle::none) return a + (kbyte / 16) * uint64_t{d.lbo} + kbyte % 16;
    return a + kbyte;
}
inline uint64_t mn_major(const descriptor& d, uint32_t mnbyte, uint32_t k) {
    const uint32_t w = swizzle_bytes(d.mode);
    uint64_t a = d.start + mnbyte % w + (k % 8) * w;
    if (d.mode == swizzle::none) return a + (mnbyte / 16) * uint64_t{d.sbo} + (k / 8) * uint64_t{d.lbo};
    return a + (mnbyte / w) * uint64_t{d.lbo} + (k / 8) * uint64_t{d.sbo};
}
// The swizzle acts on absolute shared addresses, like TMA's: the 16-byte
// chunk index (bits 4-6) XOR the 128-byte row index mod 8, 4 or 2.
inline uint64_t swizzled(uint64_t a, swizzle s) {
    const uint64_t m = s == swizzle::b128 ? 7 : s == swizzle::b64 ? 3 : s == swizzle::b32 ? 1 : 0;
    return a ^ (((a >> 7) & m) << 4);
}

} // namespace ptxsim::isa::sem::wgmma
