extern "C" __global__ void iw_diff_value_racy(const int* in, int* out) {
    __shared__ int which;
    int l = threadIdx.x;
    if (l == 0) which = -1;
    __syncwarp();
    if (in[l] < 0) which = l; // <- finding [W]
    __syncwarp();
    if (l == 0) out[0] = which;
}
