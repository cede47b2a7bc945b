#include "isa/sem/tma_box.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "isa/fp/half_arith.hpp"
#include "isa/sem/operands.hpp"

namespace ptxsim::isa::sem::tma {

uint64_t swizzled(uint64_t a, tma_swizzle s) {
    uint64_t mask = s == tma_swizzle::b32 ? 1 : s == tma_swizzle::b64 ? 3 : s == tma_swizzle::none ? 0 : 7;
    return a ^ (((a >> 7) & mask) << 4);
}

bool read_map(exec_context& c, const exec_operand& op, uint32_t lane, tma_mode want, tensor_map& m) {
    uint64_t addr = address(c, op, lane);
    tensor_map_bytes b;
    for (uint32_t at = 0; at < 128; at += 16)
        if (!c.load(space::generic, addr + at, 16, lane, b.data() + at)) return false;
    auto d = decode_tensor_map(b);
    if (!d) {
        c.fault(fault_kind::invalid_operation, lane, addr,
                "not a tensor map (build one with cuTensorMapEncodeTiled/Im2col or a launch file's \"tensormap\" argument)");
        return false;
    }
    if (std::string why = check_tensor_map(*d); !why.empty()) {
        c.fault(fault_kind::invalid_operation, lane, addr, "the tensor map is not valid: " + why);
        return false;
    }
    if (d->mode != want) {
        c.fault(fault_kind::invalid_operation, lane, addr,
                want == tma_mode::im2col ? "an im2col copy with a tiled tensor map" : "a tiled copy with an im2col tensor map");
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

bool coordinates(exec_context& c, const exec_instruction& ins, const exec_operand& v, uint32_t lane, const tensor_map& m, int32_t* coord) {
    if (v.kind != opnd::vec || v.count != ins.vec || m.rank != ins.vec) {
        c.fault(fault_kind::invalid_operation, lane, 0,
                fmt::format("cp.async.bulk.tensor.{}d with a rank-{} tensor map (or {} coordinates)", ins.vec, m.rank, v.count));
        return false;
    }
    for (uint32_t k = 0; k < m.rank; ++k) coord[k] = static_cast<int32_t>(vec_element(c, v, k, lane));
    return true;
}

void fill(const tensor_map& m, uint8_t* out) {
    std::memset(out, 0, m.element_bytes());
    if (m.oob != tma_oob_fill::nan_request_zero_fma || !m.is_float()) return;
    // A quiet NaN of the element type. For 16-bit floats it is the OOB-NaN that
    // fma.oob turns into +0 (the point of this fill mode), so the two agree on
    // one constant; its bits are unconfirmed on a GPU (isa/fp/half_arith.hpp).
    uint64_t nan = m.element_bytes() == 2 ? fp::oob_nan_magnitude : m.element_bytes() == 4 ? 0x7FC00000 : 0x7FF8000000000000ull;
    std::memcpy(out, &nan, m.element_bytes());
}

void for_tile(const tensor_map& m, const int32_t* coord, const element_fn& f) {
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
                            int64_t x = int64_t(coord[k]) + int64_t(idx[k]) * m.traversal_stride(k);
                            if (x < 0 || uint64_t(x) >= m.dims[k]) inside = false;
                            g += uint64_t(x) * m.strides[k];
                        }
                        f(offset, inside ? g : outside);
                    }
}

void for_tile_rows(const tensor_map& m, const int32_t* coord, const row_fn& f) {
    uint32_t n[5] = {1, 1, 1, 1, 1};
    for (uint32_t k = 0; k < m.rank; ++k) n[k] = m.box_elements(k);
    const uint64_t row_bytes = n[0] * uint64_t{m.element_bytes()};
    // Dimension 0's inside range: coord_0 + i0 in [0, dims_0).
    const int64_t x0 = coord[0];
    const int64_t lo = std::clamp<int64_t>(-x0, 0, n[0]), hi = std::clamp<int64_t>(int64_t(m.dims[0]) - x0, lo, n[0]);
    uint64_t offset = 0;
    for (uint32_t i4 = 0; i4 < n[4]; ++i4)
        for (uint32_t i3 = 0; i3 < n[3]; ++i3)
            for (uint32_t i2 = 0; i2 < n[2]; ++i2)
                for (uint32_t i1 = 0; i1 < n[1]; ++i1, offset += row_bytes) {
                    const uint32_t idx[5] = {0, i1, i2, i3, i4};
                    uint64_t g = m.address + uint64_t(x0) * m.strides[0]; // wraps for x0 < 0; only inside elements are used
                    bool inside = true;
                    for (uint32_t k = 1; k < m.rank; ++k) {
                        int64_t x = int64_t(coord[k]) + int64_t(idx[k]) * m.traversal_stride(k);
                        if (x < 0 || uint64_t(x) >= m.dims[k]) inside = false;
                        g += uint64_t(x) * m.strides[k];
                    }
                    f(offset, g, inside ? uint32_t(lo) : 0, inside ? uint32_t(hi) : 0);
                }
}

bool store_box(exec_context& c, const tensor_map& m, const int32_t* coord, uint64_t src, uint32_t lane,
               uint64_t (*reduce)(uint64_t, uint64_t, uint64_t)) {
    if (src % 128) {
        c.fault(fault_kind::misaligned, lane, src, "a tensor copy's shared-memory address must be 128-byte aligned");
        return false;
    }
    const uint32_t esize = m.element_bytes();
    auto& open = c.async_state(lane).bulk_open;
    bool ok = true;
    auto element = [&](uint64_t offset, uint64_t g) {
        if (!ok || g == outside) return; // elements outside the tensor are not written
        pending_write w{space::global, g, std::vector<uint8_t>(esize), reduce, reduce ? esize : 0};
        ok = c.load(space::shared, swizzled(src + offset, m.swizzle), esize, lane, w.data.data());
        // Extend the previous write when this element continues it (a row of the box).
        pending_write* last = open.empty() ? nullptr : &open.back();
        if (ok) w.tag = c.async_write_issued(space::global, g, esize, lane); // a continuation gets its row's tag
        if (ok && last && last->sp == space::global && last->reduce == reduce && last->addr + last->data.size() == g &&
            last->data.size() + esize <= 4096 && last->tag == w.tag)
            last->data.insert(last->data.end(), w.data.begin(), w.data.end());
        else if (ok)
            open.push_back(std::move(w));
    };
    const uint32_t no_offsets[3] = {};
    c.note(sync_note::async_proxy_begin, 1u << lane, 0, static_cast<uint32_t>(m.box_bytes())); // the tensor copy reads shared memory through the async proxy
    if (m.mode == tma_mode::im2col) for_im2col(m, coord, no_offsets, element);
    else for_tile(m, coord, element);
    c.note(sync_note::async_proxy_end, 1u << lane);
    return ok;
}

} // namespace ptxsim::isa::sem::tma
