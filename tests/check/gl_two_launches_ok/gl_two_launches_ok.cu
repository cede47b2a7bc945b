extern "C" __global__ void gl_produce(const int* in, int* buf, int* out) {
    int b = blockIdx.x, t = threadIdx.x;
    buf[b * 32 + t] = in[b * 32 + t] * 2;
}
extern "C" __global__ void gl_consume(const int* in, int* buf, int* out) {
    int b = blockIdx.x, t = threadIdx.x;
    out[b * 32 + t] = buf[(1 - b) * 32 + t];
}
