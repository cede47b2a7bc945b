// A weak definition of every function NVIDIA's libcuda.so.1 exports, so
// that programs linked against the driver load and resolve every name, and
// cuGetProcAddress has an address for each. The functions ptxsim serves
// (api_*.cpp) override these; a stub that is called names its function once
// on stderr (and in the summary at exit) and returns
// CUDA_ERROR_NOT_SUPPORTED, whatever the function's signature: the result
// is in the return register and the arguments are ignored.
#include <algorithm>
#include <vector>

#include "cuda/driver/proc_table.hpp"
#include "cuda/driver/state.hpp"

namespace ptxsim::cuda::driver {
namespace {
int unserved(const char* name) {
    state::get().note_unserved(name);
    return CUDA_ERROR_NOT_SUPPORTED;
}
} // namespace
} // namespace ptxsim::cuda::driver

// Each stub has a name of its own (ptxsim_stub_cuFoo) and is the weak
// definition of cuFoo: comparing cuFoo's address with the stub's tells
// whether ptxsim serves cuFoo.
#define PTXSIM_PROC(name, version, per_thread, symbol)
#define PTXSIM_SYMBOL(symbol)                                                                      \
    extern "C" int ptxsim_stub_##symbol() { return ptxsim::cuda::driver::unserved(#symbol); }   \
    extern "C" __attribute__((weak, alias("ptxsim_stub_" #symbol))) int symbol();
#include "cuda/driver/proc_table.inc"
#undef PTXSIM_PROC
#undef PTXSIM_SYMBOL

namespace ptxsim::cuda::driver {

bool is_unserved_stub(const void* address) {
    static const std::vector<const void*>& stubs = *new std::vector<const void*>([] {
        std::vector<const void*> v = {
#define PTXSIM_PROC(name, version, per_thread, symbol)
#define PTXSIM_SYMBOL(symbol) reinterpret_cast<const void*>(&ptxsim_stub_##symbol),
#include "cuda/driver/proc_table.inc"
#undef PTXSIM_PROC
#undef PTXSIM_SYMBOL
        };
        std::sort(v.begin(), v.end());
        return v;
    }());  // never destroyed: stubs may be called from exit handlers
    return std::binary_search(stubs.begin(), stubs.end(), address);
}

} // namespace ptxsim::cuda::driver
