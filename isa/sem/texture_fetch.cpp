#include "isa/sem/texture_fetch.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "isa/fp/convert.hpp"

namespace ptxsim::isa::sem {
namespace {

constexpr uint32_t f32_one = 0x3F800000u;
constexpr uint32_t canonical_nan = 0x7FFFFFFFu;

uint32_t f32_bits(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}
float f32_value(uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
}

// v / scale rounded once to f32: the quotient of two integers below 2^16 is
// never close enough to an f32 rounding boundary for the double rounding
// through f64 to matter.
uint32_t unorm(uint32_t v, double scale) { return f32_bits(static_cast<float>(v / scale)); }
uint32_t snorm(int32_t v, double scale) { return f32_bits(static_cast<float>(std::max(v / scale, -1.0))); }

// One channel's raw bits as the texture returns them.
uint32_t convert_channel(const texture_object& t, uint32_t raw) {
    const bool norm = t.read == read_mode::normalized_float;
    switch (t.type) {
    case texel_type::u8: return norm ? unorm(raw & 0xFF, 255.0) : raw & 0xFF;
    case texel_type::u16: return norm ? unorm(raw & 0xFFFF, 65535.0) : raw & 0xFFFF;
    case texel_type::s8: {
        int32_t v = static_cast<int8_t>(raw);
        return norm ? snorm(v, 127.0) : static_cast<uint32_t>(v);
    }
    case texel_type::s16: {
        int32_t v = static_cast<int16_t>(raw);
        return norm ? snorm(v, 32767.0) : static_cast<uint32_t>(v);
    }
    case texel_type::f16: return fp::cvt_f32_f16(static_cast<uint16_t>(raw));
    default: return raw; // u32, s32, f32: the bits as stored
    }
}

texel4 defaults(const texture_object& t) {
    return {0, 0, 0, t.returns_float() ? f32_one : 1u};
}

// A float coordinate's texel index: floor, with NaN as 0 and huge values
// kept far outside any texture rather than overflowing.
int64_t floor_index(float u) {
    if (std::isnan(u)) return 0;
    double f = std::floor(static_cast<double>(u));
    return static_cast<int64_t>(std::clamp(f, -0x1p40, 0x1p40));
}

int64_t extent(const texture_object& t, uint32_t axis) { return axis == 0 ? t.width : axis == 1 ? t.height : t.depth; }

// The texel at integer indices idx (layer axis included) after addressing.
texel_pos address(const texture_object& t, const sample_point& p, const int64_t idx[3]) {
    texel_pos out;
    int64_t* dst[3] = {&out.x, &out.y, &out.z};
    for (uint32_t k = 0; k < 3; ++k) {
        if (static_cast<int>(k) == p.layer_axis) {
            // A layer index outside the array reads the nearest layer.
            *dst[k] = std::clamp<int64_t>(p.i[k], 0, static_cast<int64_t>(t.layers) - 1);
        } else if (k < p.axes) {
            *dst[k] = address_index(p.cube ? address_mode::clamp : t.address[k], idx[k], extent(t, k), out.border);
        }
    }
    return out;
}

} // namespace

bool geometry_of(std::string_view text, geometry& g) {
    static constexpr std::pair<std::string_view, geometry> names[] = {
        {"1d", geometry::g1d},   {"2d", geometry::g2d},   {"3d", geometry::g3d},     {"a1d", geometry::a1d},
        {"a2d", geometry::a2d}, {"cube", geometry::cube}, {"acube", geometry::acube}};
    for (auto [n, v] : names)
        if (n == text) {
            g = v;
            return true;
        }
    return false;
}

const char* geometry_name(geometry g) {
    static constexpr const char* names[] = {"1d", "2d", "3d", "a1d", "a2d", "cube", "acube"};
    return names[static_cast<size_t>(g)];
}

uint32_t coordinate_count(geometry g) {
    switch (g) {
    case geometry::g1d: return 1;
    case geometry::g2d: case geometry::a1d: return 2;
    case geometry::g3d: case geometry::a2d: case geometry::cube: case geometry::acube:
        return 4; // the fourth of a 3d or cube vector is ignored; a2d: layer, x, y, unused; acube: layer, x, y, z
    }
    return 1;
}

const texture_object* find_object(exec_context& c, uint64_t handle, object_kind kind, geometry g, std::string_view what,
                                  uint32_t lane) {
    const texture_object* t = c.lookup_texture(handle);
    const char* wanted = kind == object_kind::texture ? "texture" : "surface";
    if (!t || t->kind != kind) {
        c.fault(fault_kind::invalid_address, lane, handle,
                fmt::format("{} with handle {:#x}, which is not a {} object{}", what, handle, wanted,
                            t ? fmt::format(" (it is a {} object)", kind == object_kind::texture ? "surface" : "texture") : ""));
        return nullptr;
    }
    const uint32_t dims = g == geometry::g1d || g == geometry::a1d ? 1 : g == geometry::g3d ? 3 : 2;
    const bool cube = g == geometry::cube || g == geometry::acube;
    const bool layered = g == geometry::a1d || g == geometry::a2d || cube;
    if (t->dims != dims || (t->layers > 0) != layered || t->cubemap != cube) {
        c.fault(fault_kind::invalid_address, lane, handle,
                fmt::format("{} on {} object {:#x}, which is {}", what, wanted, handle,
                            t->cubemap ? std::string("a cubemap")
                                       : fmt::format("{}{}-D", t->layers ? "a layered " : "", t->dims)));
        return nullptr;
    }
    return t;
}

uint32_t channel_data_type_code(const texture_object& t) {
    const bool norm = t.read == read_mode::normalized_float;
    switch (t.type) {
    case texel_type::s8: return norm ? 0x10D0 : 0x10D7;
    case texel_type::s16: return norm ? 0x10D1 : 0x10D8;
    case texel_type::u8: return norm ? 0x10D2 : 0x10DA;
    case texel_type::u16: return norm ? 0x10D3 : 0x10DB;
    case texel_type::s32: return 0x10D9;
    case texel_type::u32: return 0x10DC;
    case texel_type::f16: return 0x10DD;
    default: return 0x10DE;
    }
}

uint32_t channel_order_code(const texture_object& t) { return t.channels == 1 ? 0x10B0 : t.channels == 2 ? 0x10B2 : 0x10B5; }

int64_t address_index(address_mode mode, int64_t i, int64_t n, bool& border) {
    switch (mode) {
    case address_mode::wrap: return ((i % n) + n) % n;
    case address_mode::mirror: {
        int64_t m = ((i % (2 * n)) + 2 * n) % (2 * n);
        return m < n ? m : 2 * n - 1 - m;
    }
    case address_mode::border:
        if (i < 0 || i >= n) border = true;
        return std::clamp<int64_t>(i, 0, n - 1);
    default: return std::clamp<int64_t>(i, 0, n - 1);
    }
}

bool read_texel(exec_context& c, const texture_object& t, const texel_pos& p, uint32_t lane, texel4& out) {
    out = defaults(t);
    if (p.border) {
        for (uint32_t ch = 0; ch < t.channels; ++ch) out[ch] = t.border[ch];
        return true;
    }
    uint64_t addr = t.base + static_cast<uint64_t>(p.z) * t.slice_pitch + static_cast<uint64_t>(p.y) * t.pitch +
                    static_cast<uint64_t>(p.x) * t.texel_bytes();
    uint8_t bytes[16] = {};
    if (!c.load(space::global, addr, t.texel_bytes(), lane, bytes)) return false;
    const uint32_t cb = t.channel_bytes();
    for (uint32_t ch = 0; ch < t.channels; ++ch) {
        uint32_t raw = 0;
        std::memcpy(&raw, bytes + ch * cb, cb);
        out[ch] = convert_channel(t, raw);
    }
    return true;
}

float quantized_weight(float frac) {
    // frac * 256 is exact; rounding to nearest is what lets the weight reach
    // 1.0, which is why the format has a ninth bit.
    return std::floor(frac * 256.0f + 0.5f) / 256.0f;
}

cube_point cube_face(float x, float y, float z) {
    const float ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z);
    float m, s, t;
    uint32_t face;
    if (ax >= ay && ax >= az) {
        face = x >= 0 ? 0 : 1;
        m = ax;
        s = x >= 0 ? -z : z;
        t = -y;
    } else if (ay >= az) {
        face = y >= 0 ? 2 : 3;
        m = ay;
        s = x;
        t = y >= 0 ? z : -z;
    } else {
        face = z >= 0 ? 4 : 5;
        m = az;
        s = z >= 0 ? x : -x;
        t = -y;
    }
    return {face, (s / m + 1.0f) * 0.5f, (t / m + 1.0f) * 0.5f};
}

