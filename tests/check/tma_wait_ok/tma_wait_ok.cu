static __device__ __forceinline__ unsigned smem(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
static __device__ __forceinline__ void wait_parity(unsigned bar, unsigned parity) {
    unsigned done = 0;
    while (!done)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(bar), "r"(parity) : "memory");
}

// Thread 0 loads 256 bytes into shared memory with cp.async.bulk, completing
// on an mbarrier (expect_tx); everyone then reads the tile.
extern "C" __global__ void tma_wait_ok(const int* in, int* out) {
    __shared__ __align__(128) int s[64];
    __shared__ unsigned long long bar;
    int t = threadIdx.x;
    if (t == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&bar)));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (t == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 256;" ::"r"(smem(&bar)) : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 256, [%2];" ::"r"(smem(s)), "l"(in), "r"(smem(&bar)) : "memory");
    }
    wait_parity(smem(&bar), 0);
    out[t] = s[t];
}
