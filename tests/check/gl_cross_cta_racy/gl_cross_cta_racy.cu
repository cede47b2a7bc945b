extern "C" __global__ void gl_cross_cta_racy(const int* in, int* buf, int* out) {
    int b = blockIdx.x, t = threadIdx.x;
    buf[b * 32 + t] = in[b * 32 + t] * 2; // <- finding [W]
    out[b * 32 + t] = buf[(1 - b) * 32 + t]; // <- finding [R]
}
