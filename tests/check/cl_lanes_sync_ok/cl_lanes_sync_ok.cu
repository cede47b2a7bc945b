// One warp in each CTA of a two-CTA cluster: every lane writes its own
// shared word, the cluster barrier (plain barrier.cluster.arrive is
// .release, wait is .acquire), then every lane reads its neighbour's word.
// The cluster barrier orders the lanes of one warp as a CTA barrier does.
extern "C" __global__ void __cluster_dims__(2, 1, 1) cl_lanes_sync_ok(const int* in, int* out) {
    __shared__ int s[32];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 32 + t];
    asm volatile("barrier.cluster.arrive;" ::: "memory");
    asm volatile("barrier.cluster.wait;" ::: "memory");
    out[blockIdx.x * 32 + t] = s[(t + 1) % 32];
}
