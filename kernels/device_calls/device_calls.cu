// Device functions that stay calls in PTX: recursion, a function-pointer
// table, and printf. out[i] = fact(i % 10) + op[i % 2](i, 3).
#include <cstdio>

__device__ __noinline__ unsigned fact(unsigned n) { return n <= 1 ? 1 : n * fact(n - 1); }
__device__ __noinline__ unsigned add3(unsigned a, unsigned b) { return a + b; }
__device__ __noinline__ unsigned mul3(unsigned a, unsigned b) { return a * b; }
__device__ unsigned (*const ops[2])(unsigned, unsigned) = {add3, mul3};

extern "C" __global__ void device_calls(unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned (*op)(unsigned, unsigned) = ops[i % 2];
    out[i] = fact(i % 10) + op(i, 3);
    if (i == 0) printf("device_calls: %d threads, fact(5) = %u, %s %.2f\n", n, fact(5), "pi is about", 3.14159);
}
