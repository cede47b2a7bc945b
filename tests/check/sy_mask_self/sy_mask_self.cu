extern "C" __global__ void sy_mask_self(const int* in, int* out) {
    int l = threadIdx.x;
    unsigned b = __ballot_sync(0xfffffffeu, in[l] > 8); // <- finding [S]
    out[l] = (int)b;
}
