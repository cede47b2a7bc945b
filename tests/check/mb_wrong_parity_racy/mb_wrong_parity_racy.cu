static __device__ __forceinline__ unsigned smem(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
static __device__ __forceinline__ void wait_parity(unsigned bar, unsigned parity) {
    unsigned done = 0;
    while (!done)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(bar), "r"(parity) : "memory");
}

// Warp 0 produces into shared memory, warp 1 consumes; mbarrier "full"
// (count 32) is arrived on by the producers.
extern "C" __global__ void mb_wrong_parity_racy(const int* in, int* out) {
    __shared__ unsigned long long full, empty;
    __shared__ int s[32];
    int t = threadIdx.x;
    if (t == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 32;" ::"r"(smem(&full)));
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 32;" ::"r"(smem(&empty)));
    }
    __syncthreads();
    if (t < 32) {
        s[t] = in[t]; // <- finding [W]
        asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(&full)) : "memory");
    } else {
        wait_parity(smem(&full), 1);
        out[t] = s[t - 32]; // <- finding [R]
    }
}
