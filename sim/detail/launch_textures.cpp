#include "sim/detail/launch_textures.hpp"

#include <fmt/format.h>

#include "sim/texture_table.hpp"

namespace ptxsim::sim::detail {
namespace {

using json = nlohmann::json;
using isa::texture_object;

struct named_type {
    const char* name;
    isa::texel_type type;
};
constexpr named_type texel_types[] = {
    {"u8", isa::texel_type::u8},   {"s8", isa::texel_type::s8},   {"u16", isa::texel_type::u16}, {"s16", isa::texel_type::s16},
    {"u32", isa::texel_type::u32}, {"s32", isa::texel_type::s32}, {"f16", isa::texel_type::f16}, {"f32", isa::texel_type::f32},
};

bool address_mode_of(const json& v, isa::address_mode& out) {
    if (!v.is_string()) return false;
    const std::string s = v;
    if (s == "clamp") out = isa::address_mode::clamp;
    else if (s == "wrap") out = isa::address_mode::wrap;
    else if (s == "mirror") out = isa::address_mode::mirror;
    else if (s == "border") out = isa::address_mode::border;
    else return false;
    return true;
}

bool positive(const json& v, uint64_t max) { return v.is_number_unsigned() && v.get<uint64_t>() > 0 && v.get<uint64_t>() <= max; }

class section_reader {
public:
    section_reader(isa::object_kind kind, launch_file& f, const report& error) : kind_(kind), f_(f), error_(error) {}

    void object(const std::string& name, const json& o) {
        where_ = fmt::format("{} '{}'", kind_ == isa::object_kind::texture ? "texture" : "surface", name);
        if (!o.is_object()) return fail(name, "must be an object");
        const bool tex = kind_ == isa::object_kind::texture;
        for (auto& [k, v] : o.items()) {
            const bool common = k == "buffer" || k == "offset" || k == "dims" || k == "layers" || k == "pitch_bytes" ||
                                k == "slice_pitch_bytes" || k == "format" || k == "read_mode" || k == "comment";
            const bool sampling = k == "address_mode" || k == "filter" || k == "normalized_coords" || k == "border_color" ||
                                  k == "cubemap";
            if (!common && !(tex && sampling)) fail(k, fmt::format("unknown key '{}'", k));
        }
        texture_spec s;
        s.name = name;
        texture_object& t = s.object;
        t.kind = kind_;
        const buffer_spec* buffer = nullptr;
        if (!o.contains("buffer") || !o["buffer"].is_string()) return fail(name, "needs \"buffer\": the buffer holding its texels");
        s.buffer = o["buffer"];
        for (const auto& b : f_.buffers)
            if (b.name == s.buffer) buffer = &b;
        if (!buffer) return fail("buffer", fmt::format("unknown buffer '{}'", s.buffer));
        if (o.contains("offset")) {
            if (!o["offset"].is_number_unsigned()) return fail("offset", "\"offset\" is a byte count");
            s.offset = o["offset"];
        }
        if (!dims(o, t) || !format(o, t) || !modes(o, t)) return;
        const uint64_t tb = t.texel_bytes();
        const uint64_t rows = t.dims >= 2 ? t.height : t.layers ? t.layers : 1;
        t.pitch = t.width * tb;
        if (o.contains("pitch_bytes")) {
            if (!o["pitch_bytes"].is_number_unsigned()) return fail("pitch_bytes", "\"pitch_bytes\" is a byte count");
            t.pitch = o["pitch_bytes"];
        }
        t.slice_pitch = t.pitch * rows;
        if (o.contains("slice_pitch_bytes")) {
            if (!o["slice_pitch_bytes"].is_number_unsigned()) return fail("slice_pitch_bytes", "\"slice_pitch_bytes\" is a byte count");
            t.slice_pitch = o["slice_pitch_bytes"];
        }
        uint64_t bytes = 0;
        if (std::string why = check_texture_layout(t, bytes); !why.empty()) return fail(name, why);
        const uint64_t have = buffer->count * buffer->elem_bytes;
        if (bytes > have || s.offset > have - bytes)
            return fail("buffer", fmt::format("its texels span {} bytes from byte {}; buffer '{}' has {}", bytes, s.offset, s.buffer, have));
        f_.textures.push_back(std::move(s));
    }

private:
    void fail(const std::string& key, const std::string& msg) { error_(key, fmt::format("{}: {}", where_, msg)); }
    bool reject(const std::string& key, const std::string& msg) {
        fail(key, msg);
        return false;
    }

