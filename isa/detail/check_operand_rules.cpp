// Operand counts, vectors, special registers, selectors, modifiers that
// need one another and constant ranges: rules the table's operand kinds and
// modifier groups cannot say, each tried on ptxas 13 (-arch=sm_90a) with a
// legal and an illegal instance (docs/lint.md, "Operand counts, vectors,
// modifiers and calls"; tests/malformed/cases/opr_*). Only the first problem
// of an instruction is reported, as ptxas gives one error per instruction.
#include <fmt/format.h>

#include <optional>

#include "isa/detail/check_operands.hpp"
#include "isa/detail/operand_types.hpp"
#include "isa/legacy_ptx.hpp"
#include "isa/sem/wmma_layout.hpp"

namespace ptxsim::isa::detail {
namespace {

using namespace parser;

bool one_of(std::string_view w, std::initializer_list<std::string_view> set) {
    for (auto s : set)
        if (w == s) return true;
    return false;
}

// What a special register holds: a .v4 .u32 (%tid), a 64-bit value
// (%clock64), a predicate (%is_explicit_cluster), or else 32 bits.
struct special_info {
    bool vector = false;
    uint32_t bits = 32;
};
special_info special(std::string_view base) {
    if (one_of(base, {"%tid", "%ntid", "%ctaid", "%nctaid", "%clusterid", "%nclusterid", "%cluster_ctaid",
                      "%cluster_nctaid"}))
        return {true, 32};
    if (one_of(base, {"%clock64", "%globaltimer", "%gridid", "%current_graph_exec"}) ||
        (base.starts_with("%pm") && base.ends_with("_64")))
        return {false, 64};
    if (base == "%is_explicit_cluster") return {false, 1};
    return {};
}

bool is_video(std::string_view key) {
    return one_of(key, {"vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vmad", "vset", "vadd2", "vsub2",
                        "vavrg2", "vabsdiff2", "vmin2", "vmax2", "vset2", "vadd4", "vsub4", "vavrg4", "vabsdiff4",
                        "vmin4", "vmax4", "vset4"});
}

// .b0 .. .b3 and .h0 .h1, or the SIMD lane lists (.b7654, .h10).
bool is_selector(std::string_view s) {
    if (s.size() < 2 || (s[0] != 'b' && s[0] != 'h')) return false;
    char top = s[0] == 'b' ? '7' : '3';
    if (s.size() > (s[0] == 'b' ? 5u : 3u)) return false;
    for (char c : s.substr(1))
        if (c < '0' || c > top) return false;
    return true;
}

class rule_checker {
public:
    rule_checker(const instruction_view& v, std::vector<located_problem>& out) : v_(v), out_(out), key_(v.row.key) {}

    void run() {
        for (size_t i = v_.row.key_words.size(); i < v_.words.size(); ++i) {
            std::string_view w = v_.words[i];
            data_type t = data_type_from(w);
            if (t != data_type::none) {
                if (ntypes_ < 4) types_[ntypes_] = t, type_at_[ntypes_] = i;
                ++ntypes_;
            } else if (w == "v2" || w == "v4" || w == "v8") {
                vec_ = static_cast<uint32_t>(w[1] - '0');
                vec_at_ = i;
            }
        }
        special_registers();
        if (failed()) return;
        // '_' discards a result: it stands for a destination only (ptxas:
        // "Parsing error near '_'" elsewhere; "Result discard mode is not
        // allowed" for most destinations, judged by the table).
        for (size_t i = 1; i < v_.ins.operands.size(); ++i) {
            const operand& op = v_.ins.operands[i];
            bool sink = op.kind == operand_kind::sink;
            if (op.kind == operand_kind::vector && !(key_ == "ld" || key_ == "ldu"))
                for (const auto& e : op.elems) sink = sink || e.kind == operand_kind::sink;
            if (sink) return fail(op.pos, fmt::format("'_' discards a result; operand {} of '{}' is a source", i + 1, key_));
        }
        selectors_and_vector_registers();
        if (failed()) return;
        cache_policy();
        if (failed()) return;
        modifiers_that_need_others();
        if (failed()) return;
        vectors();
        if (failed()) return;
        constants();
        if (failed()) return;
        shapes();
    }

private:
    bool failed() const { return !out_.empty(); }
    void fail(pos_t p, std::string msg) {
        if (out_.empty()) out_.push_back({p, std::move(msg)});
    }
    uint8_t flags_at(size_t node) const { return node < v_.flags.size() ? v_.flags[node] : 0; }
    int word(std::string_view w) const {
        for (size_t i = 1; i < v_.words.size(); ++i)
            if (v_.words[i] == w) return static_cast<int>(i);
        return -1;
    }
    bool has(std::string_view w) const { return word(w) >= 0; }
    int any_of(std::initializer_list<std::string_view> set) const {
        for (size_t i = 1; i < v_.words.size(); ++i)
            if (one_of(v_.words[i], set)) return static_cast<int>(i);
        return -1;
    }
    std::string_view text(const operand& op) const { return v_.m.str(op.name); }
    std::string dotted() const {
        std::string s;
        for (size_t i = 0; i < v_.words.size(); ++i) s += fmt::format("{}{}", i ? "." : "", v_.words[i]);
        return s;
    }

