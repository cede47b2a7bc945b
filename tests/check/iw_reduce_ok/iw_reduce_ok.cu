extern "C" __global__ void iw_reduce_ok(const int* in, int* out) {
    __shared__ int s[64];
    int l = threadIdx.x;
    s[l] = in[l];
    s[l + 32] = in[l + 32];
    __syncwarp();
    for (int k = 32; k > 0; k >>= 1) {
        if (l < k) s[l] += s[l + k];
        __syncwarp();
    }
    if (l == 0) out[0] = s[0];
}
