// ptxsim debug LAUNCH.json: debug the kernels of a launch file (docs/debug.md).
#include <fmt/format.h>

#include <unistd.h>

#include <fstream>
#include <iostream>

#include "check/checker.hpp"
#include "debug/line_input.hpp"
#include "debug/session.hpp"
#include "models/model.hpp"
#include "sim/launch_file.hpp"
#include "tools/commands.hpp"
#include "tools/options.hpp"

namespace ptxsim::tools {

int cmd_debug(const std::vector<std::string>& args) {
    po::options_description opts("options");
    std::vector<std::string> files;
    std::string model_path, commands, tool;
    bool batch = false, allow_newer = false;
    uint64_t replay = 0, budget = 2'000'000'000;
    opts.add_options()("file", po::value(&files), "launch file")(
        "command,x", po::value(&commands), "run the debugger commands in FILE, then leave (status 1 when a command failed)")(
        "batch", po::bool_switch(&batch), "no prompts and no echo of commands (for scripts)")(
        "tool", po::value(&tool), "run checkers with the program for 'catch finding': memcheck, racecheck, initcheck, synccheck or all")(
        "replay", po::value(&replay), "debug under the seeded schedule S that run --schedules or check --schedules reported")(
        "max-instructions", po::value(&budget), "stop a runaway kernel after this many warp-instructions (default 2e9)")(
        "model", po::value(&model_path), "hardware model file (default: models/h800.json)")(
        "allow-newer-version", po::bool_switch(&allow_newer), "load modules whose .version is newer than 9.0");
    po::variables_map vm;
    const std::string synopsis =
        "usage: ptxsim debug [-x COMMANDS] [--batch] [--tool NAME] [--replay S] LAUNCH.json\n\n"
        "Debugs the kernels of a launch file on the CPU with gdb's and cuda-gdb's\n"
        "commands: break at a CUDA or PTX file:line or a kernel (with 'if' conditions),\n"
        "run, continue, step, next, stepi, finish; focus with 'cuda block (x,y,z)\n"
        "thread (x,y,z)'; print registers and expressions across the warp's lanes;\n"
        "x/Nfmt memory in any state space; watch/rwatch memory; info cuda\n"
        "kernels|blocks|warps|lanes|barriers|mbarriers; backtrace; list. The machine is\n"
        "deterministic, so it also goes back: reverse-stepi, reverse-step,\n"
        "reverse-continue, and last-write EXPR (who wrote that memory last). A kernel\n"
        "fault stops the program just before the faulting instruction. 'help' lists\n"
        "every command (docs/debug.md).\n\n"
        "-x FILE runs the commands in FILE and leaves; without -x commands come from\n"
        "the terminal (line editing and history) or from standard input.\n\n"
        "exit status: 0, 1 when a command failed, 2 bad input";
    if (auto done = parse_options(args, synopsis, opts, "file", vm)) return *done;
    if (files.size() != 1) {
        std::cerr << "ptxsim debug: expected exactly one launch file\n\n" << synopsis << '\n';
        return exit_usage;
    }
    debug::session_options o;
    o.batch = batch;
    o.validate.allow_newer_version = allow_newer;
    o.max_warp_instructions = budget;
    if (vm.count("replay")) o.schedule = replay;
    if (!tool.empty()) {
        if (tool == "all") o.tools = check::tool_names();
        else {
            const auto& names = check::tool_names();
            if (std::find(names.begin(), names.end(), tool) == names.end()) {
                std::cerr << fmt::format("ptxsim debug: unknown tool '{}' (memcheck, racecheck, initcheck, synccheck or all)\n", tool);
                return exit_usage;
            }
            o.tools = {tool};
        }
    }
    if (model_path.empty()) model_path = std::string(PTXSIM_SOURCE_DIR) + "/models/h800.json";
    parser::diagnostics d;
    auto model = models::load_model(model_path, d);
    auto file = model ? sim::read_launch_file(files[0], d) : std::nullopt;
    if (!model || !file) {
        for (const auto& x : d.all()) parser::print_text(std::cerr, x);
        return exit_usage;
    }
    std::ifstream script;
    std::unique_ptr<debug::line_input> in;
    if (!commands.empty()) {
        script.open(commands);
        if (!script) {
            std::cerr << fmt::format("ptxsim debug: cannot read the command file '{}'\n", commands);
            return exit_usage;
        }
        in = debug::stream_input(script);
    } else if (isatty(STDIN_FILENO) && !batch) {
        in = debug::terminal_input();
    } else {
        in = debug::stream_input(std::cin);
    }
    // Commands that were not typed are shown with a prompt, so the output reads as a session.
    o.echo = !batch && !in->interactive();
    debug::session s(std::move(*model), std::move(*file), o, *in, std::cout);
    return s.run();
}

} // namespace ptxsim::tools
