// Conditional graph nodes (CUDA 12.3+): IF with an ELSE body, WHILE whose
// body a kernel ends through cudaGraphSetConditional (handle reset to its
// default at each launch), SWITCH, and a body filled by stream capture.
#include <cstdio>

#include "cuda_check.h"

__global__ void set_condition(cudaGraphConditionalHandle h, const int* value) { cudaGraphSetConditional(h, *value); }
__global__ void append(int* log, int v) { log[1 + log[0]++] = v; }
__global__ void count_down(cudaGraphConditionalHandle h, int* left, int* log) {
    log[1 + log[0]++] = 100 + *left;
    if (--*left == 0) cudaGraphSetConditional(h, 0);
}

cudaGraph_t add_conditional(cudaGraph_t g, cudaGraphConditionalHandle h, cudaGraphConditionalNodeType type, unsigned size,
                            cudaGraphNode_t* dep, cudaGraph_t* bodies) {
    cudaGraphNodeParams p = {cudaGraphNodeTypeConditional};
    p.conditional.handle = h;
    p.conditional.type = type;
    p.conditional.size = size;
    cudaGraphNode_t n;
    if (cudaGraphAddNode(&n, g, dep, nullptr, dep ? 1 : 0, &p) != cudaSuccess) return nullptr;
    for (unsigned i = 0; i < size; ++i) bodies[i] = p.conditional.phGraph_out[i];
    return g;
}

int main() {
    int *log, *value, *left;
    CHECK(cudaMalloc(&log, 64 * sizeof(int)));
    CHECK(cudaMalloc(&value, sizeof(int)));
    CHECK(cudaMalloc(&left, sizeof(int)));
    CHECK(cudaMemset(log, 0, 64 * sizeof(int)));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));

    // IF/ELSE and SWITCH on *value, set by a kernel upstream of each.
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle h_if, h_switch, h_while;
    CHECK(cudaGraphConditionalHandleCreate(&h_if, g));
    CHECK(cudaGraphConditionalHandleCreate(&h_switch, g));
    CHECK(cudaGraphConditionalHandleCreate(&h_while, g, 1, cudaGraphCondAssignDefault));
    cudaGraphNodeParams k = {cudaGraphNodeTypeKernel};
    void* args_if[] = {&h_if, &value};
    k.kernel.func = (void*)set_condition;
    k.kernel.gridDim = k.kernel.blockDim = dim3(1);
    k.kernel.kernelParams = args_if;
    cudaGraphNode_t set_if, set_switch;
    CHECK(cudaGraphAddNode(&set_if, g, nullptr, nullptr, 0, &k));
    cudaGraph_t if_bodies[2], switch_bodies[3], while_body[1];
    if (!add_conditional(g, h_if, cudaGraphCondTypeIf, 2, &set_if, if_bodies)) return 1;
    void* args_switch[] = {&h_switch, &value};
    k.kernel.kernelParams = args_switch;
    CHECK(cudaGraphAddNode(&set_switch, g, nullptr, nullptr, 0, &k));
    if (!add_conditional(g, h_switch, cudaGraphCondTypeSwitch, 3, &set_switch, switch_bodies)) return 1;
    if (!add_conditional(g, h_while, cudaGraphCondTypeWhile, 1, nullptr, while_body)) return 1;
    // Bodies by stream capture: IF appends 1, ELSE 2, SWITCH case i appends 10 + i; WHILE counts down.
    auto capture = [&](cudaGraph_t body, int v) {
        cudaStreamBeginCaptureToGraph(s, body, nullptr, nullptr, 0, cudaStreamCaptureModeGlobal);
        append<<<1, 1, 0, s>>>(log, v);
        return cudaStreamEndCapture(s, nullptr);
    };
    CHECK(capture(if_bodies[0], 1));
    CHECK(capture(if_bodies[1], 2));
    for (int i = 0; i < 3; ++i) CHECK(capture(switch_bodies[i], 10 + i));
    CHECK(cudaStreamBeginCaptureToGraph(s, while_body[0], nullptr, nullptr, 0, cudaStreamCaptureModeGlobal));
    count_down<<<1, 1, 0, s>>>(h_while, left, log);
    CHECK(cudaStreamEndCapture(s, nullptr));

    cudaGraphExec_t e;
    CHECK(cudaGraphInstantiate(&e, g, 0));
    for (int v : {0, 1, 2, 5}) { // 5: no SWITCH case
        const int three = 3;
        CHECK(cudaMemcpy(value, &v, sizeof v, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(left, &three, sizeof three, cudaMemcpyHostToDevice));
        CHECK(cudaGraphLaunch(e, s));
        CHECK(cudaStreamSynchronize(s));
    }
    int h[64];
    CHECK(cudaMemcpy(h, log, sizeof h, cudaMemcpyDeviceToHost));
    // Nodes run in the order they were added: IF, SWITCH, WHILE (3, 2, 1).
    const int want[] = {2, 10, 103, 102, 101, 1, 11, 103, 102, 101, 1, 12, 103, 102, 101, 1, 103, 102, 101};
    const int n = sizeof want / sizeof want[0];
    std::printf("log:");
    for (int i = 0; i < h[0]; ++i) std::printf(" %d", h[1 + i]);
    std::printf("\n");
    if (h[0] != n) return 1;
    for (int i = 0; i < n; ++i)
        if (h[1 + i] != want[i]) return 1;
    std::printf("PASSED\n");
    return 0;
}
