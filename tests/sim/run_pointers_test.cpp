// Launch files whose data holds device addresses: "pointers" relocations
// in file contents (buffers, symbols, arguments), {"symbol"} arguments and
// {"file"} values — the forms `ptxsim exec --record` writes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

namespace fs = std::filesystem;

fs::path folder() {
    fs::path d = fs::temp_directory_path() / ("ptxsim_run_pointers_" + std::to_string(::getpid()));
    fs::create_directories(d);
    std::ofstream(d / "zero32.bin", std::ios::binary) << std::string(32, '\0');
    std::ofstream(d / "zero8.bin", std::ios::binary) << std::string(8, '\0');
    return d;
}

// gather(lists{a, b, n}, chain, scale) of tests/exec/record/record_kernels.ptx:
// out[i] = scale * (a[i] + b[i]) + sum over the chain's links + d_bias.
std::string launch_file(const std::string& chain_pointers, const std::string& d_out, const std::string& first_launch = "") {
    const std::string ptx = source_dir() + "/tests/exec/record/record_kernels.ptx";
    return "{\"module\": \"" + ptx + "\",\n"
           " \"buffers\": {\"a\": {\"type\": \"f32\", \"count\": 4, \"init\": {\"iota\": {\"start\": 0, \"step\": 1}}},\n"
           "  \"b\": {\"type\": \"f32\", \"count\": 4, \"init\": {\"iota\": {\"start\": 10, \"step\": 1}}},\n"
           "  \"c\": {\"type\": \"f32\", \"count\": 4, \"init\": {\"fill\": 1}},\n"
           "  \"chain\": {\"type\": \"u8\", \"count\": 32, \"init\": {\"file\": \"zero32.bin\", \"pointers\": " + chain_pointers + "}},\n"
           "  \"out\": {\"type\": \"f32\", \"count\": 4}},\n"
           " \"symbols\": {\"d_out\": " + d_out + ", \"d_bias\": {\"f32\": 0.5}},\n"
           " \"launches\": [" + first_launch +
           "{\"kernel\": \"gather\", \"block\": 32, \"args\": [{\"struct\": [{\"buffer\": \"a\"}, {\"buffer\": \"b\"}, {\"s32\": 4}]},"
           " {\"buffer\": \"chain\"}, {\"f32\": 2}]}],\n";
}

const std::string two_links = "[{\"at\": 0, \"buffer\": \"c\"}, {\"at\": 8, \"buffer\": \"chain\", \"offset\": 16}, {\"at\": 16, \"buffer\": \"c\"}]";
const std::string d_out_is_out = "{\"file\": \"zero8.bin\", \"pointers\": [{\"at\": 0, \"buffer\": \"out\"}]}";

run_result run_file(const fs::path& dir, const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return run_ptxsim("run '" + (dir / name).string() + "'");
}

TEST(run_pointers, relocated_buffers_symbols_and_struct_fields_reach_the_kernel) {
    const fs::path d = folder();
    // 2 * (i + 10 + i) + 1 + 1 + 0.5
    auto r = run_file(d, "ok.json", launch_file(two_links, d_out_is_out) + " \"expect\": {\"out\": {\"values\": [22.5, 26.5, 30.5, 34.5]}}}");
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("out: all 4 elements match"), std::string::npos) << r.out;
    // A {"symbol"} argument: twice(&d_bias, 1) first makes the bias 1.
    auto s = run_file(d, "symbol.json",
                      launch_file(two_links, d_out_is_out, "{\"kernel\": \"twice\", \"block\": 1, \"args\": [{\"symbol\": \"d_bias\"}, {\"s32\": 1}]}, ") +
                          " \"expect\": {\"out\": {\"values\": [23, 27, 31, 35]}}}");
    EXPECT_EQ(s.status, 0) << s.out << s.err;
    // One link only: the chain ends at 8 (its next pointer stays 0).
    auto one = run_file(d, "one.json", launch_file("[{\"at\": 0, \"buffer\": \"c\"}]", d_out_is_out) +
                                           " \"expect\": {\"out\": {\"values\": [21.5, 25.5, 29.5, 33.5]}}}");
    EXPECT_EQ(one.status, 0) << one.out << one.err;
    fs::remove_all(d);
}

