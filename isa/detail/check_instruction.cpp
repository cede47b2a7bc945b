// Matching an instruction to the table: find the rows with the longest key
// that prefixes its dotted words, then check modifiers (group membership,
// counts, rules, versions) and operands (count and kind) against each row.
// When several rows share a key the instruction needs to fit one of them;
// if it fits none, the errors of the closest row are reported.
#include "isa/detail/check_instruction.hpp"

#include <fmt/format.h>

#include "isa/detail/check_operands.hpp"
#include "isa/ignored_words.hpp"

#include <algorithm>
#include <array>

namespace ptxsim::isa::detail {
namespace {

using namespace parser;

using problem = located_problem;

std::string version_text(uint32_t v) { return fmt::format("{}.{}", v / 10, v % 10); }

std::string choices(const group_spec& g) {
    std::string out;
    for (size_t i = 0; i < g.mods.size(); ++i) {
        if (i == 8) return out + ", ...";
        out += fmt::format("{}.{}", i ? ", " : "", g.mods[i].text);
    }
    return out;
}

const char* class_text(operand_class c) {
    switch (c) {
    case operand_class::dest: return "a destination register";
    case operand_class::source: return "a register or constant";
    case operand_class::memory: return "a memory operand [...]";
    case operand_class::label: return "a label or symbol name";
    case operand_class::immediate: return "a constant";
    case operand_class::list: return "a parenthesised list (...)";
    case operand_class::any: return "an operand";
    }
    return "an operand";
}

bool fits(operand_class c, const operand& op) {
    switch (c) {
    case operand_class::any: return true;
    case operand_class::dest:
        if (op.kind == operand_kind::vector) { // {%r1, 1} is refused: "Result register required"
            for (const auto& e : op.elems)
                if (!(e.kind == operand_kind::name && !(e.flags & op_negated)) && e.kind != operand_kind::sink) return false;
            return true;
        }
        return (op.kind == operand_kind::name && !(op.flags & op_negated)) || op.kind == operand_kind::pipe ||
               op.kind == operand_kind::sink;
    case operand_class::source:
        return op.kind == operand_kind::name || op.kind == operand_kind::integer || op.kind == operand_kind::f32 ||
               op.kind == operand_kind::f64 || op.kind == operand_kind::vector || op.kind == operand_kind::sink;
    case operand_class::memory: return op.kind == operand_kind::address;
    case operand_class::label: return op.kind == operand_kind::name;
    case operand_class::immediate:
        return op.kind == operand_kind::integer || op.kind == operand_kind::f32 || op.kind == operand_kind::f64;
    case operand_class::list: return op.kind == operand_kind::list;
    }
    return false;
}

class row_checker {
public:
    row_checker(const module_facts& f, const instruction& ins, const op_info& row,
                std::span<const std::string_view> words, std::span<const pos_t> word_pos, std::string_view name)
        : f_(f), ins_(ins), row_(row), words_(words), word_pos_(word_pos), name_(name) {}

    std::vector<problem> run() {
        requirements(row_.min_ptx, row_.target, word_pos_[0], name_);
        modifiers();
        operands();
        return std::move(problems_);
    }

private:
    void add(pos_t p, std::string msg) { problems_.push_back({p, std::move(msg)}); }

    void requirements(uint32_t min_ptx, const target_req& target, pos_t p, std::string_view what) {
        if (f_.ptx_version && min_ptx > f_.ptx_version)
            add(p, fmt::format("'{}' needs PTX ISA {} or later, but the file declares .version {}", what,
                               version_text(min_ptx), version_text(f_.ptx_version)));
        // The table's oldest target is sm_20 (it does not record what came
        // with sm_20), so a .target sm_1x module may use what sm_20 has.
        const bool sm1x_base = f_.sm1x && target.exact.empty() && target.min_sm <= 20;
        if (!f_.target.empty() && !sm1x_base && !target.satisfied_by(f_.target))
            add(p, fmt::format("'{}' needs target {}{}, but the file targets {}", what, target.text,
                               target.exact.empty() ? " or newer" : "", f_.target));
    }

