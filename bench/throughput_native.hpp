#pragma once
// The kernels of kernels/throughput.cu as plain C++ (one loop per thread,
// threads one after another), compiled with -O3 as the native baseline of
// throughput_bench.cpp. Outputs are bit-identical to the kernels'.
#include <cstdint>

namespace ptxsim::bench {

void xorshift_mul_native(uint32_t* out, uint32_t threads, int rounds);
void fma_chain_native(float* out, uint32_t threads, int rounds);

} // namespace ptxsim::bench
