extern "C" __global__ void mc_misaligned_global(const int* in, int* out, int off) {
    const int* p = (const int*)((const char*)in + off);
    out[threadIdx.x] = p[threadIdx.x]; // <- finding [R]
}
