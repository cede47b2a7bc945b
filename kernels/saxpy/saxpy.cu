// y[i] = a * x[i] + y[i]: the smallest useful kernel, used by the README's
// first command and as a template for the kernel suite.
extern "C" __global__ void saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = a * x[i] + y[i];
}
