extern "C" __global__ void mc_misaligned_shared(long long* out, int off) {
    __shared__ __align__(8) int s[66];
    long long* p = (long long*)(s + off);
    p[threadIdx.x] = threadIdx.x; // <- finding [W]
    __syncthreads();
    out[threadIdx.x] = p[threadIdx.x];
}
