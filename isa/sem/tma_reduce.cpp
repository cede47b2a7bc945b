// cp.reduce.async.bulk.tensor.dim.global.shared::cta.redOp{.load_mode}.bulk_group
//   [tensorMap, {coordinates}], [src]
// The elements a TMA store would write (a tiled box, or with .im2col /
// .im2col_no_offs the column of pixels, isa/sem/tma_im2col.cpp) are combined
// into the tensor instead, each with red's update for the operation and the
// map's element type (isa/sem/atomic.cpp), atomically, when the thread's
// bulk group completes (as cp.reduce.async.bulk does). Elements outside the
// tensor are left alone. The ISA allows: .add on u32 s32 u64 f32 f16 bf16;
// .min/.max on u32 s32 u64 s64 f16 bf16; .inc/.dec on u32; .and/.or/.xor on
// 32- and 64-bit integers. The element type is only known from the map, so
// another pairing stops the launch when the instruction runs.
#include <fmt/format.h>

#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"
#include "isa/sem/tma_box.hpp"

namespace ptxsim::isa::sem {
namespace {

constexpr const char* ops[] = {"add", "min", "max", "inc", "dec", "and", "or", "xor"};
constexpr const char* type_names[] = {"u8", "u16", "u32", "s32", "u64", "s64", "f16", "f32", "f64", "bf16", "f32_ftz", "tf32", "tf32_ftz",
                                      "16u4_align8b", "16u4_align16b", "16u6_align16b"};

// The element type a reduction `op` (index into ops) uses for the map's
// type, or none when the ISA has no such pairing.
parser::data_type reduced_type(uint8_t op, tma_type t) {
    using parser::data_type;
    const std::string_view o = ops[op];
    switch (t) {
    case tma_type::u32: return data_type::u32;
    case tma_type::s32: return o == "inc" || o == "dec" ? data_type::none : data_type::s32;
    case tma_type::u64: return o == "inc" || o == "dec" ? data_type::none : data_type::u64;
    case tma_type::s64: return o == "add" || o == "inc" || o == "dec" ? data_type::none : data_type::s64;
    case tma_type::f32: return o == "add" ? data_type::f32 : data_type::none;
    case tma_type::f16: return o == "add" || o == "min" || o == "max" ? data_type::f16 : data_type::none;
    case tma_type::bf16: return o == "add" || o == "min" || o == "max" ? data_type::bf16 : data_type::none;
    default: return data_type::none;
    }
}

// ins.sub: the operation (index into ops); ins.flags bit 0: im2col mode.
void reduce_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    for_lanes(mask, [&](uint32_t lane) {
        tensor_map m;
        int32_t coord[5] = {};
        if (!tma::read_map(c, ins.ops[0], lane, ins.flags & 1 ? tma_mode::im2col : tma_mode::tiled, m) ||
            !tma::coordinates(c, ins, ins.ops[1], lane, m, coord))
            return;
        parser::data_type t = reduced_type(ins.sub, m.type);
        rmw_fn update = t == parser::data_type::none ? nullptr : reduction_update(ops[ins.sub], t);
        if (!update) {
            c.fault(fault_kind::invalid_operation, lane, address(c, ins.ops[0], lane),
                    fmt::format("cp.reduce.async.bulk.tensor .{} has no reduction for the tensor map's {} elements", ops[ins.sub],
                                type_names[static_cast<uint8_t>(m.type)]));
            return;
        }
        uint64_t src = address(c, ins.ops[2], lane);
        if (ins.sp == space::generic) src = c.from_generic(space::shared, src, lane);
        tma::store_box(c, m, coord, src, lane, update);
    });
}

std::string dec_reduce_tensor(const matched_instruction& m, exec_instruction& out) {
    out.vec = static_cast<uint8_t>(m.get("dim")[0] - '0');
    out.sp = space_of(m.get("space", 1)); // the source: shared::cta
    for (uint8_t i = 0; i < std::size(ops); ++i)
        if (m.get("op") == ops[i]) out.sub = i;
    std::string_view mode = m.get("mode");
    out.flags = mode == "im2col" || mode == "im2col_no_offs" ? 1 : 0;
    if (out.flags && out.vec < 3) return "cp.reduce.async.bulk.tensor in im2col mode needs a 3d to 5d copy";
    if (out.nops < 3 || out.ops[0].kind != opnd::addr || out.ops[1].kind != opnd::vec || out.ops[2].kind != opnd::addr)
        return "cp.reduce.async.bulk.tensor: [tensorMap, {coordinates}], [src]";
    out.run = reduce_handler;
    return {};
}

constexpr entry entries[] = {{"cp.reduce.async.bulk.tensor", dec_reduce_tensor}};

} // namespace

std::span<const entry> tma_reduce_entries() { return entries; }

} // namespace ptxsim::isa::sem
