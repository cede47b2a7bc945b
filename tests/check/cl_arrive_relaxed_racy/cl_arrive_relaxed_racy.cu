#include <cooperative_groups.h>
namespace cg = cooperative_groups;
// Two-CTA cluster: each CTA writes into its peer's shared memory, then
// reads its own.
extern "C" __global__ void __cluster_dims__(2, 1, 1) cl_arrive_relaxed_racy(const int* in, int* out) {
    __shared__ int s[32];
    cg::cluster_group c = cg::this_cluster();
    unsigned r = c.block_rank();
    int t = threadIdx.x;
    s[t] = 0;
    c.sync();
    int* peer = c.map_shared_rank(s, r ^ 1);
    peer[t] = in[r * 32 + t]; // <- finding [W]
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
    asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
    out[r * 32 + t] = s[t]; // <- finding [R]
    c.sync();
}
