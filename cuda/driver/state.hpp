#pragma once
// The replacement driver's process-wide state: one simulated GPU (the
// model the user chose with `ptxsim exec --model`), its primary context,
// and the handles the API gives out. Every entry point takes the one lock:
// kernels run synchronously inside the call that launches them, so there is
// nothing to overlap and a single lock keeps the state simple.
#include <array>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "cuda/driver/cu.hpp"
#include "cuda/host_binary.hpp"
#include "sim/device.hpp"

namespace ptxsim::cuda::driver {

struct module_object;
struct array_object;

struct function_object {
    module_object* module = nullptr;
    sim::kernel_ref kernel;
    const isa::exec_function* code = nullptr;  // parameter layout
    uint32_t max_dynamic_shared = 0;           // cuFuncSetAttribute
    bool non_portable_cluster = false;
};

struct module_object {
    size_t index = 0;                 // sim::device module; valid when has_ptx
    // nvcc -rdc=true: the other translation units' modules, linked with
    // `index` (calls and .extern variables resolve across them).
    std::vector<size_t> linked;
    std::vector<size_t> all() const {
        std::vector<size_t> out{index};
        out.insert(out.end(), linked.begin(), linked.end());
        return out;
    }
    bool has_ptx = false;
    std::string origin;               // "fatbinary #2 (compute_90a PTX)", for messages
    std::string no_ptx_reason;        // why there is no PTX, when there is none
    std::map<std::string, std::unique_ptr<function_object>> functions;
};

struct green_context_object;

struct stream_object {
    unsigned flags = 0;
    int priority = 0;
    green_context_object* green = nullptr;  // cuGreenCtxStreamCreate's: its kernels run on the green context's SMs
};

struct event_object {
    unsigned flags = 0;
    bool recorded = false;
    std::chrono::steady_clock::time_point when;
    double simulated_ms = 0;  // under ptxsim prof: the simulated GPU's time line
    uint64_t simulated_cycle = 0;
};

// Green contexts (cuGreenCtxCreate): a set of the GPU's SMs that the
// kernels launched into the context run on (sim::launch_options::sms).
struct green_context_object {
    std::vector<uint32_t> sms;
    unsigned long long id = 0;
    char context_token = 0;        // its address is the CUcontext cuCtxFromGreenCtx gives
    stream_object default_stream;  // what the null stream is while the context is current
    void* context() { return &context_token; }
};

// cuDevResourceGenerateDesc's descriptor: the SMs of the resources it was made of.
struct resource_desc_object {
    std::vector<uint32_t> sms;
};

// Memory host code and kernels share at one address: pinned host memory
// (cudaHostAlloc, cudaMallocHost) and managed memory (cudaMallocManaged).
struct host_visible_allocation {
    size_t bytes = 0;
    unsigned flags = 0;
    bool managed = false;
};

class state {
public:
    // The state, created on first use (cuInit). Never destroyed: programs
    // call the driver from atexit handlers and static destructors.
    static state& get();

    std::recursive_mutex lock;
    sim::device& device() { return *device_; }
    const models::gpu_model& model() const { return device_->model(); }

    bool initialised = false;
    int primary_retains = 0;
    unsigned primary_flags = 0;
    void* current_context = nullptr;   // the primary context's handle, or null
    void* primary_context() { return &primary_context_token_; }

    // A kernel fault leaves the context unusable, as on a GPU: every later
    // call that touches it returns this error.
    CUresult sticky = CUDA_SUCCESS;
    uint32_t stack_bytes = 1024;       // cudaLimitStackSize
    uint64_t heap_bytes = 8 << 20;     // cudaLimitMallocHeapSize
    uint64_t max_warp_instructions = 2'000'000'000;  // a runaway kernel stops here (PTXSIM_MAX_INSTRUCTIONS)
    uint32_t host_threads = 1;  // host threads per launch (PTXSIM_THREADS); checking and profiling use one
    uint64_t launches = 0;
    uint64_t allocations = 0;

