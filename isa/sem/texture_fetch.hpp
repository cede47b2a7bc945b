#pragma once
// Reading texels of a texture object and sampling it: address modes,
// point and linear filtering, normalized-float reads and the four-texel
// gather of tld4. Used by isa/sem/texture.cpp; the rules are the CUDA
// programming guide's "Texture Fetching" appendix.
#include <array>
#include <cstdint>
#include <string_view>

#include "isa/sem/context.hpp"
#include "isa/sem/texture_object.hpp"

namespace ptxsim::isa::sem {

// The .geom of a texture or surface instruction that ptxsim runs.
enum class geometry : uint8_t { g1d, g2d, g3d, a1d, a2d, cube, acube };
// geometry from its modifier ("2d", "a1d" ...); false for 2dms and a2dms.
bool geometry_of(std::string_view text, geometry& g);
const char* geometry_name(geometry g);
// Coordinates the geometry's vector carries, layer index included.
uint32_t coordinate_count(geometry g);

// The object `handle` names, when it is of `kind` and has the geometry
// `g`; otherwise reports a located fault naming `what` ("tex.2d") and
// returns nullptr.
const texture_object* find_object(exec_context& c, uint64_t handle, object_kind kind, geometry g, std::string_view what,
                                  uint32_t lane);

// txq/suq .channel_data_type and .channel_order: the PTX ISA gives these
// as OpenCL's CL_* values (CL_UNORM_INT8 0x10D2, CL_FLOAT 0x10DE, CL_R
// 0x10B0, CL_RGBA 0x10B5 ...).
uint32_t channel_data_type_code(const texture_object& t);
uint32_t channel_order_code(const texture_object& t);

// Four 32-bit channels as a texture instruction returns them: f32 bits when
// the object returns floats, else integers.
using texel4 = std::array<uint32_t, 4>;

// A texel position after the address mode: `border` when it fell outside
// an object whose mode on that axis is border.
struct texel_pos {
    int64_t x = 0, y = 0, z = 0;
    bool border = false;
};

// Applies the address mode of `axis` to texel index i of an axis of n
// texels: clamp to the edge, wrap, mirror, or mark as border.
int64_t address_index(address_mode mode, int64_t i, int64_t n, bool& border);

// Reads texel `p` (or the border colour) as the object returns it: channels
// converted (f16 widened, 8/16-bit integers normalized in normalized_float
// mode), missing channels 0 and the last 1. False after a memory fault.
bool read_texel(exec_context& c, const texture_object& t, const texel_pos& p, uint32_t lane, texel4& out);

// Sample coordinates in texel units on up to three axes (layer already
// resolved into the axis it occupies, `layer_axis`, or -1 when not layered).
struct sample_point {
    float u[3] = {0, 0, 0};  // .f32 coordinates, scaled to texels when normalized
    int64_t i[3] = {0, 0, 0}; // .s32 coordinates, or the layer
    bool integer = false;    // the instruction's coordinates are .s32
    int layer_axis = -1;
    uint32_t axes = 1;       // axes that filtering and addressing apply to
    bool cube = false;       // a cubemap face: clamped to its edges whatever the address mode
};

// The face of a cubemap that direction (x, y, z) points at and the
// normalized coordinates on it, as the CUDA guide's cubemap table gives
// them: the major axis m picks the face, then ((s/m + 1)/2, (t/m + 1)/2).
// Ties go to x, then y (the guide leaves them open).
struct cube_point {
    uint32_t face = 0;
    float s = 0, t = 0;
};
cube_point cube_face(float x, float y, float z);

// tex: the texel (point) or the filtered value (linear) at `p`.
bool sample(exec_context& c, const texture_object& t, const sample_point& p, uint32_t lane, texel4& out);

// tld4: channel `comp` of the 2x2 footprint of bilinear filtering at `p`,
// counter-clockwise from the lower left: (i, j+1), (i+1, j+1), (i+1, j), (i, j).
bool gather(exec_context& c, const texture_object& t, const sample_point& p, uint32_t comp, uint32_t lane, texel4& out);

// The linear-filtering weight of the fraction `frac` in [0, 1): CUDA keeps
// it in 9-bit fixed point with 8 fractional bits, so it is a multiple of
// 1/256 (and may round up to 1).
float quantized_weight(float frac);

} // namespace ptxsim::isa::sem
