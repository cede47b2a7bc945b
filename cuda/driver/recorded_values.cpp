#include "cuda/driver/recorded_values.hpp"

#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "sim/launch_file.hpp"

namespace ptxsim::cuda::driver {

using json = nlohmann::ordered_json;

json scalar_arg(const parser::var_decl* decl, uint32_t size, uint64_t bits) {
    const std::string raw = fmt::format("b{}", size * 8);
    if (!decl || decl->vec || decl->dims.size()) return {{raw, bits}};
    const std::string type(parser::to_string(decl->type));
    if (sim::type_bytes(type) != size) return {{raw, bits}};
    if (type == "f32" || type == "f64") {
        double v;
        if (type == "f32") {
            float f;
            const uint32_t b = uint32_t(bits);
            std::memcpy(&f, &b, 4);
            v = f;
        } else {
            std::memcpy(&v, &bits, 8);
        }
        if (!std::isfinite(v)) return {{raw, bits}};
        return {{type, v}};
    }
    if (type[0] == 's') {
        const int shift = 64 - int(size) * 8;
        return {{type, int64_t(bits << shift) >> shift}};
    }
    if (type[0] == 'u' || type[0] == 'b') return {{type, bits}};
    return {{raw, bits}};
}

json object_spec(const isa::texture_object& t, const std::string& buffer, uint64_t offset) {
    static const char* types[] = {"u8", "s8", "u16", "s16", "u32", "s32", "f16", "f32"};
    static const char* modes[] = {"wrap", "clamp", "mirror", "border"};
    json o = {{"buffer", buffer}};
    if (offset) o["offset"] = offset;
    json dims = json::array({t.width});
    if (t.dims >= 2) dims.push_back(t.height);
    if (t.dims >= 3) dims.push_back(t.depth);
    o["dims"] = dims;
    if (t.layers) o["layers"] = t.layers;
    o["pitch_bytes"] = t.pitch;
    o["slice_pitch_bytes"] = t.slice_pitch;
    o["format"] = {{"type", types[int(t.type)]}, {"channels", t.channels}};
    o["read_mode"] = t.read == isa::read_mode::element ? "element" : "normalized_float";
    if (t.kind == isa::object_kind::surface) return o;
    if (t.cubemap) o["cubemap"] = true;
    json address = json::array();
    for (uint32_t i = 0; i < t.dims; ++i) address.push_back(modes[int(t.address[i])]);
    o["address_mode"] = address;
    o["filter"] = t.filter == isa::filter_mode::point ? "point" : "linear";
    o["normalized_coords"] = t.normalized_coords;
    json border = json::array();
    for (uint32_t i = 0; i < t.channels; ++i) {
        float f;
        std::memcpy(&f, &t.border[i], 4);
        if (t.returns_float()) border.push_back(double(f));
        else if (t.type == isa::texel_type::s8 || t.type == isa::texel_type::s16 || t.type == isa::texel_type::s32)
            border.push_back(int32_t(t.border[i]));
        else border.push_back(t.border[i]);
    }
    o["border_color"] = border;
    return o;
}

} // namespace ptxsim::cuda::driver
