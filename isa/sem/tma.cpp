// cp.async.bulk.tensor in tile mode (TMA), 1d-5d: a box of a tensor in
// global memory, described by a 128-byte tensor map (isa/tensor_map.hpp),
// copied to or from shared memory.
//
// Load (global -> shared::cluster, .mbarrier::complete_tx::bytes): the box
// element at index (i0 .. i4) comes from tensor coordinate c_k + i_k *
// elementStride_k; coordinates outside the tensor read as zero (or, for
// float types with the NaN fill mode, as a NaN). In shared memory the box is
// dense, innermost dimension first; a swizzle mode then moves each 16-byte
// chunk within its 128-byte row by XOR-ing address bits 4-6 with bits 7-9
// (128B; 64B uses bits 4-5, 32B bit 4), on the absolute shared address,
// which is why swizzled buffers are aligned to 1024 bytes. The whole box's
// bytes count towards the mbarrier's tx-count, out-of-bounds ones included.
// Store (shared::cta -> global, .bulk_group): the reverse; elements outside
// the tensor are not written.
// Writes land when the copy completes, as for every asynchronous copy
// (isa/sem/async_copy.cpp).
#include <fmt/format.h>

#include "isa/sem/mbarrier.hpp"
#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"
#include "isa/tensor_map.hpp"

namespace ptxsim::isa::sem {
namespace {

// The byte offset a swizzle mode gives the byte at absolute shared address `a`.
uint64_t swizzled(uint64_t a, tma_swizzle s) {
    uint64_t mask = s == tma_swizzle::b32 ? 1 : s == tma_swizzle::b64 ? 3 : s == tma_swizzle::none ? 0 : 7;
    return a ^ (((a >> 7) & mask) << 4);
}

bool read_map(exec_context& c, const exec_operand& op, uint32_t lane, tensor_map& m) {
    uint64_t addr = address(c, op, lane);
    tensor_map_bytes b;
    for (uint32_t at = 0; at < 128; at += 16)
        if (!c.load(space::generic, addr + at, 16, lane, b.data() + at)) return false;
    auto d = decode_tensor_map(b);
    if (!d) {
        c.fault(fault_kind::invalid_operation, lane, addr, "not a tensor map (build one with cuTensorMapEncodeTiled or a launch file's \"tensormap\" argument)");
        return false;
    }
    if (d->interleave != tma_interleave::none || static_cast<uint8_t>(d->swizzle) > static_cast<uint8_t>(tma_swizzle::b128) ||
        d->element_bytes() > 8) {
        c.fault(fault_kind::unsupported, lane, addr, "interleaved tensor maps, the 128B atom swizzle modes and packed 4/6-bit types are not implemented yet");
        return false;
    }
    m = *d;
    return true;
}

// Calls f(box_offset, global_address or ~0 when outside the tensor) for every box element, in shared-memory order.
template <class F>
void for_box(const tensor_map& m, const int32_t* coord, F&& f) {
    uint32_t n[5] = {1, 1, 1, 1, 1};
    for (uint32_t k = 0; k < m.rank; ++k) n[k] = m.box_elements(k);
    const uint64_t esize = m.element_bytes();
    uint64_t offset = 0;
    for (uint32_t i4 = 0; i4 < n[4]; ++i4)
        for (uint32_t i3 = 0; i3 < n[3]; ++i3)
            for (uint32_t i2 = 0; i2 < n[2]; ++i2)
                for (uint32_t i1 = 0; i1 < n[1]; ++i1)
                    for (uint32_t i0 = 0; i0 < n[0]; ++i0, offset += esize) {
                        const uint32_t idx[5] = {i0, i1, i2, i3, i4};
                        uint64_t g = m.address;
                        bool inside = true;
                        for (uint32_t k = 0; k < m.rank; ++k) {
                            int64_t x = int64_t(coord[k]) + int64_t(idx[k]) * m.element_strides[k];
                            if (x < 0 || uint64_t(x) >= m.dims[k]) inside = false;
                            g += uint64_t(x) * m.strides[k];
                        }
                        f(offset, inside ? g : ~uint64_t(0));
                    }
}

// The fill value of an element outside the tensor.
void fill(const tensor_map& m, uint8_t* out) {
    std::memset(out, 0, m.element_bytes());
    if (m.oob != tma_oob_fill::nan_request_zero_fma || !m.is_float()) return;
    // A quiet NaN of the element type (all exponent bits and the top fraction bit).
    uint64_t nan = m.element_bytes() == 2 ? (m.type == tma_type::bf16 ? 0x7FC0 : 0x7E00) : m.element_bytes() == 4 ? 0x7FC00000 : 0x7FF8000000000000ull;
    std::memcpy(out, &nan, m.element_bytes());
}

bool coordinates(exec_context& c, const exec_instruction& ins, const exec_operand& v, uint32_t lane, const tensor_map& m, int32_t* coord) {
    if (v.kind != opnd::vec || v.count != ins.vec || m.rank != ins.vec) {
        c.fault(fault_kind::invalid_operation, lane, 0,
                fmt::format("cp.async.bulk.tensor.{}d with a rank-{} tensor map (or {} coordinates)", ins.vec, m.rank, v.count));
        return false;
    }
    for (uint32_t k = 0; k < m.rank; ++k) coord[k] = static_cast<int32_t>(v.elems[k] == no_slot ? 0 : c.reg(v.elems[k], lane));
    return true;
}

// [dst], [tmap, {coords}], [mbar]
void load_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    for_lanes(mask, [&](uint32_t lane) {
        tensor_map m;
        int32_t coord[5] = {};
        if (!read_map(c, ins.ops[1], lane, m) || !coordinates(c, ins, ins.ops[2], lane, m, coord)) return;
        uint64_t dst = address(c, ins.ops[0], lane);
        if (ins.sp == space::generic) dst = c.from_generic(space::shared, dst, lane);
        if (dst % 128) {
            c.fault(fault_kind::misaligned, lane, dst, "a tensor copy's shared-memory address must be 128-byte aligned");
            return;
        }
        const uint64_t bytes = m.box_bytes();
        pending_write w{space::shared, dst, std::vector<uint8_t>(bytes)};
        const uint32_t esize = m.element_bytes();
        bool ok = true;
        for_box(m, coord, [&](uint64_t offset, uint64_t g) {
            if (!ok) return;
            uint64_t at = swizzled(dst + offset, m.swizzle) - dst;
            if (at + esize > w.data.size()) w.data.resize(at + esize); // a partial last 128-byte row, swizzled
            if (g == ~uint64_t(0)) fill(m, w.data.data() + at);
            else ok = c.load(space::global, g, esize, lane, w.data.data() + at);
        });
        if (!ok) return;
        uint64_t off;
        if (!mbar::locate(c, space::shared, address(c, ins.ops[3], lane), lane, off)) return;
        // One destination, or with .multicast::cluster the same offsets in
        // every CTA of ctaMask, each completing on its own mbarrier there.
        uint64_t cta_mask = ins.flags & 1 ? read(c, ins.ops[4], lane) & 0xFFFFu : 0;
        if (cta_mask && !mbar::cta_mask_fits(c, cta_mask, "cp.async.bulk.tensor .multicast::cluster", lane)) return;
        for (uint32_t rank = 0; rank < 16; ++rank) {
            uint64_t rdst = dst, roff = off;
            if (ins.flags & 1) {
                if (!((cta_mask >> rank) & 1)) continue;
                if (!c.map_shared_rank(dst, false, rank, lane, rdst) || !c.map_shared_rank(off, false, rank, lane, roff)) return;
            }
            std::vector<uint8_t> scratch(16); // the destination exists: probe it now
            for (uint64_t at = 0; at < w.data.size(); at += 16)
                if (!c.load(space::shared, rdst + at, static_cast<uint32_t>(std::min<uint64_t>(16, w.data.size() - at)), lane,
                            scratch.data()))
                    return;
            if (!mbar::defer(c, roff, pending_write{space::shared, rdst, w.data}, lane)) return;
            mbar::state before;
            if (!mbar::update(c, roff, lane, mbar::add_tx, bytes, /*complete_tx*/ 1, before)) return;
            if (!(ins.flags & 1)) return;
        }
    });
}

// [tmap, {coords}], [src]
void store_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    for_lanes(mask, [&](uint32_t lane) {
        tensor_map m;
        int32_t coord[5] = {};
        if (!read_map(c, ins.ops[0], lane, m) || !coordinates(c, ins, ins.ops[1], lane, m, coord)) return;
        uint64_t src = address(c, ins.ops[2], lane);
        if (ins.sub == static_cast<uint8_t>(space::generic)) src = c.from_generic(space::shared, src, lane);
        if (src % 128) {
            c.fault(fault_kind::misaligned, lane, src, "a tensor copy's shared-memory address must be 128-byte aligned");
            return;
        }
        const uint32_t esize = m.element_bytes();
        auto& open = c.async_state(lane).bulk_open;
        bool ok = true;
        for_box(m, coord, [&](uint64_t offset, uint64_t g) {
            if (!ok || g == ~uint64_t(0)) return;
            pending_write w{space::global, g, std::vector<uint8_t>(esize)};
            ok = c.load(space::shared, swizzled(src + offset, m.swizzle), esize, lane, w.data.data());
            // Extend the previous write when this element continues it (a row of the box).
            if (ok && !open.empty() && open.back().sp == space::global && open.back().addr + open.back().data.size() == g &&
                open.back().data.size() + esize <= 4096)
                open.back().data.insert(open.back().data.end(), w.data.begin(), w.data.end());
            else if (ok)
                open.push_back(std::move(w));
        });
    });
}

