extern "C" __global__ void sd_int_sum_ok(int* sum) {
    int v = blockIdx.x == 0 ? 100000000 : blockIdx.x == 1 ? -100000000 : 1;
    if (threadIdx.x == 0 || blockIdx.x >= 2) atomicAdd(sum, v);
}
