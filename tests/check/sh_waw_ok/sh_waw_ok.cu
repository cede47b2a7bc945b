extern "C" __global__ void sh_waw_ok(const int* in, int* out) {
    __shared__ int s[32];
    int t = threadIdx.x;
    if (t < 32) s[t] = in[t];
    __syncthreads();
    if (t >= 32) s[t - 32] += in[t];
    __syncthreads();
    if (t < 32) out[t] = s[t];
}