    bool dims(const json& o, texture_object& t) {
        const json* d = o.contains("dims") ? &o["dims"] : nullptr;
        if (!d || !d->is_array() || d->empty() || d->size() > 3)
            return reject("dims", "\"dims\" is [width], [width, height] or [width, height, depth] in texels");
        uint32_t* extent[] = {&t.width, &t.height, &t.depth};
        for (size_t i = 0; i < d->size(); ++i) {
            if (!positive((*d)[i], 1u << 30))
                return reject("dims", "\"dims\" holds positive texel counts");
            *extent[i] = (*d)[i].get<uint32_t>();
        }
        t.dims = static_cast<uint32_t>(d->size());
        if (o.contains("layers")) {
            if (!positive(o["layers"], 1u << 16))
                return reject("layers", "\"layers\" is a positive number of layers");
            t.layers = o["layers"].get<uint32_t>();
        }
        if (o.contains("cubemap")) {
            if (!o["cubemap"].is_boolean())
                return reject("cubemap", "\"cubemap\" is true or false");
            t.cubemap = o["cubemap"];
            if (t.cubemap && !t.layers) t.layers = 6; // one cube
        }
        return true;
    }

    bool format(const json& o, texture_object& t) {
        const json* fm = o.contains("format") ? &o["format"] : nullptr;
        auto bad = [&] {
            return reject("format", "\"format\" is {\"type\": u8|s8|u16|s16|u32|s32|f16|f32, \"channels\": 1|2|4}");
        };
        if (!fm || !fm->is_object() || !fm->contains("type") || !(*fm)["type"].is_string()) return bad();
        for (auto& [k, v] : fm->items())
            if (k != "type" && k != "channels") return bad();
        bool found = false;
        for (const auto& nt : texel_types)
            if ((*fm)["type"] == nt.name) {
                t.type = nt.type;
                found = true;
            }
        if (!found) return bad();
        if (fm->contains("channels")) {
            const json& c = (*fm)["channels"];
            if (!c.is_number_unsigned() || (c != 1 && c != 2 && c != 4)) return bad();
            t.channels = c.get<uint8_t>();
        }
        return true;
    }

    bool modes(const json& o, texture_object& t) {
        if (o.contains("read_mode")) {
            const json& r = o["read_mode"];
            if (r == "element") t.read = isa::read_mode::element;
            else if (r == "normalized_float") t.read = isa::read_mode::normalized_float;
            else return reject("read_mode", "\"read_mode\" is \"element\" or \"normalized_float\"");
        }
        if (o.contains("filter")) {
            const json& r = o["filter"];
            if (r == "point") t.filter = isa::filter_mode::point;
            else if (r == "linear") t.filter = isa::filter_mode::linear;
            else return reject("filter", "\"filter\" is \"point\" or \"linear\"");
        }
        if (o.contains("normalized_coords")) {
            if (!o["normalized_coords"].is_boolean()) return reject("normalized_coords", "\"normalized_coords\" is true or false");
            t.normalized_coords = o["normalized_coords"];
        }
        if (o.contains("address_mode")) {
            const json& a = o["address_mode"];
            const char* msg = "\"address_mode\" is \"clamp\", \"wrap\", \"mirror\" or \"border\", or a list of one per dimension";
            if (a.is_array()) {
                if (a.size() != t.dims) return reject("address_mode", msg);
                for (size_t i = 0; i < a.size(); ++i)
                    if (!address_mode_of(a[i], t.address[i])) return reject("address_mode", msg);
            } else {
                isa::address_mode m;
                if (!address_mode_of(a, m)) return reject("address_mode", msg);
                t.address = {m, m, m};
            }
        }
        if (o.contains("border_color")) {
            const json& b = o["border_color"];
            if (!b.is_array() || b.empty() || b.size() > 4) return reject("border_color", "\"border_color\" is a list of 1 to 4 numbers");
            for (size_t i = 0; i < b.size(); ++i) {
                if (!b[i].is_number()) return reject("border_color", "\"border_color\" is a list of 1 to 4 numbers");
                // Stored as the texture returns channels: f32 bits or integers.
                t.border[i] = t.returns_float() ? static_cast<uint32_t>(encode_value("f32", b[i].get<double>()))
                                                : static_cast<uint32_t>(static_cast<int64_t>(b[i].get<double>()));
            }
        }
        return true;
    }

    isa::object_kind kind_;
    launch_file& f_;
    const report& error_;
    std::string where_;
};

} // namespace

void read_texture_specs(const json& j, isa::object_kind kind, launch_file& f, const report& error) {
    const char* section = kind == isa::object_kind::texture ? "textures" : "surfaces";
    if (!j.is_object()) return error(section, fmt::format("\"{}\" maps names to objects over buffers", section));
    section_reader r(kind, f, error);
    for (auto& [name, o] : j.items()) r.object(name, o);
}

} // namespace ptxsim::sim::detail
