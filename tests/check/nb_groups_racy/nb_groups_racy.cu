extern "C" __global__ void nb_groups_racy(const int* in, int* out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    if (t < 64) {
        s[t] = in[t]; // <- finding [W]
        asm volatile("bar.sync 1, 64;" ::: "memory");
    } else {
        asm volatile("bar.sync 2, 64;" ::: "memory");
        out[t] = s[t - 64]; // <- finding [R]
    }
}
