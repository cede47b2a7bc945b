extern "C" __global__ void at_vs_load_racy(int* ctr, int* out) {
    if (blockIdx.x == 0) atomicAdd(ctr, 1); // <- finding [A]
    else out[threadIdx.x] = *ctr; // <- finding [R]
}
