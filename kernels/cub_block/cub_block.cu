// NVIDIA CUB's block- and warp-level primitives (library code we did not
// write, compiled by nvcc 13): BlockHistogram, BlockReduce, WarpReduce,
// BlockRadixSort and BlockScan over 3 blocks of 128 threads x 4 keys.
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/block/block_histogram.cuh>
extern "C" __global__ void cub_block(const unsigned* in, unsigned* sorted, unsigned* scan, unsigned* sums, unsigned* warp_sums, unsigned* hist) {
    constexpr int T = 128, I = 4;
    using Sort = cub::BlockRadixSort<unsigned, T, I>;
    using Scan = cub::BlockScan<unsigned, T>;
    using Red = cub::BlockReduce<unsigned, T>;
    using WRed = cub::WarpReduce<unsigned>;
    using Hist = cub::BlockHistogram<unsigned char, T, I, 256>;
    __shared__ union { typename Sort::TempStorage sort; typename Scan::TempStorage scan; typename Red::TempStorage red; typename Hist::TempStorage hist; } tmp;
    __shared__ typename WRed::TempStorage wtmp[T / 32];
    __shared__ unsigned h[256];
    unsigned keys[I];
    const unsigned base = blockIdx.x * T * I;
    for (int i = 0; i < I; ++i) keys[i] = in[base + threadIdx.x * I + i];
    unsigned char bytes[I];
    for (int i = 0; i < I; ++i) bytes[i] = keys[i] & 0xFF;
    Hist(tmp.hist).Histogram(bytes, h);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += T) hist[blockIdx.x * 256 + b] = h[b];
    unsigned total = Red(tmp.red).Sum(keys[0] % 1000 + keys[1] % 1000 + keys[2] % 1000 + keys[3] % 1000);
    if (threadIdx.x == 0) sums[blockIdx.x] = total;
    __syncthreads();
    unsigned ws = WRed(wtmp[threadIdx.x / 32]).Sum(keys[0] >> 20);
    if (threadIdx.x % 32 == 0) warp_sums[blockIdx.x * (T / 32) + threadIdx.x / 32] = ws;
    Sort(tmp.sort).Sort(keys);
    for (int i = 0; i < I; ++i) sorted[base + threadIdx.x * I + i] = keys[i];
    __syncthreads();
    unsigned v = keys[0] & 0xFFFF, out;
    Scan(tmp.scan).ExclusiveSum(v, out);
    scan[blockIdx.x * T + threadIdx.x] = out;
}
