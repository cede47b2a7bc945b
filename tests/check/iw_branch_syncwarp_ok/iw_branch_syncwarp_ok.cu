// Each half of the warp reaches its own __syncwarp(): from sm_70 the two
// meet, so the upper half reads what the lower half wrote.
extern "C" __global__ void iw_branch_syncwarp_ok(const int* in, int* out) {
    __shared__ int s[16];
    int t = threadIdx.x;
    if (t < 16) {
        s[t] = in[t];
        __syncwarp();
    } else {
        __syncwarp();
        out[t - 16] = s[t - 16];
    }
}
