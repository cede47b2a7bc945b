// Kernel launches: the kernel runs to completion on the simulated GPU
// inside the call, with the engine's default schedule (the one `ptxsim run`
// uses). A fault is reported on stderr where it happened and leaves the
// context with CUDA's sticky error, so the program sees it at its next
// synchronisation as it would on a GPU.
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "cuda/driver/api.hpp"
#include "cuda/driver/call_site.hpp"
#include "cuda/driver/checking.hpp"
#include "cuda/driver/graphs.hpp"
#include "cuda/driver/profiling.hpp"
#include "cuda/driver/recording.hpp"
#include "cuda/driver/state.hpp"
#include "parser/source.hpp"

namespace ptxsim::cuda::driver {
namespace {

// The CUDA error a kernel fault becomes (as the hardware reports it).
CUresult error_of(const sim::fault_report& f) {
    const std::string& k = f.kind;
    if (k == "misaligned access") return CUDA_ERROR_MISALIGNED_ADDRESS;
    if (k == "assertion failed") return CUDA_ERROR_ASSERT;
    if (k == "trap" || k == "unsupported instruction" || k == "invalid operation") return CUDA_ERROR_ILLEGAL_INSTRUCTION;
    if (k == "instruction budget exhausted" || k == "deadlock") return CUDA_ERROR_LAUNCH_TIMEOUT;
    if (k == "stack overflow") return CUDA_ERROR_LAUNCH_FAILED;
    return CUDA_ERROR_ILLEGAL_ADDRESS;
}

struct launch_shape {
    sim::dim3 grid, block, cluster{0, 0, 0};
    unsigned shared = 0;
    bool cooperative = false;
    CUstream stream = nullptr;  // as the program named it
};

// A green context's SMs, where the launch goes into one: a stream made in
// it, or the null stream while its context is current (empty: every SM).
std::vector<uint32_t> sms_of(state& st, CUstream stream) {
    if (const stream_object* s = st.find(st.streams_owned, stream); s && s->green) return s->green->sms;
    if (!stream || stream == CU_STREAM_LEGACY || stream == CU_STREAM_PER_THREAD)
        if (const green_context_object* g = st.green_of_context(st.current_context)) return g->sms;
    return {};
}

CUresult launch(state& st, void* fn, const launch_shape& s, void** params, void** extra) {
    function_object* f = function_of(st, fn);
    if (!f) return CUDA_ERROR_INVALID_HANDLE;
    if (s.grid.count() == 0 || s.block.count() == 0) {
        // CUDA refuses it too; said here, since programs rarely check launches.
        const bool grid = s.grid.count() == 0;
        const sim::dim3& d = grid ? s.grid : s.block;
        const std::string why = fmt::format("{} ({},{},{}) has no {}", grid ? "grid" : "block", d.x, d.y, d.z, grid ? "blocks" : "threads");
        st.warn(fmt::format("launch of {} refused: {}; it returns CUDA_ERROR_INVALID_VALUE", f->kernel.name, why));
        if (program_checking* checking = program_checking::get())
            checking->api_error("CUDA_ERROR_INVALID_VALUE", CUDA_ERROR_INVALID_VALUE, why, f->kernel.name,
                                fmt::format("launch <<<({},{},{}),({},{},{})>>>", s.grid.x, s.grid.y, s.grid.z, s.block.x,
                                            s.block.y, s.block.z));
        return CUDA_ERROR_INVALID_VALUE;
    }
    const isa::exec_function& code = *f->code;
    std::vector<uint8_t> buffer(code.param_bytes, 0);
    if (params) {
        for (size_t i = 0; i < code.params.size(); ++i) {
            if (!params[i]) return CUDA_ERROR_INVALID_VALUE;
            std::memcpy(buffer.data() + code.params[i].offset, params[i], code.params[i].size);
        }
    } else if (extra) {
        const void* data = nullptr;
        size_t size = 0;
        for (void** e = extra; *e != CU_LAUNCH_PARAM_END; e += 2) {
            if (e[0] == CU_LAUNCH_PARAM_BUFFER_POINTER) data = e[1];
            else if (e[0] == CU_LAUNCH_PARAM_BUFFER_SIZE) size = *static_cast<size_t*>(e[1]);
            else return CUDA_ERROR_INVALID_VALUE;
        }
        if (!data || size < code.param_bytes) return CUDA_ERROR_INVALID_VALUE;
        std::memcpy(buffer.data(), data, code.param_bytes);
    } else if (!code.params.empty()) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    sim::launch_options o;
    o.cooperative = s.cooperative;
    o.cluster = s.cluster;
    o.non_portable_cluster_size = f->non_portable_cluster;
    o.stack_bytes = st.stack_bytes;
    o.malloc_heap_bytes = st.heap_bytes;
    o.estimate_registers = true;
    o.print = [](const std::string& text) {
        std::fwrite(text.data(), 1, text.size(), stdout);
        std::fflush(stdout);
    };
    o.max_warp_instructions = st.max_warp_instructions;
    // Checkers and the timing model see one host thread's order of events.
    o.threads = program_checking::get() || program_profiling::get() ? 1 : st.host_threads;
    program_checking* checking = program_checking::get();
    if (checking) o.observer = checking->observer();
    o.sms = sms_of(st, s.stream);
    if (program_profiling* profiling = program_profiling::get()) profiling->attach(st, *f, o, s.stream);
    const size_t findings_before = checking ? checking->findings() : 0;
    const std::vector<host_frame> stack = checking ? capture_host_stack() : std::vector<host_frame>{};
    std::string launch_name = fmt::format("in launch #{} of {} <<<({},{},{}),({},{},{})>>>", ++st.launches,
                                                f->kernel.name, s.grid.x, s.grid.y, s.grid.z, s.block.x, s.block.y,
                                                s.block.z);
    // --record, and check --schedules/--replay (which explores the launch's recording).
    const recorded_launch_shape shape{s.grid, s.block, s.cluster, s.shared, s.cooperative, o.sms};
    launch_recording* recording = launch_recording::get();
    launch_recording* exploring = checking ? checking->explorer() : nullptr;
    launch_recording::pending_ptr recorded, explored;
    if (recording) recorded = recording->before(st, *f, shape, buffer, st.launches);
    if (exploring) explored = exploring->before(st, *f, shape, buffer, st.launches);
    parser::diagnostics d;
    std::fflush(stdout);  // the host's output so far comes before the kernel's
    sim::launch_result r = st.device().launch(f->kernel, s.grid, s.block, s.shared, buffer, o, d);
    if (recording) recording->after(st, std::move(recorded), r);
    if (checking && (checking->findings() > findings_before || exploring)) {
        // Named only where a finding needs it: addr2line runs once per call site.
        if (const std::string site = checking->sites().describe(stack, f->kernel.name); !site.empty())
            launch_name += ", called from " + site;
    }
    if (checking) checking->name_launch(findings_before, launch_name);
    if (exploring && r.ok && !r.fault) {
        const std::string file = exploring->after(st, std::move(explored), r);
        const parser::source_file* source = st.device().module_source(f->kernel.module);
        if (!file.empty() && source)
            checking->explore(st.model(), file, source->name(), launch_recording::module_file(f->kernel.module, source->name()),
                              launch_name);
    }
    if (r.fault) {
        // Under memcheck the fault is a finding (reported at exit); otherwise it is told here.
        if (!checking || !checking->memcheck())
            st.warn(fmt::format("kernel {} <<<({},{},{}),({},{},{})>>> faulted:\n{}", f->kernel.name, s.grid.x, s.grid.y,
                            s.grid.z, s.block.x, s.block.y, s.block.z, r.fault->format()));
        st.sticky = error_of(*r.fault);
        return CUDA_SUCCESS;  // the launch itself was accepted; the error is the context's now
    }
    if (!r.ok) {
        // Refused before any CTA ran: a configuration error, not sticky.
        std::string why = text_of(d);
        st.warn(fmt::format("launch of {} refused: {}", f->kernel.name, why.empty() ? "bad configuration\n" : why));
        const CUresult error = why.find("cooperative") != std::string::npos ? CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE
                               : why.find("shared") != std::string::npos || why.find("register") != std::string::npos
                                   ? CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES
                                   : CUDA_ERROR_INVALID_VALUE;
        if (checking) {
            // The diagnostic's message alone ("file:line:col: error: MESSAGE", then the source line).
            if (const size_t e = why.find("error: "); e != std::string::npos) why = why.substr(e + 7);
            why = why.substr(0, why.find('\n'));
            const char* name = error == CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE ? "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE"
                               : error == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES     ? "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"
                                                                                 : "CUDA_ERROR_INVALID_VALUE";
            checking->api_error(name, error, why.empty() ? "bad configuration" : why, f->kernel.name, launch_name);
        }
        return error;
    }
    return CUDA_SUCCESS;
}

} // namespace

extern "C" {

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, CUstream stream, void** params, void** extra) {
    PTXSIM_ENTER(true);
    const unsigned grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
    if (captured_launch(st, stream, f, grid, block, shared, params, extra)) return CUDA_SUCCESS;
    return launch(st, f, {{gx, gy, gz}, {bx, by, bz}, {0, 0, 0}, shared, false, stream}, params, extra);
}

CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                   unsigned bz, unsigned shared, CUstream stream, void** params) {
    PTXSIM_ENTER(true);
    if (capturing(st, stream)) {
        st.note_unserved("a cooperative launch in stream capture", "captured launches are plain kernel nodes");
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    return launch(st, f, {{gx, gy, gz}, {bx, by, bz}, {0, 0, 0}, shared, true, stream}, params, nullptr);
}

CUresult cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f, void** params, void** extra) {
    PTXSIM_ENTER(true);
    if (!config) return CUDA_ERROR_INVALID_VALUE;
    launch_shape s{{config->gridDimX, config->gridDimY, config->gridDimZ},
                   {config->blockDimX, config->blockDimY, config->blockDimZ},
                   {0, 0, 0},
                   config->sharedMemBytes,
                   false,
                   config->hStream};
    const unsigned grid[3] = {config->gridDimX, config->gridDimY, config->gridDimZ};
    const unsigned block[3] = {config->blockDimX, config->blockDimY, config->blockDimZ};
    if (config->numAttrs == 0 &&
        captured_launch(st, config->hStream, f, grid, block, config->sharedMemBytes, params, extra))
        return CUDA_SUCCESS;
    if (capturing(st, config->hStream)) {
        st.note_unserved("cuLaunchKernelEx with launch attributes in stream capture",
                         "captured launches are plain kernel nodes");
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    for (unsigned i = 0; i < config->numAttrs; ++i) {
        const CUlaunchAttribute& a = config->attrs[i];
        if (a.id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE) s.cooperative = a.value.cooperative != 0;
        else if (a.id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
            s.cluster = {a.value.clusterDim.x, a.value.clusterDim.y, a.value.clusterDim.z};
        // Other attributes (priority, access policy, programmatic serialisation …) are
        // scheduling hints: kernels run one after the other here anyway.
    }
    return launch(st, f, s, params, extra);
}

} // extern "C"

} // namespace ptxsim::cuda::driver
