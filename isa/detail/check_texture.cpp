// Texture and surface instructions (tex, tld4, suld, sust, sured): result
// vectors, coordinate vectors and the out-of-range mode, as ptxas 13
// enforces them (docs/lint.md, "Textures and surfaces"; tests/malformed/
// cases/tex_*):
//  - tex returns .v4, or .v2 of .f16x2 (and only that); tld4 .v4;
//  - a coordinate vector holds 1, 2 or 4 elements (PTX vectors), at least
//    as many as the geometry needs: 1d 1, 2d and a1d 2, 3d, a2d, cube and
//    2dms 3, acube and a2dms 4 (3 is written as 4, the last ignored);
//  - .grad's two derivative vectors and a texel offset cover the
//    geometry's spatial axes (1d 1, 2d 2, 3d and cube 3, as 4);
//  - suld, sust and sured name .trap, .clamp or .zero; a suld/sust vector
//    holds at most 128 bits;
//  - a vector operand has as many elements as the .vN says;
//  - registers: tex/tld4 results exactly their type's width and kind
//    (.f16 in 16-bit registers), suld's at least as wide; coordinates of
//    the coordinate type (32-bit for surfaces; an array index aside).
#include <fmt/format.h>

#include "isa/detail/check_operands.hpp"
#include "isa/detail/operand_types.hpp"

namespace ptxsim::isa::detail {
namespace {

using namespace parser;

// Coordinates a geometry needs, and its spatial axes (the derivatives of .grad).
struct geometry {
    uint32_t coords = 0, axes = 0;
};
geometry geometry_of(std::string_view g) {
    if (g == "1d") return {1, 1};
    if (g == "2d") return {2, 2};
    if (g == "a1d") return {2, 1};
    if (g == "3d" || g == "cube") return {3, 3};
    if (g == "a2d") return {3, 2};
    if (g == "2dms") return {3, 2};
    if (g == "acube") return {4, 3};
    if (g == "a2dms") return {4, 2};
    return {};
}

class texture_checker {
public:
    texture_checker(const instruction_view& v, std::vector<located_problem>& out)
        : v_(v), out_(out), key_(v.row.key), ops_(v.ins.operands) {}

