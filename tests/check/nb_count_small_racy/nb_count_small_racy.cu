extern "C" __global__ void nb_count_small_racy(const int* in, int* out) {
    __shared__ int s[32];
    int t = threadIdx.x;
    if (t < 32) {
        s[t] = in[t]; // <- finding [W]
        asm volatile("bar.sync 1, 32;" ::: "memory");
    } else {
        asm volatile("bar.sync 1, 32;" ::: "memory");
        out[t] = s[t - 32]; // <- finding [R]
    }
}
