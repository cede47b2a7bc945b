// ptxsim run: the bundled example, launch-file errors and exit statuses.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

std::string temp_file(const std::string& name, const std::string& text) {
    auto p = std::filesystem::temp_directory_path() / name;
    std::ofstream(p) << text;
    return p.string();
}

TEST(run, saxpy_example_matches_its_reference) {
    auto r = run_ptxsim("run --stats '" + source_dir() + "/kernels/saxpy/launch.json'");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("y: all 1000 elements match"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("thread-instructions/s"), std::string::npos);
}

TEST(run, mismatch_exits_1_and_prints_the_first_difference) {
    std::string ptx = source_dir() + "/kernels/saxpy/saxpy.sm_90a.ptx";
    std::string f = temp_file("ptxsim_run_mismatch.json",
                              "{\"module\": \"" + ptx + "\", \"buffers\": {\"x\": {\"type\": \"f32\", \"count\": 2, \"init\": {\"fill\": 1}},"
                              " \"y\": {\"type\": \"f32\", \"count\": 2}}, \"launches\": [{\"kernel\": \"saxpy\", \"block\": 32,"
                              " \"args\": [{\"s32\": 2}, {\"f32\": 3}, {\"buffer\": \"x\"}, {\"buffer\": \"y\"}]}],"
                              " \"expect\": {\"y\": {\"values\": [3, 4]}}}");
    auto r = run_ptxsim("run '" + f + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("mismatch: y[1] = 3 (0x40400000), expected 4 (0x40800000), 4194304 ulp apart"), std::string::npos) << r.err;
}

TEST(run, wrong_argument_count_is_bad_input) {
    std::string ptx = source_dir() + "/kernels/saxpy/saxpy.sm_90a.ptx";
    std::string f = temp_file("ptxsim_run_args.json", "{\"module\": \"" + ptx +
                                                          "\", \"launches\": [{\"kernel\": \"saxpy\", \"block\": 32, \"args\": [{\"s32\": 2}]}]}");
    auto r = run_ptxsim("run '" + f + "'");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("launches[0]: kernel 'saxpy' takes 4 arguments, the launch gives 1"), std::string::npos) << r.err;
}

TEST(run, json_errors_are_located) {
    std::string f = temp_file("ptxsim_run_syntax.json", "{\n  \"module\": \"a.ptx\",\n  \"launches\": [ }\n}\n");
    auto r = run_ptxsim("run '" + f + "'");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find(f + ":3:"), std::string::npos) << r.err;
}

TEST(run, unknown_keys_and_kernels_are_reported) {
    std::string ptx = source_dir() + "/kernels/saxpy/saxpy.sm_90a.ptx";
    std::string f = temp_file("ptxsim_run_key.json", "{\"module\": \"" + ptx + "\",\n \"lunches\": []}");
    auto r = run_ptxsim("run '" + f + "'");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find(":2:2: error: unknown key 'lunches'"), std::string::npos) << r.err;
    std::string g = temp_file("ptxsim_run_kernel.json", "{\"module\": \"" + ptx + "\", \"launches\": [{\"kernel\": \"nope\", \"block\": 1}]}");
    auto r2 = run_ptxsim("run '" + g + "'");
    EXPECT_EQ(r2.status, 2);
    EXPECT_NE(r2.err.find("no kernel named 'nope'; the modules have: saxpy"), std::string::npos) << r2.err;
}

