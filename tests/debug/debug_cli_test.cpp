// ptxsim debug in batch mode (-x): every command against the demo kernels
// (tests/debug/kernels/debug_demo.cu) at known lines, with the values a
// user would read; going back in time lands on the same state as going
// forward; bad commands get a message and the session goes on.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tests/debug/batch_session.hpp"

namespace ptxsim::test {
namespace {

const std::string demo = std::string(PTXSIM_SOURCE_DIR) + "/tests/debug/kernels/launch.json";
const std::string saxpy = std::string(PTXSIM_SOURCE_DIR) + "/kernels/saxpy/launch.json";

run_result debug(const std::string& commands, const std::string& options = "", const std::string& file = demo) {
    return debug_batch(commands, file, options);
}

TEST(debug, breakpoint_at_cuda_line_prints_every_lane) {
    auto r = debug("break debug_demo.cu:31\nrun\nprint %r1\nprint threadIdx.x * 2\ninfo cuda kernels\n");
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(has(r.out, "Breakpoint 1 at debug_demo.cu:32 (debug_demo.sm_90a.ptx:")) << r.out; // line 31 has no code
    EXPECT_TRUE(has(r.out, "Note: line 31 of ")) << r.out;
    EXPECT_TRUE(has(r.out, "Breakpoint 1, diverge_call<<<(1,1,1),(64,1,1)>>> at debug_demo.cu:32")) << r.out;
    EXPECT_TRUE(has(r.out, "debug_demo.cu:32\t        r = t * 2;")) << r.out;
    // The even lanes are at the else branch: t for each, and 2t.
    EXPECT_TRUE(has(r.out, "$1 = {")) << r.out;
    EXPECT_TRUE(has(r.out, "$2 = {0-31: 0, 2, ..., 62}")) << r.out;
    EXPECT_TRUE(has(r.out, "* 2       diverge_call")) << r.out;
    EXPECT_TRUE(has(r.out, "running")) << r.out;
}

TEST(debug, conditional_breakpoint_focuses_the_lane) {
    auto r = debug("break saxpy.cu:5 if threadIdx.x == 37\nrun\ninfo line\nprint %r10\nprint $f1\n", "", saxpy);
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(has(r.out, "[Switching focus to block (0,0,0) thread (37,0,0) (warp 1, lane 5)]")) << r.out;
    EXPECT_TRUE(has(r.out, "$1 = {0-31: 32, 33, ..., 63}")) << r.out;
    EXPECT_TRUE(has(r.out, "$2 = 2.5")) << r.out;
}

TEST(debug, stepi_and_reverse_stepi_reach_the_same_state) {
    auto r = debug(
        "break saxpy.cu:5 if threadIdx.x == 1\nrun\nstepi 6\nprint %f4\nreverse-stepi\nprint %f4\nprint %f2\nstepi\nprint %f4\n", "", saxpy);
    EXPECT_EQ(r.status, 0) << r.out;
    // After the fma (stepi 6 from mul.wide): y = 2.5 x + 1 for x = 0..31.
    EXPECT_TRUE(has(r.out, "$1 = {0-31: 1, 3.5, ..., 78.5}")) << r.out;
    // One instruction back, before the fma: %f4 not yet written (0), the loaded x there.
    EXPECT_TRUE(has(r.out, "$2 = 0")) << r.out;
    EXPECT_TRUE(has(r.out, "$3 = {0-31: 0, 1, ..., 31}")) << r.out;
    // And forward again: the same bits.
    EXPECT_TRUE(has(r.out, "$4 = {0-31: 1, 3.5, ..., 78.5}")) << r.out;
}

TEST(debug, step_into_a_call_backtrace_and_finish) {
    auto r = debug("break triple_plus\nrun\nbacktrace\nprint %r1\nstep\nprint %r1\nfinish\nbacktrace\ninfo cuda lanes\n");
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(has(r.out, "[Switching focus to block (0,0,0) thread (1,0,0) (warp 0, lane 1)]")) << r.out;
    EXPECT_TRUE(has(r.out, "#0  triple_plus at debug_demo.cu:21")) << r.out;
    EXPECT_TRUE(has(r.out, "#1  diverge_call at debug_demo.cu:30")) << r.out;
    // In the callee after its first line: x (%r1) is the thread index, for the odd lanes.
    EXPECT_TRUE(has(r.out, "debug_demo.cu:23\t    return y + k;")) << r.out;
    EXPECT_TRUE(has(r.out, "$2 = {0-31: 0, 1, ..., 31}")) << r.out; // each lane's own %r1: t in the kernel and the callee
    EXPECT_TRUE(has(r.out, "debug_demo.cu:30\t        r = triple_plus(t, 100);")) << r.out;
    EXPECT_TRUE(has(r.out, "State     Depth")) << r.out;
}

TEST(debug, watchpoint_on_shared_memory_reports_old_and_new_values) {
    auto r = debug("break block_sum\nrun\nwatch *((@shared int*)&partial + 32)\ndelete 1\ncontinue\nprint $laneid\n");
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(has(r.out, "Hardware watchpoint 2: *((@shared int*)&partial + 32) (block (0,0,0))")) << r.out;
    EXPECT_TRUE(has(r.out, "Old value = 0\nNew value = 33\nwritten by block (0,0,0) thread (32,0,0) at debug_demo.cu:9")) << r.out;
}

TEST(debug, fault_stops_before_the_faulting_instruction) {
    auto r = debug("run\nprint %r1\nprint/x %rd4\nx/2dw %rd4 - 4\ncontinue\n");
    EXPECT_EQ(r.status, 1) << r.out; // x past the allocation failed
    EXPECT_TRUE(has(r.out, "Kernel fault (the launch stops here on a GPU):")) << r.out;
    EXPECT_TRUE(has(r.out, "[Switching focus to block (0,0,0) thread (31,0,0) (warp 0, lane 31)]")) << r.out;
    EXPECT_TRUE(has(r.out, "Stopped before the faulting instruction runs")) << r.out;
    EXPECT_TRUE(has(r.out, "debug_demo.cu:49\t    if (t < n) out[t + 1] = t;")) << r.out;
    EXPECT_TRUE(has(r.out, "$1 = {0-31: 0, 1, ..., 31}")) << r.out;
    EXPECT_TRUE(has(r.out, "Cannot access memory at address")) << r.out; // x reaches past the allocation
    EXPECT_TRUE(has(r.out, "The launch ended with its fault:")) << r.out;
    EXPECT_TRUE(has(r.out, "[Program finished: 4 launches, exit status 1]")) << r.out;
}

TEST(debug, racecheck_finding_and_last_write) {
    auto r = debug("catch finding\nrun\nlast-write *((@shared int*)&partial + 32)\nx/4dw (@shared int*)&partial + 32\nkill\n", "--tool racecheck");
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(has(r.out, "WAR hazard on __shared__ memory")) << r.out;
    EXPECT_TRUE(has(r.out, "by block (0,0,0) thread (32,0,0) (warp 1, lane 0) at debug_demo.cu:9")) << r.out;
    EXPECT_TRUE(has(r.out, "  value before: 0\n  value after:  33\n")) << r.out;
    EXPECT_TRUE(has(r.out, "0x80 <shared>:\t33\t34\t35\t36")) << r.out;
    EXPECT_TRUE(has(r.out, "[Program killed]")) << r.out;
}

TEST(debug, reverse_continue_goes_back_to_the_previous_hit) {
    auto r = debug("break saxpy.cu:5 if threadIdx.x == 37\nrun\ncontinue\nprint %r10\nreverse-continue\nprint %r10\n", "", saxpy);
    EXPECT_EQ(r.status, 0) << r.out;
    // The grid-stride loop: the second hit is i + 512, and back again at i.
    EXPECT_TRUE(has(r.out, "$1 = {0-31: 544, 545, ..., 575}")) << r.out;
    EXPECT_TRUE(has(r.out, "$2 = {0-31: 32, 33, ..., 63}")) << r.out;
}

TEST(debug, watchpoint_on_local_memory_is_the_focused_threads) {
    auto r = debug("break debug_demo.cu:41\nrun\nx/8dw (@local int*)%rd3\nwatch *((@local int*)%rd3 + 5)\ndelete 1\ncontinue\n");
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(has(r.out, "0x0 <local>:\t0\t1\t2\t3\n0x10 <local>:\t4\t5\t6\t7\n")) << r.out;
    // Thread 0 stores -1 to a[(0 + 5) & 15]; the other threads' stores go to their own frames.
    EXPECT_TRUE(has(r.out, "Old value = 5\nNew value = -1\nwritten by block (0,0,0) thread (0,0,0) at debug_demo.cu:41")) << r.out;
    EXPECT_TRUE(has(r.out, "Hardware watchpoint 2: *((@local int*)%rd3 + 5) (block (0,0,0) thread (0,0,0))")) << r.out;
}

TEST(debug, watchpoint_on_distributed_shared_memory_sees_other_blocks_writes) {
    const std::string dsmem = std::string(PTXSIM_SOURCE_DIR) + "/kernels/cluster_dsmem/launch.json";
    auto r = debug("break cluster_dsmem.cu:24\nrun\ncuda block (0,0,0) thread (0,0,0)\nwatch counter\ndelete 1\ncontinue\n", "", dsmem);
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(has(r.out, "Hardware watchpoint 2: counter (block (0,0,0))")) << r.out;
    // The first change to rank 0's counter is an atomicAdd through map_shared_rank from block 3.
    EXPECT_TRUE(has(r.out, "Old value = 0\nNew value = 4256\nwritten by block (3,0,0) thread (96,0,0) at cluster_dsmem.cu:30")) << r.out;
}

TEST(debug, barriers_waiting_warps_and_stepping_over_a_barrier) {
    auto r = debug(
        "break debug_demo.cu:9 if threadIdx.x >= 32\nrun\ninfo cuda barriers\ninfo cuda warps\ndelete\n"
        "break debug_demo.cu:12\nrun\ndelete\nnext\ninfo line\n");
    EXPECT_EQ(r.status, 0) << r.out;
    // Warp 1 at line 9 while warp 0 already waits at the __syncthreads of line 12.
    EXPECT_TRUE(has(r.out, "  barrier 0: 32 threads arrived of all live; waiting: warp 0 lanes 0xffffffff")) << r.out;
    EXPECT_TRUE(has(r.out, "  0     0xffffffff  0x00000000  0xffffffff  debug_demo.cu:13")) << r.out;
    // next over bar.sync: warp 1 runs to the barrier, which lets warp 0 go on to line 13.
    EXPECT_TRUE(has(r.out, "Starting the program again from the beginning.")) << r.out;
    EXPECT_TRUE(has(r.out, "debug_demo.cu:13\t    if (t == 0) {")) << r.out;
    EXPECT_TRUE(has(r.out, "block (0,0,0) thread (0,0,0) (warp 0, lane 0) is at debug_demo.cu:13")) << r.out;
}

TEST(debug, stepping_past_the_focused_threads_exit) {
    auto r = debug("break debug_demo.cu:33\nrun\ndelete\nnext 3\ninfo line\n");
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(has(r.out, "[The focused thread has exited; focus moves to block (0,0,0) thread (32,0,0)]")) << r.out;
}

TEST(debug, bad_commands_get_messages_and_the_session_goes_on) {
    auto r = debug("frobnicate\nbreak nowhere.cu:x\nbreak saxpy\nrun\nprint %r1 +\nprint %nosuch\nx/4xw 0x10\nprint 1 + 2 * 3\ncuda block (9,0,0)\ncontinue\n",
                   "", saxpy);
    EXPECT_EQ(r.status, 1) << r.out; // a command failed
    EXPECT_TRUE(has(r.out, "Undefined command: \"frobnicate\".  Try \"help\".")) << r.out;
    EXPECT_TRUE(has(r.out, "break: 'nowhere.cu:x' is not a location")) << r.out;
    EXPECT_TRUE(has(r.out, "expected a value at column")) << r.out;
    EXPECT_TRUE(has(r.out, "no register %nosuch")) << r.out;
    EXPECT_TRUE(has(r.out, "$1 = 7")) << r.out;
    EXPECT_TRUE(has(r.out, "Block (9,0,0) is outside the grid (4,1,1).")) << r.out;
    EXPECT_TRUE(has(r.out, "Cannot access memory at address 0x10")) << r.out;
    EXPECT_TRUE(has(r.out, "[Program killed]")) << r.out;
}

TEST(debug, usage_errors_exit_2) {
    EXPECT_EQ(run_ptxsim("debug").status, 2);
    EXPECT_EQ(run_ptxsim("debug /nonexistent/launch.json").status, 2);
    EXPECT_EQ(run_ptxsim("debug -x /nonexistent/commands " + demo).status, 2);
    EXPECT_EQ(run_ptxsim("debug --tool nosuch " + demo).status, 2);
    // A program without kernel launches: nothing to debug.
    auto none = run_ptxsim("debug --batch /bin/true");
    EXPECT_EQ(none.status, 2);
    EXPECT_TRUE(has(none.err, "the program made no kernel launch that could be recorded")) << none.err;
    auto h = run_ptxsim("debug --help");
    EXPECT_EQ(h.status, 0);
    EXPECT_TRUE(has(h.out, "usage: ptxsim debug"));
}

TEST(debug, info_cuda_mbarriers_shows_each_mbarriers_state) {
    // tma_tiles: one mbarrier per block, for its TMA load. Warp 3 reaches the
    // wait before thread 0 has armed it; three instructions later (the other
    // warps running as scheduled) thread 0's arrive.expect_tx and the copy
    // have completed the phase.
    const std::string tma = std::string(PTXSIM_SOURCE_DIR) + "/kernels/tma_tiles/launch.json";
    auto r = debug("info cuda mbarriers\nbreak tma_tiles.sm_90a.ptx:87\nrun\ninfo cuda mbarriers\nstepi 3\ninfo cuda mbarriers\n", "", tma);
    EXPECT_EQ(r.status, 1) << r.out; // the first info: nothing runs yet
    EXPECT_TRUE(has(r.out, "mbarriers of block (0,0,0):\n  shared offset 0x1000: phase parity 0, 1 of 1 arrivals pending, tx-count 0\n")) << r.out;
    EXPECT_TRUE(has(r.out, "  shared offset 0x1000: phase parity 1, 1 of 1 arrivals pending, tx-count 0\n")) << r.out;
}

TEST(debug, x_i_lists_ptx_instructions_from_the_pc) {
    auto r = debug("break debug_demo.cu:23\nrun\nx/3i $pc\nup\nx/1i\nx/1i debug_demo.cu:9\nx/2i nowhere\n");
    EXPECT_EQ(r.status, 1) << r.out; // x/2i nowhere
    EXPECT_TRUE(has(r.out, "=> <triple_plus+1>  debug_demo.sm_90a.ptx:25\tmad.lo.s32 \t%r2, %r1, 3, 100;\n"
                           "   <triple_plus+2>  debug_demo.sm_90a.ptx:26\tst.param.b32 \t[func_retval0+0], %r2;\n"
                           "   <triple_plus+3>  debug_demo.sm_90a.ptx:27\tret;\n")) << r.out;
    // The caller's frame: its call, written over three lines, joined.
    EXPECT_TRUE(has(r.out, "   <diverge_call+12>  debug_demo.sm_90a.ptx:189\tcall.uni (retval0), _Z11triple_plusii, ( param0 );")) << r.out;
    EXPECT_TRUE(has(r.out, "   <block_sum+2>  debug_demo.sm_90a.ptx:46\tmov.u32 \t%r1, %ctaid.x;")) << r.out;
    EXPECT_TRUE(has(r.out, "x/i: no code at 'nowhere'")) << r.out;
}

} // namespace
} // namespace ptxsim::test
