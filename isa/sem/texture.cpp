// Texture instructions on texture objects (unified mode, a 64-bit handle in
// a register): tex (1d, 2d, 3d, a1d, a2d, cube, acube; .level and .grad
// read level 0 since objects have no mipmaps), tld4, txq and istypep. Sampling is in
// texture_fetch.cpp; the objects come from the simulator through
// exec_context::lookup_texture.
//
// tex returns the sampled channels' bits whatever its .dtype says: the
// texture's format decides whether they are floats or integers, as on the
// GPU, where the instruction does not convert. The one exception is a .f16
// or .f16x2 destination: the float channels are rounded to f16 (to nearest
// even) and written one per .b16 register (.v4.f16) or two per .b32
// register, red/blue in the low halves (.v2.f16x2: {r,g}, {b,a}). Half
// results of a format that returns integers are undefined: a located fault.
//
// .2dms and .a2dms sample multisample textures, which a CUDA texture object
// never is (they come only from graphics interop): using one is a located
// fault naming the object, never a guess.
#include <algorithm>

#include <fmt/format.h>

#include "isa/fp/convert.hpp"
#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"
#include "isa/sem/texture_fetch.hpp"

namespace ptxsim::isa::sem {
namespace {

// flags: bit 0 set for .s32 coordinates; bits 4-6 the operand index of the
// texel offset vector `e` (0: none). sub: the geometry.
enum : uint8_t { f_int_coords = 1, f_f16 = 2, f_f16x2 = 4 };
uint32_t offset_operand(const exec_instruction& ins) { return (ins.flags >> 4) & 7u; }
uint32_t handle_operand(const exec_instruction& ins) { return ins.dest_pair ? 2 : 1; }

uint32_t element(exec_context& c, const exec_operand& o, uint32_t k, uint32_t lane) {
    if (o.kind == opnd::vec) return k < o.count && o.elems[k] != no_slot ? static_cast<uint32_t>(c.reg(o.elems[k], lane)) : 0;
    return k == 0 ? static_cast<uint32_t>(read(c, o, lane)) : 0;
}

// The sample point of the coordinate vector (and texel offsets) for lane.
sample_point coordinates(exec_context& c, const exec_instruction& ins, const texture_object& t, uint32_t lane) {
    const auto g = static_cast<geometry>(ins.sub);
    const exec_operand& v = ins.ops[handle_operand(ins) + 1];
    sample_point p;
    if (g == geometry::cube || g == geometry::acube) {
        // Layer = cube index * 6 + face; the face is sampled as a 2-D
        // texture at the normalized point the direction gives.
        const uint32_t first = g == geometry::acube ? 1 : 0;
        const int64_t cubes = t.layers / 6;
        const int64_t index = first ? std::clamp<int64_t>(static_cast<int32_t>(element(c, v, 0, lane)), 0, cubes - 1) : 0;
        cube_point cp = cube_face(as_f32(element(c, v, first, lane)), as_f32(element(c, v, first + 1, lane)),
                                  as_f32(element(c, v, first + 2, lane)));
        p.cube = true;
        p.axes = 2;
        p.layer_axis = 2;
        p.i[2] = index * 6 + cp.face;
        p.u[0] = cp.s * static_cast<float>(t.width);
        p.u[1] = cp.t * static_cast<float>(t.height);
        return p;
    }
    p.integer = ins.flags & f_int_coords;
    p.axes = t.dims;
    // Layered geometries put the layer first; it is an integer either way.
    uint32_t first = 0;
    if (g == geometry::a1d || g == geometry::a2d) {
        p.layer_axis = static_cast<int>(t.dims);
        p.i[t.dims] = static_cast<int32_t>(element(c, v, 0, lane));
        first = 1;
    }
    const uint32_t off = offset_operand(ins);
    const uint64_t extent[3] = {t.width, t.height, t.depth};
    for (uint32_t k = 0; k < p.axes; ++k) {
        uint32_t bits = element(c, v, first + k, lane);
        int32_t delta = off ? static_cast<int32_t>(element(c, ins.ops[off], k, lane)) : 0;
        if (p.integer) {
            p.i[k] = static_cast<int64_t>(static_cast<int32_t>(bits)) + delta;
        } else {
            float u = as_f32(bits);
            if (t.normalized_coords) u *= static_cast<float>(extent[k]);
            p.u[k] = u + static_cast<float>(delta);
        }
    }
    return p;
}

void write_vector(exec_context& c, const exec_operand& d, uint32_t lane, const texel4& v) {
    if (d.kind != opnd::vec) return write(c, d, lane, v[0]);
    for (uint32_t k = 0; k < d.count && k < 4; ++k)
        if (d.elems[k] != no_slot) c.reg(d.elems[k], lane) = v[k];
}

// The channels as a .f16 (one per element) or .f16x2 (two per element)
// destination takes them; false after a fault.
bool to_half_results(exec_context& c, const exec_instruction& ins, const texture_object& t, uint64_t handle,
                     uint32_t lane, texel4& v) {
    if (!t.returns_float()) {
        c.fault(fault_kind::invalid_operation, lane, handle,
                fmt::format("tex.{}.{} on texture object {:#x}, whose format returns integers (half results of integer "
                            "texels are undefined in the PTX ISA)",
                            geometry_name(static_cast<geometry>(ins.sub)), ins.flags & f_f16x2 ? "v2.f16x2" : "v4.f16",
                            handle));
        return false;
    }
    texel4 h;
    for (int k = 0; k < 4; ++k) h[k] = fp::cvt_f16_f32(v[k], fp::rounding::rn);
    if (ins.flags & f_f16x2) v = {h[0] | h[1] << 16, h[2] | h[3] << 16, 0, 0};
    else v = h;
    return true;
}

std::string what(const char* op, const exec_instruction& ins) {
    return fmt::format("{}.{}", op, geometry_name(static_cast<geometry>(ins.sub)));
}

// tex{.level,.grad}.geom.v4.dtype.ctype d{|p}, [h, c]{, lod | dPdx, dPdy}{, e}
void tex_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const auto g = static_cast<geometry>(ins.sub);
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t h = address(c, ins.ops[handle_operand(ins)], lane);
        const texture_object* t = find_object(c, h, object_kind::texture, g, what("tex", ins), lane);
        if (!t) return;
        texel4 v;
        if (!sample(c, *t, coordinates(c, ins, *t, lane), lane, v)) return;
        if ((ins.flags & (f_f16 | f_f16x2)) && !to_half_results(c, ins, *t, h, lane, v)) return;
        write_vector(c, ins.ops[0], lane, v);
        if (ins.dest_pair) write(c, ins.ops[1], lane, 1); // every texel is resident
    });
}