TEST(run, a_failed_assert_stops_with_its_text_and_source_line) {
    auto r = run_ptxsim("run '" + source_dir() + "/tests/sim/data/assert_kernel.json'");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("ptxsim: assertion failed in kernel 'check_positive' at "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("assert_kernel.ptx:67 ("), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("assert_kernel.cu:5)"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("block (0,0,0) thread (5,0,0)"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("Assertion `v[i] > 0` failed."), std::string::npos) << r.err;
}

TEST(run, device_printf_reaches_standard_output) {
    auto r = run_ptxsim("run '" + source_dir() + "/kernels/device_calls/launch.json'");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("device_calls: 300 threads, fact(5) = 120, pi is about 3.14\n"), std::string::npos) << r.out;
}

TEST(run, registers_per_thread_is_checked_and_can_refuse_a_launch) {
    std::string ptx = source_dir() + "/kernels/saxpy/saxpy.sm_90a.ptx";
    auto launch = [&](const std::string& name, const std::string& regs) {
        return temp_file(name, "{\"module\": \"" + ptx + "\", \"buffers\": {\"x\": {\"type\": \"f32\", \"count\": 2}},"
                               " \"launches\": [{\"kernel\": \"saxpy\", \"block\": 1024, \"registers_per_thread\": " + regs + ","
                               " \"args\": [{\"s32\": 2}, {\"f32\": 3}, {\"buffer\": \"x\"}, {\"buffer\": \"x\"}]}]}");
    };
    auto bad = run_ptxsim("run '" + launch("ptxsim_run_regs_bad.json", "300") + "'");
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("\"registers_per_thread\" is a register count from 1 to 255"), std::string::npos) << bad.err;
    auto big = run_ptxsim("run '" + launch("ptxsim_run_regs_big.json", "96") + "'");
    EXPECT_EQ(big.status, 2);
    EXPECT_NE(big.err.find("too many resources requested for launch"), std::string::npos) << big.err;
    auto ok = run_ptxsim("run '" + launch("ptxsim_run_regs_ok.json", "64") + "'");
    EXPECT_EQ(ok.status, 0) << ok.err;
}

// grid.sync() needs the grid barrier a cooperative launch provides: without
// it cooperative_groups traps; a grid larger than the GPU holds is refused.
TEST(run, cooperative_launches_provide_the_grid_barrier) {
    std::string dir = source_dir() + "/kernels/grid_sync/";
    auto launch = [&](const std::string& name, const std::string& grid, const std::string& extra) {
        return temp_file(name, "{\"module\": \"" + dir + "grid_sync.sm_90a.ptx\", \"buffers\": {\"a\": {\"type\": \"u32\", \"count\": 3000},"
                               " \"s\": {\"type\": \"u32\", \"count\": 100000}}, \"launches\": [{\"kernel\": \"grid_sync\", \"grid\": " + grid +
                               ", \"block\": 128" + extra + ", \"args\": [{\"buffer\": \"a\"}, {\"buffer\": \"a\"}, {\"buffer\": \"s\"},"
                               " {\"buffer\": \"s\"}, {\"u32\": 3000}, {\"u32\": 2}]}]}");
    };
    auto plain = run_ptxsim("run '" + launch("ptxsim_run_coop_plain.json", "4", "") + "'");
    EXPECT_EQ(plain.status, 1);
    EXPECT_NE(plain.err.find("trap in kernel 'grid_sync'"), std::string::npos) << plain.err;
    EXPECT_NE(plain.err.find("cooperative_groups.h:"), std::string::npos) << plain.err;
    auto ok = run_ptxsim("run --threads 2 '" + launch("ptxsim_run_coop_ok.json", "4", ", \"cooperative\": true") + "'");
    EXPECT_EQ(ok.status, 0) << ok.err;
    auto big = run_ptxsim("run '" + launch("ptxsim_run_coop_big.json", "5000", ", \"cooperative\": true") + "'");
    EXPECT_EQ(big.status, 2);
    EXPECT_NE(big.err.find("cooperative launch too large: 5000 CTAs, but the modelled GPU holds at most 2112"), std::string::npos) << big.err;
    auto bad = run_ptxsim("run '" + launch("ptxsim_run_coop_bad.json", "4", ", \"cooperative\": 1") + "'");
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("\"cooperative\" is true or false"), std::string::npos) << bad.err;
}

