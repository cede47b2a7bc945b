extern "C" __global__ void iw_global_racy(const int* in, int* scratch, int* out) {
    int w = threadIdx.x / 32, l = threadIdx.x % 32;
    if (l == 0) scratch[w] = in[w] + 1; // <- finding [W]
    out[threadIdx.x] = scratch[w] * l; // <- finding [R]
}