    // ptxas reads special registers with mov and cvt only (and as
    // elements of a vector operand), never writes them, takes a .v4 one
    // (%tid) whole only with mov.v4, and no float type.
    void special_registers() {
        const auto& ops = v_.ins.operands;
        size_t node = 0;
        bool reader = key_ == "mov" || key_ == "cvt";
        for (size_t i = 0; i < ops.size() && !failed(); node += node_count(ops[i]), ++i) {
            const operand& op = ops[i];
            if (op.kind == operand_kind::address) { // [tmap, {c0, %tid}]: a whole %tid is no coordinate
                size_t child = node + 1;
                for (const auto& e : op.elems) {
                    if (e.kind == operand_kind::vector && whole_vector_special(e, child)) return;
                    child += node_count(e);
                }
                continue;
            }
            if (op.kind == operand_kind::vector) {
                if (special_width_mismatch(op, i, node) || whole_vector_special(op, node)) return;
                continue;
            }
            if (op.kind != operand_kind::name || !(flags_at(node) & node_special)) continue;
            std::string_view name = text(op);
            size_t dot = name.find('.');
            special_info sr = special(name.substr(0, dot));
            if (one_of(name.substr(0, dot), {"%aggr_smem_size", "%clusterid", "%nclusterid", "%cluster_ctaid",
                                             "%cluster_nctaid", "%cluster_ctarank", "%cluster_nctarank",
                                             "%is_explicit_cluster"})) {
                uint32_t sm = 0;
                std::string suffix;
                if (!v_.facts.target.empty() && parse_target_name(v_.facts.target, sm, suffix) && sm < 90)
                    return fail(op.pos, fmt::format("special register '{}' needs sm_90 or newer, but the file targets {}",
                                                    name.substr(0, dot), v_.facts.target));
            }
            if (dot != std::string_view::npos && sr.vector && !one_of(name.substr(dot + 1), {"x", "y", "z", "w"}))
                return fail(op.pos, fmt::format("'.{}' is no component of '{}' (.x, .y, .z)", name.substr(dot + 1),
                                                name.substr(0, dot)));
            if (dot != std::string_view::npos && !sr.vector && !v_.m.str(op.name).starts_with("%pm"))
                return fail(op.pos, fmt::format("'{}' has no components: only %tid, %ntid, %ctaid, %nctaid and the "
                                                "cluster registers take .x, .y, .z", name.substr(0, dot)));
            if (!reader)
                return fail(op.pos, fmt::format("special register '{}' cannot be an operand of '{}'; read it into a "
                                                "register with mov first", name, key_));
            if (i == 0)
                return fail(op.pos, fmt::format("special register '{}' is read-only; it cannot be the destination of '{}'",
                                                name, key_));
            if (sr.vector && dot == std::string_view::npos) {
                if (key_ == "cvt")
                    return fail(op.pos, fmt::format("'{}' is a .v4 .u32 special register; 'cvt' takes one component "
                                                    "({}.x)", name, name));
                if (vec_ != 4)
                    return fail(op.pos, fmt::format("'{0}' is a .v4 .u32 special register; 'mov' takes it whole with .v4 "
                                                    "or one component ({0}.x)", name));
                continue;
            }
            if (vec_)
                return fail(op.pos, fmt::format("'{}' is a scalar special register; '{}' needs a vector of {}", name,
                                                dotted(), vec_));
            data_type t = key_ == "cvt" ? (ntypes_ == 2 ? types_[1] : data_type::none) : types_[0];
            type_info ti = info_of(t);
            if (ti.kind == type_kind::floating || ti.kind == type_kind::half)
                return fail(op.pos, fmt::format("special register '{}' holds an integer; '{}' cannot read it as .{}", name,
                                                dotted(), to_string(t)));
            if (key_ == "mov" && ti.kind != type_kind::unknown) {
                bool fits = sr.bits == 1 ? ti.kind == type_kind::pred
                            : sr.bits == 64 ? ti.bits == 64
                                            : ti.kind != type_kind::pred && (ti.bits == 32 || ti.bits == 16);
                if (!fits)
                    return fail(op.pos, fmt::format("special register '{}' is {}; 'mov.{}' cannot read it", name,
                                                    sr.bits == 1 ? "a predicate" : fmt::format("{} bits", sr.bits),
                                                    to_string(t)));
            }
        }
    }

    // ptxas takes {%r1, %tid.x} (even as ld's destination, or in an
    // address's coordinates), not a whole %tid. True when it reported.
    bool whole_vector_special(const operand& vec, size_t node) {
        size_t child = node + 1;
        for (const auto& e : vec.elems) {
            if (e.kind == operand_kind::name && (flags_at(child) & node_special) &&
                text(e).find('.') == std::string_view::npos && special(text(e)).vector) {
                fail(e.pos, fmt::format("'{}' is a .v4 special register; an element of a vector operand is one "
                                        "component ({}.x)", text(e), text(e)));
                return true;
            }
            child += node_count(e);
        }
        return false;
    }
    // A scalar special register counts its width among a vector's elements
    // ({%rd5, %laneid} is refused: "Incompatible elements"). True when it reported.
    bool special_width_mismatch(const operand& vec, size_t index, size_t node) {
        uint32_t width = 0;
        bool special_seen = false;
        size_t child = node + 1;
        std::optional<std::pair<const operand*, uint32_t>> odd;
        for (const auto& e : vec.elems) {
            uint32_t bits = 0;
            if (e.kind == operand_kind::name && (flags_at(child) & node_special)) {
                special_seen = true;
                std::string_view n = text(e);
                special_info si = special(n.substr(0, n.find('.')));
                bits = si.bits == 1 ? 0 : si.bits;
            } else if (e.kind == operand_kind::name && child < v_.types.size() && v_.types[child] != data_type::none &&
                       v_.types[child] != data_type::pred) {
                bits = info_of(v_.types[child]).bits;
            }
            if (bits && width && bits != width && !odd) odd = {{&e, bits}};
            if (bits && !width) width = bits;
            child += node_count(e);
        }
        if (!special_seen || !odd) return false; // (register-only vectors: the operand roles judge them)
        fail(odd->first->pos, fmt::format("the elements of operand {} of '{}' must have one width, but '{}' is {} bits "
                                          "and the others {}", index + 1, key_, text(*odd->first), odd->second, width));
        return true;
    }

