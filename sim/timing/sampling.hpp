#pragma once
// ptxsim prof --sample: a launch whose first CTAs (whole waves) were
// simulated in detail and whose other CTAs ran without the timing model
// (launch_options::sample_waves) is extrapolated to its whole grid.
//
// The detailed part is at least three waves: the first starts cold (every
// CTA at once), the last keeps every SM slot busy while the one before it
// is measured: the steady rate r of CTA completions over that wave's worth
// of completions. By Little's law a CTA then stays d = W / r cycles (W the
// CTAs a wave holds). The rest of the grid is placed as the GPU's CTA
// scheduler would place it: each CTA on the slot that frees first, lasting
// d; the last CTA on each slot lasts the longest duration measured, since
// the slowest of the last wave ends the launch. So a partial last wave
// costs a whole CTA's time, as on the GPU. Counters (stalls, pipes, memory, tensor cycles, source lines) are
// the detailed CTAs' scaled by grid CTAs / detailed CTAs, rounded; the
// warp-instruction count is the engine's exact one; rates (hit rates,
// achieved occupancy) are the detailed part's.
#include <cstdint>
#include <vector>

#include "sim/timing/timing_model.hpp"

namespace ptxsim::sim::timing {

// `p` holds the detailed CTAs' spans (p.sampled_ctas of them) and counters;
// `grid_ctas` CTAs ran in all, `warp_instructions` of them (exact);
// `ctas_per_sm` are resident on each of `sm_ids` at once. Appends the
// estimated CTAs' spans and sets p.cycles to the extrapolated end.
void extrapolate(launch_profile& p, uint64_t grid_ctas, uint64_t warp_instructions, uint32_t ctas_per_sm,
                 const std::vector<uint32_t>& sm_ids);

} // namespace ptxsim::sim::timing
