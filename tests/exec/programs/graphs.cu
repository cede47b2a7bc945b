// CUDA graphs: a captured fork-join across two streams (kernels, a memset,
// copies, a host callback, a stream-ordered allocation), an explicitly
// built graph with a child graph, and an executable graph updated with new
// kernel parameters, each launched twice and checked by the program.
#include <cstdio>

#include "cuda_check.h"

__global__ void add(int* p, int n, int v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += v;
}

void CUDART_CB count(void* calls) { ++*static_cast<int*>(calls); }

int main() {
    const int n = 1000;
    int bad = 0, calls = 0, host[n];
    int* out;
    CHECK(cudaMalloc(&out, n * sizeof(int)));

    // Capture: memset, fork to s2 (add 2), join, add 1 on s1, copy out, callback.
    cudaStream_t s1, s2;
    CHECK(cudaStreamCreate(&s1));
    CHECK(cudaStreamCreate(&s2));
    cudaEvent_t fork, join;
    CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    cudaGraph_t graph;
    CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    int* scratch;
    CHECK(cudaMallocAsync(&scratch, n * sizeof(int), s1));
    CHECK(cudaMemsetAsync(scratch, 0, n * sizeof(int), s1));
    CHECK(cudaEventRecord(fork, s1));
    CHECK(cudaStreamWaitEvent(s2, fork, 0));
    add<<<(n + 255) / 256, 256, 0, s2>>>(scratch, n, 2);
    CHECK(cudaEventRecord(join, s2));
    CHECK(cudaStreamWaitEvent(s1, join, 0));
    add<<<(n + 255) / 256, 256, 0, s1>>>(scratch, n, 1);
    CHECK(cudaMemcpyAsync(out, scratch, n * sizeof(int), cudaMemcpyDeviceToDevice, s1));
    CHECK(cudaFreeAsync(scratch, s1));
    CHECK(cudaLaunchHostFunc(s1, count, &calls));
    cudaStreamCaptureStatus status;
    CHECK(cudaStreamIsCapturing(s1, &status));
    bad += status != cudaStreamCaptureStatusActive;
    CHECK(cudaStreamEndCapture(s1, &graph));
    CHECK(cudaStreamIsCapturing(s1, &status));
    bad += status != cudaStreamCaptureStatusNone;
    size_t nodes = 0;
    CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int launch = 0; launch < 2; ++launch) {
        CHECK(cudaGraphLaunch(exec, s1));
        CHECK(cudaStreamSynchronize(s1));
        CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; ++i) bad += host[i] != 3;
    }
    std::printf("captured: %s (%zu nodes, %d callbacks)\n", bad ? "wrong" : "ok", nodes, calls);
    bad += calls != 2;

    // Explicit: a kernel node, then a child graph holding another.
    cudaGraph_t outer, child;
    CHECK(cudaGraphCreate(&outer, 0));
    CHECK(cudaGraphCreate(&child, 0));
    int v10 = 10, v100 = 100, size = n;
    void* args10[] = {&out, &size, &v10};
    void* args100[] = {&out, &size, &v100};
    cudaKernelNodeParams k = {};
    k.func = reinterpret_cast<void*>(add);
    k.gridDim = dim3((n + 255) / 256);
    k.blockDim = dim3(256);
    k.kernelParams = args10;
    cudaGraphNode_t first, inner, nested;
    CHECK(cudaGraphAddKernelNode(&first, outer, nullptr, 0, &k));
    k.kernelParams = args100;
    CHECK(cudaGraphAddKernelNode(&inner, child, nullptr, 0, &k));
    CHECK(cudaGraphAddChildGraphNode(&nested, outer, &first, 1, child));
    cudaGraphExec_t exec2;
    CHECK(cudaGraphInstantiate(&exec2, outer, 0));
    CHECK(cudaMemset(out, 0, n * sizeof(int)));
    CHECK(cudaGraphLaunch(exec2, s1));
    CHECK(cudaGraphLaunch(exec2, s1));
    CHECK(cudaStreamSynchronize(s1));
    CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
    int explicit_bad = 0;
    for (int i = 0; i < n; ++i) explicit_bad += host[i] != 220;

    // Update the executable graph's first node to add 1 instead of 10.
    int v1 = 1;
    void* args1[] = {&out, &size, &v1};
    k.kernelParams = args1;
    CHECK(cudaGraphExecKernelNodeSetParams(exec2, first, &k));
    CHECK(cudaMemset(out, 0, n * sizeof(int)));
    CHECK(cudaGraphLaunch(exec2, s1));
    CHECK(cudaStreamSynchronize(s1));
    CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) explicit_bad += host[i] != 101;
    std::printf("explicit: %s\n", explicit_bad ? "wrong" : "ok");
    bad += explicit_bad;

    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphExecDestroy(exec2));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaGraphDestroy(outer));
    CHECK(cudaGraphDestroy(child));
    CHECK(cudaFree(out));
    std::printf("%s\n", bad ? "FAILED" : "PASSED");
    return bad ? 1 : 0;
}
