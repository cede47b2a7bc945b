extern "C" __global__ void sd_lost_update(int* ctr) {
    if (threadIdx.x == 0) *ctr = *ctr + 1; // <- finding [U]
}
