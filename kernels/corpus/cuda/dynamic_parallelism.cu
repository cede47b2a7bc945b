// corpus: rdc
// Theme: dynamic parallelism (CDP2): a kernel launching a child grid, which
// nvcc lowers to __cudaCDP2GetParameterBufferV2 / __cudaCDP2LaunchDeviceV2
// calls. Needs -rdc=true.
__global__ void child_kernel(int *data, int base)
{
    data[base + threadIdx.x] += 1;
}

__global__ void parent_kernel(int *data, int n)
{
    if (threadIdx.x == 0) {
        child_kernel<<<1, 32>>>(data, blockIdx.x * 32);
        child_kernel<<<dim3(2, 1, 1), dim3(16, 1, 1), 0, cudaStreamFireAndForget>>>(data, n);
    }
}
