#include "isa/sem/wgmma_slice.hpp"

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
    cm.assign(16 * n, neutral);
    if (!scale_d) return;
    for (uint32_t lane = 0; lane < warp_size; ++lane)
        for (uint32_t i = 0; i < 16 * n / warp_size; ++i) {
            const rc p = d_element(lane, i);
            const uint32_t slot = vec_slot(d, i / per);
            uint64_t reg = 0;
            if (slot != no_slot) {
                const wgmma_write* w = st.newest(slot);
                reg = w ? w->value[lane] : c.reg(slot, lane);
            }
            cm[p.row * n + p.col] = (reg >> ((i % per) * bits)) & mask_bits(bits);
        }
}

void queue_results(exec_context& c, const exec_instruction& ins, etype t, uint32_t n, const std::vector<uint64_t>& dm) {
    const exec_operand& d = ins.ops[0];
    const uint32_t per = mma::per_register(t), bits = mma::element_bits(t);
    std::vector<wgmma_write> writes(d.count);
    for (uint32_t r = 0; r < d.count; ++r) {
        writes[r].slot = vec_slot(d, r);
        writes[r].pos = ins.pos;
    }
    for (uint32_t lane = 0; lane < warp_size; ++lane)
        for (uint32_t i = 0; i < 16 * n / warp_size; ++i) {
            const rc p = d_element(lane, i);
            writes[i / per].value[lane] |= (dm[p.row * n + p.col] & mask_bits(bits)) << ((i % per) * bits);
        }
    wgmma_warp_state& st = c.wgmma_state();
    for (auto& w : writes)
        if (w.slot != no_slot) st.open.push_back(w);
}

} // namespace ptxsim::isa::sem::wgmma