    // %r1.b0 selects a byte for the video instructions only (and .x is no
    // selector); a vector register (.reg .v2 .b32 %v) is an operand only of
    // mov, ld and st with the same .vN.
    void selectors_and_vector_registers() {
        const auto& ops = v_.ins.operands;
        size_t node = 0;
        bool data_vector = key_ == "mov" || key_ == "ld" || key_ == "st" || key_ == "ldu";
        for (size_t i = 0; i < ops.size() && !failed(); node += node_count(ops[i]), ++i) {
            const operand& op = ops[i];
            if (op.kind != operand_kind::name) continue;
            uint8_t f = flags_at(node);
            if (f & node_selector) {
                std::string_view name = text(op);
                std::string_view sel = name.substr(name.find('.') + 1);
                if (!is_selector(sel))
                    return fail(op.pos, fmt::format("'.{}' in '{}' is no video selector (.b0 .. .b3, .h0, .h1; .b3210, "
                                                    ".h10 for the SIMD forms)", sel, name));
                if (!is_video(key_))
                    return fail(op.pos, fmt::format("a selector ('{}') is only for the video instructions (vadd ...), not "
                                                    "'{}'", name, key_));
                continue;
            }
            uint32_t n = f & node_vec_mask;
            if (n == 0) continue;
            if (data_vector) {
                if (vec_ != n)
                    return fail(op.pos, fmt::format("'{}' is a .v{} register; '{}' takes it {}", text(op), n, dotted(),
                                                    vec_ ? fmt::format("only with .v{}", n)
                                                         : fmt::format("with .v{} only", n)));
            } else if (!roles_for(key_, v_.words.subspan(v_.row.key_words.size()), ops.size()).empty() ||
                       key_ == "cvt") {
                return fail(op.pos, fmt::format("'{}' is a vector register (.v{}); '{}' takes no vector operand",
                                                text(op), n, key_));
            }
        }
    }

    // ld, st, atom and red take a cache policy as a last operand exactly
    // when they carry .L2::cache_hint.
    void cache_policy() {
        size_t base;
        if (key_ == "ld" || key_ == "st" || key_ == "red") base = 2;
        else if (key_ == "atom") base = has("cas") ? 4 : 3;
        else return;
        bool hint = has("L2::cache_hint");
        size_t n = v_.ins.operands.size();
        // ptxas takes atom.{exch,and,or,xor}.b32 d, [a], b, c (not .b64) without a hint: a quirk left alone
        bool b32_fourth = key_ == "atom" && has("b32") && any_of({"exch", "and", "or", "xor"}) >= 0; // .b32 only
        if (n == base + 1 && !hint && !b32_fourth)
            fail(v_.ins.operands.back().pos, fmt::format("'{}' with {} operands needs .L2::cache_hint: the last one is a "
                                                         "cache policy", key_, n));
        else if (n == base && hint)
            fail(v_.word_pos[word("L2::cache_hint")], fmt::format("'{}.L2::cache_hint' needs a cache-policy operand "
                                                                  "after the others", key_));
    }

