extern "C" __global__ void sy_shfl_mask_ok(const int* in, int* out) {
    int l = threadIdx.x, v = in[l];
    if (l < 16) v = __shfl_sync(0x0000ffffu, v, 0);
    out[l] = v;
}
