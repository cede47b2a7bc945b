// Modifier combinations that the table's groups cannot express, each as
// ptxas 13 enforces it (tried on -arch=sm_90a):
// - cvt: the rounding a conversion needs or refuses depends on both types
//   (operand_types.cpp, cvt_rounding_problem);
// - atom/red: which types each operation takes (atom.and.f32 is refused),
//   and .noftz, which half-precision add needs and other types refuse;
// - vote and shfl without .sync, refused for sm_70 and newer from PTX 6.4;
// - setp/set comparisons and types, slct's selector, mma's and wmma.mma's
//   type lists.
#include <cstdio>

#include <fmt/format.h>

#include "isa/detail/check_operands.hpp"
#include "isa/detail/operand_types.hpp"
#include "isa/sem/mma_layout.hpp"

namespace ptxsim::isa::detail {
namespace {

using namespace parser;

bool is_rounding(std::string_view w) {
    return w == "rn" || w == "rz" || w == "rm" || w == "rp" || w == "rni" || w == "rzi" || w == "rmi" || w == "rpi" ||
           w == "rna" || w == "rs";
}

bool is_half(data_type t) {
    return t == data_type::f16 || t == data_type::f16x2 || t == data_type::bf16 || t == data_type::bf16x2;
}

bool listed(std::string_view list, std::string_view type) { // ".b32, .b64" has ".b32"
    size_t at = 0;
    while ((at = list.find(type, at)) != std::string_view::npos) {
        size_t end = at + type.size();
        if (at > 0 && list[at - 1] == '.' && (end == list.size() || list[end] == ',')) return true;
        at = end;
    }
    return false;
}

void cvt(const instruction_view& v, std::vector<located_problem>& out) {
    data_type types[2]{};
    size_t n = 0;
    std::string_view rounding;
    for (size_t i = 1; i < v.words.size(); ++i) {
        data_type t = data_type_from(v.words[i]);
        if (t != data_type::none) {
            if (n < 2) types[n] = t;
            ++n;
        } else if (is_rounding(v.words[i]) && rounding.empty()) {
            rounding = v.words[i];
        }
    }
    if (n >= 2 && rounding == "rs" && types[1] != data_type::f32) { // cvt.rs.f16x2.f32 d, a, b, rbits
        out.push_back({v.word_pos[0], fmt::format("'cvt.rs' (stochastic rounding) converts .f32, not .{}",
                                                  to_string(types[1]))});
        return;
    }
    if (n != 2) return;
    std::string name = fmt::format("cvt.{}.{}", to_string(types[0]), to_string(types[1]));
    uint32_t sm = 0;
    std::string suffix;
    // sm_100 adds pairs (fp6, fp4, ue8m0) this rule does not know: judged up to sm_90a only.
    bool judged = v.facts.target.empty() || (parse_target_name(v.facts.target, sm, suffix) && sm < 100);
    if (judged && !cvt_pair_exists(types[0], types[1])) {
        out.push_back({v.word_pos[0], fmt::format("'{}' does not exist: cvt has no conversion from .{} to .{}", name,
                                                  to_string(types[1]), to_string(types[0]))});
        return;
    }
    std::string msg = cvt_rounding_problem(types[0], types[1], rounding, name);
    if (!msg.empty()) out.push_back({v.word_pos[0], std::move(msg)});
}

void atomic(const instruction_view& v, std::vector<located_problem>& out) {
    bool red = v.row.key == "red";
    std::string_view op, type_word;
    size_t type_at = 0;
    bool noftz = false, vec = false;
    for (size_t i = 1; i < v.words.size(); ++i) {
        std::string_view w = v.words[i];
        if (w == "noftz") noftz = true;
        else if (w == "v2" || w == "v4" || w == "v8") vec = true;
        else if (op.empty() && !atom_types_for(w, red).empty()) op = w;
        else if (data_type_from(w) != data_type::none) {
            type_word = w;
            type_at = i;
        }
    }
    if (vec || op.empty() || type_word.empty()) return; // vector atomics: not judged here
    std::string_view allowed = atom_types_for(op, red);
    if (!listed(allowed, type_word)) {
        out.push_back({v.word_pos[type_at], fmt::format("'{}.{}' takes {}, not .{}", v.row.key, op, allowed, type_word)});
        return;
    }
    bool half = is_half(data_type_from(type_word));
    if (half && op == "add" && !noftz)
        out.push_back({v.word_pos[0], fmt::format("'{}.add.{}' needs .noftz", v.row.key, type_word)});
    else if (noftz && !half)
        out.push_back({v.word_pos[0], fmt::format("'.noftz' on '{}' is only for .f16, .f16x2, .bf16 and .bf16x2, not .{}",
                                                  v.row.key, type_word)});
}

// setp.lt.b32 is refused: bit types only compare for equality, signed
// types have no .lo/.hs, integers no unordered comparisons.
void comparison(const instruction_view& v, std::vector<located_problem>& out) {
    constexpr std::string_view every_comparison =
        ".eq, .ne, .lt, .le, .gt, .ge, .lo, .ls, .hi, .hs, .equ, .neu, .ltu, .leu, .gtu, .geu, .num, .nan";
    bool set = v.row.key == "set";
    size_t cmp_at = 0, ntypes = 0;
    data_type type = data_type::none;
    for (size_t i = 1; i < v.words.size(); ++i) {
        data_type t = data_type_from(v.words[i]);
        if (t != data_type::none) {
            ++ntypes;
            if (ntypes == (set ? 2u : 1u)) type = t; // set.lt.u32.f32: the second type is compared
        } else if (!cmp_at && listed(every_comparison, v.words[i])) {
            cmp_at = i;
        }
    }
    if (!cmp_at || type == data_type::none) return;
    std::string_view allowed = comparisons_for(type);
    if (!allowed.empty() && !listed(allowed, v.words[cmp_at]))
        out.push_back({v.word_pos[cmp_at], fmt::format("'{}.{}' cannot compare .{} values; .{} takes {}", v.row.key,
                                                       v.words[cmp_at], to_string(type), to_string(type), allowed)});
}

// slct's selector is .s32 or .f32 only; set's result type depends on what
// it compares (the pairs ptxas accepts among the generated forms, and no other).
void selector_and_result(const instruction_view& v, std::vector<located_problem>& out) {
    data_type types[2]{};
    size_t at[2]{}, n = 0;
    for (size_t i = 1; i < v.words.size() && n < 3; ++i) {
        data_type t = data_type_from(v.words[i]);
        if (t == data_type::none) continue;
        if (n < 2) {
            types[n] = t;
            at[n] = i;
        }
        ++n;
    }
    if (n != 2) return;
    if (v.row.key == "slct") {
        if (types[1] != data_type::s32 && types[1] != data_type::f32)
            out.push_back({v.word_pos[at[1]], fmt::format("'slct' selects by a .s32 or .f32 operand, not .{}",
                                                          to_string(types[1]))});
    } else {
        data_type d = types[0], a = types[1];
        std::string_view results;
        if (a == data_type::f16) results = ".u32, .s32, .u16, .s16, .f16, .bf16";
        else if (a == data_type::bf16) results = ".u32, .s32, .u16, .s16, .bf16"; // set.eq.f16.bf16 is refused
        else if (a == data_type::f16x2) results = ".u32, .s32, .f16x2";
        else if (a == data_type::bf16x2) results = ".u32, .s32, .bf16x2";
        else results = ".u32, .s32, .f32, .f16, .bf16";
        if (!listed(results, to_string(d)))
            out.push_back({v.word_pos[at[0]], fmt::format("'set' comparing .{} gives a {} result, not .{}", to_string(a),
                                                          results, to_string(d))});
    }
}

// mma.sync (sm_80..sm_90a types, without .kind): A and B of one kind, the
// D/C types that kind accumulates in, and .row.col except for m8n8k4 .f16.
void mma(const instruction_view& v, std::vector<located_problem>& out) {
    enum { none, f16, bf16, tf32, f64, i8, fp8 };
    auto family = [](data_type t) {
        switch (t) {
        case data_type::f16: return f16;
        case data_type::bf16: return bf16;
        case data_type::tf32: return tf32;
        case data_type::f64: return f64;
        case data_type::s8: case data_type::u8: return i8;
        case data_type::e4m3: case data_type::e5m2: return fp8;
        default: return none;
        }
    };
    data_type t[4]{};
    size_t n = 0;
    std::string_view shape, layout[2];
    size_t nlayout = 0;
    for (size_t i = 1; i < v.words.size(); ++i) {
        std::string_view w = v.words[i];
        if (w.starts_with("kind::") || w == "block_scale") return;
        if (w.starts_with("m") && w.find('n') != std::string_view::npos && w.find('k') != std::string_view::npos) shape = w;
        else if ((w == "row" || w == "col") && nlayout < 2) layout[nlayout++] = w;
        else if (data_type_from(w) != data_type::none) {
            if (n < 4) t[n] = data_type_from(w);
            ++n;
        }
    }
    if (n != 4) return; // .s4/.u4/.b1 forms and anything unusual: not judged
    data_type d = t[0], a = t[1], b = t[2], c = t[3];
    int fa = family(a), fb = family(b);
    if (fa == none || fb == none) {
        out.push_back({v.word_pos[0], fmt::format("'mma' multiplies .f16, .bf16, .tf32, .f64, .s8/.u8 or .e4m3/.e5m2 "
                                                  "(and .s4/.u4/.b1), not .{}", to_string(fa == none ? a : b))});
        return;
    }
    if (fa != fb) {
        out.push_back({v.word_pos[0], fmt::format("'mma' multiplies A and B of one kind; .{} and .{} differ", to_string(a),
                                                  to_string(b))});
        return;
    }
    bool m8n8k4_f16 = shape == "m8n8k4" && fa == f16;
    std::string_view accumulators;
    bool same = true; // D and C of one type
    switch (fa) {
    case f16: case fp8: accumulators = ".f16, .f32"; same = !m8n8k4_f16; break;
    case bf16: case tf32: accumulators = ".f32"; break;
    case f64: accumulators = ".f64"; break;
    case i8: accumulators = ".s32"; break;
    }
    if (!m8n8k4_f16 && (!listed(accumulators, to_string(d)) || !listed(accumulators, to_string(c)) || (same && d != c)))
        out.push_back({v.word_pos[0], fmt::format("'mma' on .{} accumulates in {} (D and C alike), not D .{} and C .{}",
                                                  to_string(a), accumulators, to_string(d), to_string(c))});
    else if (!m8n8k4_f16 && nlayout == 2 && (layout[0] != "row" || layout[1] != "col"))
        out.push_back({v.word_pos[0], fmt::format("'mma.{}' on .{} takes .row.col only, not .{}.{}", shape, to_string(a),
                                                  layout[0], layout[1])});
}

// mma's fragments: how many registers each of d, a, b, c holds per lane,
// counted as the engine counts them (isa/sem/mma.cpp): an M x K (K x N,
// M x N) matrix spread over 32 lanes, isa/sem/mma_layout.hpp's elements per
// register. m8n8k4 on .f16 is the quad-pair form: A and B 2 registers, C
// and D 8 (.f32) or 4 (.f16).
// ptxas: "Argument vector size mismatch for instruction 'mma'".
void mma_fragments(const instruction_view& v, std::vector<located_problem>& out) {
    for (auto w : v.words)
        if (w.starts_with("kind::") || w == "block_scale") return;
    matrix_words mw = matrix_words_of(v.words);
    sem::mma::etype t[4];
    if (mw.ntypes != 4 || !mw.m) return;
    for (size_t i = 0; i < 4; ++i)
        if (!sem::mma::parse_etype(mw.types[i], t[i])) return;
    uint32_t want[4];
    if (mw.shape == "m8n8k4" && mw.types[1] == "f16") {
        want[1] = want[2] = 2;
        want[0] = mw.types[0] == "f32" ? 8 : 4;
        want[3] = mw.types[3] == "f32" ? 8 : 4;
    } else {
        const uint32_t elems[4] = {mw.m * mw.n / 32, mw.m * mw.k / 32, mw.k * mw.n / 32, mw.m * mw.n / 32};
        for (size_t i = 0; i < 4; ++i) want[i] = (elems[i] + sem::mma::per_register(t[i]) - 1) / sem::mma::per_register(t[i]);
    }
    const auto& ops = v.ins.operands;
    for (size_t i = 0; i < 4 && i < ops.size(); ++i) {
        size_t have = ops[i].kind == operand_kind::vector ? ops[i].elems.size() : 0; // {%r1}, not %r1
        if (have != want[i]) {
            out.push_back({ops[i].pos, fmt::format("operand {} ({}) of 'mma.{}' with .{}.{}.{}.{} is a vector of {} "
                                                   "register{} {{...}}, not {}", i + 1, "dabc"[i], mw.shape, mw.types[0],
                                                   mw.types[1], mw.types[2], mw.types[3], want[i], want[i] == 1 ? "" : "s",
                                                   have ? fmt::format("{}", have) : std::string("a scalar"))});
            return;
        }
    }
}

// wmma.mma: the type lists ptxas takes per shape. Half inputs name only
// .dtype.ctype (wmma.mma...m16n16k16.f32.f16); every other form names
// .dtype.atype.btype.ctype with A and B alike. ptxas also takes .u32 for
// the .s32 accumulator of the 8-bit forms (read as .s32).
void wmma_mma(const instruction_view& v, std::vector<located_problem>& out) {
    matrix_words mw = matrix_words_of(v.words);
    const auto& t = mw.types;
    const size_t n = mw.ntypes;
    const std::string_view shape = mw.shape;
    bool m16 = shape == "m16n16k16" || shape == "m32n8k16" || shape == "m8n32k16";
    auto is = [](std::string_view w, std::initializer_list<std::string_view> set) {
        for (auto x : set)
            if (w == x) return true;
        return false;
    };
    bool ok;
    std::string_view a = n == 4 ? t[1] : "f16";
    if (n == 2)
        ok = m16 && is(t[0], {"f16", "f32"}) && is(t[1], {"f16", "f32"});
    else if (n != 4 || t[1] != t[2])
        ok = false;
    else if (a == "bf16") ok = m16 && t[0] == "f32" && t[3] == "f32";
    else if (a == "s8" || a == "u8") ok = m16 && t[0] == "s32" && is(t[3], {"s32", "u32"});
    else if (a == "s4" || a == "u4") ok = shape == "m8n8k32" && t[0] == "s32" && t[3] == "s32";
    else if (a == "b1") ok = shape == "m8n8k128" && t[0] == "s32" && t[3] == "s32";
    else if (a == "tf32") ok = shape == "m16n16k8" && t[0] == "f32" && t[3] == "f32";
    else if (a == "f64") ok = shape == "m8n8k4" && t[0] == "f64" && t[3] == "f64";
    else ok = false;
    if (ok) return;
    std::string types;
    for (size_t i = 0; i < n && i < 4; ++i) types += fmt::format(".{}", t[i]);
    out.push_back({v.word_pos[0],
                   fmt::format("'wmma.mma.{}' has no {} form: .f16 inputs name .dtype.ctype (.f16/.f32, m16n16k16, "
                               "m32n8k16, m8n32k16); others .dtype.atype.btype.ctype with A and B alike: .bf16 and "
                               ".s8/.u8 on those shapes, .s4/.u4 m8n8k32, .b1 m8n8k128, .tf32 m16n16k8, .f64 m8n8k4",
                               shape, types.empty() ? "such" : types)});
}

void needs_sync(const instruction_view& v, std::vector<located_problem>& out) {
    uint32_t sm = 0;
    std::string suffix;
    if (v.facts.target.empty() || !parse_target_name(v.facts.target, sm, suffix)) return;
    if (sm >= 70 && v.facts.ptx_version >= 64)
        out.push_back({v.word_pos[0], fmt::format("'{0}' without .sync is not supported on sm_70 and newer from PTX ISA 6.4 "
                                                  "(the file targets {1}); use {0}.sync with a member mask",
                                                  v.row.key, v.facts.target)});
}

} // namespace

matrix_words matrix_words_of(std::span<const std::string_view> words) {
    matrix_words mw;
    for (size_t i = 1; i < words.size(); ++i) {
        std::string_view w = words[i];
        if (w == "a" || w == "b" || w == "c" || w == "d") mw.frag = w;
        else if (w.size() > 4 && w[0] == 'm' && w.find('n') != std::string_view::npos && w.find('k') != std::string_view::npos)
            mw.shape = w;
        else if (data_type_from(w) != data_type::none || w == "s4" || w == "u4" || w == "b1") {
            if (mw.ntypes < 4) mw.types[mw.ntypes] = w;
            ++mw.ntypes;
        }
    }
    unsigned m = 0, n = 0, k = 0;
    if (std::sscanf(std::string(mw.shape).c_str(), "m%un%uk%u", &m, &n, &k) == 3) mw.m = m, mw.n = n, mw.k = k;
    return mw;
}

void check_combinations(const instruction_view& v, std::vector<located_problem>& out) {
    const std::string& key = v.row.key;
    if (key == "cvt") cvt(v, out);
    else if (key == "atom" || key == "red") atomic(v, out);
    else if (key == "vote" || key == "shfl") needs_sync(v, out);
    else if (key == "setp" || key == "set") comparison(v, out);
    if (key == "slct" || key == "set") selector_and_result(v, out);
    else if (key == "mma.sp" || key == "mma.sp::ordered_metadata") mma(v, out); // (sparse fragments not judged)
    else if (key == "mma") {
        mma(v, out);
        if (out.empty()) mma_fragments(v, out);
    }
    else if (key == "wmma.mma") wmma_mma(v, out);
}

} // namespace ptxsim::isa::detail
