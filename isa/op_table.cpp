#include "isa/op_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace ptxsim::isa {
namespace {

struct raw_row {
    const char* key;
    uint32_t min_ptx;
    const char* target;
    const char* timing;
    const char* operands;
    const char* modifiers;
};

constexpr raw_row raw_rows[] = {
#define PTX_OP(KEY, MIN_PTX, TARGET, TIMING, OPERANDS, MODIFIERS) {KEY, MIN_PTX, TARGET, TIMING, OPERANDS, MODIFIERS},
#include "isa/ptx_ops.def"
#undef PTX_OP
};

[[noreturn]] void bad_row(const raw_row& r, const std::string& why) {
    std::fprintf(stderr, "ptxsim: internal error: isa/ptx_ops.def row \"%s\": %s\n", r.key, why.c_str());
    std::abort();
}

std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> out;
    size_t b = 0;
    while (true) {
        size_t e = s.find(sep, b);
        out.push_back(s.substr(b, e == std::string_view::npos ? e : e - b));
        if (e == std::string_view::npos) break;
        b = e + 1;
    }
    return out;
}

uint32_t to_uint(const raw_row& r, std::string_view s) {
    uint32_t v = 0;
    if (s.empty()) bad_row(r, "empty number");
    for (char c : s) {
        if (c < '0' || c > '9') bad_row(r, fmt::format("bad number '{}'", s));
        v = v * 10 + static_cast<uint32_t>(c - '0');
    }
    return v;
}

timing_class parse_timing(const raw_row& r) {
    static const std::map<std::string_view, timing_class> names{
        {"alu", timing_class::alu},   {"fma", timing_class::fma},   {"sfu", timing_class::sfu},
        {"conv", timing_class::conv}, {"mem", timing_class::mem},   {"atom", timing_class::atom},
        {"ctrl", timing_class::ctrl}, {"sync", timing_class::sync}, {"warp", timing_class::warp},
        {"tensor", timing_class::tensor}, {"async", timing_class::async}, {"misc", timing_class::misc}};
    auto it = names.find(r.timing);
    if (it == names.end()) bad_row(r, fmt::format("unknown timing class '{}'", r.timing));
    return it->second;
}

std::vector<operand_shape> parse_shapes(const raw_row& r) {
    std::vector<operand_shape> shapes;
    std::string_view all = r.operands;
    for (auto alt : split(all, '|')) {
        operand_shape shape;
        if (alt.empty()) { // no operands
            shapes.push_back(shape);
            continue;
        }
        bool optional_seen = false;
        auto parts = split(alt, ',');
        for (size_t i = 0; i < parts.size(); ++i) {
            std::string_view p = parts[i];
            bool variadic = p.size() > 3 && p.substr(p.size() - 3) == "...";
            if (variadic) {
                if (i + 1 != parts.size()) bad_row(r, "'...' only on the last operand");
                p.remove_suffix(3);
                shape.variadic = true;
            }
            bool optional = !p.empty() && p.back() == '?';
            if (optional) p.remove_suffix(1);
            if (p.size() != 1 || std::string_view("dsmli(*").find(p[0]) == std::string_view::npos)
                bad_row(r, fmt::format("unknown operand class '{}'", parts[i]));
            if (optional) optional_seen = true;
            else if (optional_seen && !variadic) bad_row(r, "a required operand after an optional one");
            shape.classes.push_back(static_cast<operand_class>(p[0]));
            if (!optional && !variadic) shape.required = static_cast<uint32_t>(shape.classes.size());
        }
        shapes.push_back(shape);
    }
    return shapes;
}

// "bf16@78/sm_90" -> text, min_ptx, target
modifier_spec parse_modifier(const raw_row& r, std::string_view s) {
    modifier_spec m;
    size_t at = s.find('@');
    m.text = std::string(s.substr(0, at));
    if (m.text.empty()) bad_row(r, "empty modifier");
    if (at != std::string_view::npos) {
        std::string_view req = s.substr(at + 1);
        size_t slash = req.find('/');
        m.min_ptx = to_uint(r, req.substr(0, slash));
        if (slash != std::string_view::npos) m.target = target_req::parse(req.substr(slash + 1));
    }
    return m;
}

void parse_modifiers(const raw_row& r, op_info& info) {
    std::string_view all = r.modifiers;
    for (auto tok : split(all, ' ')) {
        if (tok.empty()) continue;
        size_t arrow = tok.find("=>");
        if (arrow != std::string_view::npos) {
            rule_spec rule;
            rule.when = std::string(tok.substr(0, arrow));
            for (auto n : split(tok.substr(arrow + 2), ',')) rule.needs.emplace_back(n);
            info.rules.push_back(rule);
            continue;
        }
        size_t colon = tok.find(':');
        // "::" belongs to modifiers; the group separator is the first single ':'
        while (colon != std::string_view::npos && colon + 1 < tok.size() && tok[colon + 1] == ':')
            colon = tok.find(':', colon + 2);
        if (colon == std::string_view::npos) bad_row(r, fmt::format("group '{}' has no ':'", tok));
        std::string_view head = tok.substr(0, colon);
        group_spec g;
        size_t name_end = head.find_first_of("!*+{");
        g.name = std::string(head.substr(0, name_end));
        std::string_view count = name_end == std::string_view::npos ? "" : head.substr(name_end);
        if (count.empty()) g.min = 0, g.max = 1;
        else if (count == "!") g.min = 1, g.max = 1;
        else if (count == "*") g.min = 0, g.max = 64;
        else if (count == "+") g.min = 1, g.max = 64;
        else if (count.front() == '{' && count.back() == '}') {
            std::string_view inner = count.substr(1, count.size() - 2);
            size_t dash = inner.find('-');
            if (dash == std::string_view::npos) g.min = g.max = to_uint(r, inner);
            else g.min = to_uint(r, inner.substr(0, dash)), g.max = to_uint(r, inner.substr(dash + 1));
        } else {
            bad_row(r, fmt::format("bad group count '{}'", count));
        }
        for (auto m : split(tok.substr(colon + 1), ',')) g.mods.push_back(parse_modifier(r, m));
        info.groups.push_back(std::move(g));
    }
}

} // namespace

