// ptxsim exec PROGRAM ARGS...: runs an unmodified CUDA program with its
// kernels on the CPU (tools/program_runner.cpp starts it).
#include <fmt/format.h>

#include <iostream>

#include "tools/commands.hpp"
#include "tools/program_runner.hpp"

namespace ptxsim::tools {
namespace {

constexpr const char* synopsis =
    "usage: ptxsim exec [--model h800|h100|h200|FILE] [--] PROGRAM [ARGS...]\n\n"
    "Runs a CUDA program built by nvcc (static or shared CUDA runtime, or the\n"
    "driver API) with its kernels on the simulated GPU: the PTX in the program's\n"
    "fatbinary runs in ptxsim's engine, the host code runs natively. The program's\n"
    "output, errors and exit status are its own; ptxsim's messages start with\n"
    "\"ptxsim:\" on stderr. See docs/exec.md for the CUDA calls served.\n\n"
    "options:\n"
    "  --model NAME|FILE  the GPU the program sees (default h800)\n"
    "  -h, --help         this text\n\n"
    "exit status: the program's; 2 when it cannot be started (not an ELF program,\n"
    "statically linked, no PTX for the GPU, bad model); 128+N when signal N ended it\n";

} // namespace

int cmd_exec(const std::vector<std::string>& args) {
    std::string model_name = "h800";
    size_t i = 0;
    for (; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--") {
            ++i;
            break;
        }
        if (a == "-h" || a == "--help") {
            std::cout << synopsis;
            return exit_ok;
        }
        if (a == "--model" || a.starts_with("--model=")) {
            if (a == "--model" && i + 1 == args.size()) {
                std::cerr << "ptxsim exec: --model needs a value\n\n" << synopsis;
                return exit_usage;
            }
            model_name = a == "--model" ? args[++i] : a.substr(8);
            continue;
        }
        if (a.starts_with("-")) {
            std::cerr << fmt::format("ptxsim exec: unknown option '{}'\n\n{}", a, synopsis);
            return exit_usage;
        }
        break;
    }
    if (i == args.size()) {
        std::cerr << "ptxsim exec: no PROGRAM given\n\n" << synopsis;
        return exit_usage;
    }
    program_launch p;
    p.model_name = model_name;
    p.argv.assign(args.begin() + long(i), args.end());
    return run_program(p);
}

} // namespace ptxsim::tools