    void modifiers() {
        std::array<uint32_t, 64> counts{};
        std::array<std::string_view, 64> first{};
        bool unknown_modifier = false;
        size_t first_mod = row_.key_words.size();
        for (size_t i = first_mod; i < words_.size(); ++i) {
            std::string_view w = words_[i];
            int found = -1;
            const modifier_spec* spec = nullptr;
            for (size_t g = 0; g < row_.groups.size() && g < counts.size(); ++g) {
                for (const auto& mod : row_.groups[g].mods) {
                    if (!mod.matches(w)) continue;
                    if (found < 0 || (counts[found] >= row_.groups[found].max && counts[g] < row_.groups[g].max)) {
                        found = static_cast<int>(g);
                        spec = &mod;
                    }
                    break;
                }
            }
            if (found < 0 && ignored_kind(w, row_.key) != ignored_word::none) {
                // ptxas reads a testp class or a tensor-map field on any
                // instruction and ignores it (sqrt.approx.finite.f32,
                // add.box_dim.u32 compile); a second one of a kind is refused.
                bool testp = ignored_kind(w, row_.key) == ignored_word::testp_class;
                if (++(testp ? testp_classes_ : field_words_) > 1)
                    add(word_pos_[i], testp ? fmt::format("'{}' takes at most one of .finite, .infinite, .number, "
                                                          ".notanumber, .normal, .subnormal (and ignores it)", row_.key)
                                            : fmt::format("'{}' takes at most one tensor-map field word (.box_dim, "
                                                          ".rank ...), and ignores it", row_.key));
                continue;
            }
            if (found < 0) {
                add(word_pos_[i], fmt::format("'.{}' is not a modifier of '{}'", w, row_.key));
                unknown_modifier = true;
                continue;
            }
            if (counts[found]++ == 0) first[found] = w;
            if (counts[found] > row_.groups[found].max) {
                const auto& g = row_.groups[found];
                if (g.max == 1)
                    add(word_pos_[i], fmt::format("'.{}' cannot be combined with '.{}' on '{}' (one of: {})", w,
                                                  first[found], row_.key, choices(g)));
                else
                    add(word_pos_[i], fmt::format("'{}' takes at most {} modifiers from {}", row_.key, g.max, choices(g)));
            }
            if (spec->min_ptx || spec->target.min_sm || !spec->target.exact.empty())
                requirements(spec->min_ptx, spec->target, word_pos_[i], fmt::format("{}.{}", row_.key, w));
        }
        for (size_t g = 0; g < row_.groups.size() && g < counts.size(); ++g) {
            const auto& grp = row_.groups[g];
            // After an unknown modifier, a missing group is most likely the one it misspelt.
            if (counts[g] >= grp.min || unknown_modifier) continue;
            if (grp.min == 1)
                add(word_pos_[0], fmt::format("'{}' needs one of {}", row_.key, choices(grp)));
            else
                add(word_pos_[0], fmt::format("'{}' needs {} modifiers from {}", row_.key, grp.min, choices(grp)));
        }
        for (const auto& rule : row_.rules) {
            bool has_when = false, has_need = false;
            pos_t when_at = word_pos_[0];
            for (size_t i = first_mod; i < words_.size(); ++i) {
                if (words_[i] == rule.when && !has_when) has_when = true, when_at = word_pos_[i];
                for (const auto& n : rule.needs)
                    if (words_[i] == n) has_need = true;
            }
            if (has_when && !has_need) {
                std::string needs;
                for (size_t k = 0; k < rule.needs.size(); ++k) needs += fmt::format("{}.{}", k ? ", " : "", rule.needs[k]);
                add(when_at, fmt::format("'.{}' on '{}' is only allowed with one of {}", rule.when, row_.key, needs));
            }
        }
    }

    void operands() {
        const auto& ops = ins_.operands;
        const operand_shape* count_match = nullptr;
        for (const auto& shape : row_.shapes) {
            bool count_ok = ops.size() >= shape.required && (shape.variadic || ops.size() <= shape.classes.size());
            if (!count_ok) continue;
            if (!count_match) count_match = &shape;
            bool kinds_ok = true;
            for (uint32_t i = 0; i < ops.size() && kinds_ok; ++i) {
                operand_class c = i < shape.classes.size() ? shape.classes[i] : shape.classes.back();
                kinds_ok = fits(c, ops[i]);
            }
            if (kinds_ok) return;
        }
        if (!count_match) {
            std::string counts;
            for (size_t i = 0; i < row_.shapes.size(); ++i) {
                const auto& s = row_.shapes[i];
                std::string c = s.variadic ? fmt::format("{} or more", s.required)
                                : s.required == s.classes.size()
                                    ? fmt::format("{}", s.required)
                                    : fmt::format("{} to {}", s.required, s.classes.size());
                if (counts.find(c) != std::string::npos) continue;
                counts += (counts.empty() ? "" : " or ") + c;
            }
            add(ins_.pos, fmt::format("'{}' takes {} operand{}, found {}", name_, counts,
                                      counts == "1" ? "" : "s", ops.size()));
            return;
        }
        for (uint32_t i = 0; i < ops.size(); ++i) {
            operand_class c = i < count_match->classes.size() ? count_match->classes[i] : count_match->classes.back();
            if (!fits(c, ops[i])) {
                add(ops[i].pos, fmt::format("operand {} of '{}' must be {}", i + 1, name_, class_text(c)));
                return;
            }
        }
    }

