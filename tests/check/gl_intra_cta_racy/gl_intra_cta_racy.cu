extern "C" __global__ void gl_intra_cta_racy(const int* in, int* buf, int* out) {
    int t = threadIdx.x;
    buf[t] = in[t] + 1; // <- finding [W]
    out[t] = buf[(t + 32) % 64]; // <- finding [R]
}
