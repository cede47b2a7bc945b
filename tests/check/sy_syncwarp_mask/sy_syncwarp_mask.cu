extern "C" __global__ void sy_syncwarp_mask(const int* in, int* out) {
    __shared__ int s[32];
    int l = threadIdx.x;
    s[l] = in[l];
    if (l < 16) {
        __syncwarp(); // <- finding [S]
        out[l] = s[15 - l];
    }
}
