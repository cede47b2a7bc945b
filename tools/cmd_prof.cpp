// ptxsim prof LAUNCH.json: run a launch file under the timing model
// (sim/timing/) and report cycles, IPC, occupancy, stall reasons, cache
// and DRAM figures and a per-source-line table per launch.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <iostream>
#include <set>
#include <sstream>

#include "models/model.hpp"
#include "models/models_dir.hpp"
#include "sim/device.hpp"
#include "sim/launch_runner.hpp"
#include "sim/timing/register_counts.hpp"
#include "sim/timing/report.hpp"
#include "sim/timing/trace.hpp"
#include "sim/timing/timing_model.hpp"
#include "tools/commands.hpp"
#include "tools/options.hpp"
#include "tools/program_runner.hpp"

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
        std::cerr << "ptxsim prof: warning: ptxas not found: registers per thread come from the launch file's "
                     "\"registers_per_thread\" or the kernel's .maxnreg, else from an estimate from the PTX (the most "
                     "32-bit registers live at once; 25% from ptxas on average): occupancy may differ from the GPU's\n";
        return;
    }
    std::map<std::string, uint32_t> regs;
    for (const auto& module : f.modules) {
        if (!std::filesystem::exists(module)) continue; // the run says so
        std::string why;
        for (const auto& [name, n] : sim::timing::ptxas_registers(ptxas, module, why)) regs.emplace(name, n);
        if (!why.empty()) std::cerr << "ptxsim prof: warning: " << why << "; its kernels' registers are estimated from the PTX\n";
    }
    std::set<std::string> said; // one note per kernel, however many launches it has
    for (auto& l : f.launches)
        if (l.registers_per_thread == 0)
            if (auto it = regs.find(l.kernel); it != regs.end() && it->second) {
                l.registers_per_thread = it->second;
                if (said.insert(l.kernel).second)
                    std::cerr << fmt::format("ptxsim prof: note: {}: {} registers per thread (ptxas -v)\n", l.kernel, it->second);
            }
}

// A path the report can be written to: its folder exists and is writable
// (checked before the run, so a bad path costs nothing and leaves nothing).
std::string unwritable(const std::string& path) {
    const auto dir = std::filesystem::path(path).parent_path().empty() ? std::filesystem::path(".") : std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) return fmt::format("'{}': no such folder", dir.string());
    if (std::filesystem::is_directory(path, ec)) return fmt::format("'{}' is a folder", path);
    if (access(dir.c_str(), W_OK) != 0) return fmt::format("'{}': cannot write there", dir.string());
    return {};
}

// Whole or not at all: written beside the target, then renamed over it.
bool write_whole(const std::string& path, const std::string& text) {
    const std::string tmp = path + ".ptxsim-tmp";
    {
        std::ofstream out(tmp, std::ios::binary);
        out << text;
        if (!out.flush()) {
            std::filesystem::remove(tmp);
            return false;
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) std::filesystem::remove(tmp);
    return !ec;
}

// Options of `ptxsim prof` that take a value (PROGRAM is the first other word).
const std::set<std::string> options_with_value = {"--model", "--trace", "--svg", "--sample", "--threads",
                                                  "--lines", "--max-instructions", "--report"};

// `ptxsim prof PROGRAM`: the program runs with the timing model in its CUDA
// driver (cuda/driver/profiling.cpp), which reports every launch at exit.
int prof_program(const std::vector<std::string>& program, const std::string& model, bool json, const std::string& report,
                 const std::string& trace, const std::string& svg, size_t lines, uint32_t sample, uint64_t budget) {
    program_launch p;
    p.who = "ptxsim prof";
    p.model_name = model;
    p.argv = program;
    p.env = {{"PTXSIM_PROF", "1"},
             {"PTXSIM_PROF_JSON", json ? "1" : "0"},
             {"PTXSIM_PROF_LINES", std::to_string(lines)},
             {"PTXSIM_PROF_SAMPLE", std::to_string(sample)},
             {"PTXSIM_MAX_INSTRUCTIONS", std::to_string(budget)}};
    namespace fs = std::filesystem;
    for (auto [name, path] : {std::pair{"PTXSIM_PROF_REPORT", &report}, std::pair{"PTXSIM_PROF_TRACE", &trace},
                              std::pair{"PTXSIM_PROF_SVG", &svg}})
        if (!path->empty()) p.env.push_back({name, fs::absolute(*path).string()});  // the program may change folder
    return run_program(p);
}

} // namespace

