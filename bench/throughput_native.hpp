#pragma once
// The kernels of kernels/throughput.cu as plain C++, the native baseline of
// throughput_bench.cpp. throughput_native.cpp is compiled twice: at -O3 for
// the build's target (namespace o3) and, where the instruction handlers
// are built for AVX2 and FMA, at -O3 -mavx2 -mfma (namespace o3_avx2: the
// vector instructions the engine's handlers use). Outputs are
// bit-identical to the kernels'.
#include <cstdint>

namespace ptxsim::bench {
namespace o3 {
void xorshift_mul_native(uint32_t* out, uint32_t threads, int rounds);
void fma_chain_native(float* out, uint32_t threads, int rounds);
} // namespace o3
namespace o3_avx2 {
void xorshift_mul_native(uint32_t* out, uint32_t threads, int rounds);
void fma_chain_native(float* out, uint32_t threads, int rounds);
} // namespace o3_avx2
} // namespace ptxsim::bench
