extern "C" __global__ void mc_oob_global_read(const int* in, int* out) {
    int t = threadIdx.x;
    out[t] = in[t] + in[t + 1]; // <- finding [R]
}
