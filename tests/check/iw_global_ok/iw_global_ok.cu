extern "C" __global__ void iw_global_ok(const int* in, int* scratch, int* out) {
    int w = threadIdx.x / 32, l = threadIdx.x % 32;
    if (l == 0) scratch[w] = in[w] + 1;
    __syncwarp();
    out[threadIdx.x] = scratch[w] * l;
}