std::string dec_tensor(const matched_instruction& m, exec_instruction& out) {
    std::string_view mode = m.get("mode");
    if (!mode.empty() && mode != "tile") return "cp.async.bulk.tensor ." + std::string(mode) + " is not implemented yet (tile mode is)";
    if (m.has("ctagroup")) return "cp.async.bulk.tensor .cta_group is not implemented yet";
    out.vec = static_cast<uint8_t>(m.get("dim")[0] - '0');
    space dst = space_of(m.get("space", 0));
    if (dst == space::global) {
        out.sub = static_cast<uint8_t>(space_of(m.get("space", 1)));
        if (out.nops < 3 || out.ops[1].kind != opnd::vec) return "cp.async.bulk.tensor store: [tensorMap, {coordinates}], [src]";
        out.run = store_handler;
        return {};
    }
    out.sp = dst;
    if (m.get("completion") != "mbarrier::complete_tx::bytes") return "cp.async.bulk.tensor to shared memory completes through an mbarrier";
    if (out.nops < 4 || out.ops[2].kind != opnd::vec || out.ops[3].kind != opnd::addr)
        return "cp.async.bulk.tensor load: [dst], [tensorMap, {coordinates}], [mbar]";
    out.flags = m.has("multicast") ? 1 : 0;
    if (out.flags && out.nops < 5) return "cp.async.bulk.tensor .multicast::cluster needs its ctaMask operand";
    out.run = load_handler;
    return {};
}

constexpr entry entries[] = {{"cp.async.bulk.tensor", dec_tensor}};

} // namespace

std::span<const entry> tma_entries() { return entries; }

} // namespace ptxsim::isa::sem
