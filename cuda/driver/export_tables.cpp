// cuGetExportTable: the private tables of functions the CUDA runtime asks
// the driver for by UUID, besides the public API. Their layouts are not
// documented by NVIDIA; what is known of them comes from ZLUDA's study of
// the runtime (docs/exec.md lists what each slot does here). A table the
// runtime cannot do without is answered; a slot ptxsim does not serve
// names itself once when called and fails with CUDA_ERROR_NOT_SUPPORTED.
#include <array>
#include <cstring>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "cuda/driver/api.hpp"
#include "cuda/driver/integrity_check.hpp"
#include "cuda/driver/state.hpp"

extern "C" ptxsim::cuda::driver::CUresult cuDevicePrimaryCtxRetain(void** ctx, int dev);

namespace ptxsim::cuda::driver {
namespace {

enum table_id { cudart_interface, tools_tls, tools_callback_hooks, context_local_storage, ctx_create_bypass,
                heap_access, device_extended_rt, context_checks, integrity, table_count };

struct table_spec {
    const char* uuid;  // the 16 bytes, in the order the runtime passes them
    const char* name;
    size_t slots;
    bool size_in_slot0;
};

constexpr table_spec specs[table_count] = {
    {"6bd5fb6c5bf4e74a8987d93912fd9df9", "CUDART_INTERFACE", 13, true},
    {"42d85a8123f6cb478298f6e78a3aecdc", "TOOLS_TLS", 4, true},
    {"a094798c2e742e7493f20800200c0a66", "TOOLS_RUNTIME_CALLBACK_HOOKS", 7, true},
    {"c693336e1121df11a8c368f355d89593", "CONTEXT_LOCAL_STORAGE", 4, false},
    {"0ca50b8c1004929a89a7d0df10e77286", "CTX_CREATE_BYPASS", 2, true},
    {"195bcbf4d67d024aacc51d29cea631ae", "HEAP_ACCESS", 3, true},
    {"b10541e1f7c7c74a9f64f223be99f1e2", "DEVICE_EXTENDED_RT", 26, true},
    {"263e88607cd2614392f6bbd5006dfa7e", "CONTEXT_CHECKS", 4, true},
    {"d4082055bde6704b8d34ba123c66e1f2", "INTEGRITY_CHECK", 3, true},
};

struct table {
    std::array<void*, 32> slots{};
};

// The stub for slot S of table T.
template <int T, int S>
CUresult unserved_slot() {
    state::get().note_unserved(fmt::format("the runtime's private {} table, entry {}", specs[T].name, S));
    return CUDA_ERROR_NOT_SUPPORTED;
}

template <int T, size_t... S>
std::array<void*, 32> stubs_of(std::index_sequence<S...>) {
    return {reinterpret_cast<void*>(&unserved_slot<T, int(S)>)...};
}

// --- CUDART_INTERFACE: module registration and the primary context.

CUresult load_module(void** module, const void* image) {
    if (!module || !image) return CUDA_ERROR_INVALID_VALUE;
    state& st = state::get();
    std::lock_guard<std::recursive_mutex> guard(st.lock);
    module_object* m = nullptr;
    if (CUresult r = st.load_image(image, m)) return r;
    *module = m;
    return CUDA_SUCCESS;
}

CUresult get_module_from_cubin(void** module, const void* wrapper) { return load_module(module, wrapper); }

CUresult get_module_from_cubin_ext1(void** module, const void* wrapper, void*, void*, unsigned) {
    return load_module(module, wrapper);
}

CUresult get_module_from_cubin_ext2(const void* fatbin, void** module, void*, void*, unsigned) {
    return load_module(module, fatbin);
}

// The primary context, without retaining it.
CUresult primary_context_of(void** ctx, int dev) {
    if (!ctx) return CUDA_ERROR_INVALID_VALUE;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    *ctx = state::get().primary_context();
    return CUDA_SUCCESS;
}

void ignore_size(size_t) {}

CUresult load_compilers() { return CUDA_SUCCESS; }  // the PTX JIT is ptxsim itself

// --- TOOLS_RUNTIME_CALLBACK_HOOKS: two buffers the runtime writes into.

void callback_buffer1(void** ptr, size_t* size) {
    static uint8_t buffer[1024];
    *ptr = buffer;
    *size = sizeof buffer;
}

void callback_buffer2(void** ptr, size_t* size) {
    static uint32_t buffer[14];
    *ptr = buffer;
    *size = sizeof buffer;
}

// --- CONTEXT_LOCAL_STORAGE: the runtime's per-context data.

struct local_value {
    void* value;
    void (*destructor)(void*, void*, void*);
};
// Never destroyed: the runtime deletes its entries from its own exit
// handlers, which run after this library's static destructors.
std::map<std::pair<void*, void*>, local_value>& local_storage() {
    static auto* m = new std::map<std::pair<void*, void*>, local_value>();
    return *m;
}

void* context_or_current(void* ctx) {
    state& st = state::get();
    return ctx ? ctx : st.current_context ? st.current_context : st.primary_context();
}

CUresult local_put(void* ctx, void* key, void* value, void (*destructor)(void*, void*, void*)) {
    state& st = state::get();
    std::lock_guard<std::recursive_mutex> guard(st.lock);
    local_storage()[{context_or_current(ctx), key}] = {value, destructor};
    return CUDA_SUCCESS;
}

CUresult local_delete(void* ctx, void* key) {
    state& st = state::get();
    std::lock_guard<std::recursive_mutex> guard(st.lock);
    return local_storage().erase({context_or_current(ctx), key}) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult local_get(void** value, void* ctx, void* key) {
    state& st = state::get();
    std::lock_guard<std::recursive_mutex> guard(st.lock);
    auto it = local_storage().find({context_or_current(ctx), key});
    if (it == local_storage().end()) return CUDA_ERROR_INVALID_HANDLE;
    *value = it->second.value;
    return CUDA_SUCCESS;
}

// --- CONTEXT_CHECKS: flags of a context that are never set here.

CUresult context_check(void*, uint32_t* result, const void**) {
    if (result) *result = 0;
    return CUDA_SUCCESS;
}

uint32_t context_check3() { return 0; }

// --- INTEGRITY_CHECK: the runtime's check of its driver.

std::array<table, table_count>& tables();

int check_integrity(uint32_t version, uint64_t unix_seconds, uint64_t (*result)[2]) {
    return integrity_check(version, unix_seconds, result, tables()[cudart_interface].slots.data(),
                           tables()[integrity].slots.data(), reinterpret_cast<const void*>(&check_integrity));
}

template <size_t... T>
std::array<table, table_count> build_tables(std::index_sequence<T...>) {
    std::array<table, table_count> tables;
    ((tables[T].slots = stubs_of<int(T)>(std::make_index_sequence<32>())), ...);
    for (size_t t = 0; t < table_count; ++t)
        if (specs[t].size_in_slot0)
            tables[t].slots[0] = reinterpret_cast<void*>(specs[t].slots * sizeof(void*));
    auto set = [&](table_id t, int s, auto* f) { tables[t].slots[s] = reinterpret_cast<void*>(f); };
    set(cudart_interface, 1, &get_module_from_cubin);
    set(cudart_interface, 2, &primary_context_of);
    set(cudart_interface, 6, &get_module_from_cubin_ext1);
    set(cudart_interface, 7, &ignore_size);
    set(cudart_interface, 8, &get_module_from_cubin_ext2);
    set(cudart_interface, 12, &load_compilers);
    set(tools_callback_hooks, 2, &callback_buffer1);
    set(tools_callback_hooks, 6, &callback_buffer2);
    set(context_local_storage, 0, &local_put);
    set(context_local_storage, 1, &local_delete);
    set(context_local_storage, 2, &local_get);
    set(context_checks, 2, &context_check);
    set(context_checks, 3, &context_check3);
    set(integrity, 1, &check_integrity);
    return tables;
}

std::array<table, table_count>& tables() {
    static std::array<table, table_count> t = build_tables(std::make_index_sequence<table_count>());
    return t;
}

std::string hex_of(const CUuuid& id) {
    std::string s;
    for (char c : id.bytes) s += fmt::format("{:02x}", uint8_t(c));
    return s;
}

} // namespace

extern "C" {

CUresult cuGetExportTable(const void** table, const CUuuid* id) {
    if (!table || !id) return CUDA_ERROR_INVALID_VALUE;
    std::string hex = hex_of(*id);
    trace("cuGetExportTable(" + hex + ")");
    for (size_t t = 0; t < table_count; ++t)
        if (hex == specs[t].uuid) {
            *table = tables()[t].slots.data();
            return CUDA_SUCCESS;
        }
    // Tables the runtime can do without (it checks for one it does not need
    // first thing): refused quietly, as an older driver would.
    *table = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
}

} // extern "C"

} // namespace ptxsim::cuda::driver