    void modifiers_that_need_others() {
        type_info t = ntypes_ ? info_of(types_[0]) : type_info{};
        bool is_float = t.kind == type_kind::floating || t.kind == type_kind::half;
        bool is_integer = t.kind == type_kind::integer || t.kind == type_kind::bit;
        int rnd = any_of({"rn", "rz", "rm", "rp"});
        // Memory order and scope of ld and st: a scope needs .relaxed,
        // .acquire or .release, which need a scope; .volatile/.weak take
        // none, and a memory order no cache operator.
        if (key_ == "ld" || key_ == "st") {
            int scope = any_of({"cta", "cluster", "gpu", "sys"});
            int order = any_of({"relaxed", "acquire", "release"});
            int plain = any_of({"volatile", "weak"});
            int cop = any_of({"ca", "cg", "cs", "lu", "cv", "wb", "wt"});
            if (scope >= 0 && plain >= 0)
                return fail(v_.word_pos[scope], fmt::format("'.{}' cannot be combined with '.{}' on '{}'",
                                                            v_.words[plain], v_.words[scope], key_));
            if (scope >= 0 && order < 0)
                return fail(v_.word_pos[scope], fmt::format("'.{}' on '{}' needs a memory order (.relaxed, {})",
                                                            v_.words[scope], key_, key_ == "ld" ? ".acquire" : ".release"));
            if (order >= 0 && scope < 0)
                return fail(v_.word_pos[order], fmt::format("'.{}' on '{}' needs a scope (.cta, .cluster, .gpu or .sys)",
                                                            v_.words[order], key_));
            if (cop >= 0 && (order >= 0 || (plain >= 0 && v_.words[plain] == "volatile")))
                return fail(v_.word_pos[cop], fmt::format("'.{}' cannot be combined with '.{}' on '{}'",
                                                          v_.words[order >= 0 ? order : plain], v_.words[cop], key_));
        }
        // (ptxas: "32-Bit ABI ... is not supported" for cvta.u32)
        if (key_ == "cvta" && has("u32"))
            return fail(v_.word_pos[word("u32")], "'cvta' converts 64-bit addresses (.u64); .u32 is 32-bit addressing, "
                                                  "which ptxas refuses for .address_size 64");
        // ld/st: a cache operator and an L1 eviction priority exclude each
        // other; .mmio is .relaxed.sys.
        if (key_ == "ld" || key_ == "st") {
            int cop = any_of({"ca", "cg", "cs", "lu", "cv", "wb", "wt"});
            int evict = -1;
            for (size_t i = 1; i < v_.words.size() && evict < 0; ++i)
                if (v_.words[i].starts_with("L1::")) evict = static_cast<int>(i);
            if (cop >= 0 && evict >= 0)
                return fail(v_.word_pos[cop], fmt::format("'.{}' cannot be combined with '.{}' on '{}': name a cache "
                                                          "operator or an L1 eviction priority", v_.words[cop],
                                                          v_.words[evict], key_));
            int scope = any_of({"cta", "cluster", "gpu"});
            if (has("mmio") && scope >= 0)
                return fail(v_.word_pos[scope], fmt::format("'{}.mmio' is .relaxed.sys; it takes no .{}", key_,
                                                            v_.words[scope]));
        }
        // fence.proxy.tensormap::generic has an order and a scope (acquire
        // with [addr], 128; release without operands) and no state space;
        // the alias and async proxy fences have none of these.
        if (key_ == "fence.proxy" && !has("async::generic")) {
            int order = any_of({"release", "acquire"});
            int scope = any_of({"cta", "cluster", "gpu", "sys"});
            size_t n = v_.ins.operands.size();
            if (has("tensormap::generic")) {
                if (order < 0 || scope < 0)
                    return fail(v_.word_pos[0], "'fence.proxy.tensormap::generic' needs .release or .acquire and a "
                                                "scope (.cta, .cluster, .gpu or .sys)");
                if (int space = any_of({"global", "shared::cta", "shared::cluster"}); space >= 0)
                    return fail(v_.word_pos[space], fmt::format("'fence.proxy.tensormap::generic' takes no state space "
                                                                "(.{})", v_.words[space]));
                bool acquire = v_.words[order] == "acquire";
                if (acquire != (n == 2))
                    return fail(acquire ? v_.word_pos[order] : v_.ins.operands[0].pos,
                                acquire ? "'fence.proxy.tensormap::generic.acquire' names the tensor map: [addr], 128"
                                        : "'fence.proxy.tensormap::generic.release' takes no operands");
                if (acquire && !(v_.ins.operands[1].kind == operand_kind::integer && v_.ins.operands[1].value == 128))
                    return fail(v_.ins.operands[1].pos, "the size of 'fence.proxy.tensormap::generic.acquire' is 128 "
                                                        "(a tensor map's bytes)");
            } else {
                int extra = order >= 0 ? order : scope;
                if (extra >= 0)
                    return fail(v_.word_pos[extra], fmt::format("'{}' takes no memory order or scope (.{})", dotted(),
                                                                v_.words[extra]));
                if (n)
                    return fail(v_.ins.operands[0].pos, fmt::format("'{}' takes no operands", dotted()));
            }
        }
        if (key_ == "fence" && any_of({"sc", "acq_rel", "acquire", "release"}) >= 0 &&
            any_of({"cta", "cluster", "gpu", "sys"}) < 0 && !has("proxy") && !has("mbarrier_init"))
            return fail(v_.word_pos[0], "'fence' with a memory order needs a scope (.cta, .cluster, .gpu or .sys)");
        // fma and mad on floats round explicitly; integers do not round.
        // Old PTX may leave mad.f32's rounding implied (isa/legacy_ptx.hpp).
        const bool old_mad = key_ == "mad" && types_[0] == data_type::f32 &&
                             unrounded_mad_allowed(v_.facts.ptx_version, v_.facts.sm1x);
        if ((key_ == "fma" || key_ == "mad") && is_float && rnd < 0 && !old_mad)
            return fail(v_.word_pos[0], fmt::format("'{}' needs a rounding modifier (.rn, .rz, .rm or .rp)", dotted()));
        if (rnd >= 0 && is_integer &&
            one_of(key_, {"add", "sub", "mul", "mad", "div", "fma", "rcp", "sqrt", "min", "max", "neg", "abs"}))
            return fail(v_.word_pos[rnd], fmt::format("'.{}' rounds floating-point results; '{}' on .{} does not round",
                                                      v_.words[rnd], key_, to_string(types_[0])));
        int ftz = word("ftz");
        if (ftz >= 0 && is_integer && one_of(key_, {"add", "sub", "mul", "mad", "min", "max", "div", "abs", "neg"}))
            return fail(v_.word_pos[ftz], fmt::format("'.ftz' flushes floating-point subnormals; '{}' on .{} has none",
                                                      key_, to_string(types_[0])));
        // Integer mul and mad say which half they keep; floats keep no half.
        if (key_ == "mul" || key_ == "mad") {
            int mode = any_of({"lo", "hi", "wide"});
            if (t.kind == type_kind::integer && mode < 0)
                return fail(v_.word_pos[0], fmt::format("'{}' on integers needs .lo, .hi or .wide", dotted()));
            if (is_float && mode >= 0)
                return fail(v_.word_pos[mode], fmt::format("'.{}' is only for integer '{}', not .{}", v_.words[mode],
                                                           key_, to_string(types_[0])));
        }
        if ((key_ == "setp" || key_ == "set") && has("ftz") && !is_float && ntypes_ >= 1) {
            data_type cmp = key_ == "set" && ntypes_ == 2 ? types_[1] : types_[0];
            type_info c = info_of(cmp);
            if (c.kind != type_kind::floating && c.kind != type_kind::half)
                return fail(v_.word_pos[word("ftz")], fmt::format("'.ftz' on '{}' is only for floating-point comparisons, "
                                                                  "not .{}", key_, to_string(cmp)));
        }
        // setp/set combine a predicate c exactly when they name .and, .or or .xor.
        if (key_ == "setp" || key_ == "set") {
            int op = any_of({"and", "or", "xor"});
            size_t n = v_.ins.operands.size();
            if (op >= 0 && n == 3)
                return fail(v_.word_pos[op], fmt::format("'{}.{}' needs a fourth operand, the predicate it combines with",
                                                         key_, v_.words[op]));
            if (op < 0 && n == 4)
                return fail(v_.ins.operands[3].pos, fmt::format("'{}' with a fourth operand needs .and, .or or .xor to "
                                                                "combine it", key_));
        }
        // Two types on add/sub (add.f32.f16) are sm_100 mixed-precision forms.
        if ((key_ == "add" || key_ == "sub") && ntypes_ == 2) {
            uint32_t sm = 0;
            std::string suffix;
            bool before_100 = !v_.facts.target.empty() && parse_target_name(v_.facts.target, sm, suffix) && sm < 100;
            bool mixed = types_[0] == data_type::f32 && (types_[1] == data_type::f16 || types_[1] == data_type::bf16);
            if (before_100 || !mixed)
                return fail(v_.word_pos[type_at_[1]],
                            fmt::format("'{}' takes one type{}", key_,
                                        mixed ? fmt::format("; .f32.{} needs sm_100", to_string(types_[1])) : ""));
        }
    }

