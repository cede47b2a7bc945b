// D = 2 * (A * B + C) for n x n x n (n a multiple of 16) with the CUDA C++
// wmma API (<mma.h>): f16 A row-major, f16 B column-major, f32 C row-major,
// f32 D written column-major. One warp per 16x16 tile of D; the doubling of
// every fragment element checks that element-wise code on an accumulator
// fragment works whatever its layout.
#include <mma.h>
using namespace nvcuda;

extern "C" __global__ void wmma_gemm(const half* A, const half* B, const float* C, float* D, int n) {
    const int tile_r = blockIdx.y * 16, tile_c = blockIdx.x * 16;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(acc, C + tile_r * n + tile_c, n, wmma::mem_row_major);
    for (int k = 0; k < n; k += 16) {
        wmma::load_matrix_sync(a, A + tile_r * n + k, n);
        wmma::load_matrix_sync(b, B + tile_c * n + k, n);
        wmma::mma_sync(acc, a, b, acc);
    }
    for (int i = 0; i < acc.num_elements; ++i) acc.x[i] = acc.x[i] * 2.0f;
    wmma::store_matrix_sync(D + tile_c * n + tile_r, acc, n, wmma::mem_col_major);
}