bool parse_target_name(std::string_view target, uint32_t& number, std::string& suffix) {
    std::string_view digits;
    if (target.substr(0, 3) == "sm_") digits = target.substr(3);
    else if (target.substr(0, 8) == "compute_") digits = target.substr(8);
    else return false;
    size_t n = 0;
    number = 0;
    while (n < digits.size() && digits[n] >= '0' && digits[n] <= '9') number = number * 10 + (digits[n++] - '0');
    if (n == 0) return false;
    suffix = std::string(digits.substr(n));
    return suffix.empty() || suffix == "a" || suffix == "f";
}

target_req target_req::parse(std::string_view s) {
    target_req t;
    t.text = std::string(s);
    if (s.empty()) return t;
    auto parts = split(s, ',');
    uint32_t n;
    std::string suffix;
    if (parts.size() == 1 && parse_target_name(parts[0], n, suffix) && suffix.empty()) {
        t.min_sm = n;
        return t;
    }
    for (auto p : parts) t.exact.emplace_back(p);
    return t;
}

bool target_req::satisfied_by(std::string_view target) const {
    uint32_t n;
    std::string suffix;
    if (!parse_target_name(target, n, suffix)) return true; // unknown targets are reported elsewhere
    if (exact.empty()) return n >= min_sm;
    for (const auto& e : exact) {
        uint32_t en;
        std::string es;
        if (!parse_target_name(e, en, es)) continue;
        if (es == "a" && n == en && suffix == "a") return true;
        // A family feature (sm_100f) is on later members of the family, with 'a' or 'f'.
        if (es == "f" && n / 10 == en / 10 && n >= en && !suffix.empty()) return true;
        if (es.empty() && n >= en) return true;
    }
    return false;
}

bool modifier_spec::matches(std::string_view m) const {
    size_t i = 0, j = 0;
    while (i < text.size() && j < m.size()) {
        if (text[i] == '#') {
            if (m[j] < '0' || m[j] > '9') return false;
            while (j < m.size() && m[j] >= '0' && m[j] <= '9') ++j;
            ++i;
        } else if (text[i++] != m[j++]) {
            return false;
        }
    }
    return i == text.size() && j == m.size();
}

op_table::op_table() {
    rows_.reserve(std::size(raw_rows));
    for (const auto& r : raw_rows) {
        op_info info;
        info.id = static_cast<uint16_t>(rows_.size());
        info.key = r.key;
        for (auto w : split(r.key, '.')) info.key_words.emplace_back(w);
        info.min_ptx = r.min_ptx;
        info.target = target_req::parse(r.target);
        info.timing = parse_timing(r);
        info.shapes = parse_shapes(r);
        parse_modifiers(r, info);
        rows_.push_back(std::move(info));
    }
    std::map<std::string, std::vector<const op_info*>> index;
    for (const auto& row : rows_) index[row.key_words[0]].push_back(&row);
    for (auto& [word, list] : index) {
        std::stable_sort(list.begin(), list.end(),
                         [](const op_info* a, const op_info* b) { return a->key_words.size() > b->key_words.size(); });
        by_first_word_.emplace_back(word, std::move(list));
    }
}

const op_table& op_table::get() {
    static const op_table table;
    return table;
}

size_t misplaced_sync_word(std::span<const std::string_view> words) {
    if (words.size() < 3 || words[1] == "sync") return 0;
    bool sync_row = false;
    for (const op_info* row : op_table::get().candidates(words[0]))
        sync_row |= row->key_words.size() == 2 && row->key_words[1] == "sync";
    if (!sync_row) return 0;
    for (size_t i = 2; i < words.size(); ++i)
        if (words[i] == "sync") return i;
    return 0;
}

std::span<const op_info* const> op_table::candidates(std::string_view first_word) const {
    auto it = std::lower_bound(by_first_word_.begin(), by_first_word_.end(), first_word,
                               [](const auto& e, std::string_view w) { return e.first < w; });
    if (it == by_first_word_.end() || it->first != first_word) return {};
    return it->second;
}

std::string_view to_string(timing_class t) {
    static constexpr std::string_view names[] = {"alu", "fma", "sfu", "conv", "mem", "atom",
                                                 "ctrl", "sync", "warp", "tensor", "async", "misc"};
    return names[static_cast<size_t>(t)];
}

} // namespace ptxsim::isa
