static __device__ __forceinline__ unsigned smem(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

extern "C" __global__ void sd_shared_peek_racy(int* out) {
    __shared__ int data;
    __shared__ unsigned flag;
    int t = threadIdx.x;
    if (t == 0) { data = 0; flag = 0; }
    __syncthreads();
    if (t == 0) {
        data = 42; // <- finding [W]
        asm volatile("st.relaxed.cta.shared.u32 [%0], %1;" ::"r"(smem(&flag)), "r"(1u) : "memory");
    } else if (t == 32) {
        unsigned f;
        asm volatile("ld.relaxed.cta.shared.u32 %0, [%1];" : "=r"(f) : "r"(smem(&flag)) : "memory");
        if (f) out[0] = *(volatile int*)&data; // <- finding [R]
        else out[0] = 42;
    }
}
