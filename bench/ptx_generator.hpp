#pragma once
// Generates large, valid sm_90a PTX that looks like nvcc -lineinfo output
// (parameter loads, index arithmetic, vector loads, FMA chains, shuffles,
// atomics, branches, wgmma/TMA/mbarrier inline-asm blocks, .loc lines), for
// benchmarks and tests. Deterministic for a given seed.
#include <cstddef>
#include <cstdint>
#include <string>

namespace ptxsim::bench {

// At least `min_bytes` of PTX: a module header and as many kernels as needed.
std::string generate_ptx(size_t min_bytes, uint32_t seed = 1);

} // namespace ptxsim::bench
