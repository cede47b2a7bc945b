// cuGetProcAddress: how the CUDA runtime (static or shared) finds every
// driver function it uses. It asks by base name and API version
// ("cuMemAlloc", 3020) and the driver answers with the ABI revision of
// that version (cuMemAlloc_v2). proc_table.inc, generated from CUDA's
// headers, lists each revision; a revision ptxsim does not implement
// resolves to its weak stub, which reports itself when called.
#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "cuda/driver/api.hpp"
#include "cuda/driver/proc_table.hpp"
#include "cuda/driver/state.hpp"

namespace ptxsim::cuda::driver {
namespace {

// cuGetProcAddress's flags.
constexpr unsigned per_thread_default_stream = 2;

// The newest row of `name` not newer than `version`; `found_any` says
// whether `name` exists at all (for VERSION_NOT_SUFFICIENT).
const proc_row* find(std::string_view name, int version, bool per_thread, bool& found_any) {
    const proc_row* best = nullptr;
    for (const proc_row& r : proc_rows()) {
        if (r.name != name || r.per_thread != per_thread) continue;
        found_any = true;
        if (r.version <= version && (!best || r.version > best->version)) best = &r;
    }
    return best;
}

CUresult get_proc_address(const char* symbol, void** pfn, int version, unsigned long long flags, int* status) {
    if (!symbol || !pfn) return CUDA_ERROR_INVALID_VALUE;
    bool found_any = false;
    const proc_row* r = nullptr;
    if (flags & per_thread_default_stream) r = find(symbol, version, true, found_any);
    // Functions that take no stream have no per-thread variant: the plain one
    // serves. So does it where ptxsim serves only the plain one: kernels run
    // inside their launch, so the default streams' ordering is the same.
    if (!r || is_unserved_stub(r->address)) {
        const proc_row* plain = find(symbol, version, false, found_any);
        if (plain && (!r || !is_unserved_stub(plain->address))) r = plain;
    }
    *pfn = r ? r->address : nullptr;
    if (tracing())
        trace(fmt::format("cuGetProcAddress({}, {}, flags {}) -> {}", symbol, version, flags,
                          r ? fmt::format("revision of {}{}{}", r->version, r->per_thread ? " per-thread" : "",
                                          is_unserved_stub(r->address) ? " (not served)" : "") : "not found"));
    if (status)
        *status = r ? CU_GET_PROC_ADDRESS_SUCCESS
                    : found_any ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return r ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

} // namespace

void* proc_address(const char* name, int version, bool per_thread) {
    void* p = nullptr;
    get_proc_address(name, &p, version, per_thread ? per_thread_default_stream : 0, nullptr);
    return p;
}

extern "C" {

// cuGetProcAddress needs no cuInit: the runtime resolves everything first.
CUresult cuGetProcAddress(const char* symbol, void** pfn, int version, unsigned long long flags) {
    return get_proc_address(symbol, pfn, version, flags, nullptr);
}

CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int version, unsigned long long flags, int* status) {
    return get_proc_address(symbol, pfn, version, flags, status);
}

} // extern "C"

} // namespace ptxsim::cuda::driver
