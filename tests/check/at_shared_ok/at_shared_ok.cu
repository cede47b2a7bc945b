extern "C" __global__ void at_shared_ok(const int* in, int* out) {
    __shared__ int h[8];
    int t = threadIdx.x;
    if (t < 8) h[t] = 0;
    __syncthreads();
    atomicAdd(&h[in[t] & 7], 1);
    __syncthreads();
    if (t < 8) out[t] = h[t];
}
