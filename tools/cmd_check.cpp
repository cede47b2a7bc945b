// ptxsim check [--tool T] LAUNCH.json: run a launch file with a checker
// attached and report what it finds (docs/check.md).
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>
#include <fstream>
#include <iostream>
#include <sstream>

#include "check/checker.hpp"
#include "check/explore_check.hpp"
#include "check/report.hpp"
#include "models/model.hpp"
#include "models/models_dir.hpp"
#include "sim/device.hpp"
#include "sim/launch_runner.hpp"
#include "tools/commands.hpp"
#include "tools/options.hpp"
#include "tools/program_runner.hpp"

namespace ptxsim::tools {

namespace {

// Options of `ptxsim check` that take a value (PROGRAM is the first other word).
const std::set<std::string> options_with_value = {"--tool", "--report-json", "--error-exitcode", "--print-limit", "--model",
                                                  "--max-instructions", "--schedules", "--seed", "--replay", "--volatile-model"};

// Runs the program with the checkers in its CUDA driver (cuda/driver/checking.cpp),
// which writes the findings as JSON at exit; the exit status follows them.
int check_program(const std::vector<std::string>& program, const std::string& model, const std::vector<std::string>& tools,
                  const check::checker_options& o, uint64_t print_limit, uint64_t budget, const std::string& json_path,
                  int error_exitcode, const std::vector<std::pair<std::string, std::string>>& exploring) {
    const auto report = std::filesystem::temp_directory_path() / fmt::format("ptxsim-check-{}.json", getpid());
    program_launch p;
    p.who = "ptxsim check";
    if (!model.empty()) p.model_name = model;
    p.argv = program;
    std::string names;
    for (const auto& t : tools) names += (names.empty() ? "" : ",") + t;
    static const char* volatile_names[] = {"auto", "cuda", "ptx", "plain"};
    p.env = {{"PTXSIM_CHECK_TOOLS", names},
             {"PTXSIM_CHECK_REPORT", report.string()},
             {"PTXSIM_CHECK_PRINT_LIMIT", std::to_string(print_limit)},
             {"PTXSIM_MAX_INSTRUCTIONS", std::to_string(budget)},
             {"PTXSIM_CHECK_OPTIONS", fmt::format("volatile={},warp_sync={},only_intra_warp={},cuda_barrier_rule={}",
                                                  volatile_names[int(o.volatile_reading)], int(o.warp_synchronous),
                                                  int(o.only_intra_warp), int(o.cuda_barrier_rule))}};
    p.env.insert(p.env.end(), exploring.begin(), exploring.end());
    std::filesystem::remove(report);
    const int status = run_program(p);
    std::ifstream in(report);
    if (!in) {
        // Started but never reached the end (killed, or never loaded the driver).
        if (status != exit_usage)
            std::cerr << "ptxsim check: the program ended without the checkers' report (it never used CUDA, or did not exit normally)\n";
        return status;
    }
    std::stringstream text;
    text << in.rdbuf();
    in.close();
    std::filesystem::remove(report);
    if (!json_path.empty()) {
        std::ofstream outj(json_path);
        outj << text.str();
        if (!outj) {
            std::cerr << fmt::format("ptxsim check: cannot write {}\n", json_path);
            return exit_usage;
        }
    }
    uint64_t errors = 0;
    try {
        errors = nlohmann::json::parse(text.str())["summary"]["errors"].get<uint64_t>();
    } catch (const std::exception&) {
        std::cerr << "ptxsim check: the checkers' report does not read\n";
        return exit_usage;
    }
    return errors ? error_exitcode : status;
}

} // namespace

int cmd_check(const std::vector<std::string>& raw_args) {
    // With a program, the options are those before it; it and its arguments are run.
    const size_t program_at = program_position(raw_args, options_with_value);
    std::vector<std::string> program(raw_args.begin() + long(program_at), raw_args.end());
    std::vector<std::string> args(raw_args.begin(), raw_args.begin() + long(program_at));
    if (!program.empty()) args.push_back(program[0]);
    po::options_description opts("options");
    std::vector<std::string> files, tools;
    std::string model_path, json_path;
    uint64_t budget = 2'000'000'000;
    int error_exitcode = 1;
    uint64_t print_limit = 100;
    uint32_t schedules = 0;
    uint64_t seed = 0, replay = 0;
    check::checker_options checker_opts;
    std::string volatile_model;
    bool volatile_as_plain = false;
    bool allow_newer = false;
    opts.add_options()("file", po::value(&files), "launch file")(
        "allow-newer-version", po::bool_switch(&allow_newer),
        "a module whose .version is newer than 9.0 loads with a warning (checked as 9.0) instead of an error")(
        "tool", po::value(&tools), "memcheck (default), racecheck, initcheck, synccheck or all (comma-separated or repeated)")(
        "report-json", po::value(&json_path), "also write the findings as JSON to FILE (docs/check.md)")(
        "error-exitcode", po::value(&error_exitcode), "exit status when an error is found (default 1)")(
        "print-limit", po::value(&print_limit), "print at most N findings on stderr (default 100; 0: all)")(
        "model", po::value(&model_path), "hardware model file (default: models/h800.json beside the binary's source tree)")(
        "max-instructions", po::value(&budget), "stop a runaway kernel after this many warp-instructions (default 2e9)")(
        "schedules", po::value(&schedules), "run under the default order and N seeded schedules, with the checkers on each")(
        "seed", po::value(&seed), "with --schedules: the seed the N schedules' seeds derive from (default 0)")(
        "replay", po::value(&replay), "run the one schedule of a seed that --schedules reported, with the checkers")(
        "volatile-model", po::value(&volatile_model),
        "racecheck: how .volatile is read: auto (default: CUDA C++'s volatile in code nvcc compiled, PTX's relaxed.sys in inline "
        "asm and hand-written PTX), cuda, ptx or plain")(
        "volatile-as-plain", po::bool_switch(&volatile_as_plain), "racecheck: --volatile-model plain")(
        "assume-warp-sync", po::bool_switch(&checker_opts.warp_synchronous),
        "racecheck: lanes of a warp run in lockstep (pre-Volta warp-synchronous code): no intra-warp hazards")(
        "only-intra-warp", po::bool_switch(&checker_opts.only_intra_warp),
        "racecheck: report only hazards between lanes of one warp, none between warps or CTAs")(
        "cuda-barrier-rule", po::bool_switch(&checker_opts.cuda_barrier_rule),
        "synccheck: a barrier without a thread count (__syncthreads) must be reached by every thread of the block at one "
        "instruction, as CUDA C++ requires (PTX lets exited threads release it)");
    po::variables_map vm;
    const std::string synopsis =
        "usage: ptxsim check [--tool memcheck|racecheck|initcheck|synccheck|all] [--report-json FILE]\n"
        "                    [--error-exitcode N] [--print-limit N] [--model FILE] [--max-instructions N]\n"
        "                    [--schedules N [--seed S] | --replay S] [--volatile-model auto|cuda|ptx|plain]\n"
        "                    [--assume-warp-sync] [--only-intra-warp] [--cuda-barrier-rule]\n"
        "                    [--allow-newer-version] LAUNCH.json\n"
        "       ptxsim check [options] PROGRAM [ARGS...]\n\n"
        "Runs the kernel launches of a launch file like `ptxsim run`, or every launch\n"
        "of a CUDA program like `ptxsim exec` (docs/exec.md), with a checker\n"
        "attached, and reports its findings on stderr in compute-sanitizer's style:\n"
        "kind, access size, space, address, kernel, PTX file:line (and CUDA file:line\n"
        "from .loc), block, thread and the nearest allocation. Identical findings are\n"
        "folded with a count.\n\n"
        "memcheck: out-of-bounds, misaligned and use-after-free accesses in every\n"
        "space, invalid generic addresses and atomics, double and invalid device\n"
        "free, stack overflow (the launch stops at the first of these), device\n"
        "malloc returning NULL (a warning) and device malloc blocks never freed.\n\n"
        "racecheck: data races by the PTX memory model's happens-before: RAW, WAR and\n"
        "WAW hazards on shared memory and races on global memory between warps of any\n"
        "CTAs, intra-warp hazards (code relying on warp-synchronous execution), scoped\n"
        "release/acquire, fences and atomics, mbarrier phases, cluster barriers,\n"
        "asynchronous copies and the async proxy, wgmma accumulators read early.\n\n"
        "--schedules N runs the launch file in the default order and under N seeded\n"
        "schedules, each on a fresh device with the checkers attached, and reports\n"
        "every run's findings folded, each naming the schedule that first showed it;\n"
        "two fault-free runs whose buffers differ give an output-depends-on-schedule\n"
        "error at the instruction that last wrote the first differing byte.\n"
        "--replay S runs the schedule of seed S alone, with the same findings and bits.\n"
        "With a PROGRAM, both work per launch: each launch runs in the program as\n"
        "usual and its recording (as `ptxsim exec --record` writes it) is explored, or\n"
        "replayed under seed S; what only a schedule shows joins the report.\n"
        "--volatile-model says how .volatile is read. auto (the default) decides per\n"
        "instruction: a volatile access nvcc compiled from CUDA C++ gives lanes of a warp\n"
        "no ordering (the pre-Volta warp-synchronous reduction is an intra-warp hazard),\n"
        "one in inline asm or a hand-written .ptx is PTX's relaxed.sys, which never races.\n"
        "cuda and ptx apply one reading to the whole module; plain (or --volatile-as-plain)\n"
        "makes every volatile access plain: two unordered ones race, even between warps.\n"
        "--assume-warp-sync checks code written for lockstep warps (before Volta): accesses\n"
        "of one warp are ordered in the order it runs them, so no intra-warp hazard.\n"
        "--only-intra-warp reports only hazards between lanes of one warp.\n\n"
        "initcheck: reads of bytes nothing wrote: launch-file buffers without\n"
        "\"init\" (as after cudaMalloc), device malloc blocks, shared and local memory.\n\n"
        "synccheck: CTA barriers reached by part of a warp, barrier thread counts\n"
        "that disagree, warp-synchronous member masks naming lanes that never\n"
        "arrive, and deadlocks with where each warp waits (the launch stops at the\n"
        "first of these).\n"
        "--cuda-barrier-rule adds CUDA C++'s rule for __syncthreads() and\n"
        "thread_block::sync(): a barrier without a thread count whose threads exited\n"
        "instead of reaching it (`if (i >= n) return;` before it), or reached it at\n"
        "different instructions, is a non-uniform-barrier error.\n\n"
        "exit status: 0 clean (warnings only), N (--error-exitcode, default 1) errors\n"
        "found, 1 output mismatch, 2 bad input or usage";
    if (auto done = parse_options(args, synopsis, opts, "file", vm)) return *done;
    if (files.size() != 1) {
        std::cerr << "ptxsim check: expected exactly one launch file\n\n" << synopsis << '\n';
        return exit_usage;
    }
    if (vm.count("schedules") && vm.count("replay")) {
        std::cerr << "ptxsim check: --schedules explores many schedules; --replay runs one; give one of them\n\n" << synopsis << '\n';
        return exit_usage;
    }
    if (vm.count("seed") && !vm.count("schedules")) {
        std::cerr << "ptxsim check: --seed goes with --schedules N (one schedule: --replay S)\n\n" << synopsis << '\n';
        return exit_usage;
    }
    if (!volatile_model.empty()) {
        static const std::pair<const char*, check::volatile_model> models[] = {{"auto", check::volatile_model::auto_},
                                                                               {"cuda", check::volatile_model::cuda},
                                                                               {"ptx", check::volatile_model::ptx},
                                                                               {"plain", check::volatile_model::plain}};
        auto it = std::find_if(std::begin(models), std::end(models), [&](const auto& m) { return volatile_model == m.first; });
        if (it == std::end(models)) {
            std::cerr << fmt::format("ptxsim check: unknown --volatile-model '{}' (auto, cuda, ptx or plain)\n\n", volatile_model) << synopsis
                      << '\n';
            return exit_usage;
        }
        checker_opts.volatile_reading = it->second;
    }
    if (volatile_as_plain) {
        if (!volatile_model.empty() && volatile_model != "plain") {
            std::cerr << fmt::format("ptxsim check: --volatile-as-plain is --volatile-model plain, not {}\n\n", volatile_model) << synopsis
                      << '\n';
            return exit_usage;
        }
        checker_opts.volatile_reading = check::volatile_model::plain;
    }
    if (vm.count("schedules") && schedules == 0) {
        std::cerr << "ptxsim check: --schedules needs at least 1\n\n" << synopsis << '\n';
        return exit_usage;
    }
    // Which checkers run, in the order `all` lists them. A tool that is not
    // built is refused by name, never skipped quietly.
    const std::vector<std::string> planned = {"memcheck", "racecheck", "initcheck", "synccheck"};
    std::vector<std::string> run_tools;
    auto want = [&](const std::string& name) {
        if (std::find(run_tools.begin(), run_tools.end(), name) == run_tools.end()) run_tools.push_back(name);
    };
    for (const auto& t : tools) {
        std::stringstream list(t);
        for (std::string name; std::getline(list, name, ',');) {
            const auto& built = check::tool_names();
            if (name == "all") {
                for (const auto& n : built) want(n);
            } else if (std::find(built.begin(), built.end(), name) != built.end()) {
                want(name);
            } else if (std::find(planned.begin(), planned.end(), name) != planned.end()) {
                std::cerr << fmt::format("ptxsim check: --tool {} is not implemented yet\n", name);
                return exit_usage;
            } else {
                std::cerr << fmt::format("ptxsim check: unknown tool '{}' (memcheck, racecheck, initcheck, synccheck or all)\n", name);
                return exit_usage;
            }
        }
    }
    if (run_tools.empty()) run_tools.push_back("memcheck");
    {
        std::vector<std::string> sorted;
        for (const auto& n : check::tool_names())
            if (std::find(run_tools.begin(), run_tools.end(), n) != run_tools.end()) sorted.push_back(n);
        run_tools = sorted;
    }
    // A model option for a tool that is not running changes nothing: say so
    // rather than let the user think it was applied.
    auto running = [&](const char* t) { return std::find(run_tools.begin(), run_tools.end(), t) != run_tools.end(); };
    const std::pair<bool, const char*> racecheck_options[] = {{!volatile_model.empty() || volatile_as_plain, "--volatile-model"},
                                                              {checker_opts.warp_synchronous, "--assume-warp-sync"},
                                                              {checker_opts.only_intra_warp, "--only-intra-warp"}};
    for (auto [given, name] : racecheck_options)
        if (given && !running("racecheck")) std::cerr << fmt::format("ptxsim check: note: {} is a racecheck option; racecheck is not running\n", name);
    if (checker_opts.cuda_barrier_rule && !running("synccheck"))
        std::cerr << "ptxsim check: note: --cuda-barrier-rule is a synccheck option; synccheck is not running\n";
    if (!program.empty()) {
        std::vector<std::pair<std::string, std::string>> exploring;
        if (vm.count("schedules"))
            exploring = {{"PTXSIM_CHECK_SCHEDULES", std::to_string(schedules)}, {"PTXSIM_CHECK_SEED", std::to_string(seed)}};
        if (vm.count("replay")) exploring = {{"PTXSIM_CHECK_REPLAY", std::to_string(replay)}};
        return check_program(program, model_path, run_tools, checker_opts, print_limit, budget, json_path, error_exitcode, exploring);
    }
    if (model_path.empty()) model_path = models::default_model_path(PTXSIM_SOURCE_DIR).string();
    parser::diagnostics d;
    auto model = models::load_model(model_path, d);
    auto file = model ? sim::read_launch_file(files[0], d) : std::nullopt;
    if (!model || !file) {
        for (const auto& x : d.all()) parser::print_text(std::cerr, x);
        return exit_usage;
    }

    check::report rep;
    sim::run_settings s;
    s.options.max_warp_instructions = budget;
    s.options.threads = 1; // one host thread: findings in a deterministic order
    s.validate.allow_newer_version = allow_newer;
    // memcheck turns the fault that stops a launch into a finding; without it
    // the fault is printed as `ptxsim run` prints it (after the summary),
    // never left unexplained. A checker's own stop is its finding either way.
    s.report_faults = std::find(run_tools.begin(), run_tools.end(), "memcheck") == run_tools.end();
    std::ostringstream run_err;
    int status;
    if (vm.count("schedules") || vm.count("replay")) {
        check::schedule_check_settings e;
        e.tools = run_tools;
        e.options = checker_opts;
        e.run = s;
        e.seed = seed;
        e.schedules = schedules;
        status = vm.count("replay") ? check::check_replay(*model, *file, e, replay, rep, std::cout, run_err)
                                    : check::check_schedules(*model, *file, e, rep, std::cout, run_err);
    } else {
        std::vector<std::unique_ptr<check::checker>> checkers;
        check::fanout all;
        for (const auto& name : run_tools) {
            checkers.push_back(check::make_checker(name, rep, checker_opts));
            all.add(checkers.back().get());
        }
        sim::device dev(*model);
        s.options.observer = &all;
        status = sim::run_launch_file(dev, *file, s, std::cout, run_err);
        if (status != exit_usage) all.finish(); // leaks, when the launch file ran to its end
    }
    if (status == exit_usage) {
        std::cerr << run_err.str();
        return exit_usage;
    }

    rep.print_text(std::cerr, print_limit);
    std::cerr << run_err.str(); // output mismatches
    if (!json_path.empty()) {
        std::ofstream o(json_path);
        o << rep.json(run_tools);
        if (!o) {
            std::cerr << fmt::format("ptxsim check: cannot write {}\n", json_path);
            return exit_usage;
        }
    }
    if (rep.errors()) return error_exitcode;
    return status;
}

} // namespace ptxsim::tools
