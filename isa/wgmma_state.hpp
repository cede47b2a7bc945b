#pragma once
// wgmma.mma_async results in flight, per warp. A wgmma computes its slice
// of D when issued (its shared-memory operands are read then) but its
// register writes wait here until the warp's wgmma.wait_group covers their
// group, so code that reads the accumulators too early sees their old
// values. The engine keeps one per warp; isa/sem/wgmma*.cpp drive it.
#include <array>
#include <cstdint>
#include <deque>
#include <vector>

#include "isa/exec.hpp"

namespace ptxsim::isa {

// One destination register of one wgmma: its new value in every lane.
struct wgmma_write {
    uint32_t slot = no_slot;
    uint32_t pos = 0; // the wgmma's source position (a checker names it)
    std::array<uint64_t, warp_size> value{};
};
using wgmma_group = std::vector<wgmma_write>;

struct wgmma_warp_state {
    wgmma_group open;                 // issued since the last commit_group
    std::deque<wgmma_group> groups;   // committed, oldest first
    uint64_t committed = 0;           // commit_groups so far, for the warpgroup rendezvous of wait_group
    bool empty() const { return open.empty() && groups.empty(); }
    // The newest pending value of register `slot`, or nullptr: a wgmma that
    // accumulates into registers an earlier, unfinished one writes must see
    // that result (the ISA orders same-accumulator wgmmas without a wait).
    const wgmma_write* newest(uint32_t slot) const {
        for (auto it = open.rbegin(); it != open.rend(); ++it)
            if (it->slot == slot) return &*it;
        for (auto g = groups.rbegin(); g != groups.rend(); ++g)
            for (auto it = g->rbegin(); it != g->rend(); ++it)
                if (it->slot == slot) return &*it;
        return nullptr;
    }
};

} // namespace ptxsim::isa