bool sample(exec_context& c, const texture_object& t, const sample_point& p, uint32_t lane, texel4& out) {
    if (p.integer || t.filter == filter_mode::point) {
        int64_t idx[3];
        for (uint32_t k = 0; k < 3; ++k) idx[k] = p.integer ? p.i[k] : floor_index(p.u[k]);
        return read_texel(c, t, address(t, p, idx), lane, out);
    }
    // Linear: each axis blends texels i and i+1 around u - 0.5 with the
    // quantized weight; corners are summed in the CUDA guide's order
    // (x fastest), each product and sum rounded to f32.
    int64_t base[3] = {0, 0, 0};
    float w[3] = {0, 0, 0};
    for (uint32_t k = 0; k < p.axes; ++k) {
        float ub = p.u[k] - 0.5f;
        base[k] = floor_index(ub);
        float frac = std::isfinite(ub) ? ub - std::floor(ub) : 0.0f;
        w[k] = quantized_weight(frac);
    }
    float acc[4] = {0, 0, 0, 0};
    const uint32_t corners = 1u << p.axes;
    for (uint32_t corner = 0; corner < corners; ++corner) {
        int64_t idx[3] = {base[0], base[1], base[2]};
        float weight = 1.0f;
        for (uint32_t k = 0; k < p.axes; ++k) {
            const bool hi = (corner >> k) & 1u;
            idx[k] += hi ? 1 : 0;
            weight *= hi ? w[k] : 1.0f - w[k]; // products of 9-bit weights are exact
        }
        texel4 v;
        if (!read_texel(c, t, address(t, p, idx), lane, v)) return false;
        for (uint32_t ch = 0; ch < 4; ++ch) {
            float term = weight * f32_value(v[ch]);
            acc[ch] = corner == 0 ? term : acc[ch] + term;
        }
    }
    for (uint32_t ch = 0; ch < 4; ++ch) out[ch] = std::isnan(acc[ch]) ? canonical_nan : f32_bits(acc[ch]);
    return true;
}

bool gather(exec_context& c, const texture_object& t, const sample_point& p, uint32_t comp, uint32_t lane, texel4& out) {
    const int64_t i = floor_index(p.u[0] - 0.5f), j = floor_index(p.u[1] - 0.5f);
    const int64_t corners[4][2] = {{i, j + 1}, {i + 1, j + 1}, {i + 1, j}, {i, j}};
    for (uint32_t n = 0; n < 4; ++n) {
        int64_t idx[3] = {corners[n][0], corners[n][1], 0};
        texel4 v;
        if (!read_texel(c, t, address(t, p, idx), lane, v)) return false;
        out[n] = v[comp];
    }
    return true;
}

} // namespace ptxsim::isa::sem
