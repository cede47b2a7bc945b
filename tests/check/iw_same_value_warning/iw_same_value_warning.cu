extern "C" __global__ void iw_same_value_warning(const int* in, int* out) {
    __shared__ int found;
    int l = threadIdx.x;
    if (l == 0) found = 0;
    __syncwarp();
    if (in[l] < 0) found = 1; // <- finding [W]
    __syncwarp();
    if (l == 0) out[0] = found;
}
