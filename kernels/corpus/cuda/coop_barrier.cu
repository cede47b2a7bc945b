// Theme: cooperative groups (grid.sync -> %envreg, cluster sync,
// thread_block_tile reductions), cuda::barrier (globaltimer + nanosleep
// back-off), cuda::memcpy_async pipelines, __syncthreads variants,
// __threadfence (membar.gl).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/barrier>
#include <cuda/atomic>

namespace cg = cooperative_groups;

__global__ void grid_sync_kernel(int *data, int *result, int n)
{
    cg::grid_group grid = cg::this_grid();
    int i = grid.thread_rank();
    if (i < n) data[i] += 1;
    grid.sync();
    if (i == 0) {
        int s = 0;
        for (int k = 0; k < n; ++k) s += data[k];
        *result = s;
    }
    grid.sync();
}

__global__ void tile_reduce_kernel(const int *in, int *out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int v = in[block.thread_rank()];
    int s = cg::reduce(warp, v, cg::plus<int>());
    int m = cg::reduce(warp, v, cg::greater<int>());
    cg::coalesced_group active = cg::coalesced_threads();
    if (warp.thread_rank() == 0) atomicAdd(out, s + m + (int)active.size());
    block.sync();
}

__global__ void cuda_barrier_kernel(float *data, int n)
{
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    __shared__ float stage[256];
    if (threadIdx.x == 0) init(&bar, blockDim.x);
    __syncthreads();
    cuda::memcpy_async(&stage[threadIdx.x], &data[blockIdx.x * blockDim.x + threadIdx.x], sizeof(float), bar);
    bar.arrive_and_wait();
    stage[threadIdx.x] *= 2.0f;
    auto token = bar.arrive();
    bar.wait(std::move(token));
    data[blockIdx.x * blockDim.x + threadIdx.x] = stage[(threadIdx.x + 1) % blockDim.x];
}

__global__ void syncthreads_variants_kernel(const int *in, int *out, volatile int *flag)
{
    int v = in[threadIdx.x];
    int cnt = __syncthreads_count(v > 0);
    int all = __syncthreads_and(v != 0);
    int any = __syncthreads_or(v < 0);
    out[threadIdx.x] = cnt + all + any;
    __threadfence();
    __threadfence_block();
    __threadfence_system();
    if (threadIdx.x == 0) *flag = 1;
    cuda::atomic_ref<int, cuda::thread_scope_device> ref(out[0]);
    ref.fetch_add(1, cuda::memory_order_release);
    while (ref.load(cuda::memory_order_acquire) < 0) { }
}

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
__global__ void __cluster_dims__(2, 1, 1) cluster_sync_kernel(int *out)
{
    __shared__ int local;
    cg::cluster_group cluster = cg::this_cluster();
    if (threadIdx.x == 0) local = (int)cluster.block_rank();
    cluster.sync();
    int *peer = cluster.map_shared_rank(&local, (cluster.block_rank() + 1) % cluster.num_blocks());
    out[blockIdx.x * blockDim.x + threadIdx.x] = *peer;
    cluster.sync();
}
#endif