    const module_facts& f_;
    const instruction& ins_;
    const op_info& row_;
    std::span<const std::string_view> words_;
    std::span<const pos_t> word_pos_;
    std::string_view name_;
    std::vector<problem> problems_;
    uint32_t testp_classes_ = 0;
    uint32_t field_words_ = 0;
};

} // namespace

namespace {
// One character per operand node: a register's declared type, or the
// node's kind (a vector's elements follow it, so its length is in the key).
// A name that is no register (a variable, special register, label) and an
// integer constant also put their symbol or value: rules such as a
// barrier number's range or a special register's place depend on them.
void put_nodes(std::string& key, const operand& op, std::span<const data_type> types, std::span<const uint8_t> flags,
               size_t& node) {
    data_type t = node < types.size() ? types[node] : data_type::none;
    uint8_t f = node < flags.size() ? flags[node] : 0;
    ++node;
    if (t != data_type::none)
        key.push_back(static_cast<char>(0x80 | static_cast<int>(t)));
    else
        key.push_back(static_cast<char>(static_cast<int>(op.kind) | (op.flags & op_negated) << 4));
    key.push_back(static_cast<char>(f));
    if ((t == data_type::none && op.kind == operand_kind::name) || op.kind == operand_kind::integer) {
        uint64_t v = op.kind == operand_kind::integer ? static_cast<uint64_t>(op.value) : op.name;
        key.append(reinterpret_cast<const char*>(&v), sizeof v);
    }
    for (const auto& e : op.elems) put_nodes(key, e, types, flags, node);
}
} // namespace

bool instruction_cache::contains(const instruction& ins, std::span<const data_type> types,
                                 std::span<const uint8_t> flags) {
    key_.clear();
    auto put = [this](uint32_t v) { key_.append(reinterpret_cast<const char*>(&v), sizeof v); };
    put(ins.opcode);
    for (symbol s : ins.modifiers) put(s);
    put(0xFFFFFFFFu);
    size_t node = 0;
    for (const auto& op : ins.operands) {
        key_.push_back(static_cast<char>(op.flags & op_negated)); // a top-level negation is part of the shape
        put_nodes(key_, op, types, flags, node);
    }
    return clean_.count(key_) != 0;
}

namespace {
// Modifiers ptxas 13 takes twice (match.sync.sync, bra.uni.uni,
// add.sat.sat, cvt.rn.relu.relu ...) as if written once; it refuses a
// repeated .ftz, .noftz, .aligned, .nc, .mmio, .volatile, .abs, .xorsign,
// .wait and any repeated member of a group (a type, space, rounding, scope,
// order, comparison): "Duplicate .ftz modifier", "Multiple ... specified".
bool repeat_ignored(std::string_view w) {
    for (std::string_view x : {"sync", "uni", "approx", "cc", "sat", "satfinite", "relu", "NaN", "shiftamt"})
        if (w == x) return true;
    return false;
}

// sqrt.approx.finite.f32: ptxas takes the testp class and ignores it; say so.
bool warn_ignored_testp(const module& m, const instruction& ins, std::span<const std::string_view> words,
                        std::span<const pos_t> word_pos, std::string_view key, diagnostics& d) {
    (void)ins;
    bool warned = false;
    for (size_t i = 1; i < words.size(); ++i)
        if (ignored_word k = ignored_kind(words[i], key); k != ignored_word::none) {
            d.report(severity::warning, *m.source, word_pos[i],
                     fmt::format("'.{}' means nothing on '{}' (a {}); ptxas ignores it", words[i], key,
                                 k == ignored_word::testp_class ? "testp class" : "tensor-map field"));
            warned = true;
        }
    return warned;
}
} // namespace

bool check_instruction(const module& m, const module_facts& facts, const instruction& ins,
                       std::span<const data_type> types, std::span<const uint8_t> flags, diagnostics& d,
                       instruction_cache& cache) {
    if (cache.contains(ins, types, flags)) return true;
    std::array<std::string_view, 40> words;
    std::array<pos_t, 40> word_pos;
    size_t n = 0;
    // Positions: the dotted text ends at opcode_end; walk back over the words.
    size_t text_len = m.str(ins.opcode).size();
    for (symbol s : ins.modifiers) text_len += 1 + m.str(s).size();
    pos_t p = ins.opcode_end - static_cast<pos_t>(text_len);
    words[n] = m.str(ins.opcode);
    word_pos[n++] = p;
    p += static_cast<pos_t>(words[0].size());
    bool repeat_dropped = false;
    for (symbol s : ins.modifiers) {
        if (n == words.size()) break;
        std::string_view w = m.str(s);
        pos_t at = p + 1; // at the modifier's dot
        p += 1 + static_cast<pos_t>(w.size());
        if (repeat_ignored(w) && std::find(words.begin() + 1, words.begin() + n, w) != words.begin() + n) {
            d.report(severity::warning, *m.source, at - 1,
                     fmt::format("'.{}' is repeated; ptxas ignores the repeat", w));
            repeat_dropped = true;
            continue; // judged as if written once
        }
        words[n] = w;
        word_pos[n++] = at;
    }
    for (size_t i = 1; i < n; ++i) --word_pos[i]; // point at the '.'
    if (size_t i = misplaced_sync_word(std::span<const std::string_view>(words.data(), n))) {
        std::rotate(words.begin() + 1, words.begin() + long(i), words.begin() + long(i) + 1);
        std::rotate(word_pos.begin() + 1, word_pos.begin() + long(i), word_pos.begin() + long(i) + 1);
    }
    std::span<const std::string_view> ws(words.data(), n);

    auto cands = op_table::get().candidates(words[0]);
    size_t best_len = 0;
    for (const op_info* row : cands) {
        const auto& kw = row->key_words;
        if (kw.size() > n) continue;
        bool prefix = true;
        for (size_t i = 1; i < kw.size() && prefix; ++i) prefix = kw[i] == words[i];
        if (prefix) {
            best_len = kw.size();
            break; // candidates are sorted longest first
        }
    }
    if (best_len == 0) {
        std::string dotted(words[0]);
        if (cands.empty()) {
            d.error(*m.source, word_pos[0], fmt::format("unknown instruction '{}'", dotted));
        } else {
            for (size_t i = 1; i < n && i < 3; ++i) dotted += fmt::format(".{}", words[i]);
            d.error(*m.source, word_pos[0], fmt::format("unknown instruction '{}'", dotted));
        }
        return false;
    }
    std::string key;
    for (size_t i = 0; i < best_len; ++i) key += (i ? "." : "") + std::string(words[i]);

    std::vector<problem> best;
    const op_info* best_row = nullptr;
    for (const op_info* row : cands) {
        if (row->key_words.size() != best_len || row->key != key) continue;
        auto probs = row_checker(facts, ins, *row, ws, std::span<const pos_t>(word_pos.data(), n), key).run();
        if (probs.empty()) { // fits the row: now types and combinations the row cannot say
            instruction_view view{m, facts, ins, *row, ws, std::span<const pos_t>(word_pos.data(), n), types, flags};
            check_combinations(view, probs);
            check_operand_types(view, probs);
            if (probs.empty()) check_operand_rules(view, probs);
            if (probs.empty()) check_modifier_types(view, probs);
            if (probs.empty()) check_async_operands(view, probs);
            if (probs.empty()) check_multimem(view, probs);
            if (probs.empty()) check_texture(view, probs);
            if (probs.empty()) {
                if ((!warn_ignored_testp(m, ins, ws, std::span<const pos_t>(word_pos.data(), n), key, d)) &&
                    !repeat_dropped)
                    cache.add(); // a shape that draws a warning is not cached, so every instance gets it
                return true;
            }
            for (auto& pr : probs) d.error(*m.source, pr.pos, std::move(pr.message));
            return false;
        }
        if (!best_row || probs.size() < best.size()) {
            best = std::move(probs);
            best_row = row;
        }
    }
    for (auto& pr : best) d.error(*m.source, pr.pos, std::move(pr.message));
    return false;
}

} // namespace ptxsim::isa::detail
