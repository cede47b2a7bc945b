extern "C" __global__ void mc_oob_shared(int* out, int n) {
    __shared__ int a[32];
    __shared__ int b[32];
    int t = threadIdx.x;
    b[t] = t;
    a[t] = 0;
    __syncthreads();
    if (t == 0) a[n] = 7; // <- finding [W]
    __syncthreads();
    out[t] = a[t] + b[t];
}
