extern "C" __global__ void ic_fill_half(int* buf) {
    if (threadIdx.x < 32) buf[threadIdx.x] = threadIdx.x;
}
extern "C" __global__ void ic_read_all(const int* buf, int* out) {
    out[threadIdx.x] = buf[threadIdx.x] + 1; // <- finding [R]
}
