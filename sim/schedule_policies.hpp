#pragma once
// Seeded schedulers for schedule exploration (sim/scheduler.hpp). One 64-bit
// seed fixes every choice, so the same seed on the same launch file gives the
// same interleaving and the same output bits (exact replay).
//
// A seed names its policy: even seeds are `random`, odd seeds `pct`.
// - random: each pass visits the live CTAs, and each round a CTA's warps, in
//   a fresh random order; each warp runs a random number of instructions,
//   and each CTA per pass (half the time at most one turn's worth);
//   after each memory operation, fence or backward branch the warp is
//   preempted with a probability the seed picks (1/2 … 1/64); divergent path
//   groups of a warp are picked at random.
// - pct (probabilistic concurrency testing, Burckhardt et al. 2010): every
//   warp gets a random priority and the highest-priority warp that can move
//   runs alone; at depth-1 change points, placed uniformly over the
//   instructions the launch file is expected to run, the running warp drops
//   below every other. A warp that goes round a loop 64 times in a row (a
//   spin loop, or a long loop) drops to the bottom too, so a spinner does
//   not starve the warp it waits for.
// Both split converged warps (scheduler::split), with a probability the seed
// picks (never for a quarter of the seeds, else 1/2 … 1/32 per load, store
// or atomic): one lane, or a random half of the lanes, does the access and
// runs ahead while the rest wait before it; the lanes then run as groups
// picked at random until their PCs meet. Volta and later GPUs may do the
// same (independent thread scheduling), which is what warp-synchronous code
// without __syncwarp gets wrong. Splitting draws from a stream of its own.
#include <cstdint>
#include <memory>
#include <string>

#include "sim/scheduler.hpp"

namespace ptxsim::sim {

struct schedule_params {
    uint32_t quantum = 4096;              // the longest turn
    // PCT: instructions the launch file runs (from a run in the default
    // order), over which the change points are spread.
    uint64_t expected_instructions = 1000;
};

enum class schedule_kind : uint8_t { random, pct };
inline schedule_kind kind_of_seed(uint64_t seed) { return seed & 1 ? schedule_kind::pct : schedule_kind::random; }

std::unique_ptr<scheduler> make_scheduler(uint64_t seed, const schedule_params& params);

// "random (preempt 1/4, turns up to 64 instructions)", "pct (depth 2, change at 517)".
std::string describe_schedule(uint64_t seed, const schedule_params& params);

// The i-th seed of an exploration from `base`: a splitmix64 mix of mix(base) + i
// (different seeds in practice), with the low bit of i so that the
// exploration alternates between the policies.
uint64_t derive_seed(uint64_t base, uint64_t i);

} // namespace ptxsim::sim
