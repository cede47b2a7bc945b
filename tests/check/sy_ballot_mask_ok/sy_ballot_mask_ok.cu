extern "C" __global__ void sy_ballot_mask_ok(const int* in, int* out) {
    int l = threadIdx.x;
    unsigned b = 0;
    if (l % 2 == 0) b = __ballot_sync(0x55555555u, in[l] > 8);
    out[l] = (int)b;
}
