#pragma once
// The kernels of kernels/throughput.cu as plain C++, the native baseline of
// throughput_bench.cpp. throughput_native.cpp is compiled twice: at -O3 for
// the build's target (namespace o3; what the engine itself is built for)
// and, where the compiler takes it, at -O3 -march=native (namespace
// o3_native: the host's full SIMD width and FMA). Outputs are
// bit-identical to the kernels'.
#include <cstdint>

namespace ptxsim::bench {
namespace o3 {
void xorshift_mul_native(uint32_t* out, uint32_t threads, int rounds);
void fma_chain_native(float* out, uint32_t threads, int rounds);
} // namespace o3
namespace o3_native {
void xorshift_mul_native(uint32_t* out, uint32_t threads, int rounds);
void fma_chain_native(float* out, uint32_t threads, int rounds);
} // namespace o3_native
} // namespace ptxsim::bench
