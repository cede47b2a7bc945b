#pragma once
// What a texture or surface object handle stands for, as the texture and
// surface instructions (isa/sem/texture*.cpp) read it. The simulator keeps
// the table of live objects (sim/texture_table.hpp) and hands a handle's
// description to the semantics through exec_context::texture_object.
//
// Every object lies in one global-memory allocation as plain linear memory:
// texel (x, y, z) of layer 0 is at base + z * slice_pitch + y * pitch +
// x * texel_bytes(). A layered (array) object keeps its layers on the next
// axis: a 1-D array's layer is its row, a 2-D array's layer its slice.
#include <array>
#include <cstdint>

namespace ptxsim::isa {

// The element type of one channel.
enum class texel_type : uint8_t { u8, s8, u16, s16, u32, s32, f16, f32 };
// Names follow CUDA's cudaTextureAddressMode; clamp is clamp-to-edge.
enum class address_mode : uint8_t { wrap, clamp, mirror, border };
enum class filter_mode : uint8_t { point, linear };
// element: integers come back as integers; normalized_float: 8- and 16-bit
// integers come back as floats in [0, 1] (unsigned) or [-1, 1] (signed).
enum class read_mode : uint8_t { element, normalized_float };
enum class object_kind : uint8_t { texture, surface };

struct texture_object {
    object_kind kind = object_kind::texture;
    uint64_t base = 0;           // global address of texel (0, 0, 0)
    uint32_t dims = 1;           // 1, 2 or 3: the geometry without the layer axis
    uint32_t width = 1, height = 1, depth = 1; // in texels; 1 for axes the geometry lacks
    uint32_t layers = 0;         // 0: not layered; else the number of layers
    // A cubemap is a layered 2-D object of square faces, six layers per
    // cube (+x, -x, +y, -y, +z, -z); a cubemap array holds several cubes.
    bool cubemap = false;
    uint64_t pitch = 0;          // bytes from one row to the next
    uint64_t slice_pitch = 0;    // bytes from one slice (or 2-D layer) to the next
    texel_type type = texel_type::f32;
    uint8_t channels = 1;        // 1, 2 or 4
    // Textures only: how they are sampled.
    std::array<address_mode, 3> address{address_mode::clamp, address_mode::clamp, address_mode::clamp};
    filter_mode filter = filter_mode::point;
    read_mode read = read_mode::element;
    bool normalized_coords = false;
    // Per channel, as the channel is returned: f32 bits for float results,
    // the integer for element reads of integer texels.
    std::array<uint32_t, 4> border{};

    uint32_t channel_bytes() const {
        switch (type) {
        case texel_type::u8: case texel_type::s8: return 1;
        case texel_type::u16: case texel_type::s16: case texel_type::f16: return 2;
        default: return 4;
        }
    }
    uint32_t texel_bytes() const { return channel_bytes() * channels; }
    // Whether sampling returns floats (f32 bits) rather than integers.
    bool returns_float() const {
        return type == texel_type::f16 || type == texel_type::f32 || read == read_mode::normalized_float;
    }
};

} // namespace ptxsim::isa
