extern "C" __global__ void sy_ballot_mask(const int* in, int* out) {
    int l = threadIdx.x;
    unsigned b = 0;
    if (l % 2 == 0) b = __ballot_sync(0xffffffffu, in[l] > 8); // <- finding [S]
    out[l] = (int)b;
}
