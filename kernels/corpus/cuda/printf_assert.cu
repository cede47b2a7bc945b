// Theme: toolchain-generated call sequences for printf (vprintf), assert
// (__assertfail), __trap / brkpt, and __noinline__ device functions that
// return values; a .noreturn helper that ends an entry.
#include <cstdio>
#include <cassert>

__device__ __noinline__ int scale_and_offset(int x, int s, int o)
{
    return x * s + o;
}

__device__ __noinline__ float blend(float a, float b, float t)
{
    return a + (b - a) * t;
}

__device__ __noinline__ void say_hello(int tid)
{
    printf("hello from thread %d of block %d\n", tid, (int)blockIdx.x);
}

__device__ __noinline__ __attribute__((noreturn)) void die_now(int code)
{
    printf("fatal code %d\n", code);
    __trap();
}

__global__ void printf_kernel(const int *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = scale_and_offset(in[i], 3, -2147483647);
    float f = blend((float)v, 1.0f, 0.25f);
    printf("i=%d v=%d f=%f d=%lld c=%c s=%s\n", i, v, (double)f, (long long)v * 1234567890123LL, 'x', "str");
    if (i == 0) say_hello(threadIdx.x);
    out[i] = f;
}

__global__ void assert_kernel(const int *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        assert(in[i] >= 0);
        assert(in[i] < 1000 && "value out of range");
    }
}

__global__ void trap_kernel(const int *flag)
{
    if (*flag == 1) __trap();
    if (*flag == 2) __brkpt();
    if (*flag == 3) die_now(*flag);
}

__global__ void noreturn_tail_kernel(int code)
{
    // The entry ends in a call to a .noreturn function.
    die_now(code);
}
