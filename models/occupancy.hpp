#pragma once
// How many CTAs of a kernel one SM holds at once, by the rules CUDA's
// occupancy calculator (cuda_occupancy.h, cudaOccMaxActiveBlocksPerMultiprocessor)
// applies, with every number taken from the model: registers granted per
// warp in allocation units and split over the sub-partitions, warps, the
// CTA slots, shared memory rounded to its granularity plus the per-CTA
// reservation against the carve-out the preference picks, and the named
// barriers. The functional engine uses it for how many CTAs are live at
// once; the timing model and `ptxsim prof` for theoretical occupancy and
// its limiting resource.
#include <cstdint>
#include <string>

#include "models/model.hpp"

namespace ptxsim::models {

// What the kernel asks of an SM (cudaFuncAttributes plus the launch).
struct kernel_resources {
    uint32_t block_threads = 0;        // threads per CTA
    uint32_t registers_per_thread = 0; // as ptxas allocated them
    uint64_t static_shared_bytes = 0;  // .shared variables
    uint64_t dynamic_shared_bytes = 0; // the launch's dynamic shared memory
    // cudaFuncAttributeMaxDynamicSharedMemorySize: above the default per-CTA
    // limit a kernel must opt in; -1 means "opted in to exactly what the
    // launch asks for", as ptxsim's launch files do.
    int64_t max_dynamic_shared_bytes = -1;
    uint32_t barriers = 1;             // named barriers the kernel uses (0: none)
    // cudaFuncAttributePreferredSharedMemoryCarveout in percent of the
    // largest carve-out; -1 for no preference (the largest).
    int carveout_percent = -1;
};

// Each resource's own limit on resident CTAs per SM, the least of them, and
// which resources set it (several may tie).
struct occupancy {
    enum limit : uint32_t { warps = 1, registers = 2, shared_memory = 4, ctas = 8, barriers = 16 };
    uint32_t ctas_per_sm = 0;
    uint32_t limit_warps = 0, limit_registers = 0, limit_shared_memory = 0, limit_ctas = 0, limit_barriers = 0;
    uint32_t limiting = 0;               // a set of `limit` bits
    uint32_t warps_per_cta = 0;
    uint64_t registers_per_cta = 0;      // as allocated (per-warp units)
    uint64_t shared_per_cta = 0;         // allocated, reservation included
    uint64_t shared_per_sm = 0;          // the carve-out this kernel runs with
    double theoretical = 0;              // resident warps / the SM's maximum
    std::string error;                   // why nothing fits, CUDA's way; empty when ctas_per_sm > 0

    // "registers", "shared memory and warps", ...
    std::string limiting_names() const;
};

// The occupancy of `k` on one SM of `m`. A request that cannot launch at
// all (a CTA larger than the SM allows, more registers or shared memory than
// a CTA may have, a carve-out preference out of range) has ctas_per_sm 0 and
// `error` saying which, starting with the CUDA error the runtime gives.
occupancy occupancy_of(const gpu_model& m, const kernel_resources& k);

} // namespace ptxsim::models
