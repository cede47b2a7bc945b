extern "C" __global__ void sd_flag_peek_racy(int* data, unsigned* flag, int* out) {
    if (threadIdx.x != 0) return;
    if (blockIdx.x == 0) {
        data[0] = 42; // <- finding [W]
        asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(flag), "r"(1u) : "memory");
    } else {
        unsigned f;
        asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(f) : "l"(flag) : "memory");
        if (f) out[0] = data[0]; // <- finding [R]
        else out[0] = 42;
    }
}
