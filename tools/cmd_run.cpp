// ptxsim run LAUNCH.json: run the kernels a launch file names.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "models/model.hpp"
#include "models/models_dir.hpp"
#include "sim/device.hpp"
#include "sim/explore.hpp"
#include "sim/launch_results.hpp"
#include "sim/launch_runner.hpp"
#include "tools/commands.hpp"
#include "tools/options.hpp"

namespace ptxsim::tools {

int cmd_run(const std::vector<std::string>& args) {
    po::options_description opts("options");
    std::vector<std::string> files;
    std::string model_path, dump_dir;
    uint64_t budget = 2'000'000'000;
    bool stats = false;
    uint32_t threads = 1;
    uint64_t schedule_seed = 0, replay = 0, seed = 0;
    uint32_t schedules = 0;
    bool allow_newer = false;
    opts.add_options()("file", po::value(&files), "launch file")(
        "allow-newer-version", po::bool_switch(&allow_newer),
        "a module whose .version is newer than 9.0 loads with a warning (checked as 9.0) instead of an error")(
        "model", po::value(&model_path), "hardware model file (default: models/h800.json beside the binary's source tree)")(
        "max-instructions", po::value(&budget), "stop a runaway kernel after this many warp-instructions (default 2e9)")(
        "stats", po::bool_switch(&stats), "print instructions executed, time and thread-instructions per second")(
        "threads", po::value(&threads), "host threads per launch (default 1); results are the same for race-free kernels")(
        "schedule-seed", po::value(&schedule_seed), "run under the seeded schedule S (even S: random, odd S: PCT) instead of the default order")(
        "replay", po::value(&replay), "run the schedule of a seed that --schedules reported, exactly (the same as --schedule-seed)")(
        "schedules", po::value(&schedules), "run the launch file under N seeded schedules and compare every buffer across them")(
        "seed", po::value(&seed), "with --schedules: the seed the N schedules' seeds derive from (default 0)")(
        "dump", po::value(&dump_dir), "write every buffer after the last launch to DIR/<name>.bin, listed in DIR/buffers.txt");
    po::variables_map vm;
    const std::string synopsis =
        "usage: ptxsim run [--stats] [--threads N] [--max-instructions N] [--model FILE] [--dump DIR]\n"
        "                  [--allow-newer-version] LAUNCH.json\n"
        "       ptxsim run --schedules N [--seed S] LAUNCH.json\n"
        "       ptxsim run --schedule-seed S | --replay S LAUNCH.json\n\n"
        "Runs the kernel launches of a launch file (docs/launch-file.md) on the CPU:\n"
        "creates and fills its buffers, launches each kernel, writes the outputs and\n"
        "compares the expectations. A kernel fault is reported with its kernel,\n"
        "PTX file:line (and CUDA file:line from .loc), block, thread and address.\n\n"
        "--schedules N runs the whole file in the default order and then under N\n"
        "seeded schedules (other orders of CTAs, warps and divergent paths,\n"
        "preemption at memory operations and spin loops, PCT priority changes), each\n"
        "on a fresh device, and compares every buffer after the last launch: when\n"
        "they differ it reports \"output depends on schedule\" with two seeds and the\n"
        "first differing element. --replay S reruns one of those schedules exactly.\n"
        "--dump DIR writes what every buffer holds after the last launch, for a\n"
        "bit-for-bit comparison with another run (scripts/difftest, docs/difftest.md).\n"
        "Schedules run on one host thread (docs/emulator.md, Schedules).\n\n"
        "exit status: 0 ok, 1 kernel fault, mismatch or output that depends on the\n"
        "schedule, 2 bad input";
    if (auto done = parse_options(args, synopsis, opts, "file", vm)) return *done;
    const bool one_schedule = vm.count("schedule-seed") || vm.count("replay");
    if (vm.count("schedule-seed") && vm.count("replay")) {
        std::cerr << "ptxsim run: --schedule-seed and --replay both name one schedule; give one\n\n" << synopsis << '\n';
        return exit_usage;
    }
    if (vm.count("schedules") && one_schedule) {
        std::cerr << "ptxsim run: --schedules explores many schedules; --schedule-seed/--replay runs one; give one of them\n\n"
                  << synopsis << '\n';
        return exit_usage;
    }
    if (vm.count("seed") && !vm.count("schedules")) {
        std::cerr << "ptxsim run: --seed goes with --schedules N (one schedule: --schedule-seed S)\n\n" << synopsis << '\n';
        return exit_usage;
    }
    if (vm.count("schedules") && schedules == 0) {
        std::cerr << "ptxsim run: --schedules needs at least 1\n\n" << synopsis << '\n';
        return exit_usage;
    }
    if (schedules && !dump_dir.empty()) {
        std::cerr << "ptxsim run: --dump writes one run's buffers; --schedules compares many runs itself\n\n" << synopsis << '\n';
        return exit_usage;
    }
    if (files.size() != 1) {
        std::cerr << "ptxsim run: expected exactly one launch file\n\n" << synopsis << '\n';
        return exit_usage;
    }
    if (model_path.empty()) model_path = models::default_model_path(PTXSIM_SOURCE_DIR).string();
    parser::diagnostics d;
    auto model = models::load_model(model_path, d);
    auto file = model ? sim::read_launch_file(files[0], d) : std::nullopt;
    if (!model || !file) {
        for (const auto& x : d.all()) parser::print_text(std::cerr, x);
        return exit_usage;
    }
    sim::device dev(*model);
    dev.set_compact_registers(sim::compaction_requested()); // no debugger or checker reads registers by name here
    sim::run_settings s;
    s.options.max_warp_instructions = budget;
    s.options.threads = std::max<uint32_t>(1, threads);
    s.stats = stats;
    s.validate.allow_newer_version = allow_newer;
    if ((one_schedule || schedules) && threads > 1)
        std::cerr << "ptxsim run: note: schedules run on one host thread; --threads " << threads << " is not used\n";
    if (schedules && stats) std::cerr << "ptxsim run: note: --stats is not used with --schedules (each run is quiet)\n";
    sim::buffer_contents final_buffers;
    if (!dump_dir.empty()) s.final_buffers = &final_buffers;
    // Left empty when a launch faulted: there is nothing to compare then.
    auto dumped = [&](int status) {
        if (dump_dir.empty() || final_buffers.empty()) return status;
        if (std::string why = sim::dump_buffers(dump_dir, *file, final_buffers); !why.empty()) {
            std::cerr << "ptxsim run: --dump: " << why << '\n';
            return int(exit_usage);
        }
        return status;
    };
    if (one_schedule)
        return dumped(sim::run_schedule(*model, *file, s, vm.count("replay") ? replay : schedule_seed, std::cout, std::cerr));
    if (schedules) {
        sim::explore_settings e;
        e.run = s;
        e.seed = seed;
        e.schedules = schedules;
        return sim::explore_schedules(*model, *file, e, std::cout, std::cerr).status;
    }
    return dumped(sim::run_launch_file(dev, *file, s, std::cout, std::cerr));
}

} // namespace ptxsim::tools