    // .vN on atom/red: .f32 with .v2/.v4, .f16/.bf16 (and x2) up to .v8,
    // nothing else; the value operands are then vectors of N.
    // wmma.load/store with .vN: N elements of at most 128 bits together.
    void vectors() {
        if (!vec_ && (key_ == "atom" || key_ == "red")) {
            for (const auto& op : v_.ins.operands)
                if (op.kind == operand_kind::vector)
                    return fail(op.pos, fmt::format("'{}' without .v2/.v4/.v8 takes scalar operands, not a vector", key_));
            return;
        }
        if (!vec_) return;
        // A vector moves at most 128 bits; ld/st of .global 256 on sm_100.
        if (key_ == "ld" || key_ == "st" || key_ == "ldu" || key_ == "mov") {
            uint32_t bits = ntypes_ ? info_of(types_[0]).bits * vec_ : 0;
            uint32_t sm = 0;
            std::string suffix;
            bool sm100 = !v_.facts.target.empty() && parse_target_name(v_.facts.target, sm, suffix) && sm >= 100;
            uint32_t limit = (key_ == "ld" || key_ == "st") && has("global") && sm100 && info_of(types_[0]).bits < 128
                                 ? 256 : 128;
            if (bits > limit)
                return fail(v_.word_pos[vec_at_], fmt::format("'.v{}.{}' is {} bits; '{}' moves at most {}{}", vec_,
                                                              to_string(types_[0]), bits, key_, limit,
                                                              limit == 128 && (key_ == "ld" || key_ == "st")
                                                                  ? " (256 for .global on sm_100)" : ""));
        }
        if (key_ == "atom" || key_ == "red") {
            data_type t = ntypes_ ? types_[0] : data_type::none;
            bool half = t == data_type::f16 || t == data_type::bf16 || t == data_type::f16x2 || t == data_type::bf16x2;
            if (t != data_type::f32 && !half)
                return fail(v_.word_pos[vec_at_], fmt::format("'{}' takes .v{} only with .f32, .f16, .bf16, .f16x2 or "
                                                              ".bf16x2, not .{}", key_, vec_, to_string(t)));
            if (t == data_type::f32 && vec_ == 8)
                return fail(v_.word_pos[vec_at_], fmt::format("'{}.f32' takes .v2 or .v4, not .v8", key_));
            const auto& ops = v_.ins.operands;
            for (size_t i = 0; i < ops.size(); ++i) {
                if (ops[i].kind == operand_kind::address || (key_ == "atom" && i == 3 && !has("cas")) ||
                    (key_ == "red" && i == 2))
                    continue; // a cache policy
                if (ops[i].kind == operand_kind::vector && ops[i].elems.size() == vec_) continue;
                if (ops[i].kind == operand_kind::name && (flags_at(node_of(i)) & node_vec_mask) == vec_) continue;
                return fail(ops[i].pos, fmt::format("operand {} of '{}' must be a vector of {} {{...}}", i + 1, dotted(),
                                                    vec_));
            }
        }
        if (key_ == "wmma.load" || key_ == "wmma.store") {
            uint32_t bits = ntypes_ ? info_of(types_[0]).bits : 0;
            if (bits * vec_ > 128)
                return fail(v_.word_pos[vec_at_], fmt::format("'.v{}' of .{} is {} bits; a vector holds at most 128",
                                                              vec_, to_string(types_[0]), bits * vec_));
            const operand& frag = v_.ins.operands[key_ == "wmma.load" ? 0 : 1];
            if (frag.kind == operand_kind::vector && frag.elems.size() != vec_)
                return fail(frag.pos, fmt::format("'{}' with .v{} needs a vector of {}, not {}", key_, vec_, vec_,
                                                  frag.elems.size()));
        }
    }
    // Registers per lane of a wmma fragment (`frag` a, b, c or d) of the
    // shape holding `type`, as the engine counts them (isa/sem/wmma_layout.hpp);
    // 0 when the words name no such fragment. ptxas's .u32 accumulator is .s32.
    static uint32_t wmma_registers(std::string_view frag, const matrix_words& mw, std::string_view type) {
        sem::mma::etype t;
        if (!mw.m || !sem::mma::parse_etype(type == "u32" ? "s32" : type, t)) return 0;
        auto f = frag == "a" ? sem::wmma::frag::a : frag == "b" ? sem::wmma::frag::b : sem::wmma::frag::c;
        return sem::wmma::geometry_of(f, mw.m, mw.n, mw.k, t).registers;
    }

