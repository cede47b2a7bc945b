// The pre-Volta warp-synchronous reduction (warpReduce of the CUDA samples
// before CUDA 9): `volatile` keeps every step in shared memory, and the code
// assumes that the 32 lanes of the warp run each line in lockstep, with no
// __syncwarp(). Under independent thread scheduling (Volta and later) a lane
// may load s[t + 16] after the lane that owns it has already added into it.
extern "C" __global__ void iw_volatile_reduce_racy(const int* in, int* out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    s[t + 32] = in[t + 32];
    __syncwarp();
    volatile int* v = s;
    v[t] += v[t + 32]; // <- finding
    v[t] += v[t + 16]; // <- finding
    v[t] += v[t + 8]; // <- finding
    v[t] += v[t + 4]; // <- finding
    v[t] += v[t + 2]; // <- finding
    v[t] += v[t + 1]; // <- finding
    if (t == 0) out[0] = v[0];
}