// Buffers at fixed addresses: raw pointers in data stay valid as they are
// (what `ptxsim exec --record` relies on).
TEST(run_pointers, buffers_at_given_addresses_keep_raw_pointers_valid) {
    const fs::path d = folder();
    const uint64_t c = 0x6000'0000'0000, chain = 0x6000'0010'0000, out = 0x6000'0020'0000;
    const uint64_t links[4] = {c, chain + 16, c, 0};
    std::ofstream(d / "links.bin", std::ios::binary).write(reinterpret_cast<const char*>(links), sizeof links);
    std::ofstream(d / "d_out.bin", std::ios::binary).write(reinterpret_cast<const char*>(&out), 8);
    const std::string ptx = source_dir() + "/tests/exec/record/record_kernels.ptx";
    auto file = [&](const std::string& chain_address) {
        return "{\"module\": \"" + ptx + "\",\n"
               " \"buffers\": {\"a\": {\"type\": \"f32\", \"count\": 4, \"init\": {\"iota\": {\"start\": 0, \"step\": 1}}},\n"
               "  \"b\": {\"type\": \"f32\", \"count\": 4, \"init\": {\"iota\": {\"start\": 10, \"step\": 1}}},\n"
               "  \"out\": {\"type\": \"f32\", \"count\": 4, \"address\": \"0x600000200000\"},\n"
               "  \"c\": {\"type\": \"f32\", \"count\": 4, \"address\": 105553116266496, \"init\": {\"fill\": 1}},\n"
               "  \"chain\": {\"type\": \"u8\", \"count\": 32, \"address\": \"" + chain_address + "\", \"init\": {\"file\": \"links.bin\"}}},\n"
               " \"symbols\": {\"d_out\": {\"file\": \"d_out.bin\"}, \"d_bias\": {\"f32\": 0.5}},\n"
               " \"launches\": [{\"kernel\": \"gather\", \"block\": 32, \"args\": [{\"struct\": [{\"buffer\": \"a\"}, {\"buffer\": \"b\"}, {\"s32\": 4}]},"
               " {\"buffer\": \"chain\"}, {\"f32\": 2}]}],\n"
               " \"expect\": {\"out\": {\"values\": [22.5, 26.5, 30.5, 34.5]}}}";
    };
    auto r = run_file(d, "fixed.json", file("0x600000100000"));
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("out: all 4 elements match"), std::string::npos) << r.out;

    auto overlap = run_file(d, "overlap.json", file("0x600000000100"));
    EXPECT_EQ(overlap.status, 2);
    EXPECT_NE(overlap.err.find("buffer 'chain' cannot be placed at 0x600000000100"), std::string::npos) << overlap.err;
    auto bad = run_file(d, "bad.json", file("0x6000000000x"));
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("\"address\" is a non-zero device address"), std::string::npos) << bad.err;
    fs::remove_all(d);
}

TEST(run_pointers, mistakes_are_bad_input_with_their_place) {
    const fs::path d = folder();
    const std::string end = " \"expect\": {\"out\": {\"values\": [0, 0, 0, 0]}}}";
    auto unknown = run_file(d, "unknown.json", launch_file("[{\"at\": 0, \"buffer\": \"nope\"}]", d_out_is_out) + end);
    EXPECT_EQ(unknown.status, 2);
    EXPECT_NE(unknown.err.find("buffers.chain.init.pointers[0]: unknown buffer 'nope'"), std::string::npos) << unknown.err;

    auto past = run_file(d, "past.json", launch_file("[{\"at\": 30, \"buffer\": \"c\"}]", d_out_is_out) + end);
    EXPECT_EQ(past.status, 2);
    EXPECT_NE(past.err.find("\"at\" 30 is past the end of the 32 bytes"), std::string::npos) << past.err;

    auto no_var = run_file(d, "no_var.json",
                           launch_file(two_links, "{\"file\": \"zero8.bin\", \"pointers\": [{\"at\": 0, \"symbol\": \"d_nothing\"}]}") + end);
    EXPECT_EQ(no_var.status, 2);
    EXPECT_NE(no_var.err.find("no module variable in global or constant memory 'd_nothing'"), std::string::npos) << no_var.err;

    auto both = run_file(d, "both.json", launch_file("[{\"at\": 0, \"buffer\": \"c\", \"symbol\": \"d_out\"}]", d_out_is_out) + end);
    EXPECT_EQ(both.status, 2);
    EXPECT_NE(both.err.find("a pointer is {\"at\": byte offset, \"buffer\" or \"symbol\": name"), std::string::npos) << both.err;

    auto missing = run_file(d, "missing.json", launch_file(two_links, "{\"file\": \"absent.bin\"}") + end);
    EXPECT_EQ(missing.status, 2);
    EXPECT_NE(missing.err.find("symbols.d_out: cannot open"), std::string::npos) << missing.err;

    auto not_list = run_file(d, "not_list.json", launch_file("{\"at\": 0}", d_out_is_out) + end);
    EXPECT_EQ(not_list.status, 2);
    EXPECT_NE(not_list.err.find("\"pointers\" is a list of"), std::string::npos) << not_list.err;
    fs::remove_all(d);
}

} // namespace
} // namespace ptxsim::test
