// cl_lanes_sync_ok with barrier.cluster.arrive.relaxed: the barrier
// synchronises execution but orders no memory, so the neighbour's write
// is not ordered before the read, even within one warp.
extern "C" __global__ void __cluster_dims__(2, 1, 1) cl_lanes_relaxed_racy(const int* in, int* out) {
    __shared__ int s[32];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 32 + t]; // <- finding [W]
    asm volatile("barrier.cluster.arrive.relaxed;" ::: "memory");
    asm volatile("barrier.cluster.wait;" ::: "memory");
    out[blockIdx.x * 32 + t] = s[(t + 1) % 32]; // <- finding [R]
}
