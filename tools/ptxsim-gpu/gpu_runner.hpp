#pragma once
// Carries out a launch file (docs/launch-file.md) on a real GPU through the
// CUDA driver API: the same buffers with the same initial bytes, the same
// argument bytes at the same parameter offsets, the same launches in order,
// and the same outputs, dumps and expectation checks as `ptxsim run`
// (sim/launch_results.hpp). Everything that can be checked without a GPU
// (the PTX, kernel names, argument sizes) is checked first, by ptxsim's own
// parser and decoder, so a bad file is bad input on any machine.
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "models/model.hpp"
#include "sim/launch_file.hpp"
#include "tools/ptxsim-gpu/cuda_driver.hpp"

namespace ptxsim::gpu {

// One launch as the GPU needs it: the PTX entry name (resolved from an
// unmangled base name as ptxsim does) and the kernel's parameter layout.
struct planned_launch {
    const sim::launch_spec* spec = nullptr;
    std::string entry;
    std::vector<std::pair<uint32_t, uint32_t>> params; // offset, size per parameter
    uint32_t param_bytes = 0;
};

struct gpu_plan {
    const sim::launch_file* file = nullptr;
    std::vector<std::string> module_texts; // PTX, in the file's order
    std::vector<planned_launch> launches;
};

// Checks the file on the CPU: modules parse and validate, kernels exist,
// arguments have the parameters' sizes, and nothing the GPU runner cannot
// reproduce (textures, surfaces, multicast objects) is used; tensor maps are
// encoded by the GPU's driver (cuTensorMapEncodeTiled/Im2col) from the same
// parameters, once ptxsim's encoder has accepted them. Messages
// go to `err`; nullopt means bad input (exit status 2).
std::optional<gpu_plan> plan_launch_file(const models::gpu_model& model, const sim::launch_file& f, std::ostream& err);

struct gpu_settings {
    int device = 0;          // CUDA device ordinal
    std::string dump_dir;    // --dump: every buffer after the last launch
    std::string times_path;  // --times: each run of each launch timed by CUDA events (launch_times.hpp)
    uint32_t warmup = 0;     // --warmup: runs of each launch before the one that counts, on saved and restored buffers
};

// Runs the plan on the GPU. Exit status as `ptxsim run`: 0 ok, 1 a kernel
// fault (the driver's error) or a mismatch, 2 bad input or no usable GPU.
int run_on_gpu(const cuda_driver& cu, const gpu_plan& plan, const gpu_settings& s, std::ostream& out, std::ostream& err);

} // namespace ptxsim::gpu
