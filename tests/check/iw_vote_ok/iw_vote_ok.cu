extern "C" __global__ void iw_vote_ok(const int* in, int* out) {
    __shared__ int found;
    int l = threadIdx.x;
    int any = __any_sync(0xffffffffu, in[l] < 0);
    if (l == 0) found = any;
    __syncwarp();
    if (l == 0) out[0] = found;
}