// tex.2dms / tex.a2dms: sub 0 or 1. The handle is checked as for any tex,
// then the object is found not to be multisampled.
void tex_multisample_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const char* geom = ins.sub ? "a2dms" : "2dms";
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t h = address(c, ins.ops[handle_operand(ins)], lane);
        const texture_object* t = c.lookup_texture(h);
        if (!t || t->kind != object_kind::texture) {
            c.fault(fault_kind::invalid_address, lane, h,
                    fmt::format("tex.{} with handle {:#x}, which is not a texture object", geom, h));
            return;
        }
        c.fault(fault_kind::invalid_operation, lane, h,
                fmt::format("tex.{} on texture object {:#x}, which is not multisampled (CUDA texture objects never are; "
                            "multisample textures come only from graphics interop)",
                            geom, h));
    });
}

// tld4.comp.2d.v4.dtype.f32 d{|p}, [h, c]{, e}; sub: geometry, target: the component.
void tld4_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const auto g = static_cast<geometry>(ins.sub);
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t h = address(c, ins.ops[handle_operand(ins)], lane);
        const texture_object* t = find_object(c, h, object_kind::texture, g, what("tld4", ins), lane);
        if (!t) return;
        texel4 v;
        if (!gather(c, *t, coordinates(c, ins, *t, lane), ins.target, lane, v)) return;
        write_vector(c, ins.ops[0], lane, v);
        if (ins.dest_pair) write(c, ins.ops[1], lane, 1);
    });
}

// Operands after the coordinates: the level of detail or two gradients
// (ignored: an object has only level 0), then an optional offset vector
// and an optional depth-compare value.
std::string place_extras(const matched_instruction& m, exec_instruction& out, uint32_t skip) {
    uint32_t next = handle_operand(out) + 2 + skip;
    if (next > out.nops) return "too few operands";
    if (next < out.nops && out.ops[next].kind == opnd::vec) {
        if (next > 7) return "too many operands";
        out.flags = static_cast<uint8_t>(out.flags | next << 4);
        ++next;
    }
    if (next < out.nops) return fmt::format("{} with a depth-compare operand is not implemented yet", m.row->key);
    return {};
}

std::string decode_geometry(const matched_instruction& m, exec_instruction& out) {
    geometry g;
    if (!geometry_of(m.get("geom"), g)) return fmt::format("{}.{} is not implemented yet", m.row->key, m.get("geom"));
    out.sub = static_cast<uint8_t>(g);
    const uint32_t h = handle_operand(out);
    if (out.ops[h].kind != opnd::addr || out.ops[h].slot == no_slot)
        return fmt::format("{} on a .texref/.surfref variable is not implemented (CUDA 13 uses texture objects: a handle in a "
                           "register)", m.row->key);
    if (out.nops < h + 2 || (out.ops[h + 1].kind != opnd::vec && out.ops[h + 1].kind != opnd::reg))
        return fmt::format("{} needs its coordinates in registers", m.row->key);
    return {};
}

std::string dec_tex(const matched_instruction& m, exec_instruction& out) {
    if (std::string_view g = m.get("geom"); g == "2dms" || g == "a2dms") {
        const uint32_t h = handle_operand(out);
        if (out.ops[h].kind != opnd::addr || out.ops[h].slot == no_slot)
            return fmt::format("{} on a .texref variable is not implemented (CUDA 13 uses texture objects)", m.row->key);
        out.sub = g == "a2dms" ? 1 : 0;
        out.run = tex_multisample_handler;
        return {};
    }
    if (auto why = decode_geometry(m, out); !why.empty()) return why;
    if (out.type == parser::data_type::f16) out.flags |= f_f16;
    if (out.type == parser::data_type::f16x2) out.flags |= f_f16x2;
    if (out.type2 == parser::data_type::s32) out.flags |= f_int_coords;
    std::string_view mode = m.get("mode");
    out.run = tex_handler;
    return place_extras(m, out, mode == "level" ? 1 : mode == "grad" ? 2 : 0);
}

