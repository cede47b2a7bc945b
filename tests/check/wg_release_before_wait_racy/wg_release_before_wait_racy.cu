static __device__ __forceinline__ unsigned smem(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

// One warpgroup: D (64x8 f32) = A (64x16 bf16, zeros) x B (16x8 bf16, zeros),
// operands in shared memory, no-swizzle descriptors.
// Thread 96 (warp 3) overwrites B after its commit but before its wait:
// nothing orders that write with the other warps' wgmma reads of B (WAR
// when they read first, as in ptxsim's default order; RAW otherwise).
static __device__ __forceinline__ unsigned long long desc(const void* p, unsigned lbo, unsigned sbo) {
    return ((smem(p) & 0x3FFFF) >> 4) | ((unsigned long long)(lbo >> 4) << 16) | ((unsigned long long)(sbo >> 4) << 32);
}
extern "C" __global__ void wg_release_before_wait_racy(const int* in, float* out) {
    __shared__ __align__(128) unsigned short a[64 * 16], b[16 * 8];
    int t = threadIdx.x;
    for (int i = t; i < 64 * 16; i += 128) a[i] = 0;
    b[t] = 0;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    float d0 = 1.f, d1 = 2.f, d2 = 3.f, d3 = 4.f;
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    asm volatile("{ .reg .pred p; setp.ne.b32 p, 1, 0; wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0; }" : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "l"(desc(a, 128, 256)), "l"(desc(b, 128, 256)) : "memory"); // <- finding [R]
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    if (t == 96)
        for (int i = 0; i < 16 * 8; ++i) b[i] = (unsigned short)in[0]; // <- finding [W]
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    reinterpret_cast<float4*>(out)[t] = make_float4(d0, d1, d2, d3);
}
