// Theme: device malloc/free, recursion, function pointers (indirect calls
// with .callprototype), __constant__ tables of function pointers.
#include <cstdio>
#include <cstdlib>

__device__ __noinline__ int fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__device__ __noinline__ float f_square(float x) { return x * x; }
__device__ __noinline__ float f_negate(float x) { return -x; }
__device__ __noinline__ float f_half(float x) { return x * 0.5f; }

typedef float (*unary_fn)(float);

__constant__ unary_fn c_ops[3] = { f_square, f_negate, f_half };
__device__ unary_fn g_ops[2] = { f_negate, f_square };

__device__ __noinline__ long long sum_list(int depth, long long acc)
{
    if (depth == 0) return acc;
    return sum_list(depth - 1, acc + depth * 3000000000LL);
}

__global__ void recursion_kernel(int *out, long long *out64, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = fib(n + (i & 7));
    out64[i] = sum_list(i & 15, 0);
}

__global__ void fnptr_kernel(float *data, const int *which, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unary_fn f = c_ops[which[i] % 3];
    unary_fn g = g_ops[which[i] & 1];
    data[i] = g(f(data[i]));
}

__global__ void malloc_kernel(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int *buf = (int *)malloc(sizeof(int) * (n + 1));
    if (buf == nullptr) { out[i] = -1; return; }
    for (int k = 0; k <= n; ++k) buf[k] = k * i;
    int s = 0;
    for (int k = 0; k <= n; ++k) s += buf[k];
    free(buf);
    out[i] = s;
}
