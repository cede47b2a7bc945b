extern "C" __global__ void mc_atomic_oob(const int* in, int* hist) {
    atomicAdd(&hist[in[threadIdx.x] % 17], 1); // <- finding [A]
}
