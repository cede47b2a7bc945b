// C = A * B for 64x64 int matrices (row-major), 16x16 shared-memory tiles,
// one output element per thread.
#define T 16
extern "C" __global__ void matmul_int(const int* __restrict__ A, const int* __restrict__ B, int* __restrict__ C, int n) {
    __shared__ int As[T][T];
    __shared__ int Bs[T][T];
    int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
    int acc = 0;
    for (int t = 0; t < n; t += T) {
        As[threadIdx.y][threadIdx.x] = A[row * n + t + threadIdx.x];
        Bs[threadIdx.y][threadIdx.x] = B[(t + threadIdx.y) * n + col];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < T; ++k)
            acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    C[row * n + col] = acc;
}
