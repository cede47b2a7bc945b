#include "isa/match.hpp"

#include <algorithm>

#include "isa/ignored_words.hpp"
#include "isa/legacy_ptx.hpp"

namespace ptxsim::isa {

bool matched_instruction::has(std::string_view group) const {
    for (const auto& m : mods)
        if (m.group == group) return true;
    return false;
}

bool matched_instruction::has_mod(std::string_view text) const {
    for (const auto& m : mods)
        if (m.text == text) return true;
    return false;
}

std::string_view matched_instruction::get(std::string_view group, size_t n) const {
    for (const auto& m : mods)
        if (m.group == group && n-- == 0) return m.text;
    return {};
}

std::optional<matched_instruction> match(const parser::module& m, const parser::instruction& ins) {
    std::vector<std::string_view> words{m.str(ins.opcode)};
    for (auto s : ins.modifiers) words.push_back(m.str(s));
    if (size_t i = misplaced_sync_word(words)) std::rotate(words.begin() + 1, words.begin() + long(i), words.begin() + long(i) + 1);
    auto cands = op_table::get().candidates(words[0]);
    size_t key_len = 0;
    for (const op_info* row : cands) {
        bool prefix = row->key_words.size() <= words.size();
        for (size_t i = 1; prefix && i < row->key_words.size(); ++i) prefix = row->key_words[i] == words[i];
        if (prefix) {
            key_len = row->key_words.size();
            break;
        }
    }
    if (key_len == 0) return std::nullopt;
    for (const op_info* row : cands) {
        if (row->key_words.size() != key_len) continue;
        bool same_key = true;
        for (size_t i = 0; i < key_len && same_key; ++i) same_key = row->key_words[i] == words[i];
        if (!same_key) continue;
        matched_instruction out{row, {}, &ins};
        std::vector<uint32_t> counts(row->groups.size(), 0);
        bool ok = true;
        for (size_t i = key_len; i < words.size() && ok; ++i) {
            if (ignored_kind(words[i], row->key) != ignored_word::none) continue; // ptxas ignores it: so do we
            ok = false;
            for (size_t g = 0; g < row->groups.size() && !ok; ++g) {
                if (counts[g] >= row->groups[g].max) continue;
                for (const auto& mod : row->groups[g].mods)
                    if (mod.matches(words[i])) {
                        out.mods.push_back({row->groups[g].name, words[i]});
                        ++counts[g];
                        ok = true;
                        break;
                    }
            }
        }
        if (ok) {
            add_implied_modifiers(targets_sm1x(m), out);
            return out;
        }
    }
    return std::nullopt;
}

} // namespace ptxsim::isa
