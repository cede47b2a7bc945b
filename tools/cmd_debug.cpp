// ptxsim debug LAUNCH.json: debug the kernels of a launch file (docs/debug.md).
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "check/checker.hpp"
#include "debug/line_input.hpp"
#include "debug/session.hpp"
#include "models/model.hpp"
#include "models/models_dir.hpp"
#include "sim/launch_file.hpp"
#include "tools/commands.hpp"
#include "tools/options.hpp"
#include "tools/program_runner.hpp"

namespace ptxsim::tools {

namespace {

// A CUDA program: its launches, recorded by running it once with ptxsim's
// driver (exec --record), become the launch files the session debugs.
// Empty with a message when none could be had.
std::vector<std::string> record_program(const std::vector<std::string>& argv, const std::string& model, uint64_t budget,
                                        std::filesystem::path& dir, int& status) {
    namespace fs = std::filesystem;
    std::string tmpl = (fs::temp_directory_path() / "ptxsim-debug-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) {
        std::cerr << "ptxsim debug: cannot make a folder for the program's launches\n";
        status = exit_usage;
        return {};
    }
    dir = tmpl;
    program_launch p;
    p.who = "ptxsim debug";
    p.argv = argv;
    if (!model.empty()) p.model_name = model;
    p.env.push_back({"PTXSIM_RECORD_DIR", dir.string()});
    p.env.push_back({"PTXSIM_RECORD_MAX", "1000"});
    p.env.push_back({"PTXSIM_MAX_INSTRUCTIONS", std::to_string(budget)});
    std::cout << fmt::format("[Running {} once to record its kernel launches (ptxsim exec --record)]\n", argv.front());
    std::cout.flush();
    status = run_program(p);
    std::vector<std::string> files;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.is_directory() && fs::exists(e.path() / "launch.json")) files.push_back((e.path() / "launch.json").string());
    std::sort(files.begin(), files.end()); // NNNN-kernel: in launch order
    std::cout << fmt::format("[The program exited with status {}; {} launch{} recorded: debugging {}]\n", status, files.size(),
                             files.size() == 1 ? "" : "es", files.empty() ? "nothing" : "them in order");
    if (files.empty() && status != exit_usage) {
        std::cerr << "ptxsim debug: the program made no kernel launch that could be recorded\n";
        status = exit_usage;
    }
    return files;
}

} // namespace

int cmd_debug(const std::vector<std::string>& raw_args) {
    // With a program, the options are those before it; it and its arguments are run.
    const size_t program_at = program_position(raw_args, {"-x", "--command", "--tool", "--replay", "--max-instructions", "--model"});
    std::vector<std::string> program(raw_args.begin() + long(program_at), raw_args.end());
    std::vector<std::string> args(raw_args.begin(), raw_args.begin() + long(program_at));
    if (!program.empty()) args.push_back(program[0]);
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
        "model", po::value(&model_path), "hardware model: h800, h100, h200 or a model file (default h800)")(
        "allow-newer-version", po::bool_switch(&allow_newer), "load modules whose .version is newer than 9.0");
    po::variables_map vm;
    const std::string synopsis =
        "usage: ptxsim debug [-x COMMANDS] [--batch] [--tool NAME] [--replay S] LAUNCH.json\n"
        "       ptxsim debug [options] PROGRAM [ARGS...]\n\n"
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
        "A CUDA program (built by nvcc) runs once under ptxsim exec --record; its\n"
        "launches, each with the data it read, are then debugged in order.\n\n"
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
    std::vector<std::string> paths{files[0]};
    std::filesystem::path recorded;
    struct cleanup {
        std::filesystem::path& dir;
        ~cleanup() {
            std::error_code ec;
            if (!dir.empty()) std::filesystem::remove_all(dir, ec);
        }
    } remove_recording{recorded};
    if (!program.empty()) {
        int status = 0;
        paths = record_program(program, model_path.empty() ? "h800" : model_path, budget, recorded, status);
        if (paths.empty()) return status == exit_usage ? exit_usage : exit_usage;
    }
    if (model_path.empty()) model_path = models::default_model_path(PTXSIM_SOURCE_DIR).string();
    else if (model_path.find('/') == std::string::npos && model_path.find(".json") == std::string::npos)
        model_path = (models::models_dir(PTXSIM_SOURCE_DIR) / (model_path + ".json")).string();
    parser::diagnostics d;
    auto model = models::load_model(model_path, d);
    std::vector<sim::launch_file> launch_files;
    for (const auto& p : paths) {
        if (!model) break;
        auto f = sim::read_launch_file(p, d);
        if (!f) break;
        launch_files.push_back(std::move(*f));
    }
    if (!model || launch_files.size() != paths.size()) {
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
    debug::session s(std::move(*model), std::move(launch_files), o, *in, std::cout);
    return s.run();
}

} // namespace ptxsim::tools
