// ptxsim exec on programs it must refuse before starting them (exit 2 with
// a message that says why and what to do), and its help. Running real
// programs is tests/exec/programs_test.py (it needs nvcc and the CUDA runtime).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

std::string data(const std::string& name) { return std::string(PTXSIM_SOURCE_DIR) + "/tests/exec/data/" + name; }

TEST(exec_cli, help) {
    auto r = run_ptxsim("exec --help");
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("usage: ptxsim exec"), std::string::npos);
    EXPECT_NE(run_ptxsim("--help").out.find("exec PROGRAM"), std::string::npos);
}

TEST(exec_cli, usage_errors) {
    auto none = run_ptxsim("exec");
    EXPECT_EQ(none.status, 2);
    EXPECT_NE(none.err.find("no PROGRAM given"), std::string::npos);
    EXPECT_EQ(run_ptxsim("exec --frobnicate /bin/true").status, 2);
    auto model = run_ptxsim("exec --model h900 /bin/true");
    EXPECT_EQ(model.status, 2);
    EXPECT_NE(model.err.find("unknown model 'h900'"), std::string::npos) << model.err;
    EXPECT_EQ(run_ptxsim("exec --model").status, 2);
}

TEST(exec_cli, missing_program) {
    auto r = run_ptxsim("exec /nonexistent/app --flag");
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("/nonexistent/app: no such file"), std::string::npos) << r.err;
}

TEST(exec_cli, not_an_elf_program) {
    auto p = std::filesystem::temp_directory_path() / "ptxsim_exec_script.sh";
    std::ofstream(p) << "#!/bin/sh\necho hi\n";
    std::filesystem::permissions(p, std::filesystem::perms::owner_all);
    auto r = run_ptxsim("exec " + p.string());
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("not an ELF program"), std::string::npos) << r.err;
}

TEST(exec_cli, not_executable) {
    auto p = std::filesystem::temp_directory_path() / "ptxsim_exec_noexec";
    std::filesystem::copy_file(data("vector_add_zstd.elf"), p, std::filesystem::copy_options::overwrite_existing);
    std::filesystem::permissions(p, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    auto r = run_ptxsim("exec " + p.string());
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("not executable"), std::string::npos) << r.err;
}

TEST(exec_cli, statically_linked_program) {
    auto r = run_ptxsim(std::string("exec ") + PTXSIM_STATIC_PROBE);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("is statically linked"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("link it dynamically"), std::string::npos) << r.err;
}

TEST(exec_cli, sass_only_program_names_the_nvcc_option) {
    auto r = run_ptxsim("exec " + data("vector_add_sass_only.elf"));
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("has no PTX"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("sm_90a SASS"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("-gencode arch=compute_90a,code=compute_90a"), std::string::npos) << r.err;
}

// --record of a kernel built with -rdc=true (the committed two-unit program,
// nvcc 13, static runtime): its launch file names both translation units'
// PTX, so `ptxsim run` links them again and reproduces the recorded result.
TEST(exec_cli, record_of_a_relocatable_kernel_names_every_unit) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("ptxsim_record_rdc_" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path exe = dir / "rdc";
    fs::copy_file(data("rdc_two_units.elf"), exe);
    fs::permissions(exe, fs::perms::owner_all);
    auto r = run_ptxsim("exec --record " + (dir / "rec").string() + " " + exe.string());
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("PASSED"), std::string::npos) << r.out;
    std::ifstream in(dir / "rec" / "0001-linked" / "launch.json");
    const std::string text{std::istreambuf_iterator<char>(in), {}};
    EXPECT_NE(text.find("\"modules\""), std::string::npos) << text;
    EXPECT_NE(text.find("unit1.ptx"), std::string::npos) << text;
    EXPECT_NE(text.find("unit2.ptx"), std::string::npos) << text;
    auto replay = run_ptxsim("run " + (dir / "rec" / "0001-linked" / "launch.json").string());
    EXPECT_EQ(replay.status, 0) << replay.err;
    EXPECT_NE(replay.out.find("match"), std::string::npos) << replay.out;
    fs::remove_all(dir);
}

// A program without CUDA runs as it is, with its own exit status and output.
TEST(exec_cli, program_status_and_output_pass_through) {
    auto r = run_ptxsim("exec -- /bin/sh -c 'echo out; echo err >&2; exit 7'");
    EXPECT_EQ(r.status, 7);
    EXPECT_NE(r.out.find("out"), std::string::npos);
    EXPECT_NE(r.err.find("err"), std::string::npos);
    auto sig = run_ptxsim("exec /bin/sh -c 'kill -TERM $$'");
    EXPECT_EQ(sig.status, 128 + 15);
    EXPECT_NE(sig.err.find("ended by signal 15"), std::string::npos) << sig.err;
}

// Killing ptxsim exec ends the program too (it must not be left running).
TEST(exec_cli, program_ends_when_ptxsim_is_killed) {
    const auto pid_file = std::filesystem::temp_directory_path() / "ptxsim_exec_child.pid";
    std::filesystem::remove(pid_file);
    const std::string script = "echo $$ > " + pid_file.string() + "; exec sleep 60";
    const pid_t ptxsim = fork();
    ASSERT_GE(ptxsim, 0);
    if (ptxsim == 0) {
        execl(PTXSIM_BINARY, PTXSIM_BINARY, "exec", "/bin/sh", "-c", script.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    pid_t program = 0;
    for (int i = 0; i < 200 && !program; ++i) {  // up to 10 s for the program to start
        std::ifstream(pid_file) >> program;
        if (!program) usleep(50'000);
    }
    ASSERT_NE(program, 0) << "the program never started";
    kill(ptxsim, SIGKILL);
    waitpid(ptxsim, nullptr, 0);
    bool gone = false;
    for (int i = 0; i < 100 && !gone; ++i) {  // up to 5 s
        // Gone, or a zombie nobody has reaped yet (it has ended all the same).
        std::string stat;
        std::getline(std::ifstream("/proc/" + std::to_string(program) + "/stat"), stat);
        const auto close = stat.rfind(')');
        gone = kill(program, 0) != 0 || (close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z');
        if (!gone) usleep(50'000);
    }
    if (!gone) kill(program, SIGKILL);
    EXPECT_TRUE(gone) << "the program outlived ptxsim exec";
}

// The driver is found where the build put it, and the program sees it first.
TEST(exec_cli, program_sees_the_driver_and_model) {
    auto r = run_ptxsim("exec --model h100 /bin/sh -c 'echo \"$LD_LIBRARY_PATH|$PTXSIM_MODEL_FILE\"'");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("cuda/driver"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("models/h100.json"), std::string::npos) << r.out;
}

} // namespace
} // namespace ptxsim::test