    size_t node_of(size_t index) const {
        size_t node = 0;
        for (size_t i = 0; i < index; ++i) node += node_count(v_.ins.operands[i]);
        return node;
    }

    // Constants with a fixed range: barrier numbers, parities.
    void constants() {
        const auto& ops = v_.ins.operands;
        if ((key_ == "bar" || key_ == "barrier") && any_of({"sync", "arrive", "red"}) >= 0) {
            size_t at = has("red") ? 1 : 0;
            // ptxas keeps the low 32 bits: 4294967296 is barrier 0, -1 is 4294967295
            if (at < ops.size() && ops[at].kind == operand_kind::integer &&
                (static_cast<uint64_t>(ops[at].value) & 0xFFFFFFFFu) > 15)
                return fail(ops[at].pos, fmt::format("barrier number {} is out of range [0..15]", ops[at].value));
        }
        // bfe's and bfi's position and length: [0..255] when constant.
        if (key_ == "bfe" || key_ == "bfi")
            for (size_t i = ops.size() >= 2 ? ops.size() - 2 : 0; i < ops.size(); ++i)
                if (ops[i].kind == operand_kind::integer && (ops[i].value < 0 || ops[i].value > 255))
                    return fail(ops[i].pos, fmt::format("operand {} of '{}' is a bit position or length in [0..255], "
                                                        "not {}", i + 1, key_, ops[i].value));
        if ((key_ == "mbarrier.test_wait" || key_ == "mbarrier.try_wait") && has("parity") && ops.size() >= 3 &&
            ops[2].kind == operand_kind::integer && ops[2].value != 0 && ops[2].value != 1)
            return fail(ops[2].pos, fmt::format("the phase parity of '{}' is 0 or 1, not {}", dotted(), ops[2].value));
    }

