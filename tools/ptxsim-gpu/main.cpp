// ptxsim-gpu LAUNCH.json: run a launch file on a real NVIDIA GPU, for
// differential testing against `ptxsim run` (docs/difftest.md).
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "models/model.hpp"
#include "models/models_dir.hpp"
#include "sim/launch_file.hpp"
#include "tools/ptxsim-gpu/cuda_driver.hpp"
#include "tools/ptxsim-gpu/gpu_runner.hpp"

namespace {

constexpr const char* usage =
    "usage: ptxsim-gpu [--dump DIR] [--times FILE] [--warmup N] [--device N] [--libcuda PATH]\n"
    "                  [--model FILE] LAUNCH.json\n\n"
    "Runs the kernel launches of a launch file (docs/launch-file.md) on a real GPU\n"
    "through the CUDA driver (libcuda.so.1, opened at run time): the same buffers,\n"
    "arguments and launches as `ptxsim run`, the same outputs and expectation\n"
    "checks. --dump DIR writes every buffer after the last launch to DIR/<name>.bin\n"
    "(listed in DIR/buffers.txt), as `ptxsim run --dump DIR` does, so that\n"
    "scripts/difftest can compare the two bit for bit.\n\n"
    "--times FILE times every launch with CUDA events and writes FILE (JSON: per\n"
    "launch its start and end in microseconds from an event recorded before the\n"
    "first launch, and its duration). The launches are queued back to back with one\n"
    "synchronize after the last, as a program queues them, so the gaps between ends\n"
    "measure launch overhead. --warmup N first runs each launch N times on a copy\n"
    "of the buffers' contents (put back before the launch that counts, so outputs\n"
    "and expectations are as without it); each timed launch then waits for its\n"
    "warm-ups. scripts/timing-vs-gpu uses both.\n\n"
    "The file is checked first with ptxsim's own parser (PTX, kernel names,\n"
    "argument sizes), so bad input is reported the same way with or without a GPU.\n\n"
    "exit status: 0 ok, 1 kernel fault or mismatch, 2 bad input, or no CUDA\n"
    "driver or device\n";

} // namespace

int main(int argc, char** argv) {
    using namespace ptxsim;
    std::vector<std::string> files;
    gpu::gpu_settings settings;
    std::string libcuda = "libcuda.so.1", model_path = models::default_model_path(PTXSIM_SOURCE_DIR).string();
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&](const char* name) -> const char* {
            if (i + 1 >= argc) {
                std::cerr << "ptxsim-gpu: " << name << " needs a value\n\n" << usage;
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "-h" || a == "--help") {
            std::cout << usage;
            return 0;
        } else if (a == "--dump") {
            settings.dump_dir = value("--dump");
        } else if (a == "--times") {
            settings.times_path = value("--times");
        } else if (a == "--warmup") {
            const std::string v = value("--warmup");
            if (v.empty() || v.size() > 4 || v.find_first_not_of("0123456789") != std::string::npos) {
                std::cerr << "ptxsim-gpu: --warmup takes a count from 0 to 9999, not '" << v << "'\n";
                return 2;
            }
            settings.warmup = static_cast<uint32_t>(std::stoi(v));
        } else if (a == "--libcuda") {
            libcuda = value("--libcuda");
        } else if (a == "--model") {
            model_path = value("--model");
        } else if (a == "--device") {
            const std::string v = value("--device");
            if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos) {
                std::cerr << "ptxsim-gpu: --device takes a device number, not '" << v << "'\n";
                return 2;
            }
            settings.device = std::stoi(v);
        } else if (a.size() > 1 && a[0] == '-') {
            std::cerr << "ptxsim-gpu: unknown option '" << a << "'\n\n" << usage;
            return 2;
        } else {
            files.push_back(a);
        }
    }
    if (files.size() != 1) {
        std::cerr << "ptxsim-gpu: expected exactly one launch file\n\n" << usage;
        return 2;
    }
    try {
        parser::diagnostics d;
        auto model = models::load_model(model_path, d);
        auto file = model ? sim::read_launch_file(files[0], d) : std::nullopt;
        if (!model || !file) {
            for (const auto& x : d.all()) parser::print_text(std::cerr, x);
            return 2;
        }
        auto plan = gpu::plan_launch_file(*model, *file, std::cerr);
        if (!plan) return 2;
        gpu::cuda_driver cu;
        if (std::string why = gpu::open_cuda_driver(libcuda, cu); !why.empty()) {
            std::cerr << "ptxsim-gpu: " << why << '\n';
            return 2;
        }
        return gpu::run_on_gpu(cu, *plan, settings, std::cout, std::cerr);
    } catch (const std::exception& e) {
        std::cerr << "ptxsim-gpu: internal error: " << e.what() << '\n';
        return 2;
    }
}