int cmd_prof(const std::vector<std::string>& raw_args) {
    // With a program, the options are those before it; it and its arguments are run.
    const size_t program_at = program_position(raw_args, options_with_value);
    const std::vector<std::string> program(raw_args.begin() + long(program_at), raw_args.end());
    std::vector<std::string> args(raw_args.begin(), raw_args.begin() + long(program_at));
    if (!program.empty()) args.push_back(program[0]);
    std::string report_path;
    po::options_description opts("options");
    std::vector<std::string> files;
    std::string model_name = "h800";
    uint64_t budget = 2'000'000'000;
    size_t lines = 10;
    uint32_t sample = 0, threads = 1;
    bool json = false;
    std::string trace_path, svg_path;
    opts.add_options()("file", po::value(&files), "launch file")(
        "model", po::value(&model_name), "the GPU: h800 (default), h100, h200, or a model file's path")(
        "json", po::bool_switch(&json), "print the report as JSON (every metric, every source line, each CTA's SM and cycles)")(
        "trace", po::value(&trace_path), "write a Chrome/Perfetto trace to FILE: a track per SM (CTAs as spans), a track per stream, an HBM counter")(
        "svg", po::value(&svg_path), "write the timeline to FILE as SVG: SMs down, time across, coloured by kernel")(
        "sample", po::value(&sample), "simulate the first WAVES (3 or more; 5 advised) waves of each launch in detail (a wave: the CTAs "
                                      "its SMs hold at once), run the rest without timing and extrapolate (default: every CTA in detail)")(
        "threads", po::value(&threads), "host threads for the CTAs --sample runs without timing (default 1)")(
        "lines", po::value(&lines), "source lines in the text report, most cycles first (default 10; 0: none)")(
        "report", po::value(&report_path), "with a PROGRAM: write the report to FILE rather than standard error")(
        "max-instructions", po::value(&budget), "stop a runaway kernel after this many warp-instructions (default 2e9)");
    po::variables_map vm;
    const std::string synopsis =
        "usage: ptxsim prof [--model h800|h100|h200|FILE] [--json] [--lines N] [--trace FILE] [--svg FILE]\n"
        "                   [--sample WAVES [--threads N]] [--max-instructions N] LAUNCH.json\n"
        "       ptxsim prof [--model ...] [--json] [--report FILE] [--lines N] [--trace FILE] [--svg FILE]\n"
        "                   [--sample WAVES] [--max-instructions N] PROGRAM [ARGS...]\n\n"
        "Runs the launches of a launch file (docs/launch-file.md) under ptxsim's cycle\n"
        "model of the GPU (docs/timing.md): outputs are written and expectations\n"
        "checked as `ptxsim run` does, and each launch is reported with its cycles,\n"
        "time at the model's clock, warp-instructions, IPC, theoretical and achieved\n"
        "occupancy with the limiting resource, stall reasons, L1/L2 hit rates, DRAM\n"
        "bytes, shared-memory bank conflicts, tensor-pipe use and the source lines that\n"
        "took the most cycles, under Nsight Compute's metric names. A launch's \"sms\"\n"
        "(a count or a list of SM ids) restricts it to those SMs; launches on different\n"
        "\"stream\"s overlap in time. Registers per thread come from the launch's\n"
        "\"registers_per_thread\", else from ptxas -v when the CUDA toolkit is found\n"
        "($PTXAS, /usr/local/cuda/bin, PATH; PTXAS=none: not used), else .maxnreg,\n"
        "else an estimate from the PTX (with a warning). With --sample WAVES, only\n"
        "the first WAVES waves of CTAs of each launch are simulated in detail; the\n"
        "rest run without timing (results still whole) and the launch's cycles and\n"
        "counters are extrapolated (docs/timing.md, \"Sampling\").\n\n"
        "With a PROGRAM (an executable built by nvcc; docs/exec.md), the program runs\n"
        "as under `ptxsim exec` and each launch it makes runs under the cycle model,\n"
        "one after the other on one time line; the reports come on standard error\n"
        "when it exits (or in --report FILE), and cudaEventElapsedTime gives the\n"
        "simulated time. The program's output and exit status are its own.\n\n"
        "exit status: 0 ok, 1 kernel fault or mismatch, 2 bad input";
    if (auto done = parse_options(args, synopsis, opts, "file", vm)) return *done;
    if (vm.count("sample") && sample < 3) {
        std::cerr << "ptxsim prof: --sample: at least 3 waves (the first starts cold, the one before the last is measured while "
                     "the last keeps the SMs busy); 5 is within 5% of the full simulation on scripts/sample_error.py's kernels\n";
        return exit_usage;
    }
    if (vm.count("threads") && threads == 0) {
        std::cerr << "ptxsim prof: --threads: 1 or more\n";
        return exit_usage;
    }
    if (!program.empty()) {
        if (vm.count("threads")) {
            std::cerr << "ptxsim prof: --threads is for launch files; a program's launches run on one host thread\n";
            return exit_usage;
        }
        for (const auto* p : {&trace_path, &svg_path, &report_path})
            if (!p->empty())
                if (std::string why = unwritable(*p); !why.empty()) {
                    std::cerr << fmt::format("ptxsim prof: {}\n", why);
                    return exit_usage;
                }
        return prof_program(program, model_name, json, report_path, trace_path, svg_path, lines, sample, budget);
    }
    if (!report_path.empty()) {
        std::cerr << "ptxsim prof: --report goes with a PROGRAM; a launch file's report is on standard output (--json: as JSON)\n";
        return exit_usage;
    }
    if (threads > 1 && !sample)
        std::cerr << "ptxsim prof: note: --threads is for the CTAs --sample runs without timing; the timing model runs on one\n";
    if (files.size() != 1) {
        std::cerr << "ptxsim prof: expected exactly one launch file\n\n" << synopsis << '\n';
        return exit_usage;
    }
    for (const auto* p : {&trace_path, &svg_path})
        if (!p->empty())
            if (std::string why = unwritable(*p); !why.empty()) {
                std::cerr << fmt::format("ptxsim prof: --{}: {}\n", p == &trace_path ? "trace" : "svg", why);
                return exit_usage;
            }
    std::string model_path = model_name;
    if (model_name.find('/') == std::string::npos && !model_name.ends_with(".json")) {
        auto found = models::find_model(model_name, models::models_dir(PTXSIM_SOURCE_DIR));
        if (!found) {
            std::string known;
            for (const auto& n : models::list_models(models::models_dir(PTXSIM_SOURCE_DIR)))
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
    dev.set_compact_registers(sim::compaction_requested()); // no debugger or checker reads registers by name here
    sim::timing::timing_model timing(*model);
    sim::run_settings s;
    s.options.max_warp_instructions = budget;
    s.options.observer = &timing;
    s.options.schedule = &timing;
    s.options.sample_waves = sample;
    s.options.threads = threads; // the timing model's part runs on one; --sample's rest on these
    s.options.estimate_registers = true; // where neither the launch file, ptxas nor .maxnreg says
    std::ostringstream run_out;
    const int status = sim::run_launch_file(dev, *file, s, json ? run_out : std::cout, std::cerr);
    if (timing.launches().empty()) return status;
    std::set<std::string> warned;
    for (const auto& p : timing.launches())
        if (p.registers_estimated && warned.insert(p.kernel).second)
            std::cerr << fmt::format("ptxsim prof: warning: {}: {} registers per thread estimated from the PTX, not ptxas\n", p.kernel,
                                     p.registers_per_thread);
    // A grid of many waves simulated whole: say that --sample exists.
    for (const auto& p : timing.launches()) {
        const uint64_t wave = uint64_t(std::max<uint32_t>(1, p.occupancy.ctas_per_sm)) * std::max<uint32_t>(1, p.sms);
        if (!sample && p.grid.count() >= 10 * wave) {
            std::cerr << fmt::format("ptxsim prof: note: {}: {} CTAs are {:.0f} waves on {} SMs; --sample 5 simulates 5 of them in detail "
                                     "and extrapolates (within about 5%, docs/timing.md \"Sampling\")\n",
                                     p.kernel, p.grid.count(), double(p.grid.count()) / double(wave), p.sms);
            break;
        }
    }
    if (!trace_path.empty() && !write_whole(trace_path, sim::timing::chrome_trace(timing.launches(), *model, timing.memory()))) {
        std::cerr << fmt::format("ptxsim prof: --trace: cannot write '{}'\n", trace_path);
        return exit_usage;
    }
    if (!svg_path.empty() && !write_whole(svg_path, sim::timing::svg_timeline(timing.launches(), *model))) {
        std::cerr << fmt::format("ptxsim prof: --svg: cannot write '{}'\n", svg_path);
        return exit_usage;
    }
    if (json) {
        std::cout << sim::timing::to_json(timing.launches(), *model) << '\n';
        return status;
    }
    uint64_t end = 0;
    for (const auto& p : timing.launches()) {
        std::cout << '\n';
        sim::timing::print_text(std::cout, p, *model, lines);
        end = std::max(end, p.start + p.cycles);
    }
    if (timing.launches().size() > 1)
        std::cout << fmt::format("\nrun: {} launches end at cycle {} ({:.2f} us), launch overheads included\n",
                                 timing.launches().size(), end, double(end) / model->clock_mhz);
    return status;
}

} // namespace ptxsim::tools