    void run() {
        geometry g;
        std::string_view geom;
        for (size_t i = v_.row.key_words.size(); i < v_.words.size(); ++i) {
            std::string_view w = v_.words[i];
            data_type t = data_type_from(w);
            if (t != data_type::none && !type_at_) type_ = t, type_at_ = i;
            else if (w == "v2" || w == "v4") vec_ = static_cast<uint32_t>(w[1] - '0'), vec_at_ = i;
            else if (geometry_of(w).coords) geom = w, g = geometry_of(w);
        }
        if (!g.coords) return;
        bool surface = key_ != "tex" && key_ != "tld4";
        if (surface && !has("trap") && !has("clamp") && !has("zero"))
            return fail(v_.word_pos[0], fmt::format("'{}' names what an out-of-range coordinate does: .trap, .clamp or "
                                                    ".zero", key_));
        if (key_ == "tex") {
            bool f16x2 = type_ == data_type::f16x2;
            if (vec_ != (f16x2 ? 2u : 4u))
                return fail(vec_ ? v_.word_pos[vec_at_] : v_.word_pos[0],
                            fmt::format("'tex' returns {} here{}", f16x2 ? ".v2 of .f16x2" : "a .v4 vector",
                                        f16x2 ? "" : " (.v2 only of .f16x2)"));
        }
        if ((key_ == "suld" || key_ == "sust") && vec_ && type_at_) {
            uint32_t bits = info_of(type_).bits * vec_;
            if (bits > 128)
                return fail(v_.word_pos[vec_at_], fmt::format("'.v{}.{}' is {} bits; a surface access moves at most 128",
                                                              vec_, to_string(type_), bits));
        }
        // The value vector: tex/tld4/suld's destination, sust's source.
        size_t value_at = key_ == "sust" ? 1 : 0;
        if (vec_ && value_at < ops_.size()) {
            const operand& d = ops_[value_at];
            const operand& vecop = d.kind == operand_kind::pipe && !d.elems.empty() ? d.elems[0] : d; // {..}|p
            if (vecop.kind != operand_kind::vector || vecop.elems.size() != vec_)
                return fail(vecop.pos, fmt::format("'{}' with .v{} needs a vector of {} {{...}} here", key_, vec_, vec_));
        }
        size_t addr_at = key_ == "sust" || key_ == "sured" ? 0 : 1;
        if (addr_at >= ops_.size() || ops_[addr_at].kind != operand_kind::address) return;
        const operand& a = ops_[addr_at];
        if (a.elems.empty()) return;
        const operand& c = a.elems[a.elems.size() - 1];
        if (!registers(value_at, addr_at, c, geom)) return;
        uint32_t n = c.kind == operand_kind::vector ? c.elems.size() : 1;
        if ((n != 1 && n != 2 && n != 4) || n < g.coords)
            return fail(c.pos, fmt::format("the coordinates of a .{} access are a vector of {} ({{...}}){}, not {}", geom,
                                           g.coords == 3 ? 4 : g.coords, g.coords == 3 ? ", the fourth ignored" : "",
                                           n));
        // .grad's derivatives and a texel offset: a value per spatial axis.
        if (key_ == "tex" || key_ == "tld4")
            for (size_t i = addr_at + 1; i < ops_.size(); ++i) {
                bool derivative = has("grad") && i <= addr_at + 2;
                if (ops_[i].kind != operand_kind::vector && !derivative) continue; // a depth or level of detail
                uint32_t m = ops_[i].kind == operand_kind::vector ? ops_[i].elems.size() : 1;
                if ((m != 1 && m != 2 && m != 4) || m < g.axes)
                    return fail(ops_[i].pos, fmt::format("{} of '{}.{}' is a vector of {}, not {}",
                                                         derivative ? "a derivative" : "the texel offset", key_, geom,
                                                         g.axes == 3 ? 4 : g.axes, m));
            }
    }

private:
    // Register widths: tex/tld4 results are exactly their type (.f16 in
    // 16-bit registers, the others 32-bit), suld's may be wider; the
    // coordinates are the coordinate type's width (tex) or 32-bit (surfaces).
    // False when it reported.
    bool registers(size_t value_at, size_t addr_at, const operand& coords, std::string_view geom) {
        data_type second = data_type::none;
        for (size_t i = type_at_ + 1; type_at_ && i < v_.words.size() && second == data_type::none; ++i)
            second = data_type_from(v_.words[i]);
        bool texture = key_ == "tex" || key_ == "tld4";
        data_type ctype = texture ? second : data_type::b32;
        size_t node = 0;
        for (size_t k = 0; k < ops_.size(); node += node_count(ops_[k]), ++k) {
            if (k == value_at && type_ != data_type::none) {
                const operand& d = ops_[k].kind == operand_kind::pipe && !ops_[k].elems.empty() ? ops_[k].elems[0] : ops_[k];
                size_t first = ops_[k].kind == operand_kind::pipe ? node + 1 : node;
                if (!fits(d, first, type_, !texture, "a result")) return false;
                if (ops_[k].kind == operand_kind::pipe && ops_[k].elems.size() == 2 &&
                    !fits(ops_[k].elems[1], first + node_count(d), data_type::pred, false, "the residency flag"))
                    return false;
            }
            if (k == addr_at && ctype != data_type::none) {
                size_t child = node + 1;
                for (const auto& e : ops_[k].elems) {
                    if (&e == &coords) {
                        if (!fits(e, child, ctype, false, "a coordinate", geom.starts_with("a"))) return false;
                    }
                    child += node_count(e);
                }
            }
        }
        return true;
    }
    // `op` (a register or vector at pre-order `node`) against type `t`;
    // `skip_first`: an array index leads the coordinates.
    bool fits(const operand& op, size_t node, data_type t, bool wide, std::string_view what, bool skip_first = false) {
        auto one = [&](const operand& e, size_t n) {
            data_type have = n < v_.types.size() ? v_.types[n] : data_type::none;
            if (e.kind != operand_kind::name || have == data_type::none || register_fits(t, have, wide)) return true;
            fail(e.pos, fmt::format("{} of '{}' is .{} ({}), but '{}' is .{}", what, key_, to_string(t),
                                    describe(t, wide), v_.m.str(e.name), to_string(have)));
            return false;
        };
        if (op.kind != operand_kind::vector) return skip_first || one(op, node);
        size_t child = node + 1;
        bool first = true;
        for (const auto& e : op.elems) {
            if (!(first && skip_first) && !one(e, child)) return false;
            first = false;
            child += node_count(e);
        }
        return true;
    }

    void fail(pos_t p, std::string msg) {
        if (out_.empty()) out_.push_back({p, std::move(msg)});
    }
    bool has(std::string_view w) const {
        for (size_t i = 1; i < v_.words.size(); ++i)
            if (v_.words[i] == w) return true;
        return false;
    }

    const instruction_view& v_;
    std::vector<located_problem>& out_;
    const std::string& key_;
    const list<operand>& ops_;
    data_type type_ = data_type::none;
    size_t type_at_ = 0, vec_at_ = 0;
    uint32_t vec_ = 0;
};

} // namespace

void check_texture(const instruction_view& v, std::vector<located_problem>& out) {
    const std::string& k = v.row.key;
    if (k == "tex" || k == "tld4" || k == "suld" || k == "sust" || k == "sured") texture_checker(v, out).run();
}

} // namespace ptxsim::isa::detail
