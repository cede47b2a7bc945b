// out = transpose(in) for a rows x cols f32 matrix, through 32x32 shared tiles
// padded to 33 columns to avoid bank conflicts; blocks of 32x8 threads each
// move a whole tile (4 rows per thread).
#define TILE 32
#define ROWS 8
extern "C" __global__ void transpose(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;   // column in `in`
    int y = blockIdx.y * TILE + threadIdx.y;   // row in `in`
    for (int j = 0; j < TILE; j += ROWS)
        if (x < cols && y + j < rows)
            tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;       // column in `out` (= row in `in`)
    y = blockIdx.x * TILE + threadIdx.y;       // row in `out`
    for (int j = 0; j < TILE; j += ROWS)
        if (x < rows && y + j < cols)
            out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
