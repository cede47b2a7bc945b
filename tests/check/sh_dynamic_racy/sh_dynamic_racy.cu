// The race sits in the second barrier interval, in dynamic shared memory.
extern "C" __global__ void sh_dynamic_racy(const int* in, int* out) {
    extern __shared__ int dyn[];
    int t = threadIdx.x;
    dyn[t] = in[t];
    __syncthreads();
    if (t == 0) dyn[128] = dyn[0] + dyn[127]; // <- finding [W]
    if (t >= 32) out[t] = dyn[128]; // <- finding [R]
}
