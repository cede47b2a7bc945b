extern "C" __global__ void sd_float_sum(float* sum) {
    float v = blockIdx.x == 0 ? 1.0e8f : blockIdx.x == 1 ? -1.0e8f : 1.0f;
    if (threadIdx.x == 0 || blockIdx.x >= 2) atomicAdd(sum, v); // <- finding [A]
}