std::string dec_tld4(const matched_instruction& m, exec_instruction& out) {
    if (auto why = decode_geometry(m, out); !why.empty()) return why;
    std::string_view comp = m.get("comp");
    out.target = comp == "r" ? 0 : comp == "g" ? 1 : comp == "b" ? 2 : 3;
    out.run = tld4_handler;
    return place_extras(m, out, 0);
}

// ---- txq
enum class tquery : uint8_t {
    width, height, depth, channel_data_type, channel_order, normalized_coords, filter_mode, addr_mode_0, addr_mode_1,
    addr_mode_2, force_unnormalized_coords, array_size, num_mipmap_levels, num_samples
};

// The PTX ISA's orders of the sampler enumerations: filter nearest, linear;
// address wrap, mirror, clamp_ogl, clamp_to_edge, clamp_to_border.
uint32_t address_code(address_mode m) {
    switch (m) {
    case address_mode::wrap: return 0;
    case address_mode::mirror: return 1;
    case address_mode::clamp: return 3;
    default: return 4;
    }
}

uint32_t texture_query(const texture_object& t, tquery q, uint32_t level) {
    switch (q) {
    case tquery::width: return level == 0 ? t.width : 0;
    case tquery::height: return level == 0 ? t.height : 0;
    case tquery::depth: return level == 0 ? t.depth : 0;
    case tquery::channel_data_type: return channel_data_type_code(t);
    case tquery::channel_order: return channel_order_code(t);
    case tquery::normalized_coords: return t.normalized_coords ? 1 : 0;
    case tquery::filter_mode: return t.filter == filter_mode::linear ? 1 : 0;
    case tquery::addr_mode_0: return address_code(t.address[0]);
    case tquery::addr_mode_1: return address_code(t.address[1]);
    case tquery::addr_mode_2: return address_code(t.address[2]);
    case tquery::force_unnormalized_coords: return 0;
    case tquery::array_size: return t.cubemap ? t.layers / 6 : t.layers; // cubes, for a cubemap array
    case tquery::num_mipmap_levels: return 1; // level 0 only
    case tquery::num_samples: return 1;       // not multisampled
    }
    return 0;
}

// txq{.level}.query.b32 d, [h]{, lod}
void txq_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t h = address(c, ins.ops[1], lane);
        const texture_object* t = c.lookup_texture(h);
        if (!t || t->kind != object_kind::texture) {
            c.fault(fault_kind::invalid_address, lane, h, fmt::format("txq with handle {:#x}, which is not a texture object", h));
            return;
        }
        uint32_t level = ins.flags ? static_cast<uint32_t>(read(c, ins.ops[2], lane)) : 0;
        write(c, ins.ops[0], lane, texture_query(*t, static_cast<tquery>(ins.sub), level));
    });
}

std::string dec_txq(const matched_instruction& m, exec_instruction& out) {
    static constexpr std::string_view names[] = {"width", "height", "depth", "channel_data_type", "channel_order",
                                                 "normalized_coords", "filter_mode", "addr_mode_0", "addr_mode_1",
                                                 "addr_mode_2", "force_unnormalized_coords", "array_size",
                                                 "num_mipmap_levels", "num_samples"};
    std::string_view q = m.get("query");
    for (uint8_t i = 0; i < std::size(names); ++i)
        if (names[i] == q) out.sub = i;
    if (out.ops[1].kind != opnd::addr || out.ops[1].slot == no_slot)
        return "txq on a .texref/.samplerref variable is not implemented (CUDA 13 uses texture objects)";
    out.flags = m.has("level") ? 1 : 0;
    out.run = txq_handler;
    return {};
}

// istypep.type p, a: whether handle a names a live object of that type.
// In unified mode a texture object is its own sampler, so .samplerref
// holds for texture handles too.
void istypep_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    for_lanes(mask, [&](uint32_t lane) {
        const texture_object* t = c.lookup_texture(read(c, ins.ops[1], lane));
        const object_kind want = ins.sub == 2 ? object_kind::surface : object_kind::texture;
        write(c, ins.ops[0], lane, t && t->kind == want ? 1 : 0);
    });
}

std::string dec_istypep(const matched_instruction& m, exec_instruction& out) {
    std::string_view t = m.get("type");
    out.sub = t == "texref" ? 0 : t == "samplerref" ? 1 : 2;
    out.run = istypep_handler;
    return {};
}

constexpr entry entries[] = {
    {"tex", dec_tex}, {"tld4", dec_tld4}, {"txq", dec_txq}, {"istypep", dec_istypep},
};

} // namespace

std::span<const entry> texture_entries() { return entries; }

} // namespace ptxsim::isa::sem
