extern "C" __global__ void sh_raw_ok(const int* in, int* out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    out[t] = s[(t + 32) % 64];
}
