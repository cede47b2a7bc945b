// Streams and events. Work runs when it is submitted, so every stream is
// always idle: queries say ready and waits return at once. Events record
// host wall-clock time (cuEventElapsedTime gives the time the simulation
// took between them, not GPU time; docs/exec.md says so), except under
// `ptxsim prof PROGRAM`, where they read the timing model's time line.
#include <array>
#include <cstring>
#include <vector>

#include "cuda/driver/api.hpp"
#include "cuda/driver/graphs.hpp"
#include "cuda/driver/profiling.hpp"
#include "cuda/driver/state.hpp"

namespace ptxsim::cuda::driver {
namespace {

bool valid_stream(state& st, CUstream s) {
    return s == nullptr || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD || st.find(st.streams_owned, s);
}

} // namespace

extern "C" {

CUresult cuStreamCreate(CUstream* stream, unsigned flags) {
    PTXSIM_ENTER(true);
    if (!stream || flags > 1) return CUDA_ERROR_INVALID_VALUE;
    auto s = std::make_unique<stream_object>();
    s->flags = flags;
    *stream = s.get();
    st.streams_owned.insert(std::move(s));
    return CUDA_SUCCESS;
}

CUresult cuStreamCreateWithPriority(CUstream* stream, unsigned flags, int priority) {
    CUresult r = cuStreamCreate(stream, flags);
    if (r == CUDA_SUCCESS) static_cast<stream_object*>(*stream)->priority = std::clamp(priority, -5, 0);
    return r;
}

CUresult cuStreamDestroy_v2(CUstream stream) {
    PTXSIM_ENTER(false);
    for (auto it = st.streams_owned.begin(); it != st.streams_owned.end(); ++it)
        if (it->get() == stream) {
            if (program_profiling* p = program_profiling::get()) p->forget(stream);
            st.streams_owned.erase(it);
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuStreamGetPriority(CUstream stream, int* priority) {
    PTXSIM_ENTER(false);
    if (!priority) return CUDA_ERROR_INVALID_VALUE;
    if (!valid_stream(st, stream)) return CUDA_ERROR_INVALID_HANDLE;
    auto* s = st.find(st.streams_owned, stream);
    *priority = s ? s->priority : 0;
    return CUDA_SUCCESS;
}

// Stream attributes (the L2 access policy window, synchronisation policy,
// priority, ...) are kept and read back; none changes how kernels run here.
CUresult cuStreamSetAttribute(CUstream stream, int attribute, const void* value) {
    PTXSIM_ENTER(false);
    if (!value) return CUDA_ERROR_INVALID_VALUE;
    if (!valid_stream(st, stream)) return CUDA_ERROR_INVALID_HANDLE;
    auto& v = st.stream_attributes[{stream, attribute}];
    std::memcpy(v.data(), value, v.size());
    return CUDA_SUCCESS;
}

CUresult cuStreamGetAttribute(CUstream stream, int attribute, void* value) {
    PTXSIM_ENTER(false);
    if (!value) return CUDA_ERROR_INVALID_VALUE;
    if (!valid_stream(st, stream)) return CUDA_ERROR_INVALID_HANDLE;
    auto it = st.stream_attributes.find({stream, attribute});
    if (it != st.stream_attributes.end()) std::memcpy(value, it->second.data(), it->second.size());
    else std::memset(value, 0, 64);
    return CUDA_SUCCESS;
}

CUresult cuStreamCopyAttributes(CUstream dst, CUstream src) {
    PTXSIM_ENTER(false);
    if (!valid_stream(st, dst) || !valid_stream(st, src)) return CUDA_ERROR_INVALID_HANDLE;
    std::vector<std::pair<std::pair<void*, int>, std::array<uint8_t, 64>>> copies;
    for (const auto& [key, v] : st.stream_attributes)
        if (key.first == src) copies.push_back({{dst, key.second}, v});
    for (const auto& [key, v] : copies) st.stream_attributes[key] = v;
    return CUDA_SUCCESS;
}

CUresult cuStreamGetFlags(CUstream stream, unsigned* flags) {
    PTXSIM_ENTER(false);
    if (!flags) return CUDA_ERROR_INVALID_VALUE;
    if (!valid_stream(st, stream)) return CUDA_ERROR_INVALID_HANDLE;
    auto* s = st.find(st.streams_owned, stream);
    *flags = s ? s->flags : 0;
    return CUDA_SUCCESS;
}

CUresult cuStreamGetCtx(CUstream stream, CUcontext* ctx) {
    PTXSIM_ENTER(false);
    if (!ctx) return CUDA_ERROR_INVALID_VALUE;
    if (!valid_stream(st, stream)) return CUDA_ERROR_INVALID_HANDLE;
    const stream_object* s = st.find(st.streams_owned, stream);
    *ctx = s && s->green ? s->green->context() : st.primary_context();
    return CUDA_SUCCESS;
}

CUresult cuStreamGetCtx_v2(CUstream stream, CUcontext* ctx, void** green) {
    PTXSIM_ENTER(false);
    if (!ctx || !green) return CUDA_ERROR_INVALID_VALUE;
    if (!valid_stream(st, stream)) return CUDA_ERROR_INVALID_HANDLE;
    // A green context's stream (or the null stream while one is current): the
    // green context, and the device's primary context beside it.
    const stream_object* s = st.find(st.streams_owned, stream);
    green_context_object* g = s ? s->green : nullptr;
    if (!s) g = st.green_of_context(st.current_context);
    if (g && stream == CU_STREAM_PER_THREAD) return CUDA_ERROR_INVALID_HANDLE;
    *green = g;
    *ctx = st.primary_context();
    return CUDA_SUCCESS;
}

CUresult cuStreamGetDevice(CUstream stream, CUdevice* dev) {
    PTXSIM_ENTER(false);
    if (!dev) return CUDA_ERROR_INVALID_VALUE;
    if (!valid_stream(st, stream)) return CUDA_ERROR_INVALID_HANDLE;
    *dev = 0;
    return CUDA_SUCCESS;
}

CUresult cuStreamGetId(CUstream stream, unsigned long long* id) {
    PTXSIM_ENTER(false);
    if (!id) return CUDA_ERROR_INVALID_VALUE;
    if (!valid_stream(st, stream)) return CUDA_ERROR_INVALID_HANDLE;
    *id = reinterpret_cast<uintptr_t>(stream);
    return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream stream) {
    PTXSIM_ENTER(true);
    if (!valid_stream(st, stream)) return CUDA_ERROR_INVALID_HANDLE;
    if (program_profiling* p = program_profiling::get()) p->host_waits(p->point(st, stream));
    return CUDA_SUCCESS;
}

CUresult cuStreamQuery(CUstream stream) { return cuStreamSynchronize(stream); }

CUresult cuStreamWaitEvent(CUstream stream, CUevent event, unsigned) {
    {
        PTXSIM_ENTER(true);
        if (capture_event_wait(stream, event)) return CUDA_SUCCESS;
        if (!valid_stream(st, stream)) return CUDA_ERROR_INVALID_HANDLE;
        auto* e = st.find(st.events_owned, event);
        if (!e) return CUDA_ERROR_INVALID_HANDLE;
        // Under prof the stream's later work starts after the event's point.
        if (program_profiling* p = program_profiling::get(); p && e->recorded) p->stream_waits(st, stream, e->simulated_cycle);
        return CUDA_SUCCESS;
    }
}

// Host callbacks run at once: everything before them in the stream is done.
using host_fn = void (*)(void*);
CUresult cuLaunchHostFunc(CUstream stream, host_fn fn, void* data) {
    {
        PTXSIM_ENTER(true);
        if (!fn) return CUDA_ERROR_INVALID_VALUE;
        if (!valid_stream(st, stream)) return CUDA_ERROR_INVALID_HANDLE;
        if (captured(st, stream, node_host, [fn, data] {
                fn(data);
                return CUresult(CUDA_SUCCESS);
            }))
            return CUDA_SUCCESS;
    }
    fn(data);
    return CUDA_SUCCESS;
}

using stream_callback = void (*)(CUstream, CUresult, void*);
CUresult cuStreamAddCallback(CUstream stream, stream_callback fn, void* data, unsigned flags) {
    CUresult status;
    {
        PTXSIM_ENTER(false);
        if (!fn || flags != 0) return CUDA_ERROR_INVALID_VALUE;
        if (!valid_stream(st, stream)) return CUDA_ERROR_INVALID_HANDLE;
        status = st.sticky;
    }
    fn(stream, status, data);
    return CUDA_SUCCESS;
}

CUresult cuEventCreate(CUevent* event, unsigned flags) {
    PTXSIM_ENTER(true);
    if (!event || flags > 0xf) return CUDA_ERROR_INVALID_VALUE;
    auto e = std::make_unique<event_object>();
    e->flags = flags;
    *event = e.get();
    st.events_owned.insert(std::move(e));
    return CUDA_SUCCESS;
}

CUresult cuEventDestroy_v2(CUevent event) {
    PTXSIM_ENTER(false);
    for (auto it = st.events_owned.begin(); it != st.events_owned.end(); ++it)
        if (it->get() == event) {
            st.events_owned.erase(it);
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuEventRecord(CUevent event, CUstream stream) {
    PTXSIM_ENTER(true);
    auto* e = st.find(st.events_owned, event);
    if (!e) return CUDA_ERROR_INVALID_HANDLE;
    if (!valid_stream(st, stream)) return CUDA_ERROR_INVALID_HANDLE;
    if (capture_event_record(event, stream)) return CUDA_SUCCESS;
    e->recorded = true;
    e->when = std::chrono::steady_clock::now();
    if (program_profiling* p = program_profiling::get()) {
        e->simulated_cycle = p->point(st, stream);
        e->simulated_ms = p->ms(e->simulated_cycle);
    }
    return CUDA_SUCCESS;
}

CUresult cuEventRecordWithFlags(CUevent event, CUstream stream, unsigned) { return cuEventRecord(event, stream); }

// Work is done when it is submitted, so an event is always complete; under
// prof the host then knows the simulated GPU has reached it.
CUresult cuEventQuery(CUevent event) {
    PTXSIM_ENTER(true);
    auto* e = st.find(st.events_owned, event);
    if (!e) return CUDA_ERROR_INVALID_HANDLE;
    if (program_profiling* p = program_profiling::get(); p && e->recorded) p->host_waits(e->simulated_cycle);
    return CUDA_SUCCESS;
}

CUresult cuEventSynchronize(CUevent event) { return cuEventQuery(event); }

CUresult cuEventElapsedTime(float* ms, CUevent start, CUevent end) {
    PTXSIM_ENTER(true);
    if (!ms) return CUDA_ERROR_INVALID_VALUE;
    auto* a = st.find(st.events_owned, start);
    auto* b = st.find(st.events_owned, end);
    if (!a || !b) return CUDA_ERROR_INVALID_HANDLE;
    if (!a->recorded || !b->recorded) return CUDA_ERROR_NOT_READY;
    if ((a->flags | b->flags) & 2) return CUDA_ERROR_INVALID_HANDLE;  // CU_EVENT_DISABLE_TIMING
    *ms = program_profiling::get() ? float(b->simulated_ms - a->simulated_ms)
                                   : std::chrono::duration<float, std::milli>(b->when - a->when).count();
    return CUDA_SUCCESS;
}

CUresult cuEventElapsedTime_v2(float* ms, CUevent start, CUevent end) { return cuEventElapsedTime(ms, start, end); }

// First ABI revisions with the same arguments.
CUresult cuStreamDestroy(CUstream stream) { return cuStreamDestroy_v2(stream); }
CUresult cuEventDestroy(CUevent event) { return cuEventDestroy_v2(event); }

} // extern "C"

} // namespace ptxsim::cuda::driver