// A {"tensormap"} argument is checked as cuTensorMapEncodeTiled checks its parameters.
TEST(run, tensormap_arguments_are_checked_like_the_driver_does) {
    std::string dir = source_dir() + "/kernels/tma_tiles/";
    auto launch = [&](const std::string& name, const std::string& map) {
        return temp_file(name, "{\"module\": \"" + dir + "tma_tiles.sm_90a.ptx\", \"buffers\": {\"a\": {\"type\": \"u32\", \"count\": 7200}},"
                               " \"launches\": [{\"kernel\": \"tma_tiles\", \"grid\": 1, \"block\": 32, \"args\": [{\"tensormap\": " + map +
                               "}, {\"tensormap\": {\"buffer\": \"a\", \"type\": \"u32\", \"dims\": [72, 100], \"box\": [32, 16]}},"
                               " {\"buffer\": \"a\"}, {\"buffer\": \"a\"}]}]}");
    };
    auto wide = run_ptxsim("run '" + launch("ptxsim_run_tmap_wide.json",
                                             "{\"buffer\": \"a\", \"type\": \"u32\", \"dims\": [72, 100], \"box\": [64, 16], \"swizzle\": \"128B\"}") + "'");
    EXPECT_EQ(wide.status, 2);
    EXPECT_NE(wide.err.find("launches[0].args[0]: the box's inner dimension is 256 bytes; the 128-byte swizzle allows at most 128"),
              std::string::npos) << wide.err;
    auto key = run_ptxsim("run '" + launch("ptxsim_run_tmap_key.json",
                                            "{\"buffer\": \"a\", \"type\": \"u32\", \"dims\": [72, 100], \"box\": [32, 16], \"swizle\": \"128B\"}") + "'");
    EXPECT_EQ(key.status, 2);
    EXPECT_NE(key.err.find("unknown key 'swizle'"), std::string::npos) << key.err;
    auto ok = run_ptxsim("run '" + launch("ptxsim_run_tmap_ok.json",
                                           "{\"buffer\": \"a\", \"type\": \"u32\", \"dims\": [72, 100], \"box\": [32, 16], \"swizzle\": \"128B\"}") + "'");
    EXPECT_EQ(ok.status, 0) << ok.err;
}

// {"struct"} arguments (C layout, a CUtensorMap at its 128-byte alignment),
// struct buffers holding tensor maps, and "symbols" written before the launch.
TEST(run, struct_arguments_struct_buffers_and_symbols_reach_the_kernel) {
    auto r = run_ptxsim("run '" + source_dir() + "/tests/sim/data/launch_values/launch.json'");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("dst: all 74 elements match"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("out: all 192 elements match"), std::string::npos) << r.out;
}

