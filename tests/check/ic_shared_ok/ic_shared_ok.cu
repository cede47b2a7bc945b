extern "C" __global__ void ic_shared_ok(const int* in, int* out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    out[t] = s[63 - t];
}
