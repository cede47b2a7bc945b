// Every row of the instruction table is used by some instruction of the
// corpus, so each row has been checked against ptxas at least once (the
// corpus is accepted by ptxas, and linting it gives no diagnostics).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>

#include "isa/op_table.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

using namespace parser;

void collect(const module& m, list<statement> body, std::set<std::string>& keys) {
    for (const auto& st : body) {
        if (auto b = std::get_if<const block_stmt*>(&st.node)) collect(m, (*b)->body, keys);
        auto ins = std::get_if<instruction>(&st.node);
        if (!ins) continue;
        std::vector<std::string_view> words{m.str(ins->opcode)};
        for (symbol s : ins->modifiers) words.push_back(m.str(s));
        for (const isa::op_info* row : isa::op_table::get().candidates(words[0])) {
            bool prefix = row->key_words.size() <= words.size();
            for (size_t i = 1; prefix && i < row->key_words.size(); ++i) prefix = row->key_words[i] == words[i];
            if (prefix) {
                keys.insert(row->key);
                break;
            }
        }
    }
}

TEST(op_table, every_row_is_exercised_by_the_corpus) {
    std::set<std::string> seen;
    for (const auto& file : ptx_files("kernels")) {
        auto p = parse_text(read_file(file));
        for (const auto& item : p.m.items)
            if (auto f = std::get_if<const function*>(&item.node)) collect(p.m, (*f)->body, seen);
    }
    std::vector<std::string> missing;
    for (const auto& row : isa::op_table::get().rows())
        if (!seen.count(row.key)) missing.push_back(row.key);
    EXPECT_TRUE(missing.empty()) << "table rows no corpus file uses: " << fmt::format("{}", fmt::join(missing, ", "));
}

} // namespace
} // namespace ptxsim::test