TEST(run, struct_and_symbol_mistakes_are_bad_input) {
    std::string ptx = source_dir() + "/tests/sim/data/launch_values/launch_values.sm_90a.ptx";
    auto launch = [&](const std::string& name, const std::string& extra, const std::string& args) {
        return temp_file(name, "{\"module\": \"" + ptx + "\", \"buffers\": {\"a\": {\"type\": \"u32\", \"count\": 256}}" + extra +
                                   ",\n \"launches\": [{\"kernel\": \"from_memory\", \"block\": 32, \"args\": " + args + "}]}");
    };
    const std::string ok_args = "[{\"buffer\": \"a\"}, {\"buffer\": \"a\"}]";
    auto unknown = run_ptxsim("run '" + launch("ptxsim_run_sym_unknown.json", ", \"symbols\": {\"c_nope\": {\"u32\": 1}}", ok_args) + "'");
    EXPECT_EQ(unknown.status, 2);
    EXPECT_NE(unknown.err.find("symbols.c_nope: no module variable 'c_nope' in global or constant memory"), std::string::npos) << unknown.err;
    auto big = run_ptxsim("run '" + launch("ptxsim_run_sym_big.json", ", \"symbols\": {\"g_bias\": {\"f64\": 1}}", ok_args) + "'");
    EXPECT_EQ(big.status, 2);
    EXPECT_NE(big.err.find("symbols.g_bias: the value is 8 bytes, 'g_bias' holds 4"), std::string::npos) << big.err;
    // A pointer after an int is padded to offset 8: 16 bytes, not the 8 the parameter holds.
    auto size = run_ptxsim("run '" + launch("ptxsim_run_struct_size.json", "", "[{\"struct\": [{\"u32\": 1}, {\"buffer\": \"a\"}]}, {\"buffer\": \"a\"}]") + "'");
    EXPECT_EQ(size.status, 2);
    EXPECT_NE(size.err.find("launches[0].args[0]: parameter 0 ('from_memory_param_0') of 'from_memory' is 8 bytes, the argument is 16"),
              std::string::npos) << size.err;
    auto align = run_ptxsim("run '" + launch("ptxsim_run_struct_align.json", "", "[{\"struct\": [{\"u32\": 1}], \"align\": 3}, {\"buffer\": \"a\"}]") + "'");
    EXPECT_EQ(align.status, 2);
    EXPECT_NE(align.err.find("\"align\" is a power of two up to 4096"), std::string::npos) << align.err;
    auto map = run_ptxsim("run '" + launch("ptxsim_run_struct_map.json", "",
                                           "[{\"struct\": [{\"tensormap\": {\"buffer\": \"a\", \"type\": \"u32\", \"dims\": [16, 16], \"box\": [300, 8]}}]},"
                                           " {\"buffer\": \"a\"}]") + "'");
    EXPECT_EQ(map.status, 2);
    EXPECT_NE(map.err.find("launches[0].args[0].struct[0]: "), std::string::npos) << map.err;
    auto buf = run_ptxsim("run '" + temp_file("ptxsim_run_struct_buffer.json",
                                              "{\"module\": \"" + ptx + "\", \"buffers\": {\"a\": {\"type\": \"u32\", \"count\": 256},"
                                              " \"m\": {\"type\": \"u8\", \"count\": 100, \"init\": {\"struct\": [{\"tensormap\": {\"buffer\": \"a\","
                                              " \"type\": \"u32\", \"dims\": [16, 16], \"box\": [8, 8]}}]}}},"
                                              " \"launches\": [{\"kernel\": \"from_memory\", \"block\": 32, \"args\": [{\"buffer\": \"m\"}, {\"buffer\": \"a\"}]}]}") + "'");
    EXPECT_EQ(buf.status, 2);
    EXPECT_NE(buf.err.find("buffer 'm': its struct is 128 bytes, the buffer 100"), std::string::npos) << buf.err;
}

// libcu++'s cuda::ptx wrappers (NVIDIA's own inline PTX) across a cluster of
// two: TMA, mbarrier, st.async, a bulk reduction landing at exit,
// tensormap.replace in shared memory, cluster special registers.
TEST(run, libcuxx_cuda_ptx_wrappers_run_and_match) {
    auto r = run_ptxsim("run --threads 2 '" + source_dir() + "/tests/sim/data/cuda_ptx_api/launch.json'");
    EXPECT_EQ(r.status, 0) << r.err << r.out;
    EXPECT_NE(r.out.find("out: all 320 elements match"), std::string::npos) << r.out;
}

// Call frames take their .local bytes from the per-thread stack, so deep
// recursion overflows stack_bytes (41 frames of 128 bytes against 1024).
TEST(run, deep_recursion_overflows_the_per_thread_stack) {
    auto r = run_ptxsim("run '" + source_dir() + "/tests/check/mc_stack_recursion/launch.json'");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("overflows the 1024-byte per-thread stack"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("recursion too deep?"), std::string::npos) << r.err;
}

TEST(run, param_variables_are_scoped_to_their_call_block) {
    auto r = run_ptxsim("run '" + source_dir() + "/tests/sim/data/scoped_params/launch.json'");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("o: all 2 elements match"), std::string::npos) << r.out;
}

