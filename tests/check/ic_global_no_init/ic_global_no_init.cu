extern "C" __global__ void ic_global_no_init(const int* in, int* out) {
    out[threadIdx.x] = in[threadIdx.x] * 2; // <- finding [R]
}
