// Kernel values a CUDA host program sets up beyond plain arguments, for the
// launch file's {"struct"} arguments, struct buffers and "symbols":
// a __grid_constant__ parameter struct holding a CUtensorMap, tensor maps in
// __constant__ memory and in a global-memory array, and module variables
// written before the launch (cudaMemcpyToSymbol).
#include <cuda.h>
#include <cstdint>

struct params {
    int n;                   // offset 0
    float scale;             // 4
    const unsigned* src;     // 8
    unsigned* dst;           // 16
    char tag;                // 24, then 103 bytes of padding
    CUtensorMap map;         // 128 (CUDA 13: alignas(128)); sizeof(params) = 256
};

__constant__ unsigned c_table[4];
__constant__ CUtensorMap c_map;
__device__ float g_bias;

// One 8x8 u32 box at (x, y) of `map` into shared memory, then out[0..63].
__device__ void tile_to(const void* map, int x, int y, unsigned* out) {
    __shared__ alignas(128) unsigned tile[64];
    __shared__ alignas(8) uint64_t bar;
    unsigned s_tile = static_cast<unsigned>(__cvta_generic_to_shared(tile));
    unsigned s_bar = static_cast<unsigned>(__cvta_generic_to_shared(&bar));
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(s_bar));
        asm volatile("fence.proxy.async.shared::cta;");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 256;" ::"r"(s_bar));
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                     ::"r"(s_tile), "l"(map), "r"(x), "r"(y), "r"(s_bar) : "memory");
    }
    __syncthreads();
    unsigned done = 0;
    while (!done)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(s_bar) : "memory");
    for (int i = threadIdx.x; i < 64; i += blockDim.x) out[i] = tile[i];
    __syncthreads();
}

// dst[i] = src[i] * scale + bias + table[i % 4] for i < n, then the tile at
// (8, 0) of the parameter's map after n elements.
extern "C" __global__ void from_struct(const __grid_constant__ params p) {
    for (int i = threadIdx.x; i < p.n; i += blockDim.x)
        p.dst[i] = static_cast<unsigned>(static_cast<float>(p.src[i]) * p.scale + g_bias) + c_table[i % 4] + p.tag;
    tile_to(&p.map, 8, 0, p.dst + p.n);
}

// The tile at (0, 8) of the constant-memory map, then the tiles at (0, 0) of
// maps[0] and (8, 8) of maps[1].
extern "C" __global__ void from_memory(const CUtensorMap* maps, unsigned* out) {
    tile_to(&c_map, 0, 8, out);
    tile_to(&maps[0], 0, 0, out + 64);
    tile_to(&maps[1], 8, 8, out + 128);
}
