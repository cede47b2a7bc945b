extern "C" __global__ void sy_syncwarp_partial_ok(const int* in, int* out) {
    __shared__ int s[32];
    int l = threadIdx.x;
    s[l] = in[l];
    __syncwarp();
    if (l < 16) {
        s[l] += 1;
        __syncwarp(0x0000ffffu);
        out[l] = s[15 - l];
    }
}
