// Surface instructions on surface objects (a 64-bit handle in a register):
// suld.b, sust.b, sust.p, sured.b, sured.p and suq. For the .b forms the x
// coordinate is a byte offset into the row; for the .p forms it counts
// texels. A coordinate outside the surface faults (.trap, the default),
// reads and writes the nearest texel in range (.clamp), or reads zero and
// drops the write (.zero). Accesses go through the context like ld/st, so
// a surface over freed memory faults as such.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "isa/fp/convert.hpp"
#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"
#include "isa/sem/texture_fetch.hpp"

namespace ptxsim::isa::sem {
namespace {

// flags: bits 0-1 the out-of-range mode, bit 2 the formatted (.p) form;
// sub: the geometry; vec: .v2/.v4; rmw: sured's operation.
enum class oob : uint8_t { trap, clamp, zero };
enum class rop : uint8_t { add, min, max, and_, or_ };
enum : uint8_t { f_formatted = 4 };
oob mode_of(const exec_instruction& ins) { return static_cast<oob>(ins.flags & 3u); }
bool formatted(const exec_instruction& ins) { return ins.flags & f_formatted; }

uint32_t element(exec_context& c, const exec_operand& o, uint32_t k, uint32_t lane) {
    if (o.kind == opnd::vec) return k < o.count && o.elems[k] != no_slot ? static_cast<uint32_t>(c.reg(o.elems[k], lane)) : 0;
    return k == 0 ? static_cast<uint32_t>(read(c, o, lane)) : 0;
}

std::string what(const char* op, const exec_instruction& ins) {
    return fmt::format("{}.{}.{}", op, formatted(ins) ? "p" : "b", geometry_name(static_cast<geometry>(ins.sub)));
}

// Where an access of `size` bytes at the coordinates lands. Returns false
// after a fault, or with `skip` set when .zero drops an access out of range.
bool locate(exec_context& c, const exec_instruction& ins, const texture_object& t, const exec_operand& coords, uint32_t size,
            const std::string& op, uint32_t lane, uint64_t& addr, bool& skip) {
    const auto g = static_cast<geometry>(ins.sub);
    const bool layered = g == geometry::a1d || g == geometry::a2d;
    const uint32_t first = layered ? 1 : 0;
    int64_t layer = layered ? static_cast<int64_t>(element(c, coords, 0, lane)) : 0;
    int64_t x = static_cast<int32_t>(element(c, coords, first, lane));
    int64_t y = t.dims >= 2 ? static_cast<int32_t>(element(c, coords, first + 1, lane)) : 0;
    int64_t z = t.dims >= 3 ? static_cast<int32_t>(element(c, coords, first + 2, lane)) : 0;
    if (formatted(ins)) x *= t.texel_bytes();
    const int64_t row = static_cast<int64_t>(t.width) * t.texel_bytes();
    if (x % size != 0) {
        c.fault(fault_kind::misaligned, lane, t.base + static_cast<uint64_t>(x),
                fmt::format("{}: x = {} bytes is not a multiple of the {}-byte access", op, x, size));
        return false;
    }
    const bool inside = x >= 0 && x + size <= row && y >= 0 && y < t.height && z >= 0 && z < t.depth &&
                        (!layered || layer < t.layers);
    skip = false;
    if (!inside) {
        switch (mode_of(ins)) {
        case oob::zero: skip = true; return true;
        case oob::clamp:
            if (static_cast<int64_t>(size) <= row) {
                x = std::clamp<int64_t>(x, 0, row - size) / size * size;
                y = std::clamp<int64_t>(y, 0, t.height - 1);
                z = std::clamp<int64_t>(z, 0, t.depth - 1);
                layer = std::min<int64_t>(layer, static_cast<int64_t>(t.layers) - 1);
                break;
            }
            [[fallthrough]];
        case oob::trap: {
            std::string where = fmt::format("x = {} bytes (row of {} bytes)", x, row);
            if (t.dims >= 2) where += fmt::format(", y = {} (height {})", y, t.height);
            if (t.dims >= 3) where += fmt::format(", z = {} (depth {})", z, t.depth);
            if (layered) where += fmt::format(", layer {} ({} layers)", layer, t.layers);
            c.fault(fault_kind::out_of_bounds, lane, t.base, fmt::format("{} outside the surface: {}", op, where));
            return false;
        }
        }
    }
    // A 1-D array keeps its layers as rows, a 2-D array as slices.
    if (g == geometry::a1d) y = layer;
    if (g == geometry::a2d) z = layer;
    addr = t.base + static_cast<uint64_t>(z) * t.slice_pitch + static_cast<uint64_t>(y) * t.pitch + static_cast<uint64_t>(x);
    return true;
}

const texture_object* surface_of(exec_context& c, const exec_instruction& ins, const exec_operand& h, const std::string& op,
                                 uint32_t lane) {
    return find_object(c, address(c, h, lane), object_kind::surface, static_cast<geometry>(ins.sub), op, lane);
}

// suld.b.geom{.vec}.dtype{.mode} d, [h, coords]
void suld_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const uint32_t esize = bits_of(ins.type) / 8, n = ins.vec;
    const std::string op = what("suld", ins);
    const exec_operand& d = ins.ops[0];
    for_lanes(mask, [&](uint32_t lane) {
        const texture_object* t = surface_of(c, ins, ins.ops[1], op, lane);
        if (!t) return;
        uint64_t addr = 0;
        bool skip = false;
        if (!locate(c, ins, *t, ins.ops[2], esize * n, op, lane, addr, skip)) return;
        for (uint32_t k = 0; k < n; ++k) {
            uint64_t v = 0;
            if (!skip && !c.load(space::global, addr + k * esize, esize, lane, &v)) return;
            if (d.kind == opnd::vec) {
                if (k < d.count && d.elems[k] != no_slot) c.reg(d.elems[k], lane) = v;
            } else if (k == 0) {
                write(c, d, lane, v);
            }
        }
    });
}

// sust.p: one 32-bit value per channel (R, G, B, A in vector order),
// converted to the surface's format; channels past the vector keep their
// bytes (the ISA leaves them unpredictable).
uint32_t format_channel(const texture_object& t, uint32_t v) {
    auto scaled = [&](float lo, float scale) {
        float f = std::clamp(as_f32(v), lo, 1.0f); // NaN stays NaN: nearbyint then gives 0 below
        float r = std::nearbyint(f * scale);       // the default host mode: nearest even
        return std::isnan(r) ? 0u : static_cast<uint32_t>(static_cast<int32_t>(r));
    };
    const bool norm = t.read == read_mode::normalized_float;
    switch (t.type) {
    case texel_type::u8: return norm ? scaled(0.0f, 255.0f) : v;
    case texel_type::s8: return norm ? scaled(-1.0f, 127.0f) : v;
    case texel_type::u16: return norm ? scaled(0.0f, 65535.0f) : v;
    case texel_type::s16: return norm ? scaled(-1.0f, 32767.0f) : v;
    case texel_type::f16: return fp::cvt_f16_f32(v, fp::rounding::rn);
    default: return v;
    }
}

// sust.{b,p}.geom{.vec}.ctype{.mode} [h, coords], c
void sust_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const std::string op = what("sust", ins);
    const exec_operand& s = ins.ops[2];
    for_lanes(mask, [&](uint32_t lane) {
        const texture_object* t = surface_of(c, ins, ins.ops[0], op, lane);
        if (!t) return;
        // .b stores the register bits; .p stores whole texels.
        const uint32_t esize = formatted(ins) ? t->channel_bytes() : bits_of(ins.type) / 8;
        const uint32_t n = formatted(ins) ? std::min<uint32_t>(ins.vec, t->channels) : ins.vec;
        const uint32_t size = formatted(ins) ? t->texel_bytes() : esize * n;
        uint64_t addr = 0;
        bool skip = false;
        if (!locate(c, ins, *t, ins.ops[1], size, op, lane, addr, skip) || skip) return;
        for (uint32_t k = 0; k < n; ++k) {
            uint64_t v = s.kind != opnd::vec ? read(c, s, lane) : k < s.count && s.elems[k] != no_slot ? c.reg(s.elems[k], lane) : 0;
            if (formatted(ins)) v = format_channel(*t, static_cast<uint32_t>(v));
            if (!c.store(space::global, addr + k * esize, esize, lane, &v)) return;
        }
    });
}

