static __device__ __forceinline__ unsigned smem(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

// Threads fill a shared tile with generic stores; thread 0 writes it to
// global memory with a bulk copy, which reads shared memory through the
// async proxy.
extern "C" __global__ void tma_store_no_fence_racy(const int* in, int* out) {
    __shared__ __align__(128) int s[64];
    int t = threadIdx.x;
    s[t] = in[t] * 2; // <- finding [W]
    __syncthreads();
    if (t == 0) {
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 256;" ::"l"(out), "r"(smem(s)) : "memory"); // <- finding [C]
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
}
