extern "C" __global__ void sy_bar_count_mismatch(const int* in, int* out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    asm volatile("bar.sync 1, %0;" ::"r"(t < 32 ? 64 : 96) : "memory"); // <- finding [B]
    out[t] = s[63 - t];
}
