extern "C" __global__ void sh_war_ok(const int* in, int* out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    int v = s[(t + 32) % 64];
    __syncthreads();
    s[t] = v * 2;
    __syncthreads();
    out[t] = s[t];
}
