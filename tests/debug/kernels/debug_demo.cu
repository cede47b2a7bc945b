// Kernels for the debugger's tests and the docs/debug.md walk-through.

// A block sum with a missing __syncthreads(): warp 0 adds partial[t + 32]
// before warp 1 has stored it, so the sum comes out short (racecheck: a
// read-after-write hazard on shared memory).
extern "C" __global__ void block_sum(const int* in, int* out) {
    __shared__ int partial[64];
    int t = threadIdx.x;
    partial[t] = in[blockIdx.x * 64 + t];
    if (t < 32)
        partial[t] += partial[t + 32];
    __syncthreads();
    if (t == 0) {
        int s = 0;
        for (int i = 0; i < 32; ++i) s += partial[i];
        out[blockIdx.x] = s;
    }
}

// Divergence and a device call that is not inlined.
__device__ __noinline__ int triple_plus(int x, int k) {
    int y = 3 * x;
    return y + k;
}

extern "C" __global__ void diverge_call(int* out) {
    int t = threadIdx.x;
    int r;
    if (t & 1)
        r = triple_plus(t, 100);
    else
        r = t * 2;
    out[t] = r;
}

// A per-thread array indexed by a run-time value: it lives in local memory.
extern "C" __global__ void local_scratch(int* out, int k) {
    int a[16];
    int t = threadIdx.x;
    for (int i = 0; i < 16; ++i) a[i] = t + i;
    a[(t + k) & 15] = -1;
    __syncthreads();
    out[t] = a[t & 15] + a[(t * 3) & 15];
}

// Writes one element past the end of `out` (thread 31 faults).
extern "C" __global__ void off_by_one(int* out, int n) {
    int t = threadIdx.x;
    if (t < n) out[t + 1] = t;
}
