#include "isa/sem/wgmma_slice.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

#include <fmt/format.h>

#include "isa/sem/operands.hpp"

namespace ptxsim::isa::sem::wgmma {

using mma::etype;

uint32_t first_row(exec_context& c) {
    // The linear warp index of the warp in its CTA (lane 0 stands for all).
    const uint64_t x = c.special(special_reg::tid_x, 0), y = c.special(special_reg::tid_y, 0), z = c.special(special_reg::tid_z, 0);
    const uint64_t nx = c.special(special_reg::ntid_x, 0), ny = c.special(special_reg::ntid_y, 0);
    return 16 * static_cast<uint32_t>((x + nx * (y + ny * z)) / warp_size % 4);
}

bool read_descriptor(exec_context& c, const exec_operand& o, descriptor& d) {
    d = decode_descriptor(read(c, o, 0));
    // The ISA asks for base offset (start >> 7) & 7 when a swizzled matrix
    // does not start on its pattern's boundary: the row of the pattern the
    // start address falls in. ptxsim swizzles on absolute shared addresses,
    // which is exactly that phase, so 0 and that value mean the same here.
    // Any other value asks for a phase shift whose effect the ISA does not
    // define in a form we could check without a GPU.
    if (d.base_offset == 0 || (d.mode != swizzle::none && d.base_offset == ((d.start >> 7) & 7))) return true;
    c.fault(fault_kind::unsupported, 0, d.start,
            fmt::format("a wgmma descriptor with matrix base offset {} for start address {:#x} (the ISA's value is {}) is not "
                        "implemented yet",
                        d.base_offset, d.start, (d.start >> 7) & 7));
    return false;
}

bool load_element(exec_context& c, const descriptor& d, etype t, bool trans, uint32_t mn, uint32_t k, uint64_t& out) {
    const uint32_t bits = mma::element_bits(t);
    uint64_t a;
    if (trans) a = mn_major(d, mn * bits / 8, k);
    else a = k_major(d, mn, k * bits / 8);
    a = swizzled(a, d.mode);
    const uint32_t bytes = bits < 8 ? 1 : bits / 8;
    uint64_t v = 0;
    if (!c.load(space::shared, a, bytes, 0, &v)) return false;
    if (t == etype::b1) v = (v >> (k % 8)) & 1;
    if (t == etype::tf32) v = (v >> 13) & 0x7FFFF;
    out = v;
    return true;
}

namespace {

// The elements of a 16-byte chunk of `bits`-bit elements (1, 8, 16 or 32)
// as load_element reads them, to out[0], out[step], ...
void unpack_chunk(const uint8_t* p, uint32_t bits, etype t, uint64_t* out, size_t step) {
    switch (bits) {
    case 1:
        for (uint32_t e = 0; e < 128; ++e) out[e * step] = (p[e / 8] >> (e % 8)) & 1;
        break;
    case 8:
        for (uint32_t e = 0; e < 16; ++e) out[e * step] = p[e];
        break;
    case 16:
        for (uint32_t e = 0; e < 8; ++e) {
            uint16_t v;
            std::memcpy(&v, p + 2 * e, 2); // little-endian, as the engine's loads
            out[e * step] = v;
        }
        break;
    default:
        for (uint32_t e = 0; e < 4; ++e) {
            uint32_t v;
            std::memcpy(&v, p + 4 * e, 4);
            out[e * step] = t == etype::tf32 ? (v >> 13) & 0x7FFFF : v;
        }
        break;
    }
}

// d_element(lane, i) in a row-major 16 x n slice is lane_base[lane] +
// slice_offset(n, i): the lane picks row g = lane / 4 and column pair
// 2 (lane % 4), element i adds 8 rows for bit 1 and 8 columns per i / 4.
void slice_bases(uint32_t n, uint32_t* lane_base) {
    for (uint32_t lane = 0; lane < warp_size; ++lane) {
        const rc p = d_element(lane, 0);
        lane_base[lane] = p.row * n + p.col;
    }
}
uint32_t slice_offset(uint32_t n, uint32_t i) {
    const rc p = d_element(0, i);
    return p.row * n + p.col;
}

} // namespace

bool load_matrix(exec_context& c, const descriptor& d, etype t, bool trans, uint32_t mn0, uint32_t count, uint32_t k,
                 uint64_t* out, uint32_t mn_stride, uint32_t k_stride) {
    const uint32_t bits = mma::element_bits(t);
    // The operand's contiguous direction is K (K-major) or M/N (MN-major);
    // the canonical layouts keep each aligned 16 bytes of it together (a
    // swizzle permutes whole 16-byte chunks), so a chunk is read at once.
    const uint32_t per = 128 / bits, along = trans ? count : k, across = trans ? k : count;
    const bool chunked = (bits == 1 || bits == 8 || bits == 16 || bits == 32) && along % per == 0 && (!trans || (mn0 * bits) % 128 == 0);
    if (!chunked) {
        for (uint32_t i = 0; i < count; ++i)
            for (uint32_t kk = 0; kk < k; ++kk)
                if (!load_element(c, d, t, trans, mn0 + i, kk, out[i * mn_stride + kk * k_stride])) return false;
        return true;
    }
    // Chunk addresses first, so that one look-up lends the whole range.
    const uint32_t chunks = along / per;
    thread_local std::vector<uint64_t> addr;
    addr.resize(size_t{across} * chunks);
    uint64_t lo = UINT64_MAX, hi = 0;
    for (uint32_t x = 0; x < across; ++x)
        for (uint32_t j = 0; j < chunks; ++j) {
            const uint64_t a = swizzled(trans ? mn_major(d, mn0 * bits / 8 + j * 16, x) : k_major(d, mn0 + x, j * 16), d.mode);
            addr[size_t{x} * chunks + j] = a;
            lo = std::min(lo, a);
            hi = std::max(hi, a + 16);
        }
    const uint8_t* whole = c.span(space::shared, lo, hi, false);
    const size_t step = trans ? mn_stride : k_stride; // between a chunk's elements in `out`
    for (uint32_t x = 0; x < across; ++x)
        for (uint32_t j = 0; j < chunks; ++j) {
            const uint64_t a = addr[size_t{x} * chunks + j];
            const size_t first = trans ? size_t{j} * per * mn_stride + size_t{x} * k_stride : size_t{x} * mn_stride + size_t{j} * per * k_stride;
            if (const uint8_t* p = whole ? whole + (a - lo) : c.span(space::shared, a, a + 16, false)) {
                unpack_chunk(p, bits, t, out + first, step);
                continue;
            }
            for (uint32_t e = 0; e < per; ++e) { // lane by lane: an observer sees each access; a bad one is a located fault
                const uint32_t i = trans ? j * per + e : x, kk = trans ? x : j * per + e;
                if (!load_element(c, d, t, trans, mn0 + i, kk, out[first + e * step])) return false;
            }
        }
    return true;
}

uint64_t sign_bit(etype t) {
    switch (t) {
    case etype::f16: case etype::bf16: return 0x8000;
    case etype::tf32: return 1u << 18;
    case etype::e4m3: case etype::e5m2: return 0x80;
    default: return 0;
    }
}

void read_accumulators(exec_context& c, const exec_operand& d, etype t, uint32_t n, bool scale_d, std::vector<uint64_t>& cm) {
    wgmma_warp_state& st = c.wgmma_state();
    const uint32_t per = mma::per_register(t), bits = mma::element_bits(t);
    const uint64_t neutral = t == etype::f32 ? 0x80000000u : t == etype::f16 ? 0x8000u : 0;
    if (!scale_d) {
        cm.assign(16 * n, neutral);
        return;
    }
    cm.resize(16 * n); // every element is written below
    // Each register's 32 lane values once: the newest pending wgmma result
    // for it, else the register file.
    const uint64_t* src[256];
    const uint32_t regs = std::min<uint32_t>(d.count, 256);
    for (uint32_t r = 0; r < regs; ++r) {
        const uint32_t slot = vec_slot(d, r);
        const wgmma_write* w = slot == no_slot ? nullptr : st.newest(slot);
        src[r] = slot == no_slot ? nullptr : w ? w->value.data() : &c.reg(slot, 0);
    }
    uint32_t lane_base[warp_size];
    slice_bases(n, lane_base);
    for (uint32_t i = 0; i < 16 * n / warp_size; ++i) {
        const uint32_t r = i / per, off = slice_offset(n, i), shift = (i % per) * bits;
        const uint64_t* from = r < regs ? src[r] : nullptr;
        for (uint32_t lane = 0; lane < warp_size; ++lane)
            cm[lane_base[lane] + off] = from ? (from[lane] >> shift) & mask_bits(bits) : 0;
    }
}

void queue_results(exec_context& c, const exec_instruction& ins, etype t, uint32_t n, const std::vector<uint64_t>& dm) {
    const exec_operand& d = ins.ops[0];
    const uint32_t per = mma::per_register(t), bits = mma::element_bits(t);
    // Built in place at the end of the open group (no copies: 64 registers
    // of 32 lanes for a typical accumulator).
    wgmma_group& open = c.wgmma_state().open;
    const size_t base = open.size();
    open.resize(base + d.count);
    for (uint32_t r = 0; r < d.count; ++r) {
        open[base + r].slot = vec_slot(d, r);
        open[base + r].pos = ins.pos;
    }
    uint32_t lane_base[warp_size];
    slice_bases(n, lane_base);
    for (uint32_t i = 0; i < 16 * n / warp_size; ++i) {
        const uint32_t off = slice_offset(n, i), shift = (i % per) * bits;
        uint64_t* value = open[base + i / per].value.data();
        if (per == 1)
            for (uint32_t lane = 0; lane < warp_size; ++lane) value[lane] = dm[lane_base[lane] + off] & mask_bits(bits);
        else
            for (uint32_t lane = 0; lane < warp_size; ++lane) value[lane] |= (dm[lane_base[lane] + off] & mask_bits(bits)) << shift;
    }
    // A sink register "_" keeps nothing (only this call's writes can be one).
    open.erase(std::remove_if(open.begin() + static_cast<std::ptrdiff_t>(base), open.end(),
                              [](const wgmma_write& w) { return w.slot == no_slot; }),
               open.end());
}

} // namespace ptxsim::isa::sem::wgmma
