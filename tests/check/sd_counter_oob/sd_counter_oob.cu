extern "C" __global__ void sd_counter_oob(int* ctr, int* buf) {
    int t = threadIdx.x;
    if (t >= 32) atomicAdd(ctr, 1);
    else if (t == 0) {
        unsigned c;
        asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(c) : "l"(ctr) : "memory");
        buf[63 + c / 32] = 1; // <- finding [W]
    }
}
