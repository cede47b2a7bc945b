// CUDA source variables under ptxsim debug: the demo kernels built with
// nvcc -G (tests/debug/kernels/debug_demo.G.sm_90a.ptx, committed) carry
// DWARF, so print, info locals, info args, whatis, x and watch take the
// names of debug_demo.cu — in registers (kernel locals, a device
// function's parameters), in .param (kernel parameters), .shared (a
// function-scope __shared__ array), .local (a per-thread array) and in
// location lists (a loop variable that moves between registers).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tests/debug/batch_session.hpp"

namespace ptxsim::test {
namespace {

const std::string demo_g = std::string(PTXSIM_SOURCE_DIR) + "/tests/debug/kernels/launch_G.json";
const std::string demo = std::string(PTXSIM_SOURCE_DIR) + "/tests/debug/kernels/launch.json";

run_result debug(const std::string& commands, const std::string& file = demo_g) { return debug_batch(commands, file); }

TEST(source_variables, kernel_locals_parameters_and_shared_array) {
    auto r = debug("break debug_demo.cu:16\nrun\ninfo locals\ninfo args\nprint s\nprint in[3]\nprint partial[40]\n"
                   "whatis in\nwhatis partial\nprint &partial[3]\nprint *&partial[3]\nprint i\n");
    EXPECT_EQ(r.status, 1) << r.out; // print i fails, as it should
    // Block 0 sums partial[0..31] = 1..32 (the race lost the upper half).
    EXPECT_TRUE(has(r.out, "s = 528\n")) << r.out;
    EXPECT_TRUE(has(r.out, "partial = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10,")) << r.out;
    EXPECT_TRUE(has(r.out, "t = 0\n")) << r.out;
    EXPECT_TRUE(has(r.out, "out = (int *) 0x")) << r.out;
    EXPECT_TRUE(has(r.out, "in = (int *) 0x")) << r.out;
    EXPECT_TRUE(has(r.out, "$1 = 528\n")) << r.out; // the other lanes of warp 0 have exited
    EXPECT_TRUE(has(r.out, "$2 = 4\n")) << r.out;  // in[] is iota from 1
    EXPECT_TRUE(has(r.out, "$3 = 41\n")) << r.out; // partial[40] = in[40]
    EXPECT_TRUE(has(r.out, "type = const int *\n")) << r.out;
    EXPECT_TRUE(has(r.out, "type = int [64]\n")) << r.out;
    EXPECT_TRUE(has(r.out, "$4 = (@shared int *) 0xc\n")) << r.out;
    EXPECT_TRUE(has(r.out, "$5 = 4\n")) << r.out;
    // The loop's i is out of scope after the loop.
    EXPECT_TRUE(has(r.out, "No symbol \"i\" in the current context.")) << r.out;
}

TEST(source_variables, a_loop_variable_in_a_location_list) {
    // PTX line 132 is at the loop's head; its third visit has run two iterations.
    auto r = debug("break debug_demo.G.sm_90a.ptx:132\nrun\nprint i\ncontinue 3\nprint i\nprint s\nprint s + partial[i]\n"
                   "ignore 1 1\ncontinue\nprint i\nignore 9 1\n");
    EXPECT_EQ(r.status, 1) << r.out; // ignore 9 fails
    EXPECT_TRUE(has(r.out, "$1 = 0 (lanes")) << r.out;
    EXPECT_TRUE(has(r.out, "Will ignore next 2 crossings of breakpoint 1.")) << r.out;
    // By then the other lanes have exited: one value.
    EXPECT_TRUE(has(r.out, "$2 = 3\n")) << r.out;  // i after three iterations
    EXPECT_TRUE(has(r.out, "$3 = 6\n")) << r.out;  // 1 + 2 + 3
    EXPECT_TRUE(has(r.out, "$4 = 10\n")) << r.out; // + partial[3] = 4
    EXPECT_TRUE(has(r.out, "Will ignore next 1 crossings of breakpoint 1.\n")) << r.out;
    EXPECT_TRUE(has(r.out, "$5 = 5\n")) << r.out; // one head visit passed
    EXPECT_TRUE(has(r.out, "No breakpoint number 9.")) << r.out;
}

TEST(source_variables, device_function_parameters_in_registers) {
    auto r = debug("break debug_demo.cu:23\nrun\ninfo args\ninfo locals\nprint y + k\nprint &x\nwhatis k\n");
    EXPECT_EQ(r.status, 1) << r.out; // print &x fails, as it should
    // The focused thread is 1 (the odd lanes call triple_plus(t, 100)).
    EXPECT_TRUE(has(r.out, "[Switching focus to block (0,0,0) thread (1,0,0) (warp 0, lane 1)]")) << r.out;
    EXPECT_TRUE(has(r.out, "x = 1\nk = 100\n") || has(r.out, "k = 100\nx = 1\n")) << r.out;
    EXPECT_TRUE(has(r.out, "y = 3\n")) << r.out;
    EXPECT_TRUE(has(r.out, "$1 = {1: 103, 3: 109, 5: 115,")) << r.out; // 3t + 100 on the odd lanes
    EXPECT_TRUE(has(r.out, "'x' is in register %r1: it has no address")) << r.out;
    EXPECT_TRUE(has(r.out, "type = int\n")) << r.out;
}

TEST(source_variables, up_and_down_read_the_callers_frame) {
    auto r = debug("break debug_demo.cu:23\nrun\nup\ninfo locals\nprint t * 10\ninfo registers %r1\nprint y\nup\ndown\nprint y\n"
                   "frame 1\ncontinue\nprint y\n");
    EXPECT_EQ(r.status, 1) << r.out; // print y in the caller and the second up fail, as they should
    EXPECT_TRUE(has(r.out, "#1  diverge_call at debug_demo.cu:30 (debug_demo.G.sm_90a.ptx:215)\ndebug_demo.cu:30\t        r = triple_plus(t, 100);")) << r.out;
    EXPECT_TRUE(has(r.out, "t = 1\n")) << r.out; // the caller's t, at its call
    // The odd lanes are in the call; the even ones have no caller.
    EXPECT_TRUE(has(r.out, "$1 = {1: 10, 3: 30, 5: 50,")) << r.out;
    EXPECT_TRUE(has(r.out, "that thread has no frame 1 (it is 0 calls deep)")) << r.out;
    EXPECT_TRUE(has(r.out, "in diverge_call (frame 1):\n%r1")) << r.out;
    EXPECT_TRUE(has(r.out, "No symbol \"y\" in the current context.")) << r.out; // y is triple_plus's
    EXPECT_TRUE(has(r.out, "Initial frame selected; you cannot go up.")) << r.out;
    EXPECT_TRUE(has(r.out, "#0  triple_plus at debug_demo.cu:23")) << r.out;
    EXPECT_TRUE(has(r.out, "$2 = {1: 3, 3: 9, 5: 15,")) << r.out; // back in the callee: y = 3x
    // A stop selects the innermost frame again.
    EXPECT_TRUE(has(r.out, "$3 = {1: 99, 3: 105,")) << r.out; // warp 1: x = 33, 35, ...
}

TEST(source_variables, a_local_array_read_watched_and_examined) {
    auto r = debug("break debug_demo.cu:42\nrun\nprint a\nprint a[5]\nwhatis a\nx/4dw &a[12]\ncuda thread (7,0,0)\nprint a\n");
    EXPECT_EQ(r.status, 0) << r.out;
    // a[i] = t + i, then a[(t + 5) & 15] = -1: thread 0 has -1 at 5.
    EXPECT_TRUE(has(r.out, "$1 = {0, 1, 2, 3, 4, -1, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15} (lane 0; other lanes differ")) << r.out;
    // a[5] = t + 5, except for the threads whose (t + 5) & 15 is 5: 0 and 16.
    EXPECT_TRUE(has(r.out, "$2 = {0: -1, 1-15: 6, 7, ..., 20, 16: -1, 17-31: 22, 23, ..., 36}")) << r.out;
    EXPECT_TRUE(has(r.out, "type = int [16]\n")) << r.out;
    EXPECT_TRUE(has(r.out, "<local>:\t12\t13\t14\t15")) << r.out;
    EXPECT_TRUE(has(r.out, "$3 = {7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, -1, 20, 21, 22} (lane 7;")) << r.out;
}

TEST(source_variables, watch_an_element_of_a_local_array_by_name) {
    // Line 39 is the first with `a` in scope; the loop of line 40 writes a[5] = t + 5, line 41 then -1 (thread 0).
    auto r = debug("break debug_demo.cu:39\nrun\nwatch a[5]\ndelete 1\ncontinue\nprint i\ncontinue\n");
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(has(r.out, "Hardware watchpoint 2: a[5] (block (0,0,0) thread (0,0,0))")) << r.out;
    EXPECT_TRUE(has(r.out, "Old value = 0\nNew value = 5\nwritten by block (0,0,0) thread (0,0,0) at debug_demo.cu:40")) << r.out;
    EXPECT_TRUE(has(r.out, "Old value = 5\nNew value = -1\nwritten by block (0,0,0) thread (0,0,0) at debug_demo.cu:41")) << r.out;
}

TEST(source_variables, without_dwarf_the_session_says_how_to_get_it) {
    auto r = debug("break debug_demo.cu:16\nrun\ninfo locals\nprint s\n", demo);
    EXPECT_EQ(r.status, 1) << r.out; // a command failed: print s
    EXPECT_TRUE(has(r.out, "No symbol table info available (the PTX has no DWARF: build it with nvcc -G")) << r.out;
    EXPECT_TRUE(has(r.out, "No symbol \"s\" in the current context.")) << r.out;
}

// Module-scope variables (module_vars.cu): a __device__ int, a __constant__
// array and extern __shared__ memory are found by name from the kernel, and
// info locals leaves them out (they are globals).
TEST(source_variables, module_scope_device_constant_and_dynamic_shared) {
    const std::string file = std::string(PTXSIM_SOURCE_DIR) + "/tests/debug/kernels/launch_module_vars.json";
    auto r = debug("break module_vars.cu:12\nrun\ninfo locals\nprint bias\nprint scale[2]\nwhatis scale\nwhatis dyn\n"
                   "print dyn[5]\nprint dyn[t]\nx/4fw &dyn[0]\n", file);
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(has(r.out, "module_vars.cu:12\t    out[t] = dyn[31 - t];\n")) << r.out;
    EXPECT_TRUE(has(r.out, "module_vars.G.sm_90a.ptx:62\t\tmov.u32 \t%r6, 31;\nt = 0\n$1 = 7\n")) << r.out; // only t is local
    EXPECT_TRUE(has(r.out, "$2 = 2\n")) << r.out;
    EXPECT_TRUE(has(r.out, "type = float [4]\ntype = float []\n")) << r.out;
    // dyn[t] = t * scale[t & 3] + 7
    EXPECT_TRUE(has(r.out, "$3 = 12\n")) << r.out;
    EXPECT_TRUE(has(r.out, "$4 = {0: 7, 1: 8, 2: 11, 3: 19, 4: 9, 5: 12,")) << r.out;
    EXPECT_TRUE(has(r.out, "0x0 <shared>:\t7\t8\t11\t19")) << r.out;
}

// Without DWARF, extern __shared__ memory is found by its PTX name as
// untyped bytes: a cast reads it (kernels/dynamic_smem keeps in[] there).
TEST(source_variables, dynamic_shared_without_dwarf_by_cast) {
    const std::string file = std::string(PTXSIM_SOURCE_DIR) + "/kernels/dynamic_smem/launch.json";
    auto r = debug("break dynamic_smem.cu:12\nrun\nprint ((unsigned*)&smem)[5]\nprint smem\n", file);
    EXPECT_EQ(r.status, 1) << r.out; // print smem fails, saying how to read it
    EXPECT_TRUE(has(r.out, "$1 = 2056343884\n")) << r.out; // dynamic_smem.in.u32 word 5
    EXPECT_TRUE(has(r.out, "'smem' is extern __shared__ memory (the launch sizes it): cast it")) << r.out;
}

} // namespace
} // namespace ptxsim::test
