// Flag polling as DeepEP writes it, in inline PTX: CTA 0 publishes its data
// with st.release, CTA 1 with an atomic (red.release); every lane of CTA 2
// spins on both with ld.volatile.global (relaxed, system scope in PTX), then
// an acquire fence orders the data reads after what it saw.
static __device__ __forceinline__ unsigned ld_volatile(const unsigned* p) {
    unsigned v;
    asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

extern "C" __global__ void fl_asm_volatile_poll_ok(int* data, unsigned* flags, int* out) {
    int t = threadIdx.x;
    if (blockIdx.x < 2) {
        data[blockIdx.x * 32 + t] = t * 3 + static_cast<int>(blockIdx.x);
        __syncwarp();
        if (t == 0) {
            if (blockIdx.x == 0) asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(flags), "r"(1u) : "memory");
            else asm volatile("red.release.gpu.global.add.u32 [%0], %1;" ::"l"(flags + 1), "r"(1u) : "memory");
        }
    } else {
        while (ld_volatile(flags) == 0u || ld_volatile(flags + 1) == 0u) {
        }
        asm volatile("fence.acq_rel.gpu;" ::: "memory");
        out[t] = data[t] + data[32 + t];
    }
}