    std::set<std::unique_ptr<module_object>> modules_owned;
    std::set<std::unique_ptr<stream_object>> streams_owned;
    std::set<std::unique_ptr<event_object>> events_owned;
    std::set<std::unique_ptr<array_object>> arrays_owned;
    std::set<std::unique_ptr<green_context_object>> green_contexts_owned;
    std::set<std::unique_ptr<resource_desc_object>> resource_descs_owned;
    // SM sets that CUdevResource values name by index (the struct is the
    // program's to copy; the sets stay here), and how many splits were made.
    std::vector<std::vector<uint32_t>> sm_sets;
    uint32_t splits = 0;
    unsigned long long green_contexts_made = 0;
    // The green context whose CUcontext is `ctx` (null: the primary context or none).
    green_context_object* green_of_context(void* ctx) {
        for (const auto& g : green_contexts_owned)
            if (g->context() == ctx) return g.get();
        return nullptr;
    }
    std::map<uint64_t, host_visible_allocation> host_visible;  // by base address
    std::map<std::pair<void*, int>, std::array<uint8_t, 64>> stream_attributes;  // (stream, CUstreamAttrID)
    std::map<uint64_t, size_t> registered;  // cuMemHostRegister'd host ranges: start -> bytes
    const host_visible_allocation* host_visible_at(uint64_t base) const {
        auto it = host_visible.find(base);
        return it == host_visible.end() ? nullptr : &it->second;
    }

    template <class T>
    T* find(std::set<std::unique_ptr<T>>& owned, void* handle) {
        for (const auto& p : owned)
            if (p.get() == handle) return p.get();
        return nullptr;
    }

    // Device addresses live in a host range the driver reserved (never
    // handed to the host allocator), so a pointer alone tells which side it is on.
    bool is_device_pointer(uint64_t p) const { return p >= device_base_ && p < device_limit_; }

    // Once per name: "ptxsim: cuFoo is not served by ptxsim's CUDA driver".
    void note_unserved(const std::string& name, const std::string& why = "");
    // Messages for the user (stderr, prefixed "ptxsim: ").
    void warn(const std::string& message);
    // Summary at exit when something was not served.
    void summarise();

    // Loads a fatbinary (or PTX text) image into a module.
    // `error_log`, when given, receives what a failure printed (a JIT error log).
    CUresult load_image(const void* image, module_object*& out, std::string* error_log = nullptr);
    std::vector<std::string> relocatable_ptx_beside(const void* image, uint32_t sm);

private:
    state();
    std::unique_ptr<sim::device> device_;
    uint64_t device_base_ = 0, device_limit_ = 0;
    char primary_context_token_ = 0;
    std::vector<std::string> unserved_;
    int fatbins_loaded_ = 0;
    std::map<std::string, host_binary> host_objects_; // programs and libraries read for __nv_relfatbin
};

// The function a CUfunction/CUkernel handle names, or null.
function_object* function_of(state& st, void* handle);
// Bytes of the kernel's .shared variables.
uint32_t static_shared_bytes(const isa::exec_function& code);
// Registers per thread, as cuFuncGetAttribute(NUM_REGS) reports them: the
// kernel's .maxnreg, else an estimate from the PTX (ptxas is not run here).
uint32_t registers_of(const state& st, const function_object& f);

// PTXSIM_CUDA_TRACE=1: every driver lookup and private-table request on
// stderr, for finding what a program's runtime needs.
bool tracing();
void trace(const std::string& line);

// Diagnostics as the command line prints them (file:line:col with a caret).
std::string text_of(const parser::diagnostics& d);

// Entry-point helper: the state locked, or the error a call gets before
// cuInit / after a fault.
#define PTXSIM_ENTER(check_sticky)                                          \
    if (tracing()) trace(__func__);                                         \
    state& st = state::get();                                               \
    std::lock_guard<std::recursive_mutex> guard_(st.lock);                  \
    if (!st.initialised) return CUDA_ERROR_NOT_INITIALIZED;                 \
    if ((check_sticky) && st.sticky != CUDA_SUCCESS) return st.sticky

} // namespace ptxsim::cuda::driver
