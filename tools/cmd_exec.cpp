// ptxsim exec PROGRAM ARGS...: runs an unmodified CUDA program with its
// kernels on the CPU (tools/program_runner.cpp starts it).
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "tools/commands.hpp"
#include "tools/program_runner.hpp"

namespace ptxsim::tools {
namespace {

constexpr const char* synopsis =
    "usage: ptxsim exec [--model h800|h100|h200|FILE] [--threads N] [--max-instructions N]\n"
    "                   [--record DIR [--record-kernel NAME] [--record-max N]] [--] PROGRAM [ARGS...]\n\n"
    "Runs a CUDA program built by nvcc (static or shared CUDA runtime, or the\n"
    "driver API) with its kernels on the simulated GPU: the PTX in the program's\n"
    "fatbinary runs in ptxsim's engine, the host code runs natively. The program's\n"
    "output, errors and exit status are its own; ptxsim's messages start with\n"
    "\"ptxsim:\" on stderr. See docs/exec.md for the CUDA calls served.\n\n"
    "options:\n"
    "  --model NAME|FILE  the GPU the program sees (default h800)\n"
    "  --record DIR       write each launch as a launch file, DIR/NNNN-KERNEL/launch.json,\n"
    "                     with the buffers it can reach and, as its expect, what it\n"
    "                     changed: `ptxsim run` replays it (DIR must be new or empty)\n"
    "  --record-kernel NAME  record only kernels whose PTX name contains NAME\n"
    "  --record-max N     record at most N launches (default 100)\n"
    "  --threads N        host threads per launch (default 1): CTAs run in parallel;\n"
    "                     race-free kernels give the same bits on any number\n"
    "  --max-instructions N  stop a launch after N warp-instructions, a runaway kernel\n"
    "                     (default 2e9; the program then sees a launch timeout)\n"
    "  -h, --help         this text\n\n"
    "exit status: the program's; 2 when it cannot be started (not an ELF program,\n"
    "statically linked, no PTX for the GPU, bad model); 128+N when signal N ended it\n";

} // namespace

int cmd_exec(const std::vector<std::string>& args) {
    std::string model_name = "h800", record_dir, record_kernel, record_max, budget, threads;
    size_t i = 0;
    // "--name VALUE" or "--name=VALUE"; false with a message when the value is missing.
    auto value_of = [&](const std::string& name, std::string& out, bool& usage_error) {
        const std::string& a = args[i];
        if (a != name && !a.starts_with(name + "=")) return false;
        if (a == name && i + 1 == args.size()) {
            std::cerr << fmt::format("ptxsim exec: {} needs a value\n\n{}", name, synopsis);
            usage_error = true;
            return true;
        }
        out = a == name ? args[++i] : a.substr(name.size() + 1);
        return true;
    };
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
        bool usage_error = false;
        if (value_of("--model", model_name, usage_error) || value_of("--record", record_dir, usage_error) ||
            value_of("--record-kernel", record_kernel, usage_error) || value_of("--record-max", record_max, usage_error) ||
            value_of("--max-instructions", budget, usage_error) || value_of("--threads", threads, usage_error)) {
            if (usage_error) return exit_usage;
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
    if ((!record_kernel.empty() || !record_max.empty()) && record_dir.empty()) {
        std::cerr << "ptxsim exec: --record-kernel and --record-max go with --record DIR\n\n" << synopsis;
        return exit_usage;
    }
    if (!record_max.empty() && (record_max.find_first_not_of("0123456789") != std::string::npos || std::stoull(record_max) == 0)) {
        std::cerr << fmt::format("ptxsim exec: --record-max takes a positive count, not '{}'\n", record_max);
        return exit_usage;
    }
    if (!budget.empty()) {
        if (budget.find_first_not_of("0123456789") != std::string::npos || std::stoull(budget) == 0) {
            std::cerr << fmt::format("ptxsim exec: --max-instructions takes a positive count, not '{}'\n", budget);
            return exit_usage;
        }
        p.env.push_back({"PTXSIM_MAX_INSTRUCTIONS", budget});
    }
    if (!threads.empty()) {
        if (threads.find_first_not_of("0123456789") != std::string::npos || threads.size() > 4 || std::stoul(threads) == 0) {
            std::cerr << fmt::format("ptxsim exec: --threads takes a positive count, not '{}'\n", threads);
            return exit_usage;
        }
        p.env.push_back({"PTXSIM_THREADS", threads});
    }
    if (!record_dir.empty()) {
        namespace fs = std::filesystem;
        std::error_code ec;
        if (fs::exists(record_dir, ec) && !(fs::is_directory(record_dir, ec) && fs::is_empty(record_dir, ec))) {
            std::cerr << fmt::format("ptxsim exec: --record {}: not an empty folder (earlier recordings are not overwritten)\n",
                                     record_dir);
            return exit_usage;
        }
        fs::create_directories(record_dir, ec);
        if (ec) {
            std::cerr << fmt::format("ptxsim exec: --record {}: {}\n", record_dir, ec.message());
            return exit_usage;
        }
        p.env.push_back({"PTXSIM_RECORD_DIR", fs::absolute(record_dir).string()});
        if (!record_kernel.empty()) p.env.push_back({"PTXSIM_RECORD_KERNEL", record_kernel});
        if (!record_max.empty()) p.env.push_back({"PTXSIM_RECORD_MAX", record_max});
    }
    p.argv.assign(args.begin() + long(i), args.end());
    return run_program(p);
}

} // namespace ptxsim::tools
