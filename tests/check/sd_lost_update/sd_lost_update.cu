extern "C" __global__ void sd_lost_update(int* ctr) {
    *ctr = *ctr + 1; // <- finding [U]
}
