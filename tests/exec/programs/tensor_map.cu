// A TMA load through a tensor map the host builds with
// cuTensorMapEncodeTiled (found with cudaGetDriverEntryPointByVersion, as
// DeepGEMM and CUTLASS find it): a 16x16 tile of a 64x64 matrix copied to
// shared memory by cp.async.bulk.tensor, then written out and checked.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda/barrier>

#include <cstdio>
#include <utility>

using barrier = cuda::barrier<cuda::thread_scope_block>;
namespace cde = cuda::device::experimental;

constexpr int rows = 64, cols = 64, tile = 16;

__global__ void load_tile(const __grid_constant__ CUtensorMap map, int x, int y, float* out) {
    __shared__ alignas(128) float smem[tile][tile];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ barrier bar;
    if (threadIdx.x == 0) {
        init(&bar, blockDim.x);
        cde::fence_proxy_async_shared_cta();
    }
    __syncthreads();
    barrier::arrival_token token;
    if (threadIdx.x == 0) {
        cde::cp_async_bulk_tensor_2d_global_to_shared(&smem, &map, x, y, bar);
        token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(smem));
    } else {
        token = bar.arrive();
    }
    bar.wait(std::move(token));
    for (int i = threadIdx.x; i < tile * tile; i += blockDim.x) out[i] = smem[i / tile][i % tile];
}

int main() {
    float host[rows * cols];
    for (int i = 0; i < rows * cols; ++i) host[i] = float(i);
    float *matrix, *out;
    cudaMalloc(&matrix, sizeof host);
    cudaMalloc(&out, tile * tile * sizeof(float));
    cudaMemcpy(matrix, host, sizeof host, cudaMemcpyHostToDevice);

    PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
    cudaDriverEntryPointQueryResult found;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", reinterpret_cast<void**>(&encode), 12000, cudaEnableDefault,
                                         &found) != cudaSuccess || !encode) {
        std::printf("FAILED: no cuTensorMapEncodeTiled\n");
        return 1;
    }
    CUtensorMap map;
    const cuuint64_t dims[2] = {cols, rows}, strides[1] = {cols * sizeof(float)};
    const cuuint32_t box[2] = {tile, tile}, element_strides[2] = {1, 1};
    CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, matrix, dims, strides, box, element_strides,
                        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        std::printf("FAILED: cuTensorMapEncodeTiled returned %d\n", int(r));
        return 1;
    }
    load_tile<<<1, 128>>>(map, 16, 32, out);  // the tile at column 16, row 32
    float got[tile * tile];
    cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < tile * tile; ++i) wrong += got[i] != host[(32 + i / tile) * cols + 16 + i % tile];
    std::printf("%s: %d of %d wrong (%s)\n", wrong ? "FAILED" : "PASSED", wrong, tile * tile, cudaGetErrorString(cudaGetLastError()));
    return wrong ? 1 : 0;
}
