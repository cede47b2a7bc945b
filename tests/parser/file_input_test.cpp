// parse_file reads a regular file in one go and falls back to streaming for
// inputs that have no size (pipes); the arena hands out memory in huge-page
// blocks. Both are speed changes, so these tests pin down that nothing is
// lost on the way.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include "parser/arena.hpp"
#include "parser/parser.hpp"

namespace ptxsim::test {
namespace {

const std::string kernel_text =
    ".version 9.0\n.target sm_90a\n.address_size 64\n"
    ".visible .entry k(.param .u64 p)\n{\n.reg .b32 %r<3>;\nadd.s32 %r1, %r2, 7;\nret;\n}\n";

std::string temp_path(const char* tag) {
    return std::string(::testing::TempDir()) + "ptxsim_file_input_" + tag + "_" + std::to_string(getpid());
}

TEST(file_input, regular_file_is_read_whole) {
    std::string path = temp_path("regular");
    std::ofstream(path, std::ios::binary) << kernel_text;
    parser::diagnostics d;
    auto m = parser::parse_file(path, d);
    std::remove(path.c_str());
    EXPECT_FALSE(d.has_errors());
    EXPECT_EQ(m.source->text(), kernel_text);
}

TEST(file_input, pipe_is_streamed) {
    std::string path = temp_path("fifo");
    ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
    std::thread writer([&] { std::ofstream(path, std::ios::binary) << kernel_text; });
    parser::diagnostics d;
    auto m = parser::parse_file(path, d);
    writer.join();
    std::remove(path.c_str());
    EXPECT_FALSE(d.has_errors());
    EXPECT_EQ(m.source->text(), kernel_text);
}

TEST(file_input, empty_file_is_not_a_read_error) {
    std::string path = temp_path("empty");
    std::ofstream(path, std::ios::binary).flush();
    parser::diagnostics d;
    auto m = parser::parse_file(path, d);
    std::remove(path.c_str());
    for (const auto& msg : d.all()) EXPECT_EQ(msg.message.find("cannot open"), std::string::npos);
    EXPECT_TRUE(m.source->text().empty());
}

TEST(arena, large_and_many_allocations_stay_distinct_and_aligned) {
    parser::arena a;
    // More than one 2 MiB block, plus a single allocation larger than a block.
    std::vector<uint64_t*> small;
    for (int i = 0; i < 300000; ++i) {
        auto* p = static_cast<uint64_t*>(a.allocate(sizeof(uint64_t) * 2, alignof(uint64_t)));
        ASSERT_EQ(reinterpret_cast<uintptr_t>(p) % alignof(uint64_t), 0u);
        p[0] = uint64_t(i);
        p[1] = ~uint64_t(i);
        small.push_back(p);
    }
    auto* big = static_cast<unsigned char*>(a.allocate(5u << 20, 64));
    ASSERT_EQ(reinterpret_cast<uintptr_t>(big) % 64, 0u);
    for (size_t i = 0; i < (5u << 20); ++i) big[i] = static_cast<unsigned char>(i * 7);
    for (int i = 0; i < 300000; ++i) {
        ASSERT_EQ(small[i][0], uint64_t(i));
        ASSERT_EQ(small[i][1], ~uint64_t(i));
    }
    EXPECT_EQ(big[(5u << 20) - 1], static_cast<unsigned char>(((5u << 20) - 1) * 7));
    EXPECT_EQ(a.bytes_used(), 300000u * 16 + (5u << 20));
}

} // namespace
} // namespace ptxsim::test