TEST(run, expect_entries_reject_unknown_keys) {
    std::string ptx = source_dir() + "/kernels/saxpy/saxpy.sm_90a.ptx";
    std::string f = temp_file("ptxsim_run_expect_key.json",
                              "{\"module\": \"" + ptx + "\", \"buffers\": {\"y\": {\"type\": \"f32\", \"count\": 2}},"
                              " \"launches\": [],\n \"expect\": {\"y\": {\"values\": [0, 0], \"max_ulps\": 3}}}");
    auto r = run_ptxsim("run '" + f + "'");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find(":2:"), std::string::npos) << r.err; // at the expect entry's line
    EXPECT_NE(r.err.find("expect 'y': unknown key 'max_ulps' (expected file, values, max_ulp, max_abs, max_rel)"), std::string::npos) << r.err;
}

// saxpy with a = 3 over x = 1, y = 0 leaves y = {3, 3}; the expectation is
// off by {0.5, 0.25} (max_abs) or {0.3, 0.2} (max_rel against 3.3 and 2.8).
run_result saxpy_expecting(const std::string& name, const std::string& expect) {
    std::string ptx = source_dir() + "/kernels/saxpy/saxpy.sm_90a.ptx";
    std::string f = temp_file(name, "{\"module\": \"" + ptx + "\", \"buffers\": {\"x\": {\"type\": \"f32\", \"count\": 2, \"init\": {\"fill\": 1}},"
                                    " \"y\": {\"type\": \"f32\", \"count\": 2}, \"n\": {\"type\": \"u32\", \"count\": 1}},"
                                    " \"launches\": [{\"kernel\": \"saxpy\", \"block\": 32,"
                                    " \"args\": [{\"s32\": 2}, {\"f32\": 3}, {\"buffer\": \"x\"}, {\"buffer\": \"y\"}]}],\n"
                                    " \"expect\": {" + expect + "}}");
    return run_ptxsim("run '" + f + "'");
}

TEST(run, max_abs_and_max_rel_accept_elements_within_either_bound) {
    auto r = saxpy_expecting("ptxsim_run_abs_ok.json", "\"y\": {\"values\": [3.5, 2.75], \"max_abs\": 0.5}");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("y: all 2 elements match"), std::string::npos) << r.out;
    r = saxpy_expecting("ptxsim_run_rel_ok.json", "\"y\": {\"values\": [3.3, 2.8], \"max_rel\": 0.1}");
    EXPECT_EQ(r.status, 0) << r.err;
    r = saxpy_expecting("ptxsim_run_both_ok.json", "\"y\": {\"values\": [3.3, 2.75], \"max_abs\": 0.25, \"max_rel\": 0.1}");
    EXPECT_EQ(r.status, 0) << r.err;
}

TEST(run, max_abs_and_max_rel_report_the_difference_they_miss) {
    auto r = saxpy_expecting("ptxsim_run_abs_bad.json", "\"y\": {\"values\": [3.5, 2.75], \"max_abs\": 0.4}");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("mismatch: y[0] = 3 (0x40400000), expected 3.5 (0x40600000), 2097152 ulp apart (max_ulp 0), "
                         "|difference| 0.5 (max_abs 0.4, max_rel 0)"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("1 of 2 elements of 'y' differ"), std::string::npos) << r.err;
    r = saxpy_expecting("ptxsim_run_rel_bad.json", "\"y\": {\"values\": [3.3, 2.8], \"max_rel\": 0.09}");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("mismatch: y[0] = 3 (0x40400000), expected 3.299999952316284 (0x40533333)"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("|difference| 0.3 (max_abs 0, max_rel 0.09)"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("1 of 2 elements of 'y' differ"), std::string::npos) << r.err;
}

TEST(run, max_abs_and_max_rel_need_float_buffers_and_non_negative_numbers) {
    auto r = saxpy_expecting("ptxsim_run_abs_int.json", "\"n\": {\"values\": [0], \"max_abs\": 1}");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("expect 'n': \"max_abs\" applies to float buffers; 'n' is u32"), std::string::npos) << r.err;
    r = saxpy_expecting("ptxsim_run_rel_neg.json", "\"y\": {\"values\": [3, 3], \"max_rel\": -0.5}");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("expect 'y': \"max_rel\" is a non-negative number"), std::string::npos) << r.err;
    r = saxpy_expecting("ptxsim_run_abs_str.json", "\"y\": {\"values\": [3, 3], \"max_abs\": \"1e-3\"}");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("expect 'y': \"max_abs\" is a non-negative number"), std::string::npos) << r.err;
}

