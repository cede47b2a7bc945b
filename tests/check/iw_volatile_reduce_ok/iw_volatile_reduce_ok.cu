// iw_volatile_reduce_racy written for independent thread scheduling: each
// step loads, waits for every lane (__syncwarp), then adds and waits again.
extern "C" __global__ void iw_volatile_reduce_ok(const int* in, int* out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    s[t + 32] = in[t + 32];
    __syncwarp();
    volatile int* v = s;
    for (int d = 32; d > 0; d >>= 1) {
        int x = v[t + d];
        __syncwarp();
        v[t] += x;
        __syncwarp();
    }
    if (t == 0) out[0] = v[0];
}
