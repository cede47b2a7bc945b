// Shared RAW: the write and the read of one slot come from threads of
// different warps with no barrier between them.
extern "C" __global__ void sh_raw_racy(const int* in, int* out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t]; // <- finding [W]
    out[t] = s[(t + 32) % 64]; // <- finding [R]
}
