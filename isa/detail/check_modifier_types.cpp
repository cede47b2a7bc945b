// Modifiers whose legality depends on the type or on another modifier in a
// way the table's `A=>B` rules cannot say (those, such as .rz only on
// .f32/.f64 for add, are in isa/ptx_ops.def). Each rule was tried on
// ptxas 13 (-arch=sm_90a) with the legal and the illegal neighbours
// (docs/lint.md, "Modifiers that depend on the type"; tests/malformed/
// cases/mod_*, kernels/corpus/hand/hand_mod_legal.ptx):
//  - div on floats names a rounding or .approx/.full, never both; .f64 a
//    rounding (ptxas: "Rounding modifier (or '.approx') required");
//  - rcp.approx.f64 and ex2 on .bf16/.bf16x2 need .ftz;
//  - slct.ftz selects by a .f32; set.ftz compares .f32, .f16 or .f16x2;
//  - createpolicy: .fractional takes no address, an optional fraction
//    (a register or a float), .range an address and two sizes, both one
//    or two priorities of which the second is .L2::evict_first or
//    .L2::evict_unchanged; .cvt takes .L2 and no priority, and only .cvt
//    takes .L2;
//  - the packed integers (.s16x2, .u16x2) take no constant;
//  - atom.cas takes no .L2::cache_hint;
//  - st.async and red.async with an mbarrier operand (the sm_90 forms)
//    name .mbarrier::complete_tx::bytes, no scope but .cluster, st.async
//    no order but .weak (and then no scope) and a 32- or 64-bit type (.v4 only of 32 bits),
//    red.async .relaxed.cluster and the operation's types (.inc/.dec .u32,
//    .min/.max .u32/.s32, .add .u32/.s32/.u64/.s64, .and/.or/.xor .b32);
//    .global, .mmio and .release on them need sm_100;
//  - min/max: .ftz on .f16, .f16x2, .f32; .NaN and .xorsign.abs on the
//    half types and .f32; .relu on .s16x2 and .s32; three sources only
//    for .f32 on sm_100 (without .xorsign.abs);
//  - video: a secondary operation (.add/.min/.max) needs the operand c,
//    vshl/vshr shift by a .u32, and the SIMD forms (vadd2 ... vset4) take
//    c as a register.
#include <fmt/format.h>

#include "isa/detail/check_operands.hpp"
#include "isa/detail/operand_types.hpp"

namespace ptxsim::isa::detail {
namespace {

using namespace parser;

class modifier_checker {
public:
    modifier_checker(const instruction_view& v, std::vector<located_problem>& out) : v_(v), out_(out), key_(v.row.key) {
        for (size_t i = v_.row.key_words.size(); i < v_.words.size(); ++i) {
            data_type t = data_type_from(v_.words[i]);
            if (t == data_type::none) continue;
            if (ntypes_ < 2) types_[ntypes_] = t, type_at_[ntypes_] = i;
            ++ntypes_;
        }
    }

    void run() {
        if (key_ == "div") division();
        else if (key_ == "rcp" && type(0) == data_type::f64 && has("approx") && !has("ftz"))
            fail(v_.word_pos[word("approx")], "'rcp.approx.f64' needs .ftz (rcp.approx.ftz.f64)");
        else if (key_ == "ex2" && (type(0) == data_type::bf16 || type(0) == data_type::bf16x2) && !has("ftz"))
            fail(v_.word_pos[0], fmt::format("'ex2' on .{} needs .ftz (ex2.approx.ftz.{})", to_string(type(0)),
                                             to_string(type(0))));
        else if (key_ == "slct" && has("ftz") && ntypes_ == 2 && type(1) != data_type::f32)
            fail(v_.word_pos[word("ftz")], fmt::format("'.ftz' on 'slct' is only for a .f32 selector, not .{}",
                                                       to_string(type(1))));
        else if (key_ == "set" && has("ftz") && ntypes_ == 2 && !ftz_comparable(type(1)))
            fail(v_.word_pos[word("ftz")], fmt::format("'.ftz' on 'set' is only for comparing .f32, .f16 or .f16x2, "
                                                       "not .{}", to_string(type(1))));
        else if (key_ == "createpolicy") policy();
        else if (key_ == "atom" && has("cas") && has("L2::cache_hint"))
            fail(v_.word_pos[word("L2::cache_hint")], "'atom.cas' takes no .L2::cache_hint (ptxas 13 refuses it on "
                                                      "every type)");
        else if (key_ == "st.async" || key_ == "red.async") async_store();
        else if (key_ == "min" || key_ == "max") min_max();
        else if (key_.size() > 3 && key_[0] == 'v' && !key_.starts_with("vote")) video(); // vadd ... vset4
        if (out_.empty()) packed_integer_constants();
    }

private:
    data_type type(size_t i) const { return i < ntypes_ && i < 2 ? types_[i] : data_type::none; }
    int word(std::string_view w) const {
        for (size_t i = 1; i < v_.words.size(); ++i)
            if (v_.words[i] == w) return static_cast<int>(i);
        return -1;
    }
    bool has(std::string_view w) const { return word(w) >= 0; }
    void fail(pos_t p, std::string msg) {
        if (out_.empty()) out_.push_back({p, std::move(msg)});
    }
    static bool ftz_comparable(data_type t) {
        return t == data_type::f32 || t == data_type::f16 || t == data_type::f16x2;
    }

