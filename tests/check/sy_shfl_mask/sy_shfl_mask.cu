extern "C" __global__ void sy_shfl_mask(const int* in, int* out) {
    int l = threadIdx.x, v = in[l];
    if (l < 16) v = __shfl_sync(0xffffffffu, v, 0); // <- finding [S]
    out[l] = v;
}
