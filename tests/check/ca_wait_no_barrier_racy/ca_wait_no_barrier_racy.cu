static __device__ __forceinline__ unsigned smem(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

// Each thread copies one int into shared memory with cp.async (the async proxy).
extern "C" __global__ void ca_wait_no_barrier_racy(const int* in, int* out) {
    __shared__ int s[64], s2[64];
    int t = threadIdx.x;
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(smem(&s[t])), "l"(in + t) : "memory"); // <- finding [C]
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    out[t] = s[(t + 32) % 64]; // <- finding [R]
}