    void division() {
        data_type t = type(0);
        if (t != data_type::f32 && t != data_type::f64) return; // integers: the table and rounding rules
        int rnd = -1;
        for (auto r : {"rn", "rz", "rm", "rp"})
            if (int at = word(r); at >= 0) rnd = at;
        int mode = has("approx") ? word("approx") : word("full");
        if (rnd >= 0 && mode >= 0)
            fail(v_.word_pos[rnd], fmt::format("'div.{}' does not round: .{} cannot be combined with .{}",
                                               v_.words[mode], v_.words[rnd], v_.words[mode]));
        else if (rnd < 0 && mode < 0)
            fail(v_.word_pos[0], t == data_type::f64 ? "'div.f64' needs a rounding modifier (.rn, .rz, .rm or .rp)"
                                                     : "'div.f32' needs a rounding modifier (.rn, .rz, .rm, .rp), "
                                                       ".approx or .full");
    }

    void policy() {
        std::string_view prio[2];
        size_t prio_at[2]{}, nprio = 0;
        for (size_t i = 1; i < v_.words.size(); ++i)
            if (v_.words[i].starts_with("L2::evict_")) {
                if (nprio < 2) prio[nprio] = v_.words[i], prio_at[nprio] = i;
                ++nprio;
            }
        const auto& ops = v_.ins.operands;
        bool cvt = has("cvt");
        if (cvt && !has("L2")) return fail(v_.word_pos[0], "'createpolicy.cvt' needs .L2 (createpolicy.cvt.L2.b64)");
        if (!cvt && has("L2"))
            return fail(v_.word_pos[word("L2")], "'.L2' is only for 'createpolicy.cvt'; the other forms name the "
                                                 "priority (.L2::evict_last ...)");
        if (cvt && nprio)
            return fail(v_.word_pos[prio_at[0]], "'createpolicy.cvt' converts a policy and takes no eviction priority");
        if (cvt) return;
        if (nprio == 0)
            return fail(v_.word_pos[0], fmt::format("'createpolicy.{}' needs an eviction priority (.L2::evict_last, "
                                                    ".L2::evict_normal, .L2::evict_first or .L2::evict_unchanged)",
                                                    has("range") ? "range" : "fractional"));
        if (nprio == 2 && prio[1] != "L2::evict_first" && prio[1] != "L2::evict_unchanged")
            return fail(v_.word_pos[prio_at[1]], fmt::format("the second (secondary) priority of 'createpolicy' is "
                                                             ".L2::evict_first or .L2::evict_unchanged, not .{}",
                                                             prio[1]));
        if (has("range")) {
            if (ops.size() != 4 || ops[1].kind != operand_kind::address)
                fail(ops.empty() ? v_.word_pos[0] : ops.back().pos,
                     "'createpolicy.range' takes a policy, an address and two sizes: d, [a], primary, total");
            return;
        }
        // fractional: d or d, fraction (ptxas 13 refuses the [a], size, total forms)
        if (ops.size() > 2 || (ops.size() == 2 && ops[1].kind == operand_kind::address))
            return fail(ops[1].pos, "'createpolicy.fractional' takes a policy and an optional fraction: d{, fraction}");
        if (ops.size() == 2 && ops[1].kind == operand_kind::integer)
            fail(ops[1].pos, "the fraction of 'createpolicy.fractional' is a .f32 register or a floating-point "
                             "constant (0.5), not an integer");
    }