// The device heap is a context limit, as CUDA's cudaLimitMallocHeapSize:
// a size set by one launch stays for the next, and cannot change once a
// kernel that calls malloc or free has run.
std::string heap_launch_file(const std::string& name, const std::string& launches) {
    std::string dir = source_dir() + "/kernels/device_malloc/";
    return temp_file(name, "{\"module\": \"" + dir + "device_malloc.sm_90a.ptx\", \"buffers\": {"
                           "\"out\": {\"type\": \"u32\", \"count\": 576}, \"too_big\": {\"type\": \"u32\", \"count\": 6},"
                           " \"ptrs\": {\"type\": \"u64\", \"count\": 5}},\n \"launches\": [" + launches + "]}");
}

TEST(run, device_heap_size_carries_over_to_later_launches) {
    // 128 MiB set by the first launch: the last one's six 16 MiB requests fit
    // (in CUDA's default 8 MiB heap they would not).
    std::string f = heap_launch_file("ptxsim_run_heap_keep.json",
                                     "{\"kernel\": \"keep\", \"grid\": 5, \"block\": 32, \"malloc_heap_bytes\": 134217728,"
                                     " \"args\": [{\"buffer\": \"ptrs\"}]},"
                                     "{\"kernel\": \"per_block\", \"grid\": 1, \"block\": 96, \"malloc_heap_bytes\": 134217728,"
                                     " \"args\": [{\"buffer\": \"out\"}, {\"buffer\": \"too_big\"}]},"
                                     "{\"kernel\": \"per_block\", \"grid\": 6, \"block\": 96,"
                                     " \"args\": [{\"buffer\": \"out\"}, {\"buffer\": \"too_big\"}]}");
    std::string g = f.substr(0, f.size() - 5) + "_expect.json";
    std::string text = read_file(f);
    text.insert(text.rfind('}'), ", \"expect\": {\"too_big\": {\"values\": [0, 0, 0, 0, 0, 0]}}");
    std::ofstream(g) << text;
    auto r = run_ptxsim("run '" + g + "'");
    EXPECT_EQ(r.status, 0) << r.err << r.out;
}

TEST(run, device_heap_size_cannot_change_after_a_kernel_that_calls_malloc) {
    std::string f = heap_launch_file("ptxsim_run_heap_change.json",
                                     "{\"kernel\": \"keep\", \"grid\": 5, \"block\": 32, \"malloc_heap_bytes\": 65536,"
                                     " \"args\": [{\"buffer\": \"ptrs\"}]},"
                                     "{\"kernel\": \"per_block\", \"grid\": 6, \"block\": 96, \"malloc_heap_bytes\": 1048576,"
                                     " \"args\": [{\"buffer\": \"out\"}, {\"buffer\": \"too_big\"}]}");
    auto r = run_ptxsim("run '" + f + "'");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("launches[1]: malloc_heap_bytes 1048576 cannot change the device heap (65536 bytes) after launches[0] ran "
                         "a kernel that calls malloc or free"),
              std::string::npos)
        << r.err;
}

} // namespace
} // namespace ptxsim::test
