// tensormap.replace and tensormap.cp_fenceproxy: changing a tensor map in
// global or shared::cta memory from the device (sm_90a).
//
// tensormap.replace.tile.field{.ss}.b1024.type [map], {ord,} new_val writes
// one field of ptxsim's map layout (isa/tensor_map.hpp). The values are the
// ISA's: .rank is the rank minus one; .global_stride ord i is the byte
// stride of dimension i + 1; .elemtype, .interleave_layout, .swizzle_mode,
// .swizzle_atomicity and .fill_mode take the codes of the ISA's table
// "Tensormap new_val validity" (.elemtype's codes differ from the driver's
// CUtensorMapDataType). A replace does not check the whole map: a program
// may pass through invalid states while it changes several fields; the TMA
// instruction that uses the map checks it as the driver would
// (isa/sem/tma_box.cpp) and stops the launch when it is not valid.
//
// tensormap.cp_fenceproxy copies a 128-byte map from shared::cta to global
// memory; its fence orders nothing further here (every write lands at once).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"
#include "isa/tensor_map.hpp"

namespace ptxsim::isa::sem {
namespace {

enum class field : uint8_t {
    global_address, rank, box_dim, global_dim, global_stride, element_stride, elemtype, interleave_layout, swizzle_mode,
    swizzle_atomicity, fill_mode
};
constexpr const char* field_names[] = {"global_address", "rank", "box_dim", "global_dim", "global_stride", "element_stride", "elemtype",
                                       "interleave_layout", "swizzle_mode", "swizzle_atomicity", "fill_mode"};

// The ISA's .elemtype codes (u8 u16 u32 s32 u64 s64 f16 f32 f32.ftz f64 bf16
// tf32 tf32.ftz b4x16 b4x16_p64 b6x16_p32) as the driver's data types.
constexpr tma_type elemtypes[] = {tma_type::u8,     tma_type::u16,       tma_type::u32,       tma_type::s32,
                                  tma_type::u64,    tma_type::s64,       tma_type::f16,       tma_type::f32,
                                  tma_type::f32_ftz, tma_type::f64,      tma_type::bf16,      tma_type::tf32,
                                  tma_type::tf32_ftz, tma_type::u4x16_8b, tma_type::u4x16_16b, tma_type::u6x16_16b};

template <class T>
void put(tensor_map_bytes& b, size_t at, T v) {
    std::memcpy(b.data() + at, &v, sizeof v);
}

bool read_bytes(exec_context& c, space sp, uint64_t addr, uint32_t lane, tensor_map_bytes& b) {
    for (uint32_t at = 0; at < 128; at += 16)
        if (!c.load(sp, addr + at, 16, lane, b.data() + at)) return false;
    return true;
}
bool write_bytes(exec_context& c, space sp, uint64_t addr, uint32_t lane, const tensor_map_bytes& b) {
    for (uint32_t at = 0; at < 128; at += 16)
        if (!c.store(sp, addr + at, 16, lane, b.data() + at)) return false;
    return true;
}

// ins.sub: the field; ins.flags: the operand index of new_val (ord, when
// the field has one, is ops[1], an immediate).
void replace_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    for_lanes(mask, [&](uint32_t lane) {
        const uint64_t addr = address(c, ins.ops[0], lane);
        if (ins.sp == space::generic) {
            space s = c.generic_space(addr, lane);
            if (s != space::global && s != space::shared) {
                c.fault(fault_kind::invalid_address, lane, addr, "tensormap.replace needs a tensor map in global or shared::cta memory");
                return;
            }
        }
        tensor_map_bytes b;
        if (!read_bytes(c, ins.sp, addr, lane, b)) return;
        auto map = decode_tensor_map(b);
        if (!map) {
            c.fault(fault_kind::invalid_operation, lane, addr, "tensormap.replace on something that is not a tensor map");
            return;
        }
        if (map->mode != tma_mode::tiled) {
            c.fault(fault_kind::invalid_operation, lane, addr, "tensormap.replace.tile on an im2col tensor map");
            return;
        }
        const uint64_t v = read(c, ins.ops[ins.flags], lane);
        const uint32_t ord = static_cast<uint32_t>(ins.ops[1].imm);
        const auto narrow = [](uint64_t x) { return static_cast<uint8_t>(std::min<uint64_t>(x, 255)); };
        switch (static_cast<field>(ins.sub)) {
        case field::global_address: put(b, 0, v); break;
        case field::rank: b[13] = narrow((v & 0xFFFFFFFFu) + 1); break;
        case field::box_dim: put(b, 20 + 4 * ord, static_cast<uint32_t>(v)); break;
        case field::global_dim: put(b, 40 + 8 * ord, v & 0xFFFFFFFFu); break;
        case field::global_stride: put(b, 80 + 8 * ord, v); break;
        case field::element_stride: b[112 + ord] = narrow(v & 0xFFFFFFFFu); break;
        case field::elemtype: b[12] = static_cast<uint8_t>(elemtypes[v]); break;
        case field::interleave_layout: b[14] = static_cast<uint8_t>(v); break;
        case field::swizzle_mode: b[15] = static_cast<uint8_t>(v); break;
        case field::swizzle_atomicity: b[19] = static_cast<uint8_t>(v); break;
        case field::fill_mode: b[17] = static_cast<uint8_t>(v); break;
        }
        write_bytes(c, ins.sp, addr, lane, b);
    });
}

std::string dec_replace(const matched_instruction& m, exec_instruction& out) {
    const std::string_view name = m.get("field");
    uint8_t f = 0;
    while (f < std::size(field_names) && name != field_names[f]) ++f;
    if (f == std::size(field_names)) return "tensormap.replace ." + std::string(name) + " is not implemented yet";
    out.sub = f;
    out.sp = space_of(m.get("space"));
    const field fld = static_cast<field>(f);
    const bool wide = fld == field::global_address || fld == field::global_stride;
    if (m.get("type") != (wide ? "b64" : "b32"))
        return fmt::format("tensormap.replace .{} takes a .{} value", name, wide ? "b64" : "b32");
    const bool ordinal = fld == field::box_dim || fld == field::global_dim || fld == field::global_stride || fld == field::element_stride;
    out.flags = ordinal ? 2 : 1;
    if (out.nops != out.flags + 1u) return fmt::format("tensormap.replace .{}: [map], {}new_val", name, ordinal ? "ord, " : "");
    if (ordinal) {
        const int64_t limit = fld == field::global_stride ? 3 : 4; // strides exist for dimensions 1 and up
        if (out.ops[1].kind != opnd::imm || out.ops[1].imm < 0 || out.ops[1].imm > limit)
            return fmt::format("tensormap.replace .{}: ord is an immediate from 0 to {}", name, limit);
    }
    if (fld >= field::elemtype) {
        // The table's valid codes for each enumerated field.
        static constexpr int64_t most[] = {15, 2, 4, 3, 1};
        const int64_t limit = most[f - static_cast<uint8_t>(field::elemtype)];
        if (out.ops[1].kind != opnd::imm) return fmt::format("tensormap.replace .{}: new_val must be an immediate", name);
        if (out.ops[1].imm < 0 || out.ops[1].imm > limit)
            return fmt::format("tensormap.replace .{}: {} is not a valid value (0 to {})", name, out.ops[1].imm, limit);
        if (fld == field::swizzle_mode && out.ops[1].imm == 4)
            return "tensormap.replace .swizzle_mode 4 (96B swizzling, sm_103a) is not implemented yet";
    }
    out.run = replace_handler;
    return {};
}

// tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.scope.sync.aligned [dst], [src], 128
void cp_fenceproxy_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    for_lanes(mask, [&](uint32_t lane) {
        tensor_map_bytes b;
        if (!read_bytes(c, static_cast<space>(ins.sub), address(c, ins.ops[1], lane), lane, b)) return;
        write_bytes(c, ins.sp, address(c, ins.ops[0], lane), lane, b);
    });
}

std::string dec_cp_fenceproxy(const matched_instruction& m, exec_instruction& out) {
    out.sp = space_of(m.get("space", 0));
    out.sub = static_cast<uint8_t>(space_of(m.get("space", 1)));
    if (out.sp != space::global || static_cast<space>(out.sub) != space::shared)
        return "tensormap.cp_fenceproxy copies from .shared::cta to .global";
    if (out.ops[2].kind != opnd::imm || out.ops[2].imm != 128) return "tensormap.cp_fenceproxy copies 128 bytes";
    out.run = cp_fenceproxy_handler;
    return {};
}

constexpr entry entries[] = {{"tensormap.replace", dec_replace}, {"tensormap.cp_fenceproxy", dec_cp_fenceproxy}};

} // namespace

std::span<const entry> tensormap_entries() { return entries; }

} // namespace ptxsim::isa::sem
