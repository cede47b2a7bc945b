extern "C" __global__ void nb_arrive_sync_ok(const int* in, int* out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    if (t < 64) {
        s[t] = in[t];
        asm volatile("bar.arrive 1, 128;" ::: "memory");
    } else {
        asm volatile("bar.sync 1, 128;" ::: "memory");
        out[t] = s[t - 64];
    }
}
