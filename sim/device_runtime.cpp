#include "sim/device_runtime.hpp"

#include <algorithm>
#include <cstring>

#include "sim/device_heap.hpp"
#include "sim/engine.hpp"

namespace ptxsim::sim {
namespace {

using isa::builtin;

// cudaError_t values the device runtime returns (driver_types.h).
constexpr uint32_t cuda_success = 0, cuda_invalid_value = 1, cuda_memory_allocation = 2,
                   cuda_invalid_device_function = 98, cuda_launch_pending_count_exceeded = 69;
constexpr uint64_t stream_tail_launch = 3; // cudaStreamTailLaunch (cuda_device_runtime_api.h)
constexpr uint32_t cuda_runtime_version = 13000;
// cudaLimitDevRuntimePendingLaunchCount's default: launches one grid may queue.
constexpr size_t pending_launch_limit = 2048;

template <class T>
T arg(const runtime_call& c, size_t i) {
    T v{};
    if (i < c.args.size()) std::memcpy(&v, c.args[i].data(), sizeof v);
    return v;
}

dim3 dim_arg(const runtime_call& c, size_t i) {
    uint32_t d[3] = {1, 1, 1};
    if (i < c.args.size()) std::memcpy(d, c.args[i].data(), sizeof d);
    return {d[0], d[1], d[2]};
}

} // namespace

std::optional<builtin> device_runtime_function(std::string_view name) {
    static const std::pair<std::string_view, builtin> names[] = {
        {"GetParameterBufferV2", builtin::cdp_parameter_buffer_v2},
        {"GetParameterBuffer", builtin::cdp_parameter_buffer},
        {"LaunchDeviceV2", builtin::cdp_launch_v2},
        {"LaunchDevice", builtin::cdp_launch},
        {"StreamCreateWithFlags", builtin::cdp_stream_create},
        {"StreamDestroy", builtin::cdp_stream_destroy},
        {"Malloc", builtin::cdp_malloc},
        {"Free", builtin::cdp_free},
        {"GetLastError", builtin::cdp_last_error},
        {"PeekAtLastError", builtin::cdp_last_error},
        {"GetErrorString", builtin::cdp_error_string},
        {"GetErrorName", builtin::cdp_error_string},
        {"MemcpyAsync", builtin::cdp_memcpy_async},
        {"MemsetAsync", builtin::cdp_memset_async},
        {"GetDevice", builtin::cdp_get_device},
        {"GetDeviceCount", builtin::cdp_device_count},
        {"RuntimeGetVersion", builtin::cdp_runtime_version},
    };
    constexpr std::string_view prefix = "__cudaCDP2";
    if (!name.starts_with(prefix)) return std::nullopt;
    name.remove_prefix(prefix.size());
    if (name.ends_with("_ptsz")) name.remove_suffix(5); // per-thread default stream: one order here
    for (const auto& [n, b] : names)
        if (n == name) return b;
    return std::nullopt;
}

void device_runtime::queue(device_work w, uint64_t cta, uint64_t stream) {
    w.cta = cta;
    w.seq = queued_per_cta_[cta]++;
    w.tail = stream == stream_tail_launch;
    work_.push_back(w);
}

uint64_t device_runtime::error_text(const launch_request& req, uint32_t code,
                                    const std::function<bool(uint64_t, const void*, uint32_t)>& store) {
    auto it = error_texts_.find(code);
    if (it != error_texts_.end()) return it->second;
    const std::string text = code == cuda_success ? "no error" : "unknown error";
    uint64_t p = req.heap ? req.heap->malloc(text.size() + 1, UINT64_MAX) : 0;
    if (p && !store(p, text.c_str(), uint32_t(text.size() + 1))) p = 0;
    error_texts_[code] = p;
    return p;
}

device_runtime::result device_runtime::call(builtin b, const launch_request& req, const runtime_call& c) {
    std::lock_guard<std::mutex> guard(lock_);
    result r;
    auto store = [&](uint64_t addr, const void* v, uint32_t n) {
        if (!c.store(addr, v, n)) r.faulted = true;
        return !r.faulted;
    };
    auto new_buffer = [&](buffer b, uint64_t bytes) -> uint64_t {
        if (!req.heap || work_.size() >= pending_launch_limit) return 0;
        uint64_t p = req.heap->malloc(std::max<uint64_t>(bytes, 16), UINT64_MAX);
        if (p) buffers_[p] = b;
        return p;
    };
    auto launch = [&](const buffer& b, uint64_t buf, uint64_t stream) -> uint32_t {
        if (b.function < 0 || size_t(b.function) >= req.functions.size() || !req.functions[size_t(b.function)]->is_entry)
            return cuda_invalid_device_function;
        if (work_.size() >= pending_launch_limit) return cuda_launch_pending_count_exceeded;
        device_work w;
        w.function = b.function;
        w.grid = b.grid;
        w.block = b.block;
        w.shared = b.shared;
        w.param_buffer = buf;
        w.param_bytes = req.functions[size_t(b.function)]->param_bytes;
        queue(w, c.cta, stream);
        return cuda_success;
    };
    auto function_of = [&](uint64_t address) {
        auto it = req.function_addresses.find(address);
        return it == req.function_addresses.end() ? -1 : it->second;
    };
    switch (b) {
    case builtin::cdp_parameter_buffer_v2: {
        const int32_t f = function_of(arg<uint64_t>(c, 0));
        if (f < 0 || !req.functions[size_t(f)]->is_entry) return r; // NULL: not a kernel
        r.value = new_buffer({f, dim_arg(c, 1), dim_arg(c, 2), arg<uint32_t>(c, 3), req.functions[size_t(f)]->param_bytes},
                             req.functions[size_t(f)]->param_bytes);
        return r;
    }
    case builtin::cdp_parameter_buffer: // (alignment, size): heap blocks are 16-byte aligned, as CUDA's are
        r.value = arg<uint64_t>(c, 0) <= 16 ? new_buffer({}, arg<uint64_t>(c, 1)) : 0;
        return r;
    case builtin::cdp_launch_v2: {
        const uint64_t buf = arg<uint64_t>(c, 0);
        auto it = buffers_.find(buf);
        r.value = it == buffers_.end() ? cuda_invalid_value : launch(it->second, buf, arg<uint64_t>(c, 1));
        return r;
    }
    case builtin::cdp_launch: { // (func, buffer, grid, block, shared, stream)
        const uint64_t buf = arg<uint64_t>(c, 1);
        auto it = buffers_.find(buf);
        if (it == buffers_.end()) {
            r.value = cuda_invalid_value;
            return r;
        }
        buffer b{function_of(arg<uint64_t>(c, 0)), dim_arg(c, 2), dim_arg(c, 3), arg<uint32_t>(c, 4), 0};
        r.value = launch(b, buf, arg<uint64_t>(c, 5));
        return r;
    }
    case builtin::cdp_stream_create: {
        const uint64_t handle = next_stream_++;
        r.value = store(arg<uint64_t>(c, 0), &handle, 8) ? cuda_success : cuda_invalid_value;
        return r;
    }
    case builtin::cdp_stream_destroy:
    case builtin::cdp_last_error: // errors are returned where they happen; none is left pending
        return r;
    case builtin::cdp_malloc: {
        const uint64_t p = req.heap ? req.heap->malloc(arg<uint64_t>(c, 1), req.options.malloc_heap_bytes) : 0;
        if (!store(arg<uint64_t>(c, 0), &p, 8)) return r;
        r.value = p ? cuda_success : cuda_memory_allocation;
        return r;
    }
    case builtin::cdp_free:
        r.value = req.heap && req.heap->free(arg<uint64_t>(c, 0)).empty() ? cuda_success : cuda_invalid_value;
        return r;
    case builtin::cdp_error_string: {
        r.value = error_text(req, arg<uint32_t>(c, 0), c.store);
        return r;
    }
    case builtin::cdp_memcpy_async: { // (dst, src, count, kind, stream)
        device_work w;
        w.what = device_work::kind::copy;
        w.dst = arg<uint64_t>(c, 0);
        w.src = arg<uint64_t>(c, 1);
        w.bytes = arg<uint64_t>(c, 2);
        queue(w, c.cta, arg<uint64_t>(c, 4));
        return r;
    }
    case builtin::cdp_memset_async: { // (dst, value, count, stream)
        device_work w;
        w.what = device_work::kind::fill;
        w.dst = arg<uint64_t>(c, 0);
        w.value = static_cast<uint8_t>(arg<uint32_t>(c, 1));
        w.bytes = arg<uint64_t>(c, 2);
        queue(w, c.cta, arg<uint64_t>(c, 3));
        return r;
    }
    case builtin::cdp_get_device: {
        const int32_t zero = 0;
        store(arg<uint64_t>(c, 0), &zero, 4);
        return r;
    }
    case builtin::cdp_device_count: {
        const int32_t one = 1;
        store(arg<uint64_t>(c, 0), &one, 4);
        return r;
    }
    case builtin::cdp_runtime_version: {
        const int32_t v = cuda_runtime_version;
        store(arg<uint64_t>(c, 0), &v, 4);
        return r;
    }
    default:
        r.value = cuda_invalid_value;
        return r;
    }
}

std::vector<device_work> device_runtime::take() {
    std::lock_guard<std::mutex> guard(lock_);
    std::vector<device_work> out;
    out.swap(work_);
    queued_per_cta_.clear();
    // By CTA then queue order; tail launches after the rest.
    std::stable_sort(out.begin(), out.end(), [](const device_work& a, const device_work& b) {
        if (a.tail != b.tail) return !a.tail;
        return a.cta != b.cta ? a.cta < b.cta : a.seq < b.seq;
    });
    for (const auto& w : out) buffers_.erase(w.param_buffer);
    return out;
}

} // namespace ptxsim::sim
