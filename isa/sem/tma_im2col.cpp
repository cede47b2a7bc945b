// TMA im2col mode (PTX ISA "Tensors: im2col mode"): a 3d, 4d or 5d tensor is
// a batch of images, dimensions innermost first C, W, (H, (D,)) N. A load
// moves pixelsPerColumn pixels of channelsPerPixel channels each into a
// dense [pixel][channel] array in shared memory.
//
// The tensor coordinates name the first channel (C), the batch image (N)
// and, in W/H/D, the base of the convolution filter. The map's bounding box
// bounds the filter base in each spatial dimension k: from lowerCorner[k]
// to dims[k] - 1 + upperCorner[k], both included. The pixels are the
// successive filter positions in the box, W fastest: W advances by its
// traversal (element) stride; past the box's upper end it goes back to the
// lower corner and H advances, and so on, and past D (or H, W) the next
// image of the batch starts (N advances by one; the ISA strides only D, H
// and W). Each pixel is read at its position plus the instruction's im2col
// offsets. A channel or pixel outside the tensor (including images past the
// batch) reads the fill value. A start outside the box is not refused:
// ptxsim walks on from it, wrapping at the box's upper end.
//
// The stores and reductions that name .im2col_no_offs walk the same pixels
// with all offsets zero.
#include <fmt/format.h>

#include "isa/sem/operands.hpp"
#include "isa/sem/tma_box.hpp"

namespace ptxsim::isa::sem::tma {

void for_im2col(const tensor_map& m, const int32_t* coord, const uint32_t* offsets, const element_fn& f) {
    const uint32_t spatial = m.rank - 2, n_dim = m.rank - 1;
    const uint64_t esize = m.element_bytes();
    int64_t pos[5] = {};
    for (uint32_t k = 1; k < m.rank; ++k) pos[k] = coord[k];
    uint64_t offset = 0;
    for (uint32_t p = 0; p < m.pixels_per_column; ++p) {
        bool pixel_inside = pos[n_dim] >= 0 && uint64_t(pos[n_dim]) < m.dims[n_dim];
        uint64_t g = m.address + uint64_t(pos[n_dim]) * m.strides[n_dim];
        for (uint32_t k = 1; k <= spatial; ++k) {
            int64_t x = pos[k] + offsets[k - 1];
            if (x < 0 || uint64_t(x) >= m.dims[k]) pixel_inside = false;
            g += uint64_t(x) * m.strides[k];
        }
        for (uint32_t ch = 0; ch < m.channels_per_pixel; ++ch, offset += esize) {
            int64_t c = int64_t(coord[0]) + ch;
            bool inside = pixel_inside && c >= 0 && uint64_t(c) < m.dims[0];
            f(offset, inside ? g + uint64_t(c) * m.strides[0] : outside);
        }
        // The next filter position: W, then H, then D inside the bounding box, then the next image.
        for (uint32_t k = 1;; ++k) {
            if (k == n_dim) {
                ++pos[k];
                break;
            }
            pos[k] += m.element_strides[k];
            if (pos[k] <= int64_t(m.dims[k]) - 1 + m.upper[k - 1]) break;
            pos[k] = m.lower[k - 1];
        }
    }
}

bool im2col_offsets(exec_context& c, const exec_operand& v, uint32_t lane, const tensor_map& m, uint32_t* offsets) {
    // The ISA's ranges: 16 bits for 3d, 8 for 4d, 5 for 5d.
    const uint32_t bits = m.rank == 3 ? 16 : m.rank == 4 ? 8 : 5;
    if (v.kind != opnd::vec || v.count + 2u != m.rank) {
        c.fault(fault_kind::invalid_operation, lane, 0, fmt::format("a rank-{} im2col copy takes {} im2col offsets", m.rank, m.rank - 2));
        return false;
    }
    for (uint32_t k = 0; k + 2 < m.rank; ++k) {
        offsets[k] = static_cast<uint32_t>(vec_element(c, v, k, lane) & 0xFFFF);
        if (offsets[k] >> bits) {
            c.fault(fault_kind::invalid_operation, lane, 0,
                    fmt::format("im2col offset {} is {}; a {}d copy allows 0 to {}", k, offsets[k], m.rank, (1u << bits) - 1));
            return false;
        }
    }
    return true;
}

} // namespace ptxsim::isa::sem::tma
