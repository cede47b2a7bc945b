extern "C" __global__ void ic_global_init_ok(const int* in, int* out) {
    out[threadIdx.x] = in[threadIdx.x] * 2;
}
