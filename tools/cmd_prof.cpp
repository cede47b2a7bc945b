// ptxsim prof LAUNCH.json: run a launch file under the timing model
// (sim/timing/) and report cycles, IPC, occupancy, stall reasons, cache
// and DRAM figures and a per-source-line table per launch.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <sstream>

#include "models/model.hpp"
#include "sim/device.hpp"
#include "sim/launch_runner.hpp"
#include "sim/timing/register_counts.hpp"
#include "sim/timing/report.hpp"
#include "sim/timing/timing_model.hpp"
#include "tools/commands.hpp"
#include "tools/options.hpp"

namespace ptxsim::tools {

namespace {

// Occupancy needs the registers ptxas allocates: a launch's own
// "registers_per_thread" wins, else ptxas -v when it is found, else the
// kernel's .maxnreg (or none: registers do not limit residency). Says which.
void registers_from_ptxas(sim::launch_file& f) {
    bool missing = false;
    for (const auto& l : f.launches) missing |= l.registers_per_thread == 0;
    if (!missing) return;
    const std::string ptxas = sim::timing::find_ptxas();
    if (ptxas.empty()) {
        std::cerr << "ptxsim prof: note: ptxas not found: registers per thread come from the launch file's "
                     "\"registers_per_thread\" or the kernel's .maxnreg, else they do not limit occupancy\n";
        return;
    }
    std::map<std::string, uint32_t> regs;
    for (const auto& module : f.modules) {
        std::string why;
        for (const auto& [name, n] : sim::timing::ptxas_registers(ptxas, module, why)) regs.emplace(name, n);
        if (!why.empty()) std::cerr << "ptxsim prof: note: " << why << "; its kernels' registers are not known\n";
    }
    for (auto& l : f.launches)
        if (l.registers_per_thread == 0)
            if (auto it = regs.find(l.kernel); it != regs.end() && it->second) {
                l.registers_per_thread = it->second;
                std::cerr << fmt::format("ptxsim prof: note: {}: {} registers per thread (ptxas -v)\n", l.kernel, it->second);
            }
}

} // namespace

int cmd_prof(const std::vector<std::string>& args) {
    po::options_description opts("options");
    std::vector<std::string> files;
    std::string model_name = "h800";
    uint64_t budget = 2'000'000'000;
    size_t lines = 10;
    bool json = false;
    opts.add_options()("file", po::value(&files), "launch file")(
        "model", po::value(&model_name), "the GPU: h800 (default), h100, h200, or a model file's path")(
        "json", po::bool_switch(&json), "print the report as JSON (every metric, every source line, each CTA's SM and cycles)")(
        "lines", po::value(&lines), "source lines in the text report, most cycles first (default 10; 0: none)")(
        "max-instructions", po::value(&budget), "stop a runaway kernel after this many warp-instructions (default 2e9)");
    po::variables_map vm;
    const std::string synopsis =
        "usage: ptxsim prof [--model h800|h100|h200|FILE] [--json] [--lines N] [--max-instructions N] LAUNCH.json\n\n"
        "Runs the launches of a launch file (docs/launch-file.md) under ptxsim's cycle\n"
        "model of the GPU (docs/timing.md): outputs are written and expectations\n"
        "checked as `ptxsim run` does, and each launch is reported with its cycles,\n"
        "time at the model's clock, warp-instructions, IPC, theoretical and achieved\n"
        "occupancy with the limiting resource, stall reasons, L1/L2 hit rates, DRAM\n"
        "bytes, shared-memory bank conflicts, tensor-pipe use and the source lines that\n"
        "took the most cycles, under Nsight Compute's metric names. A launch's \"sms\"\n"
        "(a count or a list of SM ids) restricts it to those SMs. Registers per thread\n"
        "come from the launch's \"registers_per_thread\", else from ptxas -v when the\n"
        "CUDA toolkit is found ($PTXAS, /usr/local/cuda/bin, PATH), else .maxnreg.\n\n"
        "exit status: 0 ok, 1 kernel fault or mismatch, 2 bad input";
    if (auto done = parse_options(args, synopsis, opts, "file", vm)) return *done;
    if (files.size() != 1) {
        std::cerr << "ptxsim prof: expected exactly one launch file\n\n" << synopsis << '\n';
        return exit_usage;
    }
    std::string model_path = model_name;
    if (model_name.find('/') == std::string::npos && !model_name.ends_with(".json")) {
        auto found = models::find_model(model_name, std::filesystem::path(PTXSIM_SOURCE_DIR) / "models");
        if (!found) {
            std::string known;
            for (const auto& n : models::list_models(std::filesystem::path(PTXSIM_SOURCE_DIR) / "models"))
                known += (known.empty() ? "" : ", ") + n;
            std::cerr << fmt::format("ptxsim prof: unknown model '{}' (known: {}; or give a model file's path)\n", model_name, known);
            return exit_usage;
        }
        model_path = found->string();
    }
    parser::diagnostics d;
    auto model = models::load_model(model_path, d);
    auto file = model ? sim::read_launch_file(files[0], d) : std::nullopt;
    if (!model || !file) {
        for (const auto& x : d.all()) parser::print_text(std::cerr, x);
        return exit_usage;
    }
    registers_from_ptxas(*file);
    sim::device dev(*model);
    sim::timing::timing_model timing(*model);
    sim::run_settings s;
    s.options.max_warp_instructions = budget;
    s.options.observer = &timing;
    s.options.schedule = &timing;
    std::ostringstream run_out;
    const int status = sim::run_launch_file(dev, *file, s, json ? run_out : std::cout, std::cerr);
    if (timing.launches().empty()) return status;
    if (json) {
        std::cout << sim::timing::to_json(timing.launches(), *model) << '\n';
        return status;
    }
    for (const auto& p : timing.launches()) {
        std::cout << '\n';
        sim::timing::print_text(std::cout, p, *model, lines);
    }
    return status;
}

} // namespace ptxsim::tools