    void async_store() {
        bool red = key_ == "red.async";
        uint32_t sm = 0;
        std::string suffix;
        bool before_100 = !v_.facts.target.empty() && parse_target_name(v_.facts.target, sm, suffix) && sm < 100;
        for (std::string_view w : {"global", "mmio", "release"})
            if (int at = word(w); at >= 0 && before_100)
                return fail(v_.word_pos[at], fmt::format("'{}' with .{} needs sm_100 or newer, but the file targets {}",
                                                         key_, w, v_.facts.target));
        // The address is a 32- or 64-bit register.
        if (v_.ins.operands.empty()) return;
        const operand& a = v_.ins.operands[0];
        if (a.kind == operand_kind::address && a.name != no_symbol && !v_.types.empty() &&
            v_.types[0] != data_type::none && info_of(v_.types[0]).bits < 32)
            return fail(a.pos + 1, fmt::format("the address of '{}' is a 32- or 64-bit register, not .{}", key_,
                                               to_string(v_.types[0])));
        if (v_.ins.operands.size() != 3) return; // the sm_100 forms without an mbarrier: not judged here
        if (!has("mbarrier::complete_tx::bytes"))
            return fail(v_.word_pos[0], fmt::format("'{}' with an mbarrier operand needs .mbarrier::complete_tx::bytes",
                                                    key_));
        for (std::string_view w : {"cta", "gpu", "sys"})
            if (int at = word(w); at >= 0)
                return fail(v_.word_pos[at], fmt::format("'{}' with an mbarrier operand takes the scope .cluster only, "
                                                         "not .{}", key_, w));
        if (red && (!has("relaxed") || !has("cluster")))
            return fail(v_.word_pos[0], "'red.async' with an mbarrier operand needs .relaxed.cluster");
        if (!red && has("weak") && has("cluster"))
            return fail(v_.word_pos[word("cluster")], "'st.async.weak' takes no scope; .weak cannot be combined with "
                                                      ".cluster");
        if (!red && has("relaxed"))
            return fail(v_.word_pos[word("relaxed")], "'st.async' with an mbarrier operand takes no memory order but "
                                                      ".weak");
        data_type t = type(0);
        uint32_t bits = info_of(t).bits;
        const auto& ops = v_.ins.operands;
        // The value a vector exactly with .vN, its registers of the type's width.
        int vec = has("v2") ? 2 : has("v4") ? 4 : 0;
        // (ptxas 13 takes a vector without .vN when the type is not a .bN one:
        // st.async...f32 [a], {%f1, %f2}, [mbar] passes, .b32 does not)
        bool bit_type = t == data_type::b32 || t == data_type::b64;
        if (ops[1].kind == operand_kind::vector && static_cast<int>(ops[1].elems.size()) != vec &&
            (vec || (bit_type && ops[1].elems.size() > 1)))
            return fail(ops[1].pos, vec ? fmt::format("'{}' with .v{} takes a vector of {}, not {}", key_, vec, vec,
                                                      ops[1].elems.size())
                                        : fmt::format("'{}' without .v2/.v4 takes one register, not a vector", key_));
        size_t node = node_count(ops[0]);
        if (ops[1].kind == operand_kind::name && node < v_.types.size() && v_.types[node] != data_type::none &&
            !register_fits(t, v_.types[node], false))
            return fail(ops[1].pos, fmt::format("operand 2 of '{}' must be {}, but '{}' is .{}", key_, describe(t, false),
                                                v_.m.str(ops[1].name), to_string(v_.types[node])));
        if (!red) {
            if ((bits != 32 && bits != 64) || info_of(t).kind == type_kind::half)
                return fail(v_.word_pos[type_at_[0]], fmt::format("'st.async' with an mbarrier operand stores a 32- or "
                                                                  "64-bit type (.b32 ... .f64), not .{}", to_string(t)));
            if (has("v4") && bits != 32)
                return fail(v_.word_pos[word("v4")], fmt::format("'st.async.v4.{}' is {} bits; a vector holds at most "
                                                                 "128", to_string(t), 4 * bits));
            return;
        }
        for (auto [op, types] : {std::pair<std::string_view, std::string_view>{"inc", ".u32"}, {"dec", ".u32"},
                                 {"min", ".u32, .s32"}, {"max", ".u32, .s32"}, {"add", ".u32, .s32, .u64, .s64"},
                                 {"and", ".b32"}, {"or", ".b32"}, {"xor", ".b32"}})
            if (has(op)) {
                std::string name = fmt::format(".{}", to_string(t));
                bool ok = false;
                for (size_t at = 0; (at = types.find(name, at)) != std::string_view::npos; at += name.size())
                    ok = ok || at + name.size() == types.size() || types[at + name.size()] == ',';
                if (!ok)
                    return fail(v_.word_pos[type_at_[0]], fmt::format("'red.async.{}' takes {}, not .{}", op, types,
                                                                      to_string(t)));
            }
    }

