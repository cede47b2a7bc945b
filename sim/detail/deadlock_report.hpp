#pragma once
// What the engine says when nothing can run: where each blocked (or
// spinning) group of lanes waits, as a deadlock_event for observers
// (synccheck names the cause from it), and the deadlock fault report that
// `ptxsim run` prints, one "warp N waits at file:line" per live warp, with
// the mbarrier's state or the wgmma wait it sleeps in.
#include "sim/detail/livelock_probe.hpp"
#include "sim/engine.hpp"
#include "sim/events.hpp"

namespace ptxsim::sim::detail {

// Every blocked group of lanes of the live CTAs (and, when `spinning`, the
// running lanes grouped by PC); lanes that went to sleep one by one at one
// place are one group.
deadlock_event blocked_groups(const launch_request& req, const live_clusters& live, bool spinning);
// The fault report for a deadlock (or, with `spinning`, a livelock) in the
// first live CTA.
fault_report deadlock_fault(const launch_request& req, const live_clusters& live, bool spinning);

} // namespace ptxsim::sim::detail
