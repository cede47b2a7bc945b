// ptxsim: the command-line front end. Dispatches to one file per subcommand.
#include <fmt/format.h>

#include <cstdio>
#include <iostream>
#include <string_view>

#include "tools/commands.hpp"
#include "tools/huge_pages.hpp"

namespace {

constexpr std::string_view usage = R"(ptxsim — run and check NVIDIA PTX kernels on the CPU

usage: ptxsim <command> [options] [args]

commands:
  lint FILE...    parse and validate PTX; errors as file:line:col on stderr
  print FILE      print the canonical form of a PTX file on stdout
  run LAUNCH.json run the kernels of a launch file on the CPU
  check LAUNCH.json
                  run them under a checker (--tool memcheck): memory errors, leaks
  prof LAUNCH.json
                  run them under the cycle model: cycles, IPC, occupancy, stalls,
                  caches, DRAM, per-line costs (Nsight Compute's metric names)
  exec PROGRAM [ARGS...]
                  run a CUDA program built by nvcc with its kernels on the CPU
  debug LAUNCH.json
                  debug its kernels: breakpoints, stepping, registers per lane,
                  watchpoints, and going back in time (cuda-gdb's commands)
  dap             the same for editors: the Debug Adapter Protocol on stdin/stdout

options:
  -h, --help      this text (ptxsim <command> --help for a command's options)
  --version       print the version

exit status: 0 ok, 1 errors, kernel faults or mismatches, 2 bad usage or input
)";

} // namespace

int main(int argc, char** argv) {
    using namespace ptxsim::tools;
    if (argc < 2) {
        std::cerr << usage;
        return exit_usage;
    }
    std::string_view cmd = argv[1];
    std::vector<std::string> rest(argv + 2, argv + argc);
    if (cmd == "-h" || cmd == "--help" || cmd == "help") {
        std::cout << usage;
        return exit_ok;
    }
    if (cmd == "--version" || cmd == "-V") {
        std::cout << "ptxsim " << PTXSIM_VERSION << " (PTX ISA up to 9.0, targets up to sm_100a)\n";
        return exit_ok;
    }
    if (cmd == "prof" || cmd == "check") restart_with_huge_pages(argv); // thousands of warps live at once
    try {
        if (cmd == "lint") return cmd_lint(rest);
        if (cmd == "print") return cmd_print(rest);
        if (cmd == "run") return cmd_run(rest);
        if (cmd == "check") return cmd_check(rest);
        if (cmd == "prof") return cmd_prof(rest);
        if (cmd == "exec") return cmd_exec(rest);
        if (cmd == "debug") return cmd_debug(rest);
        if (cmd == "dap") return cmd_dap(rest);
    } catch (const std::exception& e) {
        std::cerr << "ptxsim: internal error: " << e.what() << '\n';
        return exit_usage;
    }
    std::cerr << fmt::format("ptxsim: unknown command '{}'\n\n", cmd) << usage;
    return exit_usage;
}
