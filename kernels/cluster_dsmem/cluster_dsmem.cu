// Thread-block clusters of 4 CTAs (__cluster_dims__) exchanging tiles
// through distributed shared memory with cooperative_groups::this_cluster():
// each CTA stages its tile in shared memory, cluster.sync(), then reads its
// neighbour's tile (rank + 1) and a rotated element of the tile two ranks
// away through map_shared_rank, and adds into a counter in rank 0's shared
// memory with atomicAdd; a final cluster.sync() keeps every tile alive
// until all readers are done.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

constexpr int tile = 128;

extern "C" __global__ void __cluster_dims__(4, 1, 1)
    cluster_dsmem(const unsigned* in, unsigned* out, unsigned* sums, unsigned* info) {
    __shared__ unsigned mine[tile];
    __shared__ unsigned counter;
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    unsigned t = threadIdx.x;
    mine[t] = in[blockIdx.x * tile + t] * 3u + rank;
    if (t == 0) counter = 0;
    cluster.sync();
    unsigned n = cluster.num_blocks();
    unsigned* next = cluster.map_shared_rank(mine, (rank + 1) % n);
    unsigned* across = cluster.map_shared_rank(mine, (rank + 2) % n);
    unsigned* lead_counter = cluster.map_shared_rank(&counter, 0);
    unsigned v = next[t] ^ across[(t * 7u + 5u) % tile];
    out[blockIdx.x * tile + t] = v;
    atomicAdd(lead_counter, v & 0xFFu);
    cluster.sync();
    if (rank == 0 && t == 0) sums[blockIdx.x / n] = counter;
    if (t == 0) {
        dim3 ci = cluster.block_index();
        info[blockIdx.x * 4 + 0] = rank;
        info[blockIdx.x * 4 + 1] = n;
        info[blockIdx.x * 4 + 2] = ci.x;
        info[blockIdx.x * 4 + 3] = cluster.dim_blocks().x;
    }
}
