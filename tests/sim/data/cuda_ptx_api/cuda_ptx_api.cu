// libcu++'s cuda::ptx wrappers — NVIDIA's own inline PTX for the sm_90 families —
// run from a launch file (tests/sim/run_test.cpp): mbarrier, TMA into a
// cluster, cluster barriers, st.async to a peer CTA, a bulk reduction,
// tensormap.replace on a copy in shared memory, special registers.
#include <cuda/ptx>
#include <cuda.h>
#include <cstdint>
namespace ptx = cuda::ptx;
extern "C" __global__ void __cluster_dims__(2, 1, 1) api(const __grid_constant__ CUtensorMap map, int* out, float* fout) {
    __shared__ alignas(128) int tile[64];
    __shared__ alignas(128) int tile2[64];
    __shared__ alignas(8) uint64_t bar;
    __shared__ alignas(8) uint64_t bar2;
    __shared__ alignas(128) CUtensorMap smap;
    const unsigned rank = ptx::get_sreg_cluster_ctarank();
    if (threadIdx.x == 0) {
        ptx::mbarrier_init(&bar, 1);
        ptx::mbarrier_init(&bar2, 1);
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    }
    ptx::barrier_cluster_arrive(ptx::sem_release);
    ptx::barrier_cluster_wait(ptx::sem_acquire);
    if (threadIdx.x == 0) {
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, 256);
        int32_t coords[2] = {0, static_cast<int32_t>(rank)};
        ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, tile, &map, coords, &bar);
    }
    while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {}
    int v = tile[threadIdx.x % 64];
    // st.async into the peer's tile2, completing on its bar2
    if (threadIdx.x == 0) {
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cluster, ptx::space_shared, &bar2, 4);
    }
    ptx::barrier_cluster_arrive(ptx::sem_release);
    ptx::barrier_cluster_wait(ptx::sem_acquire);
    if (threadIdx.x == 0) {
        const unsigned peer = rank ^ 1;
        int* remote = static_cast<int*>(__cluster_map_shared_rank(tile2, peer));
        uint64_t* rbar = static_cast<uint64_t*>(__cluster_map_shared_rank(&bar2, peer));
        ptx::st_async(remote, static_cast<int32_t>(100 + rank), rbar);
    }
    while (!ptx::mbarrier_try_wait_parity(&bar2, 0)) {}
    int got = tile2[0];
    ptx::fence_proxy_async(ptx::space_shared);
    if (threadIdx.x == 0) {
        ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_add, out + 64 * 4, tile, 256);
        ptx::cp_async_bulk_commit_group();
        ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>{});
        // a tensor map copied to shared memory and changed there
        smap = map;
        ptx::tensormap_replace_box_dim(ptx::space_shared, &smap, ptx::n32_t<1>{}, 1);
        ptx::fence_proxy_tensormap_generic(ptx::sem_release, ptx::scope_cta);
    }
    __syncthreads();
    const unsigned lane_ok = ptx::get_sreg_laneid() < 32;
    out[rank * 64 + threadIdx.x] = v + got * lane_ok;
    fout[rank * 64 + threadIdx.x] = static_cast<float>(ptx::get_sreg_cluster_nctarank());
    ptx::barrier_cluster_arrive(ptx::sem_release);
    ptx::barrier_cluster_wait(ptx::sem_acquire);
}