    void video() {
        const auto& ops = v_.ins.operands;
        // Every register is a 32-bit integer or bit-type one (a selector picks its bytes).
        size_t node = 0;
        for (size_t i = 0; i < ops.size(); node += node_count(ops[i]), ++i) {
            data_type t = node < v_.types.size() ? v_.types[node] : data_type::none;
            type_info ti = info_of(t);
            if (ops[i].kind == operand_kind::name && t != data_type::none && t != data_type::pred &&
                (ti.bits != 32 || (ti.kind != type_kind::integer && ti.kind != type_kind::bit)))
                return fail(ops[i].pos, fmt::format("operand {} of '{}' must be a 32-bit integer register, but '{}' is .{}",
                                                    i + 1, key_, v_.m.str(ops[i].name), to_string(t)));
        }
        if (key_ == "vmad") return; // the rules below are for the other video instructions
        bool simd = key_.back() == '2' || key_.back() == '4';
        if (simd) {
            if (ops.size() == 4 && ops[3].kind == operand_kind::integer)
                fail(ops[3].pos, fmt::format("operand 4 of '{}' must be a register (c, with its optional selector), "
                                             "not a constant", key_));
            return;
        }
        int op2 = -1;
        for (auto w : {"add", "min", "max"})
            if (int at = word(w); at >= 0) op2 = at;
        if (op2 >= 0 && ops.size() == 3)
            return fail(v_.word_pos[op2], fmt::format("'{}' with the secondary operation .{} needs a fourth operand c",
                                                      key_, v_.words[op2]));
        if ((key_ == "vshl" || key_ == "vshr") && ntypes_ == 3) {
            int third = -1;
            for (size_t i = v_.row.key_words.size(), n = 0; i < v_.words.size(); ++i)
                if (data_type_from(v_.words[i]) != data_type::none && ++n == 3) third = static_cast<int>(i);
            if (third >= 0 && v_.words[third] != "u32")
                fail(v_.word_pos[third], fmt::format("'{}' shifts by a .u32 amount (its third type), not .{}", key_,
                                                     v_.words[third]));
        }
    }

    // min/max: which types take .ftz, .NaN, .xorsign.abs and .relu, and
    // the three-source form (.f32 on sm_100).
    void min_max() {
        std::string_view t;
        for (size_t i = v_.row.key_words.size(); i < v_.words.size() && t.empty(); ++i)
            if (data_type_from(v_.words[i]) != data_type::none || v_.words[i] == "s16x2" || v_.words[i] == "u16x2")
                t = v_.words[i];
        if (t.empty()) return;
        auto in = [&](std::initializer_list<std::string_view> set) {
            for (auto x : set)
                if (t == x) return true;
            return false;
        };
        bool half_or_f32 = in({"f16", "f16x2", "bf16", "bf16x2", "f32"});
        struct rule {
            std::string_view mod;
            bool ok;
            std::string_view types;
        };
        for (const rule& r : {rule{"ftz", in({"f16", "f16x2", "f32"}), ".f16, .f16x2 and .f32"},
                              rule{"NaN", half_or_f32, ".f16, .f16x2, .bf16, .bf16x2 and .f32"},
                              rule{"xorsign", half_or_f32, ".f16, .f16x2, .bf16, .bf16x2 and .f32"},
                              rule{"relu", in({"s16x2", "s32"}), ".s16x2 and .s32"}})
            if (int at = word(r.mod); at >= 0 && !r.ok)
                return fail(v_.word_pos[at], fmt::format("'{}.{}' is only for {}, not .{}", key_, r.mod, r.types, t));
        if (v_.ins.operands.size() != 4) return;
        uint32_t sm = 0;
        std::string suffix;
        bool before_100 = !v_.facts.target.empty() && parse_target_name(v_.facts.target, sm, suffix) && sm < 100;
        if (t != "f32" || before_100 || has("xorsign"))
            fail(v_.ins.operands[3].pos,
                 fmt::format("'{}' compares two sources; three (d, a, b, c) are only for .f32 without .xorsign.abs, "
                             "on sm_100 and newer{}", key_,
                             before_100 ? fmt::format(" (the file targets {})", v_.facts.target) : std::string()));
    }

    // add.s16x2 %r1, %r2, 1 and min.u16x2 ..., 0x10001 are refused.
    void packed_integer_constants() {
        int at = has("s16x2") ? word("s16x2") : word("u16x2"); // no data_type: instruction types only
        if (at < 0) return;
        std::string_view t = v_.words[at];
        const auto& ops = v_.ins.operands;
        for (size_t i = 1; i < ops.size(); ++i)
            if (ops[i].kind == operand_kind::integer || ops[i].kind == operand_kind::f32 ||
                ops[i].kind == operand_kind::f64)
                return fail(ops[i].pos, fmt::format("operand {} of '{}' must be a register: .{} takes no constant",
                                                    i + 1, key_, t));
    }

    const instruction_view& v_;
    std::vector<located_problem>& out_;
    const std::string& key_;
    data_type types_[2]{};
    size_t type_at_[2]{};
    size_t ntypes_ = 0;
};

} // namespace

void check_modifier_types(const instruction_view& v, std::vector<located_problem>& out) { modifier_checker(v, out).run(); }

} // namespace ptxsim::isa::detail
