// Theme: atomics and reductions with scopes (_block, _system), on 32/64-bit
// integers, float, double, 128-bit CAS/exchange and float2/float4 vector
// atomicAdd (sm_90), and cuda::atomic_ref orders.
#include <cstdint>
#include <cuda/atomic>

struct alignas(16) Pair128 { unsigned long long a, b; };

__global__ void int_atomics_kernel(int *i32, unsigned *u32, unsigned long long *u64, long long *s64)
{
    int t = threadIdx.x;
    atomicAdd(i32, t);
    atomicSub(i32 + 1, t);
    atomicMin(i32 + 2, -t);
    atomicMax(i32 + 3, t);
    atomicInc(u32, 100u);
    atomicDec(u32 + 1, 100u);
    atomicAnd(u32 + 2, 0xf0f0f0f0u);
    atomicOr(u32 + 3, 1u << (t & 31));
    atomicXor(u32 + 4, 0x5555aaaau);
    unsigned old = atomicExch(u32 + 5, (unsigned)t);
    atomicCAS(u32 + 6, old, old + 1);
    atomicAdd(u64, 1ull << 40);
    atomicMin(s64, (long long)-t * 5000000000LL);
    atomicMax(u64 + 1, 0xffffffff00000000ull);
    atomicCAS(u64 + 2, 0ull, (unsigned long long)t);
    atomicAdd_block(i32 + 4, 1);
    atomicAdd_system(i32 + 5, 1);
    atomicCAS_system(u32 + 7, 0u, 1u);
    atomicExch_block(u64 + 3, 7ull);
}

__global__ void float_atomics_kernel(float *f, double *d, float2 *f2, float4 *f4)
{
    float v = (float)threadIdx.x * 0.5f;
    atomicAdd(f, v);
    atomicAdd(d, (double)v);
    atomicAdd_block(f + 1, v);
    atomicAdd_system(d + 1, 1.0);
#if __CUDA_ARCH__ >= 900
    atomicAdd(f2, make_float2(v, -v));
    atomicAdd(f4, make_float4(v, v, 1.0f, -1.0f));
#endif
}

__global__ void wide_atomics_kernel(Pair128 *p, __int128 *q)
{
#if __CUDA_ARCH__ >= 900
    Pair128 expected = { 0, 0 };
    Pair128 desired = { threadIdx.x, ~0ull };
    Pair128 prev = atomicCAS(p, expected, desired);
    Pair128 swapped = atomicExch(p + 1, prev);
    __int128 e = 0;
    __int128 r = atomicCAS(q, e, (__int128)threadIdx.x << 70);
    p[2].a = swapped.a + (unsigned long long)r;
#endif
}

__global__ void atomic_ref_kernel(int *x, unsigned long long *y, float *z)
{
    cuda::atomic_ref<int, cuda::thread_scope_block> a(*x);
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_system> b(*y);
    cuda::atomic_ref<float, cuda::thread_scope_device> c(*z);
    a.fetch_add(1, cuda::memory_order_relaxed);
    a.fetch_or(4, cuda::memory_order_acq_rel);
    b.fetch_max(5ull, cuda::memory_order_seq_cst);
    c.fetch_add(1.5f, cuda::memory_order_release);
    int e = 0;
    a.compare_exchange_strong(e, 3, cuda::memory_order_acquire);
    c.store(c.load(cuda::memory_order_acquire) * 2.0f, cuda::memory_order_release);
}

__global__ void shared_atomics_kernel(int *out)
{
    __shared__ int s[32];
    __shared__ float sf;
    if (threadIdx.x < 32) s[threadIdx.x] = 0;
    if (threadIdx.x == 0) sf = 0.0f;
    __syncthreads();
    atomicAdd(&s[threadIdx.x & 31], 1);
    atomicMax(&s[0], (int)threadIdx.x);
    atomicAdd(&sf, 0.25f);
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x & 31] + (int)sf;
}
