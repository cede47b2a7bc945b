// y = A x for a rows x cols int matrix (row-major), one warp per row: each
// lane sums a strided slice of the row, then a __shfl_xor_sync butterfly
// leaves the full dot product in every lane; lane 0 writes it and lane 31
// writes a check copy. Ragged: cols is not a multiple of 32.
extern "C" __global__ void matrix_vector(int rows, int cols, const int* __restrict__ A,
                                         const int* __restrict__ x, int* __restrict__ y,
                                         int* __restrict__ y_check) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    int nwarps = gridDim.x * blockDim.x / 32;
    for (int r = warp; r < rows; r += nwarps) {
        int acc = 0;
        for (int c = lane; c < cols; c += 32) acc += A[r * cols + c] * x[c];
        for (int off = 16; off > 0; off /= 2) acc += __shfl_xor_sync(0xFFFFFFFFu, acc, off);
        if (lane == 0) y[r] = acc;
        if (lane == 31) y_check[r] = acc;
    }
}
