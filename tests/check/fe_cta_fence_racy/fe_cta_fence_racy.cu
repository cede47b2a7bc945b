// CTA 0 (thread 0) publishes data[0] and sets a flag; CTA 1 (thread 0) spins
// on the flag and reads data[0].
extern "C" __global__ void fe_cta_fence_racy(int* data, unsigned* flag, int* out) {
    if (threadIdx.x != 0) return;
    if (blockIdx.x == 0) {
        data[0] = 42; // <- finding [W]
        asm volatile("fence.acq_rel.cta;" ::: "memory");
        asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(flag), "r"(1u) : "memory");
    } else {
        unsigned f = 0;
        while (f == 0) asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(f) : "l"(flag) : "memory");
        asm volatile("fence.acq_rel.cta;" ::: "memory");
        out[0] = data[0]; // <- finding [R]
    }
}
