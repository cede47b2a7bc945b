extern "C" __global__ void iw_broadcast_racy(const int* in, int* out) {
    __shared__ int s[2];
    int w = threadIdx.x / 32, l = threadIdx.x % 32;
    if (l == 0) s[w] = in[w] * 3; // <- finding [W]
    out[threadIdx.x] = s[w] + l; // <- finding [R]
}
