#pragma once
// What the TMA instructions (isa/sem/tma.cpp, tma_reduce.cpp) share: reading
// and checking the tensor map, the coordinate operands, and the walk over
// the elements one copy moves, in shared-memory order: a box in tiled mode,
// a column of pixels in im2col mode (isa/sem/tma_im2col.cpp).
#include <cstdint>
#include <functional>

#include "isa/exec.hpp"
#include "isa/sem/context.hpp"
#include "isa/tensor_map.hpp"

namespace ptxsim::isa::sem::tma {

// The byte offset a swizzle mode gives the byte at absolute shared address
// `a`: bits 4-6 XOR bits 7-9 (128B; 64B uses bits 4-5, 32B bit 4).
uint64_t swizzled(uint64_t a, tma_swizzle s);

// Reads the 128-byte map at the generic address in `op` and checks it (the
// driver's rules: tensormap.replace may have broken them since); false after
// a located fault. `want` is the mode the instruction names.
bool read_map(exec_context& c, const exec_operand& op, uint32_t lane, tma_mode want, tensor_map& m);

// The tensor coordinates of vector operand `v` (the instruction's .dim of them).
bool coordinates(exec_context& c, const exec_instruction& ins, const exec_operand& v, uint32_t lane, const tensor_map& m, int32_t* coord);

// The value an element outside the tensor reads as: zero, or a quiet NaN
// for float types with the NaN fill mode.
void fill(const tensor_map& m, uint8_t* out);

// Called with (byte offset in shared memory, global address or `outside`)
// for every element one copy moves, in shared-memory order.
inline constexpr uint64_t outside = ~uint64_t(0);
using element_fn = std::function<void(uint64_t offset, uint64_t global)>;

// Tiled mode: box element (i0 .. i4) is tensor element coord_k + i_k *
// elementStride_k (dimension 0 steps by one: tensor_map::traversal_stride).
void for_tile(const tensor_map& m, const int32_t* coord, const element_fn& f);

// Tiled mode a row at a time, for maps whose dimension 0 steps by one
// (traversal_stride(0) == 1, so a row is contiguous in both memories):
// f(byte offset in shared memory of the row's element i0 = 0, global
// address of element i0 = 0 as if it were inside, first, end), where the
// elements i0 in [first, end) are inside the tensor and the rest outside.
using row_fn = std::function<void(uint64_t offset, uint64_t global, uint32_t first, uint32_t end)>;
void for_tile_rows(const tensor_map& m, const int32_t* coord, const row_fn& f);

// im2col mode (isa/sem/tma_im2col.cpp): pixelsPerColumn pixels of
// channelsPerPixel channels, starting at the filter base `coord` plus the
// im2col `offsets` (one per spatial dimension; all zero without them).
void for_im2col(const tensor_map& m, const int32_t* coord, const uint32_t* offsets, const element_fn& f);

// Reads the im2col offsets operand (rank-2 unsigned 16-bit values, W first)
// and checks each against the range the ISA gives for the rank; false after
// a located fault.
bool im2col_offsets(exec_context& c, const exec_operand& v, uint32_t lane, const tensor_map& m, uint32_t* offsets);

// Shared -> global for one lane (cp.async.bulk.tensor .bulk_group stores and
// cp.reduce.async.bulk.tensor): the elements inside the tensor join the
// thread's open bulk group, combined with `reduce` (element by element, as
// red does) when it is set. `src` is a shared-memory offset.
bool store_box(exec_context& c, const tensor_map& m, const int32_t* coord, uint64_t src, uint32_t lane,
               uint64_t (*reduce)(uint64_t, uint64_t, uint64_t));

} // namespace ptxsim::isa::sem::tma
