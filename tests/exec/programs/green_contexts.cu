// Two green contexts (driver API, CUDA 12.4+) side by side, as a program
// that keeps some SMs for communication does: 16 SMs and the other 116,
// a kernel in each, timed with CUDA events. Under `ptxsim prof` the events
// read the simulated time line: the two kernels overlap, while the same
// two kernels on one stream take twice as long. Each kernel also records
// the SMs its blocks ran on, which must be its context's. --untimed: only
// that (under ptxsim exec the events read the host's clock).
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cuda_check.h"

#define CU_CHECK(x)                                                               \
    do {                                                                          \
        CUresult r_ = (x);                                                        \
        if (r_ != CUDA_SUCCESS) {                                                 \
            std::printf("FAILED: %s returned %d (line %d)\n", #x, int(r_), __LINE__); \
            return 1;                                                             \
        }                                                                         \
    } while (0)

__global__ void busy(unsigned* sm_of_block, int rounds) {
    float x = threadIdx.x;
    for (int i = 0; i < rounds; ++i) x = fmaf(x, 0.999f, 1.0f);
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    if (threadIdx.x == 0) sm_of_block[blockIdx.x] = x > -1.0f ? sm : 0xFFFFFFFFu; // x is used: the loop stays
}

// Milliseconds from before the first launch to after both.
float both(cudaStream_t first, cudaStream_t second, int blocks_first, int blocks_second, unsigned* a, unsigned* b) {
    cudaEvent_t start, first_done, second_done, end;
    cudaEventCreate(&start);
    cudaEventCreate(&first_done);
    cudaEventCreate(&second_done);
    cudaEventCreate(&end);
    cudaEventRecord(start, first);
    cudaStreamWaitEvent(second, start, 0);
    busy<<<blocks_first, 128, 0, first>>>(a, 2000);
    busy<<<blocks_second, 128, 0, second>>>(b, 2000);
    cudaEventRecord(second_done, second);
    cudaStreamWaitEvent(first, second_done, 0);
    cudaEventRecord(end, first);
    cudaEventSynchronize(end);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, end);
    return ms;
}

int main(int argc, char** argv) {
    const bool timed = !(argc > 1 && std::string(argv[1]) == "--untimed"); // wall-clock events (ptxsim exec) say nothing here
    CHECK(cudaFree(nullptr)); // the primary context, current
    CUdevResource all;
    CU_CHECK(cuDeviceGetDevResource(0, &all, CU_DEV_RESOURCE_TYPE_SM));
    CUdevResource group, rest;
    unsigned groups = 1;
    CU_CHECK(cuDevSmResourceSplitByCount(&group, &groups, &all, &rest, 0, 16));
    std::printf("split: %u SMs into %u group of %u and %u more\n", all.sm.smCount, groups, group.sm.smCount, rest.sm.smCount);
    CUdevResourceDesc comm_desc, gemm_desc;
    CU_CHECK(cuDevResourceGenerateDesc(&comm_desc, &group, 1));
    CU_CHECK(cuDevResourceGenerateDesc(&gemm_desc, &rest, 1));
    CUgreenCtx comm_ctx, gemm_ctx;
    CU_CHECK(cuGreenCtxCreate(&comm_ctx, comm_desc, 0, CU_GREEN_CTX_DEFAULT_STREAM));
    CU_CHECK(cuGreenCtxCreate(&gemm_ctx, gemm_desc, 0, CU_GREEN_CTX_DEFAULT_STREAM));
    CUstream comm, gemm;
    CU_CHECK(cuGreenCtxStreamCreate(&comm, comm_ctx, CU_STREAM_NON_BLOCKING, 0));
    CU_CHECK(cuGreenCtxStreamCreate(&gemm, gemm_ctx, CU_STREAM_NON_BLOCKING, 0));

    const int comm_blocks = int(group.sm.smCount), gemm_blocks = int(rest.sm.smCount);
    unsigned *a, *b;
    CHECK(cudaMalloc(&a, 4096 * sizeof(unsigned)));
    CHECK(cudaMalloc(&b, 4096 * sizeof(unsigned)));
    const float side_by_side = both(comm, gemm, comm_blocks, gemm_blocks, a, b);
    std::vector<unsigned> sa(comm_blocks), sb(gemm_blocks);
    CHECK(cudaMemcpy(sa.data(), a, comm_blocks * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(sb.data(), b, gemm_blocks * sizeof(unsigned), cudaMemcpyDeviceToHost));
    int outside = 0;
    for (unsigned sm : sa) outside += sm >= unsigned(comm_blocks);
    for (unsigned sm : sb) outside += sm < unsigned(comm_blocks);
    const float one_stream = both(gemm, gemm, gemm_blocks, gemm_blocks, a, b);
    cudaEvent_t start, end;
    cudaEventCreate(&start);
    cudaEventCreate(&end);
    cudaEventRecord(start, gemm);
    busy<<<gemm_blocks, 128, 0, gemm>>>(b, 2000);
    cudaEventRecord(end, gemm);
    cudaEventSynchronize(end);
    float alone = 0;
    cudaEventElapsedTime(&alone, start, end);
    CHECK(cudaGetLastError());
    std::printf("blocks outside their context's SMs: %d\n", outside);
    std::printf("one kernel %.4f ms, side by side %.4f ms, one stream %.4f ms\n", alone, side_by_side, one_stream);
    const bool overlap = !timed || (side_by_side < 1.2f * alone && one_stream > 1.8f * alone);
    if (timed) std::printf("overlap: %s\n", overlap ? "yes" : "no");
    CU_CHECK(cuGreenCtxDestroy(comm_ctx));
    CU_CHECK(cuGreenCtxDestroy(gemm_ctx));
    std::printf(outside == 0 && overlap ? "PASSED\n" : "FAILED\n");
    return outside == 0 && overlap ? 0 : 1;
}