template <rop Op, bool Signed, uint32_t Bits>
uint64_t reduce(uint64_t old, uint64_t a, uint64_t) {
    const uint64_t m = mask_bits(Bits);
    old &= m;
    a &= m;
    if constexpr (Op == rop::add) return old + a;
    else if constexpr (Op == rop::min) return Signed ? (sign_extend(old, Bits) < sign_extend(a, Bits) ? old : a) : std::min(old, a);
    else if constexpr (Op == rop::max) return Signed ? (sign_extend(old, Bits) > sign_extend(a, Bits) ? old : a) : std::max(old, a);
    else if constexpr (Op == rop::and_) return old & a;
    else return old | a;
}

template <bool Signed, uint32_t Bits>
auto reduction_for(rop op) -> uint64_t (*)(uint64_t, uint64_t, uint64_t) {
    switch (op) {
    case rop::add: return reduce<rop::add, Signed, Bits>;
    case rop::min: return reduce<rop::min, Signed, Bits>;
    case rop::max: return reduce<rop::max, Signed, Bits>;
    case rop::and_: return reduce<rop::and_, Signed, Bits>;
    default: return reduce<rop::or_, Signed, Bits>;
    }
}

// sured.{b,p}.op.geom.ctype{.mode} [h, coords], c: one atomic update.
void sured_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const std::string op = what("sured", ins);
    const uint32_t size = bits_of(ins.type) / 8;
    for_lanes(mask, [&](uint32_t lane) {
        const texture_object* t = surface_of(c, ins, ins.ops[0], op, lane);
        if (!t) return;
        uint64_t addr = 0;
        bool skip = false;
        if (!locate(c, ins, *t, ins.ops[1], size, op, lane, addr, skip) || skip) return;
        uint64_t old = 0;
        c.atomic(space::global, addr, size, lane, &old, ins.rmw, read(c, ins.ops[2], lane), 0);
    });
}

