// Module-scope CUDA variables for the debugger's tests: a __device__
// variable, a __constant__ array and dynamic (extern __shared__) memory,
// which the DWARF of nvcc -G lists at the compilation unit, not in a function.
__device__ int bias = 7;
__constant__ float scale[4] = {0.5f, 1.0f, 2.0f, 4.0f};
extern __shared__ float dyn[];

extern "C" __global__ void dynamic_shared(float* out) {
    int t = threadIdx.x;
    dyn[t] = t * scale[t & 3] + bias;
    __syncthreads();
    out[t] = dyn[31 - t];
}
