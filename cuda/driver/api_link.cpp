// The JIT linker (cuLinkCreate, cuLinkAddData, cuLinkComplete), as programs
// that build a module from PTX at run time use it. ptxsim runs PTX, so
// "linking" one PTX input yields that PTX, which cuModuleLoadData then
// loads; several PTX inputs yield an image that loads them as one module
// whose .extern functions and variables resolve by name across them
// (linked_image.hpp); cubins, objects and libraries are not served.
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <set>
#include <string>

#include "cuda/driver/api.hpp"
#include "cuda/driver/jit_options.hpp"
#include "cuda/driver/linked_image.hpp"
#include "cuda/driver/state.hpp"
#include "cuda/fatbin.hpp"

namespace ptxsim::cuda::driver {
namespace {

struct link_state {
    std::vector<std::string> ptx;
    std::string image;  // what cuLinkComplete hands out, alive until cuLinkDestroy
    // cuLinkCreate's options: the program keeps them alive until cuLinkDestroy,
    // and the logs and time of every step are written there.
    jit_options options;
    std::chrono::steady_clock::time_point created = std::chrono::steady_clock::now();
    void report(const std::string& error) const {
        write_jit_results(options, "", error,
                          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - created).count());
    }
};

// CUjitInputType
enum : int { input_cubin = 0, input_ptx = 1, input_fatbinary = 2, input_object = 3, input_library = 4 };

std::set<std::unique_ptr<link_state>>& links() {
    static auto* s = new std::set<std::unique_ptr<link_state>>();
    return *s;
}

link_state* find(void* handle) {
    for (const auto& l : links())
        if (l.get() == handle) return l.get();
    return nullptr;
}

} // namespace

extern "C" {

CUresult cuLinkCreate_v2(unsigned n, void* options, void** values, void** handle) {
    PTXSIM_ENTER(true);
    if (!handle) return CUDA_ERROR_INVALID_VALUE;
    auto l = std::make_unique<link_state>();
    l->options = read_jit_options(n, options, values);
    *handle = l.get();
    links().insert(std::move(l));
    return CUDA_SUCCESS;
}

CUresult cuLinkAddData_v2(void* handle, int type, void* data, size_t size, const char*, unsigned, void*, void**) {
    PTXSIM_ENTER(true);
    link_state* l = find(handle);
    if (!l) return CUDA_ERROR_INVALID_HANDLE;
    if (!data || size == 0) return CUDA_ERROR_INVALID_VALUE;
    if (type == input_ptx) {
        std::string text(static_cast<const char*>(data), size);
        while (!text.empty() && text.back() == '\0') text.pop_back();
        l->ptx.push_back(std::move(text));
        return CUDA_SUCCESS;
    }
    if (type == input_fatbinary) {
        std::vector<fatbin_entry> entries;
        std::string error;
        if (!parse_fatbin(static_cast<const uint8_t*>(data), size, entries, error)) {
            l->report("a fatbinary given to cuLinkAddData is malformed: " + error);
            return CUDA_ERROR_INVALID_IMAGE;
        }
        auto pick = choose_ptx(entries, uint32_t(std::atoi(st.model().arch.c_str() + 3)), true);
        if (!pick) {
            l->report("the fatbinary given to cuLinkAddData has no PTX for " + st.model().arch);
            return CUDA_ERROR_NO_BINARY_FOR_GPU;
        }
        l->ptx.push_back(entries[*pick].text());
        return CUDA_SUCCESS;
    }
    st.note_unserved("cuLinkAddData with a cubin, object or library", "ptxsim links PTX only");
    l->report("ptxsim links PTX only (a cubin, object or library input is not served)");
    return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuLinkAddFile_v2(void* handle, int type, const char* path, unsigned n, void* options, void** values) {
    {
        PTXSIM_ENTER(true);
        if (!path) return CUDA_ERROR_INVALID_VALUE;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) return CUDA_ERROR_FILE_NOT_FOUND;
    std::string bytes{std::istreambuf_iterator<char>(in), {}};
    return cuLinkAddData_v2(handle, type, bytes.data(), bytes.size(), path, n, options, values);
}

CUresult cuLinkComplete(void* handle, void** image, size_t* size) {
    PTXSIM_ENTER(true);
    link_state* l = find(handle);
    if (!l) return CUDA_ERROR_INVALID_HANDLE;
    if (!image) return CUDA_ERROR_INVALID_VALUE;
    if (l->ptx.empty()) {
        l->report("cuLinkComplete: nothing was added to the link");
        return CUDA_ERROR_INVALID_VALUE;
    }
    l->report("");
    // One input: that PTX (with its NUL: cuModuleLoadData reads PTX text).
    // Several: an image that loads them as one module, linked by name.
    l->image = l->ptx.size() == 1 ? l->ptx[0] : make_linked_image(l->ptx);
    *image = l->image.data();
    if (size) *size = l->image.size() + (l->ptx.size() == 1 ? 1 : 0);
    return CUDA_SUCCESS;
}

CUresult cuLinkDestroy(void* handle) {
    PTXSIM_ENTER(false);
    for (auto it = links().begin(); it != links().end(); ++it)
        if (it->get() == handle) {
            links().erase(it);
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_INVALID_HANDLE;
}

} // extern "C"

} // namespace ptxsim::cuda::driver
