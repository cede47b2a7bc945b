#pragma once
// CUDA dynamic parallelism (CDP2, CUDA 12 and later): kernels launch
// kernels, and queue copies and fills, through the device runtime — the
// __cudaCDP2* functions a program built with nvcc -rdc=true ... -lcudadevrt
// calls. ptxsim serves them itself (libcudadevrt ships as SASS).
//
// Order: a child grid runs after its parent grid has finished, followed at
// once by its own children, depth first, in the order the parent's CTAs
// queued them (by CTA, then by the order within the CTA, so the result
// does not depend on the host thread count); work queued into
// cudaStreamTailLaunch runs after the parent's other work. That is one of
// the orders CUDA allows: in CDP2 a parent cannot wait for its children
// (cudaDeviceSynchronize is gone from device code), work queued into one
// stream runs in order, and a grid is complete only once its children are.
#include <array>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "isa/exec.hpp"
#include "sim/launch_types.hpp"

namespace ptxsim::sim {

struct launch_request;

// One piece of work a kernel queued.
struct device_work {
    enum class kind : uint8_t { launch, copy, fill } what = kind::launch;
    uint64_t cta = 0;  // the queueing CTA's linear id, then
    uint32_t seq = 0;  // the order within that CTA
    bool tail = false; // cudaStreamTailLaunch
    // launch
    int32_t function = -1;
    dim3 grid, block;
    uint32_t shared = 0;
    uint64_t param_buffer = 0;
    uint32_t param_bytes = 0;
    // copy (src to dst) and fill (value into dst)
    uint64_t dst = 0, src = 0, bytes = 0;
    uint8_t value = 0;
};

// A device-runtime call as the engine hands it over.
struct runtime_call {
    std::span<const std::array<uint8_t, 16>> args; // each argument's .param bytes, zero-padded
    uint64_t cta = 0;                              // the calling CTA's linear id
    std::function<bool(uint64_t addr, void* out, uint32_t bytes)> load;       // generic addresses
    std::function<bool(uint64_t addr, const void* in, uint32_t bytes)> store; // false: it faulted
};

// The builtin a device-runtime function name stands for (the _ptsz
// per-thread-stream variants are the same here), if ptxsim serves it.
std::optional<isa::builtin> device_runtime_function(std::string_view name);

class device_runtime {
public:
    struct result {
        uint64_t value = 0; // what the function returns: a cudaError_t, or a pointer
        bool faulted = false; // a store or load through the caller's pointer faulted (the engine reports it)
    };
    // Thread-safe: CTAs on several host threads may call at once.
    result call(isa::builtin b, const launch_request& req, const runtime_call& c);
    // The work queued since the last take, in the order it is to run.
    std::vector<device_work> take();

private:
    struct buffer {
        int32_t function = -1; // -1: from __cudaCDP2GetParameterBuffer, the launch names the function
        dim3 grid, block;
        uint32_t shared = 0;
        uint32_t bytes = 0;
    };
    void queue(device_work w, uint64_t cta, uint64_t stream);
    // A device string for cudaGetErrorString/Name, written once per code.
    uint64_t error_text(const launch_request& req, uint32_t code,
                        const std::function<bool(uint64_t, const void*, uint32_t)>& store);

    std::mutex lock_;
    std::vector<device_work> work_;
    std::unordered_map<uint64_t, uint32_t> queued_per_cta_;
    std::unordered_map<uint64_t, buffer> buffers_;
    std::unordered_map<uint32_t, uint64_t> error_texts_; // cudaError_t -> a device string
    uint64_t next_stream_ = 0x100;                       // device-created streams' handles
};

} // namespace ptxsim::sim
