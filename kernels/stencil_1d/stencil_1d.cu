// out[i] = sum_{k=-3..3} w[k] * in[i+k] with weights 1 -2 3 -4 3 -2 1 on int,
// elements outside [0, n) read as 0. Each block stages its range plus a
// 3-element halo on each side in shared memory.
#define RADIUS 3
#define BLOCK 256
extern "C" __global__ void stencil_1d(const int* __restrict__ in, int* __restrict__ out, int n) {
    __shared__ int tmp[BLOCK + 2 * RADIUS];
    int g = blockIdx.x * BLOCK + threadIdx.x;
    int l = threadIdx.x + RADIUS;
    tmp[l] = g < n ? in[g] : 0;
    if (threadIdx.x < RADIUS) {
        int left = g - RADIUS, right = g + BLOCK;
        tmp[l - RADIUS] = left >= 0 && left < n ? in[left] : 0;
        tmp[l + BLOCK] = right < n ? in[right] : 0;
    }
    __syncthreads();
    const int w[2 * RADIUS + 1] = {1, -2, 3, -4, 3, -2, 1};
    int acc = 0;
#pragma unroll
    for (int k = -RADIUS; k <= RADIUS; ++k)
        acc += w[k + RADIUS] * tmp[l + k];
    if (g < n)
        out[g] = acc;
}
