// Modules and libraries (cuModuleLoadData, cuLibraryLoadData and the
// runtime's private registration, export_tables.cpp), their kernels and
// variables, and function attributes.
#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "cuda/driver/api.hpp"
#include "cuda/driver/jit_options.hpp"
#include "cuda/driver/state.hpp"
#include "sim/register_estimate.hpp"

namespace ptxsim::cuda::driver {
namespace {

module_object* module_of(state& st, void* handle) { return st.find(st.modules_owned, handle); }

} // namespace

function_object* function_of(state& st, void* handle) {
    for (const auto& m : st.modules_owned)
        for (const auto& [name, f] : m->functions)
            if (f.get() == handle) return f.get();
    return nullptr;
}

uint32_t static_shared_bytes(const isa::exec_function& code) {
    uint32_t end = 0;
    for (const auto& r : code.shared_regions) end = std::max(end, r.offset + r.size);
    return end;
}

uint32_t registers_of(const state& st, const function_object& f) {
    const auto& c = *f.code;
    return c.maxnreg ? c.maxnreg : sim::estimate_registers(c, st.model().sm.registers_per_sm);
}

// Every kernel of a module and the modules linked with it, sorted.
std::vector<std::string> kernels_of(state& st, const module_object& m) {
    std::vector<std::string> names;
    if (!m.has_ptx) return names;
    for (size_t i : m.all())
        for (auto& n : st.device().kernels_in(i)) names.push_back(std::move(n));
    std::sort(names.begin(), names.end());
    return names;
}

CUresult get_function(state& st, module_object* m, const char* name, function_object*& out) {
    if (!m || !name) return CUDA_ERROR_INVALID_VALUE;
    if (auto it = m->functions.find(name); it != m->functions.end()) {
        out = it->second.get();
        return CUDA_SUCCESS;
    }
    if (!m->has_ptx) {
        st.warn(fmt::format("kernel {} cannot run: {}", name, m->no_ptx_reason));
        return CUDA_ERROR_NO_BINARY_FOR_GPU;
    }
    std::optional<sim::kernel_ref> k;
    for (size_t i : m->all())
        if (!k) k = st.device().kernel_in(i, name);
    if (!k) return CUDA_ERROR_NOT_FOUND;
    parser::diagnostics d;
    const isa::exec_function* code = st.device().kernel_code(*k, d);
    if (!code) {
        st.warn(fmt::format("kernel {} does not decode:\n{}", name, text_of(d)));
        return CUDA_ERROR_INVALID_PTX;
    }
    auto f = std::make_unique<function_object>();
    f->module = m;
    f->kernel = *k;
    f->code = code;
    out = f.get();
    m->functions[name] = std::move(f);
    return CUDA_SUCCESS;
}

// The JIT options' compiler settings do not apply (PTX is interpreted); their
// logs and wall time are written as the driver writes them.
CUresult load_with_options(CUmodule* module, const void* image, unsigned n, void* options, void** values) {
    PTXSIM_ENTER(true);
    if (!module || !image) return CUDA_ERROR_INVALID_VALUE;
    const auto t0 = std::chrono::steady_clock::now();
    const jit_options o = read_jit_options(n, options, values);
    module_object* m = nullptr;
    std::string error;
    CUresult r = st.load_image(image, m, &error);
    if (r == CUDA_SUCCESS) *module = m;
    write_jit_results(o, "", error, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    return r;
}

extern "C" {

CUresult cuModuleLoadData(CUmodule* module, const void* image) {
    PTXSIM_ENTER(true);
    if (!module || !image) return CUDA_ERROR_INVALID_VALUE;
    module_object* m = nullptr;
    CUresult r = st.load_image(image, m);
    if (r == CUDA_SUCCESS) *module = m;
    return r;
}

CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned n, void* options, void** values) {
    return load_with_options(module, image, n, options, values);
}

CUresult cuModuleLoadFatBinary(CUmodule* module, const void* image) { return cuModuleLoadData(module, image); }

CUresult cuModuleLoad(CUmodule* module, const char* path) {
    if (!path) return CUDA_ERROR_INVALID_VALUE;
    std::ifstream in(path, std::ios::binary);
    if (!in) return CUDA_ERROR_FILE_NOT_FOUND;
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    bytes.push_back('\0');
    return cuModuleLoadData(module, bytes.data());
}

CUresult cuModuleUnload(CUmodule module) {
    PTXSIM_ENTER(false);
    // The simulated device keeps the module's code (its variables keep their
    // addresses); the handle goes.
    for (auto it = st.modules_owned.begin(); it != st.modules_owned.end(); ++it)
        if (it->get() == module) {
            st.modules_owned.erase(it);
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuModuleGetFunction(CUfunction* fn, CUmodule module, const char* name) {
    PTXSIM_ENTER(true);
    if (!fn) return CUDA_ERROR_INVALID_VALUE;
    module_object* m = module_of(st, module);
    if (!m) return CUDA_ERROR_INVALID_HANDLE;
    function_object* f = nullptr;
    CUresult r = get_function(st, m, name, f);
    if (r == CUDA_SUCCESS) *fn = f;
    return r;
}

CUresult cuModuleGetGlobal_v2(CUdeviceptr* dptr, size_t* bytes, CUmodule module, const char* name) {
    PTXSIM_ENTER(true);
    module_object* m = module_of(st, module);
    if (!m) return CUDA_ERROR_INVALID_HANDLE;
    if (!name) return CUDA_ERROR_INVALID_VALUE;
    if (!m->has_ptx) return CUDA_ERROR_NOT_FOUND;
    std::optional<std::pair<uint64_t, uint64_t>> s;
    for (size_t i : m->all())
        if (!s) s = st.device().symbol_in(i, name);
    if (!s) return CUDA_ERROR_NOT_FOUND;
    if (dptr) *dptr = s->first;
    if (bytes) *bytes = s->second;
    return CUDA_SUCCESS;
}

CUresult cuModuleGetLoadingMode(int* mode) {
    if (!mode) return CUDA_ERROR_INVALID_VALUE;
    *mode = 1;  // CU_MODULE_EAGER_LOADING
    return CUDA_SUCCESS;
}

// ---- the library API: a library is a module, a CUkernel its function.
CUresult cuLibraryLoadData(CUlibrary* library, const void* code, void* jit_options, void** jit_values, unsigned jit_count,
                           void*, void**, unsigned) {
    return load_with_options(library, code, jit_count, jit_options, jit_values);
}

CUresult cuLibraryLoadFromFile(CUlibrary* library, const char* path, void*, void**, unsigned, void*, void**, unsigned) {
    return cuModuleLoad(library, path);
}

CUresult cuLibraryUnload(CUlibrary library) { return cuModuleUnload(library); }

CUresult cuLibraryGetKernel(CUkernel* kernel, CUlibrary library, const char* name) {
    return cuModuleGetFunction(kernel, library, name);
}

CUresult cuLibraryGetModule(CUmodule* module, CUlibrary library) {
    PTXSIM_ENTER(true);
    if (!module) return CUDA_ERROR_INVALID_VALUE;
    if (!module_of(st, library)) return CUDA_ERROR_INVALID_HANDLE;
    *module = library;
    return CUDA_SUCCESS;
}

CUresult cuKernelGetFunction(CUfunction* fn, CUkernel kernel) {
    PTXSIM_ENTER(true);
    if (!fn) return CUDA_ERROR_INVALID_VALUE;
    if (!function_of(st, kernel)) return CUDA_ERROR_INVALID_HANDLE;
    *fn = kernel;
    return CUDA_SUCCESS;
}

CUresult cuLibraryGetGlobal(CUdeviceptr* dptr, size_t* bytes, CUlibrary library, const char* name) {
    return cuModuleGetGlobal_v2(dptr, bytes, library, name);
}

CUresult cuLibraryGetKernelCount(unsigned* count, CUlibrary library) {
    PTXSIM_ENTER(true);
    module_object* m = module_of(st, library);
    if (!m) return CUDA_ERROR_INVALID_HANDLE;
    if (!count) return CUDA_ERROR_INVALID_VALUE;
    *count = unsigned(kernels_of(st, *m).size());
    return CUDA_SUCCESS;
}

CUresult cuLibraryEnumerateKernels(CUkernel* kernels, unsigned n, CUlibrary library) {
    PTXSIM_ENTER(true);
    module_object* m = module_of(st, library);
    if (!m) return CUDA_ERROR_INVALID_HANDLE;
    if (!kernels) return CUDA_ERROR_INVALID_VALUE;
    auto names = kernels_of(st, *m);
    for (unsigned i = 0; i < n && i < names.size(); ++i) {
        function_object* f = nullptr;
        if (CUresult r = get_function(st, m, names[i].c_str(), f)) return r;
        kernels[i] = f;
    }
    return CUDA_SUCCESS;
}

// ---- function attributes
CUresult cuFuncGetAttribute(int* value, int attribute, CUfunction fn) {
    PTXSIM_ENTER(true);
    if (!value) return CUDA_ERROR_INVALID_VALUE;
    function_object* f = function_of(st, fn);
    if (!f) return CUDA_ERROR_INVALID_HANDLE;
    const auto& c = *f->code;
    const auto& m = st.model();
    switch (attribute) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: {
        uint32_t limit = m.sm.max_threads_per_cta;
        uint32_t decl = c.maxntid[0] ? c.maxntid[0] * std::max(1u, c.maxntid[1]) * std::max(1u, c.maxntid[2])
                      : c.reqntid[0] ? c.reqntid[0] * std::max(1u, c.reqntid[1]) * std::max(1u, c.reqntid[2])
                                     : limit;
        *value = int(std::min(limit, decl));
        return CUDA_SUCCESS;
    }
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *value = int(static_shared_bytes(c)); return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *value = 0; return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *value = int(c.local_bytes); return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_NUM_REGS:
        *value = int(registers_of(st, *f));
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *value = 90; return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA: *value = 0; return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
        *value = int(f->max_dynamic_shared ? f->max_dynamic_shared
                                           : m.shared_memory.default_per_cta_bytes - static_shared_bytes(c));
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *value = -1; return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET: *value = c.explicitcluster; return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH: *value = int(c.reqnctapercluster[0]); return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT: *value = int(c.reqnctapercluster[1]); return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH: *value = int(c.reqnctapercluster[2]); return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED: *value = f->non_portable_cluster; return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE: *value = 0; return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult cuFuncSetAttribute(CUfunction fn, int attribute, int value) {
    PTXSIM_ENTER(true);
    function_object* f = function_of(st, fn);
    if (!f) return CUDA_ERROR_INVALID_HANDLE;
    switch (attribute) {
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
        if (value < 0 || uint64_t(value) + static_shared_bytes(*f->code) > st.model().shared_memory.max_per_cta_bytes)
            return CUDA_ERROR_INVALID_VALUE;
        f->max_dynamic_shared = uint32_t(value);
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
        f->non_portable_cluster = value != 0;
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
        return CUDA_SUCCESS;  // hints: they change no result
    default: return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult cuFuncSetCacheConfig(CUfunction, int) {
    PTXSIM_ENTER(true);
    return CUDA_SUCCESS;
}

CUresult cuFuncSetSharedMemConfig(CUfunction, int) {
    PTXSIM_ENTER(true);
    return CUDA_SUCCESS;
}

CUresult cuFuncGetName(const char** name, CUfunction fn) {
    PTXSIM_ENTER(false);
    function_object* f = function_of(st, fn);
    if (!f) return CUDA_ERROR_INVALID_HANDLE;
    if (!name) return CUDA_ERROR_INVALID_VALUE;
    *name = f->kernel.name.c_str();
    return CUDA_SUCCESS;
}

CUresult cuFuncGetParamInfo(CUfunction fn, size_t index, size_t* offset, size_t* size) {
    PTXSIM_ENTER(false);
    function_object* f = function_of(st, fn);
    if (!f) return CUDA_ERROR_INVALID_HANDLE;
    if (index >= f->code->params.size()) return CUDA_ERROR_INVALID_VALUE;
    if (offset) *offset = f->code->params[index].offset;
    if (size) *size = f->code->params[index].size;
    return CUDA_SUCCESS;
}

CUresult cuFuncGetModule(CUmodule* module, CUfunction fn) {
    PTXSIM_ENTER(false);
    function_object* f = function_of(st, fn);
    if (!f) return CUDA_ERROR_INVALID_HANDLE;
    if (!module) return CUDA_ERROR_INVALID_VALUE;
    *module = f->module;
    return CUDA_SUCCESS;
}

CUresult cuKernelGetAttribute(int* value, int attribute, CUkernel kernel, CUdevice) {
    return cuFuncGetAttribute(value, attribute, kernel);
}
CUresult cuKernelSetAttribute(int attribute, int value, CUkernel kernel, CUdevice) {
    return cuFuncSetAttribute(kernel, attribute, value);
}
CUresult cuKernelSetCacheConfig(CUkernel, int, CUdevice) {
    PTXSIM_ENTER(true);
    return CUDA_SUCCESS;
}
CUresult cuKernelGetName(const char** name, CUkernel kernel) { return cuFuncGetName(name, kernel); }
CUresult cuKernelGetParamInfo(CUkernel kernel, size_t index, size_t* offset, size_t* size) {
    return cuFuncGetParamInfo(kernel, index, offset, size);
}

} // extern "C"

} // namespace ptxsim::cuda::driver
