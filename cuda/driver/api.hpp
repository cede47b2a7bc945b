#pragma once
// What the entry points of ptxsim's CUDA driver share. The entry points
// themselves are extern "C" functions with the names and ABI of NVIDIA's
// libcuda.so.1 (cuMemAlloc_v2, cuLaunchKernel, ...), defined in api_*.cpp;
// every other exported driver function is a weak stub (unserved_stubs.cpp)
// that names itself once on stderr and returns CUDA_ERROR_NOT_SUPPORTED.
#include "cuda/driver/cu.hpp"

namespace ptxsim::cuda::driver {

// The driver version reported to programs (cuDriverGetVersion): CUDA 13.0,
// the runtime nvcc 13 programs are linked with.
inline constexpr int driver_version = 13000;

// The function cuGetProcAddress returns for `name` at API `version`
// (per_thread: the per-thread-default-stream variant); null when the driver
// has no such function.
void* proc_address(const char* name, int version, bool per_thread);

} // namespace ptxsim::cuda::driver