// suq.query.b32 d, [h]: sub is the query.
enum class squery : uint8_t { width, height, depth, channel_data_type, channel_order, array_size, memory_layout };

void suq_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t h = address(c, ins.ops[1], lane);
        const texture_object* t = c.lookup_texture(h);
        if (!t || t->kind != object_kind::surface) {
            c.fault(fault_kind::invalid_address, lane, h, fmt::format("suq with handle {:#x}, which is not a surface object", h));
            return;
        }
        uint32_t v = 0;
        switch (static_cast<squery>(ins.sub)) {
        case squery::width: v = t->width; break;
        case squery::height: v = t->height; break;
        case squery::depth: v = t->depth; break;
        case squery::channel_data_type: v = channel_data_type_code(*t); break;
        case squery::channel_order: v = channel_order_code(*t); break;
        case squery::array_size: v = t->layers; break;
        case squery::memory_layout: v = 1; break; // linear (pitch) memory, not block-linear
        }
        write(c, ins.ops[0], lane, v);
    });
}

std::string decode_surface(const matched_instruction& m, exec_instruction& out, uint32_t handle) {
    geometry g;
    if (!geometry_of(m.get("geom"), g)) return fmt::format("{}.{} is not implemented yet", m.row->key, m.get("geom"));
    out.sub = static_cast<uint8_t>(g);
    std::string_view mode = m.get("clamp");
    out.flags = static_cast<uint8_t>(mode == "clamp" ? oob::clamp : mode == "zero" ? oob::zero : oob::trap);
    if (m.get("fmt") == "p") out.flags |= f_formatted;
    out.vec = m.get("vec") == "v4" ? 4 : m.get("vec") == "v2" ? 2 : 1;
    if (out.ops[handle].kind != opnd::addr || out.ops[handle].slot == no_slot)
        return fmt::format("{} on a .surfref variable is not implemented (CUDA 13 uses surface objects: a handle in a register)",
                           m.row->key);
    if (out.nops < handle + 2 || (out.ops[handle + 1].kind != opnd::vec && out.ops[handle + 1].kind != opnd::reg))
        return fmt::format("{} needs its coordinates in registers", m.row->key);
    return {};
}

std::string dec_suld(const matched_instruction& m, exec_instruction& out) {
    if (m.get("fmt") == "p") return "suld.p is not implemented (CUDA 13's ptxas does not accept it either)";
    out.run = suld_handler;
    return decode_surface(m, out, 1);
}

std::string dec_sust(const matched_instruction& m, exec_instruction& out) {
    out.run = sust_handler;
    return decode_surface(m, out, 0);
}

std::string dec_sured(const matched_instruction& m, exec_instruction& out) {
    std::string_view o = m.get("op");
    const rop op = o == "add" ? rop::add : o == "min" ? rop::min : o == "max" ? rop::max : o == "and" ? rop::and_ : rop::or_;
    const bool sign = is_signed(out.type);
    const bool wide = bits_of(out.type) == 64;
    out.rmw = wide ? (sign ? reduction_for<true, 64>(op) : reduction_for<false, 64>(op))
                   : (sign ? reduction_for<true, 32>(op) : reduction_for<false, 32>(op));
    out.run = sured_handler;
    return decode_surface(m, out, 0);
}

std::string dec_suq(const matched_instruction& m, exec_instruction& out) {
    static constexpr std::string_view names[] = {"width", "height", "depth", "channel_data_type", "channel_order",
                                                 "array_size", "memory_layout"};
    for (uint8_t i = 0; i < std::size(names); ++i)
        if (names[i] == m.get("query")) out.sub = i;
    if (out.ops[1].kind != opnd::addr || out.ops[1].slot == no_slot)
        return "suq on a .surfref variable is not implemented (CUDA 13 uses surface objects)";
    out.run = suq_handler;
    return {};
}

constexpr entry entries[] = {
    {"suld", dec_suld}, {"sust", dec_sust}, {"sured", dec_sured}, {"suq", dec_suq},
};

} // namespace

std::span<const entry> surface_entries() { return entries; }

} // namespace ptxsim::isa::sem
