#include "sim/texture_table.hpp"

#include <fmt/format.h>

#include "memory/global_memory.hpp"

namespace ptxsim::sim {
namespace {

using isa::texture_object;

// Handles carry a tag per kind so that a pointer, a surface passed where a
// texture is expected, or a stale integer is recognised as such; the low
// 32 bits are the table index plus one, never reused.
constexpr uint64_t texture_tag = 0x7E58'0000'0000'0000ull;
constexpr uint64_t surface_tag = 0x5EF0'0000'0000'0000ull;
constexpr uint64_t tag_mask = 0xFFFF'FFFF'0000'0000ull;

uint64_t tag_of(isa::object_kind k) { return k == isa::object_kind::texture ? texture_tag : surface_tag; }

} // namespace

std::string check_texture_layout(const texture_object& t, uint64_t& bytes) {
    if (t.channels != 1 && t.channels != 2 && t.channels != 4) return fmt::format("{} channels (1, 2 or 4)", t.channels);
    if (t.dims < 1 || t.dims > 3) return fmt::format("{} dimensions (1, 2 or 3)", t.dims);
    if (t.width == 0 || t.height == 0 || t.depth == 0) return "an extent of 0 texels";
    if ((t.dims < 2 && t.height != 1) || (t.dims < 3 && t.depth != 1)) return "an extent on an axis the object does not have";
    if (t.layers && t.dims == 3) return "a layered 3-D object (layers exist for 1-D and 2-D objects)";
    if (t.cubemap && (t.dims != 2 || t.width != t.height || t.layers == 0 || t.layers % 6))
        return "a cubemap that is not square 2-D faces in layers of six";
    const uint64_t tb = t.texel_bytes();
    if (t.base % tb) return fmt::format("base address {:#x} is not a multiple of the texel size ({} bytes)", t.base, tb);
    // Rows: a 2-D or 3-D object's rows, or a 1-D array's layers; slices: a
    // 3-D object's, or a 2-D array's layers.
    const uint64_t rows = t.dims >= 2 ? t.height : t.layers ? t.layers : 1;
    const uint64_t slices = t.dims == 3 ? t.depth : t.dims == 2 && t.layers ? t.layers : 1;
    if (rows > 1 && (t.pitch < t.width * tb || t.pitch % tb))
        return fmt::format("a pitch of {} bytes (a row of {} texels needs at least {}, a multiple of {})", t.pitch, t.width,
                           t.width * tb, tb);
    if (slices > 1 && t.slice_pitch < t.pitch * rows)
        return fmt::format("a slice pitch of {} bytes (a slice of {} rows needs at least {})", t.slice_pitch, rows, t.pitch * rows);
    bytes = (slices - 1) * t.slice_pitch + (rows - 1) * t.pitch + t.width * tb;
    if (t.kind == isa::object_kind::surface) return {};
    // CUDA's rules for texture descriptors.
    const bool wide_int = t.type == isa::texel_type::u32 || t.type == isa::texel_type::s32;
    if (t.read == isa::read_mode::normalized_float && wide_int) return "normalized-float reads of 32-bit integer texels";
    if (t.filter == isa::filter_mode::linear && !t.returns_float())
        return "linear filtering of integer texels read as integers (use normalized-float reads)";
    for (uint32_t k = 0; k < t.dims; ++k)
        if (!t.normalized_coords && (t.address[k] == isa::address_mode::wrap || t.address[k] == isa::address_mode::mirror))
            return "wrap and mirror addressing without normalized coordinates (CUDA supports them only with normalized coordinates)";
    return {};
}

std::string check_texture_object(const texture_object& t, const memory::global_memory& memory) {
    uint64_t bytes = 0;
    if (std::string why = check_texture_layout(t, bytes); !why.empty()) return why;
    auto a = memory.find(t.base);
    if (!a || !a->alive) return fmt::format("base address {:#x} is not in a live allocation", t.base);
    if (t.base + bytes > a->end())
        return fmt::format("its texels ({} bytes from {:#x}) run {} bytes past the end of allocation #{} ({} bytes at {:#x})", bytes,
                           t.base, t.base + bytes - a->end(), a->id, a->size, a->base);
    return {};
}

uint64_t texture_table::create(const texture_object& object, const memory::global_memory& memory, std::string& error) {
    error = check_texture_object(object, memory);
    if (!error.empty()) return 0;
    objects_.push_back(object);
    return tag_of(object.kind) | objects_.size();
}

bool texture_table::destroy(uint64_t handle) {
    const texture_object* t = find(handle);
    if (!t) return false;
    objects_[(handle & ~tag_mask) - 1].reset();
    return true;
}

const texture_object* texture_table::find(uint64_t handle) const {
    const uint64_t index = handle & ~tag_mask;
    if (index == 0 || index > objects_.size() || !objects_[index - 1]) return nullptr;
    const texture_object& t = *objects_[index - 1];
    return (handle & tag_mask) == tag_of(t.kind) ? &t : nullptr;
}

} // namespace ptxsim::sim
