// The occupancy API (cudaOccupancyMaxActiveBlocksPerMultiprocessor,
// cudaOccupancyMaxPotentialBlockSize, ...), answered by models/occupancy —
// the rules of CUDA's cuda_occupancy.h with the model's numbers — for the
// kernel's registers (its .maxnreg, else the estimate cuFuncGetAttribute
// reports) and shared memory.
#include <algorithm>

#include "cuda/driver/api.hpp"
#include "cuda/driver/state.hpp"
#include "models/occupancy.hpp"

namespace ptxsim::cuda::driver {
namespace {

models::kernel_resources resources_of(const state& st, const function_object& f, uint32_t block_threads,
                                      uint64_t dynamic_shared) {
    models::kernel_resources k;
    k.block_threads = block_threads;
    k.registers_per_thread = registers_of(st, f);
    k.static_shared_bytes = static_shared_bytes(*f.code);
    k.dynamic_shared_bytes = dynamic_shared;
    const uint64_t default_limit = st.model().shared_memory.default_per_cta_bytes;
    k.max_dynamic_shared_bytes =
        int64_t(f.max_dynamic_shared ? f.max_dynamic_shared
                                     : (default_limit > k.static_shared_bytes ? default_limit - k.static_shared_bytes : 0));
    return k;
}

// The largest CTA the kernel allows (its .maxntid/.reqntid, the device's limit).
uint32_t max_block_threads(const state& st, const function_object& f) {
    const auto& c = *f.code;
    uint32_t limit = st.model().sm.max_threads_per_cta;
    auto product = [](const auto& d) { return d[0] * std::max(1u, d[1]) * std::max(1u, d[2]); };
    if (c.maxntid[0]) limit = std::min(limit, product(c.maxntid));
    if (c.reqntid[0]) limit = std::min(limit, product(c.reqntid));
    return limit;
}

} // namespace

extern "C" {

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* blocks, CUfunction fn, int block_size,
                                                              size_t dynamic_shared, unsigned flags) {
    PTXSIM_ENTER(true);
    function_object* f = function_of(st, fn);
    if (!blocks || !f || block_size <= 0 || flags > 1) return f ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_INVALID_HANDLE;
    auto o = models::occupancy_of(st.model(), resources_of(st, *f, uint32_t(block_size), dynamic_shared));
    *blocks = int(o.ctas_per_sm);
    return CUDA_SUCCESS;
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, CUfunction fn, int block_size, size_t dynamic_shared) {
    return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, fn, block_size, dynamic_shared, 0);
}

// cuda_occupancy.h's search: every multiple of the warp size from the
// largest allowed CTA down, keeping the size with the most resident threads
// (the larger CTA on a tie), stopping early at full occupancy.
CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(int* min_grid, int* block_size, CUfunction fn,
                                                   size_t (*shared_for_block)(int), size_t dynamic_shared,
                                                   int block_size_limit, unsigned flags) {
    PTXSIM_ENTER(true);
    function_object* f = function_of(st, fn);
    if (!f) return CUDA_ERROR_INVALID_HANDLE;
    if (!min_grid || !block_size || block_size_limit < 0 || flags > 1) return CUDA_ERROR_INVALID_VALUE;
    const auto& m = st.model();
    uint32_t limit = max_block_threads(st, *f);
    if (block_size_limit > 0) limit = std::min(limit, uint32_t(block_size_limit));
    const uint32_t granularity = 32;
    const uint32_t full = m.sm.max_warps * 32;
    uint32_t best_size = 0, best_blocks = 0, best_threads = 0;
    for (uint32_t aligned = (limit + granularity - 1) / granularity * granularity; aligned > 0; aligned -= granularity) {
        const uint32_t size = std::min(limit, aligned);
        const size_t shared = shared_for_block ? shared_for_block(int(size)) : dynamic_shared;
        auto o = models::occupancy_of(m, resources_of(st, *f, size, shared));
        const uint32_t threads = size * o.ctas_per_sm;
        if (threads > best_threads) {
            best_size = size;
            best_blocks = o.ctas_per_sm;
            best_threads = threads;
        }
        if (best_threads == full) break;
    }
    *min_grid = int(best_blocks * m.sm_count);
    *block_size = int(best_size);
    return CUDA_SUCCESS;
}

CUresult cuOccupancyMaxPotentialBlockSize(int* min_grid, int* block_size, CUfunction fn,
                                          size_t (*shared_for_block)(int), size_t dynamic_shared, int block_size_limit) {
    return cuOccupancyMaxPotentialBlockSizeWithFlags(min_grid, block_size, fn, shared_for_block, dynamic_shared,
                                                     block_size_limit, 0);
}

// The most dynamic shared memory a CTA can have with `blocks` CTAs of
// `block_size` threads resident on one SM.
CUresult cuOccupancyAvailableDynamicSMemPerBlock(size_t* bytes, CUfunction fn, int blocks, int block_size) {
    PTXSIM_ENTER(true);
    function_object* f = function_of(st, fn);
    if (!f) return CUDA_ERROR_INVALID_HANDLE;
    if (!bytes || blocks <= 0 || block_size <= 0) return CUDA_ERROR_INVALID_VALUE;
    const auto& m = st.model();
    auto fits = [&](uint64_t dyn) {
        auto k = resources_of(st, *f, uint32_t(block_size), dyn);
        k.max_dynamic_shared_bytes = -1;  // what the kernel could opt in to
        return models::occupancy_of(m, k).ctas_per_sm >= uint32_t(blocks);
    };
    uint64_t lo = 0, hi = m.shared_memory.max_per_cta_bytes;
    if (!fits(0)) {
        *bytes = 0;
        return CUDA_SUCCESS;
    }
    while (lo < hi) {  // the largest fitting size
        uint64_t mid = lo + (hi - lo + 1) / 2;
        if (fits(mid)) lo = mid;
        else hi = mid - 1;
    }
    *bytes = size_t(lo);
    return CUDA_SUCCESS;
}

} // extern "C"

} // namespace ptxsim::cuda::driver
