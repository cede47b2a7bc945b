// Managed memory, mapped pinned memory, stream-ordered allocation and the
// occupancy API, each checked by the program itself.
#include <cstdio>

#include "cuda_check.h"

__global__ void add_one(int* p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += 1;
}

__global__ void uses_shared(float* out) {
    __shared__ float tile[1024];
    tile[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
}

int main() {
    const int n = 3000;
    int bad = 0;

    // Managed: the host writes, a kernel adds, the host reads the same pointer.
    int* managed;
    CHECK(cudaMallocManaged(&managed, n * sizeof(int)));
    for (int i = 0; i < n; ++i) managed[i] = i;
    CHECK(cudaMemPrefetchAsync(managed, n * sizeof(int), cudaMemLocation{cudaMemLocationTypeDevice, 0}, 0));
    add_one<<<(n + 127) / 128, 128>>>(managed, n);
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < n; ++i) bad += managed[i] != i + 1;
    cudaPointerAttributes attr;
    CHECK(cudaPointerGetAttributes(&attr, managed));
    std::printf("managed: %s (type %d)\n", bad ? "wrong" : "ok", int(attr.type));
    bad += attr.type != cudaMemoryTypeManaged;
    CHECK(cudaFree(managed));

    // Mapped pinned memory: a kernel writes host memory through its device pointer.
    int* host;
    CHECK(cudaHostAlloc(&host, n * sizeof(int), cudaHostAllocMapped));
    for (int i = 0; i < n; ++i) host[i] = 10 * i;
    int* mapped;
    CHECK(cudaHostGetDevicePointer(&mapped, host, 0));
    add_one<<<(n + 127) / 128, 128>>>(mapped, n);
    CHECK(cudaDeviceSynchronize());
    int mapped_bad = 0;
    for (int i = 0; i < n; ++i) mapped_bad += host[i] != 10 * i + 1;
    CHECK(cudaPointerGetAttributes(&attr, host));
    std::printf("mapped: %s (type %d)\n", mapped_bad ? "wrong" : "ok", int(attr.type));
    bad += mapped_bad + (attr.type != cudaMemoryTypeHost);
    CHECK(cudaFreeHost(host));

    // Stream-ordered allocation from the default pool.
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int* async;
    CHECK(cudaMallocAsync(&async, n * sizeof(int), s));
    CHECK(cudaMemsetAsync(async, 0, n * sizeof(int), s));
    add_one<<<(n + 127) / 128, 128, 0, s>>>(async, n);
    int back[n];
    CHECK(cudaMemcpyAsync(back, async, sizeof back, cudaMemcpyDeviceToHost, s));
    CHECK(cudaFreeAsync(async, s));
    CHECK(cudaStreamSynchronize(s));
    int async_bad = 0;
    for (int i = 0; i < n; ++i) async_bad += back[i] != 1;
    cudaMemPool_t pool;
    CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
    unsigned long long threshold = ~0ull;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    std::printf("async: %s\n", async_bad ? "wrong" : "ok");
    bad += async_bad;
    CHECK(cudaStreamDestroy(s));

    // Occupancy: 4 KiB of shared memory and 256 threads per CTA.
    int blocks = 0, min_grid = 0, block = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, uses_shared, 256, 0));
    CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, uses_shared, 0, 0));
    std::printf("occupancy: %d blocks of 256 per SM; best block %d, min grid %d\n", blocks, block, min_grid);
    bad += blocks != 8;  // 2048 threads per SM / 256

    // A 3D copy through pitched device memory and back, and a 2D memset.
    const int w = 5, h = 4, d = 3;
    float volume[d][h][w], round[d][h][w];
    for (int z = 0; z < d; ++z)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) volume[z][y][x] = 100 * z + 10 * y + x;
    cudaPitchedPtr dev3;
    CHECK(cudaMalloc3D(&dev3, make_cudaExtent(w * sizeof(float), h, d)));
    cudaMemcpy3DParms up = {};
    up.srcPtr = make_cudaPitchedPtr(volume, w * sizeof(float), w, h);
    up.dstPtr = dev3;
    up.extent = make_cudaExtent(w * sizeof(float), h, d);
    up.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&up));
    cudaMemcpy3DParms down = up;
    down.srcPtr = dev3;
    down.dstPtr = make_cudaPitchedPtr(round, w * sizeof(float), w, h);
    down.kind = cudaMemcpyDeviceToHost;
    CHECK(cudaMemcpy3D(&down));
    int copy_bad = 0;
    for (int z = 0; z < d; ++z)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) copy_bad += round[z][y][x] != volume[z][y][x];
    CHECK(cudaMemset2D(dev3.ptr, dev3.pitch, 0xff, w * sizeof(float), h));
    unsigned row[w];
    CHECK(cudaMemcpy(row, dev3.ptr, sizeof row, cudaMemcpyDeviceToHost));
    for (int x = 0; x < w; ++x) copy_bad += row[x] != 0xffffffffu;
    std::printf("3d copy: %s (pitch %zu)\n", copy_bad ? "wrong" : "ok", dev3.pitch);
    bad += copy_bad;
    CHECK(cudaFree(dev3.ptr));

    std::printf("%s\n", bad ? "FAILED" : "PASSED");
    return bad ? 1 : 0;
}
