// Kernels whose inputs are reached through pointers in every way a launch
// file must rebuild: a struct argument holding pointers, a chain of nodes
// linked through device memory, and module variables (one holding a
// pointer, one changed from its initial value). tests/exec/record_test.cpp
// records them under `ptxsim exec --record` and replays the launch files.
// Built with: nvcc -arch=sm_90a -ptx record_kernels.cu -o record_kernels.ptx
struct pair_of_lists {
    const float* values[2];
    int n;
};

struct link {
    const float* data;
    const link* next;
};

__device__ float* d_out;
__device__ float d_bias = 1.5f;

extern "C" __global__ void gather(pair_of_lists lists, const link* chain, float scale) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= lists.n) return;
    float s = 0;
    for (const link* l = chain; l; l = l->next) s += l->data[i];
    d_out[i] = scale * (lists.values[0][i] + lists.values[1][i]) + s + d_bias;
}

extern "C" __global__ void twice(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2;
}

// A shared-memory race whose output depends on the schedule (a neighbour's
// element read without __syncthreads), for check --schedules on a program.
extern "C" __global__ void shift_racy(const int* in, int* out) {
    __shared__ int tile[128];
    tile[threadIdx.x] = in[threadIdx.x];
    out[threadIdx.x] = tile[(threadIdx.x + 1) % 128];
}

// A long loop, for --max-instructions: n steps of a linear congruential
// generator per thread.
extern "C" __global__ void long_loop(unsigned* out, int n) {
    unsigned a = threadIdx.x;
    for (int i = 0; i < n; ++i) a = a * 1664525u + 1013904223u;
    out[threadIdx.x] = a;
}
