// ptxsim run LAUNCH.json: run the kernels a launch file names.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "models/model.hpp"
#include "sim/device.hpp"
#include "sim/launch_runner.hpp"
#include "tools/commands.hpp"
#include "tools/options.hpp"

namespace ptxsim::tools {

int cmd_run(const std::vector<std::string>& args) {
    po::options_description opts("options");
    std::vector<std::string> files;
    std::string model_path;
    uint64_t budget = 2'000'000'000;
    bool stats = false;
    uint32_t threads = 1;
    opts.add_options()("file", po::value(&files), "launch file")(
        "model", po::value(&model_path), "hardware model file (default: models/h800.json beside the binary's source tree)")(
        "max-instructions", po::value(&budget), "stop a runaway kernel after this many warp-instructions (default 2e9)")(
        "stats", po::bool_switch(&stats), "print instructions executed, time and thread-instructions per second")(
        "threads", po::value(&threads), "host threads per launch (default 1); results are the same for race-free kernels");
    po::variables_map vm;
    const std::string synopsis =
        "usage: ptxsim run [--stats] [--threads N] [--max-instructions N] [--model FILE] LAUNCH.json\n\n"
        "Runs the kernel launches of a launch file (docs/launch-file.md) on the CPU:\n"
        "creates and fills its buffers, launches each kernel, writes the outputs and\n"
        "compares the expectations. A kernel fault is reported with its kernel,\n"
        "PTX file:line (and CUDA file:line from .loc), block, thread and address.\n\n"
        "exit status: 0 ok, 1 kernel fault or mismatch, 2 bad input";
    if (auto done = parse_options(args, synopsis, opts, "file", vm)) return *done;
    if (files.size() != 1) {
        std::cerr << "ptxsim run: expected exactly one launch file\n\n" << synopsis << '\n';
        return exit_usage;
    }
    if (model_path.empty()) model_path = std::string(PTXSIM_SOURCE_DIR) + "/models/h800.json";
    parser::diagnostics d;
    auto model = models::load_model(model_path, d);
    auto file = model ? sim::read_launch_file(files[0], d) : std::nullopt;
    if (!model || !file) {
        for (const auto& x : d.all()) parser::print_text(std::cerr, x);
        return exit_usage;
    }
    sim::device dev(*model);
    sim::run_settings s;
    s.options.max_warp_instructions = budget;
    s.options.threads = std::max<uint32_t>(1, threads);
    s.stats = stats;
    return sim::run_launch_file(dev, *file, s, std::cout, std::cerr);
}

} // namespace ptxsim::tools
