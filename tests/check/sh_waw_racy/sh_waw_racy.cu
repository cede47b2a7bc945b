// Shared WAW: lane l of warp 0 and lane l of warp 1 write s[l].
extern "C" __global__ void sh_waw_racy(const int* in, int* out) {
    __shared__ int s[32];
    int t = threadIdx.x;
    s[t % 32] = in[t]; // <- finding [W]
    __syncthreads();
    if (t < 32) out[t] = s[t];
}
