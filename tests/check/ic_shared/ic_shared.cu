extern "C" __global__ void ic_shared(const int* in, int* out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    if (t < 32) s[t] = in[t];
    __syncthreads();
    out[t] = s[t]; // <- finding [R]
}
