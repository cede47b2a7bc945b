extern "C" __global__ void sy_uniform_barrier_ok(const int* in, int* out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    if (t < 40) s[t] = in[t];
    __syncthreads();
    if (t < 40) out[t] = s[39 - t];
}
