extern "C" __global__ void sd_slot_order(int* ctr, int* out) {
    int slot = atomicAdd(ctr, 1);
    out[slot] = blockIdx.x * blockDim.x + threadIdx.x; // <- finding [S]
}
