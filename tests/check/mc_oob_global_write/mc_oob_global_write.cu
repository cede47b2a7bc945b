extern "C" __global__ void mc_oob_global_write(int* out) {
    int t = threadIdx.x;
    out[t] = t; // <- finding [W]
}