    // Operand forms the table's shapes allow too widely.
    void shapes() {
        const auto& ops = v_.ins.operands;
        bool float_type = false;
        for (uint32_t i = 0; i < ntypes_ && i < 4; ++i) {
            type_kind k = info_of(types_[i]).kind;
            float_type = float_type || k == type_kind::floating || k == type_kind::half || k == type_kind::unknown;
        }
        // cvt's third operand is the second source of a packing conversion (cvt.rn.f16x2.f32 d, a, b).
        if (key_ == "cvt" && ops.size() == 3) {
            std::string_view dst; // the first type word; e2m3x2 and other sm_100 pairs are no data_type
            for (size_t i = 1; i < v_.words.size() && dst.empty(); ++i)
                if (v_.words[i].ends_with("x2") || v_.words[i].ends_with("x4") ||
                    data_type_from(v_.words[i]) != data_type::none)
                    dst = v_.words[i];
            // (cvt.rs ... .e4m3x4.f32 d, {a, b, c, d}, rbits: stochastic rounding's random bits, sm_100)
            if (!dst.ends_with("x2") && !has("rs"))
                return fail(ops[2].pos, fmt::format("'{}' converts one source; only a conversion to a pair (.f16x2, "
                                                    ".bf16x2, .e4m3x2 ...) takes two", dotted()));
        }
        // wmma.mma's four fragments, counted alike (.f16 inputs name .dtype.ctype only).
        if (key_ == "wmma.mma" && ops.size() == 4) {
            matrix_words mw = matrix_words_of(v_.words);
            const auto& t = mw.types;
            std::string_view frag_t[4];
            if (mw.ntypes == 2) frag_t[0] = t[0], frag_t[1] = frag_t[2] = "f16", frag_t[3] = t[1];
            else if (mw.ntypes == 4) frag_t[0] = t[0], frag_t[1] = t[1], frag_t[2] = t[2], frag_t[3] = t[3];
            for (size_t k = 0; k < 4 && (mw.ntypes == 2 || mw.ntypes == 4); ++k) {
                uint32_t want = wmma_registers(k == 0 ? "d" : k == 1 ? "a" : k == 2 ? "b" : "c", mw, frag_t[k]);
                size_t have = ops[k].kind == operand_kind::vector ? ops[k].elems.size() : 0;
                if (want && have != want)
                    return fail(ops[k].pos, fmt::format("operand {} ({}) of '{}' is a vector of {} register{}, not {}",
                                                        k + 1, "dabc"[k], dotted(), want, want == 1 ? "" : "s",
                                                        have ? fmt::format("{}", have) : std::string("a scalar")));
            }
        }
        // cvt.pack: 32-bit integer sources, a destination (and c) of 32 bits or more.
        if (key_ == "cvt.pack") {
            size_t node = 0;
            for (size_t k = 0; k < ops.size(); node += node_count(ops[k]), ++k) {
                data_type t = node < v_.types.size() ? v_.types[node] : data_type::none;
                if (ops[k].kind != operand_kind::name || t == data_type::none) continue;
                type_info ti = info_of(t);
                bool source = k == 1 || k == 2;
                bool ok = ti.kind != type_kind::pred && (source ? ti.bits == 32 && ti.kind != type_kind::floating &&
                                                                      ti.kind != type_kind::half
                                                                : ti.bits >= 32);
                if (!ok)
                    return fail(ops[k].pos, fmt::format("operand {} of '{}' must be {}, but '{}' is .{}", k + 1, dotted(),
                                                        source ? "a 32-bit integer register" : "a register of 32 bits or more",
                                                        text(ops[k]), to_string(t)));
            }
        }
        // mov packs or unpacks: a vector on both sides needs .vN.
        if (key_ == "mov" && !vec_ && ops.size() == 2 && ops[0].kind == operand_kind::vector &&
            ops[1].kind == operand_kind::vector)
            return fail(ops[1].pos, "'mov' without .vN packs registers into one or unpacks one: not a vector into a vector");
        // get_first_ctaid (all three) fills a .v4 vector; ::x, ::y, ::z one register.
        if (key_ == "clusterlaunchcontrol.query_cancel" && has("get_first_ctaid") && !ops.empty() &&
            (vec_ != 4 || ops[0].kind != operand_kind::vector || ops[0].elems.size() != 4))
            return fail(ops[0].pos, "'clusterlaunchcontrol.query_cancel.get_first_ctaid' fills a .v4 vector of 4 "
                                    "(.v4.b32.b128 {...}); ::x, ::y, ::z give one register");
        // (ptxas refuses .f32 registers in the .tf32 B fragment of wmma.mma, not in A nor elsewhere)
        if (key_ == "wmma.mma" && has("tf32") && ops.size() == 4) {
            size_t node = node_count(ops[0]);
            for (size_t k = 1; k <= 2; node += node_count(ops[k]), ++k) {
                if (k != 2 || ops[k].kind != operand_kind::vector) continue;
                size_t child = node + 1;
                for (const auto& e : ops[k].elems) {
                    data_type t = child < v_.types.size() ? v_.types[child] : data_type::none;
                    if (t == data_type::f32)
                        return fail(e.pos, fmt::format("the .tf32 B fragment of 'wmma.mma' is .b32 registers, not .f32 "
                                                       "('{}')", text(e)));
                    child += node_count(e);
                }
            }
        }
        // clusterlaunchcontrol.query_cancel.is_canceled sets a predicate.
        if (key_ == "clusterlaunchcontrol.query_cancel" && has("is_canceled") && !ops.empty() &&
            ops[0].kind == operand_kind::name && !v_.types.empty() && v_.types[0] != data_type::none &&
            v_.types[0] != data_type::pred)
            return fail(ops[0].pos, fmt::format("'{}' sets a predicate, but '{}' is .{}", dotted(), text(ops[0]),
                                                to_string(v_.types[0])));
        // wmma fragments are 32-bit registers (.f64 ones 64-bit), as many as
        // the fragment, shape and type hold (the ISA's fragment table).
        if (key_ == "wmma.load" || key_ == "wmma.store") {
            size_t at = key_ == "wmma.load" ? 0 : 1;
            if (at < ops.size() && ops[at].kind == operand_kind::vector && !vec_) {
                matrix_words mw = matrix_words_of(v_.words);
                uint32_t want = mw.ntypes ? wmma_registers(mw.frag, mw, mw.types[mw.ntypes - 1]) : 0;
                if (want && ops[at].elems.size() != want)
                    return fail(ops[at].pos, fmt::format("'{}' holds its fragment in {} register{}, not {}", dotted(), want,
                                                         want == 1 ? "" : "s", ops[at].elems.size()));
            }
            uint32_t bits = ntypes_ && types_[0] == data_type::f64 ? 64 : 32;
            size_t node = 0;
            for (size_t k = 0; k < at && k < ops.size(); ++k) node += node_count(ops[k]);
            if (at < ops.size() && ops[at].kind == operand_kind::vector) {
                size_t child = node + 1;
                for (const auto& e : ops[at].elems) {
                    data_type t = child < v_.types.size() ? v_.types[child] : data_type::none;
                    if (e.kind == operand_kind::name && t != data_type::none && info_of(t).bits != bits)
                        return fail(e.pos, fmt::format("a fragment of '{}' is held in {} registers, but '{}' is .{}",
                                                       dotted(), bits == 64 ? ".f64 (64-bit)" : "32-bit", text(e),
                                                       to_string(t)));
                    child += node_count(e);
                }
            }
        }
        // cvt's sm_100 pairs of narrow floats (no data_type here) hold 16
        // bits (.e2m3x2, .e3m2x2, .ue8m0x2) or 8 (.e2m1x2), in a register of
        // exactly that width.
        if (key_ == "cvt") {
            size_t nth = 0;
            for (size_t i = 1; i < v_.words.size() && nth < 2; ++i) {
                std::string_view w = v_.words[i];
                uint32_t bits = one_of(w, {"e2m3x2", "e3m2x2", "ue8m0x2"}) ? 16 : w == "e2m1x2" ? 8 : 0;
                if (!bits && data_type_from(w) == data_type::none) continue;
                ++nth;
                if (!bits) continue;
                size_t node = 0;
                for (size_t k = 0; k < ops.size(); node += node_count(ops[k]), ++k) {
                    if ((nth == 1) != (k == 0) || ops[k].kind != operand_kind::name) continue;
                    data_type t = node < v_.types.size() ? v_.types[node] : data_type::none;
                    if (t != data_type::none && info_of(t).bits != bits)
                        return fail(ops[k].pos, fmt::format("operand {} of '{}' is a .{} ({} bits) and needs a register "
                                                            "of that width, but '{}' is .{}", k + 1, dotted(), w, bits,
                                                            text(ops[k]), to_string(t)));
                }
            }
        }
        // A variable's or function's address is an integer: mov.f32 %f1, var is refused.
        if (key_ == "mov" && ops.size() == 2 && ops[1].kind == operand_kind::name && ntypes_ == 1) {
            size_t node = node_count(ops[0]);
            type_kind k = info_of(types_[0]).kind;
            // (%v.x, an element of a vector register, has a dot; a variable never does)
            if (node < v_.types.size() && v_.types[node] == data_type::none && flags_at(node) == 0 &&
                text(ops[1]).find('.') == std::string_view::npos &&
                (k == type_kind::floating || k == type_kind::half || k == type_kind::pred))
                return fail(ops[1].pos, fmt::format("'{}' is an address; 'mov' takes it as an integer (.u64, .b64 ...), "
                                                    "not .{}", text(ops[1]), to_string(types_[0])));
        }
        // Where the operand roles do not judge constants: an instruction
        // without a floating-point type takes integer constants only
        // (bar.warp.sync 1.5, wgmma.wait_group 0f3F800000, mapa ..., 1.0).
        // The registers of a vector operand have one width where the operand
        // roles do not judge them (wmma/wgmma fragments, vector atomics):
        // ptxas: "Incompatible elements of vector expression".
        if (roles_for(key_, v_.words.subspan(v_.row.key_words.size()), ops.size()).empty() || key_ == "atom" ||
            key_ == "red") {
            size_t node = 0;
            for (size_t i = 0; i < ops.size(); node += node_count(ops[i]), ++i) {
                if (ops[i].kind != operand_kind::vector) continue;
                uint32_t width = 0;
                size_t child = node + 1;
                for (const auto& e : ops[i].elems) {
                    data_type t = child < v_.types.size() ? v_.types[child] : data_type::none;
                    type_info ti = info_of(t);
                    if (e.kind == operand_kind::name && ti.kind != type_kind::unknown && ti.kind != type_kind::pred) {
                        if (width && ti.bits != width)
                            return fail(e.pos, fmt::format("the elements of operand {} of '{}' must be registers of one "
                                                           "width, but '{}' is .{}", i + 1, key_, text(e), to_string(t)));
                        width = ti.bits;
                    }
                    child += node_count(e);
                }
            }
        }
        // createpolicy.fractional takes its fraction as a float (1.0, 0.5).
        if (!float_type && key_ != "createpolicy" && roles_for(key_, v_.words.subspan(v_.row.key_words.size()), ops.size()).empty()) {
            for (size_t i = 0; i < ops.size(); ++i)
                if ((ops[i].kind == operand_kind::f32 || ops[i].kind == operand_kind::f64) && !(ops[i].flags & op_bad_literal))
                    return fail(ops[i].pos, fmt::format("operand {} of '{}' must be an integer constant, not a "
                                                        "floating-point one", i + 1, key_));
        }
    }

    const instruction_view& v_;
    std::vector<located_problem>& out_;
    const std::string& key_;
    data_type types_[4]{};
    size_t type_at_[4]{};
    uint32_t ntypes_ = 0;
    uint32_t vec_ = 0;
    size_t vec_at_ = 0;
};

} // namespace

void check_operand_rules(const instruction_view& v, std::vector<located_problem>& out) { rule_checker(v, out).run(); }

} // namespace ptxsim::isa::detail
