#pragma once
// A read-only look at the engine's machine state for a debugger (debug/):
// the live CTAs, each warp's lanes (PC, call depth, exited, waiting), their
// registers, call stacks, barriers and memory in every state space. The
// engine hands one out with every instruction event (sim/events.hpp) to an
// observer that asks for them (observer::wants_instructions); it is valid
// only during that call, while the engine waits for the observer to return.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "isa/exec.hpp"
#include "sim/launch_types.hpp"

namespace ptxsim::sim {

// One warp's lanes as the engine holds them.
struct warp_view {
    uint32_t alive = 0;     // lanes that exist (a partial last warp has fewer)
    uint32_t exited = 0;
    uint32_t waiting = 0;   // at a CTA barrier (their PC is past it)
    uint32_t sync_wait = 0; // at a warp-synchronous instruction, for the rest of their member mask
    std::array<uint32_t, isa::warp_size> pc{};    // function id << 20 | instruction index
    std::array<uint32_t, isa::warp_size> depth{}; // call depth, 0 in the kernel
};

// A CTA barrier with arrivals in its current phase.
struct barrier_view {
    uint32_t id = 0;
    uint32_t arrived = 0, expected = 0; // expected 0: every thread of the CTA that has not exited
    std::vector<std::pair<uint32_t, uint32_t>> waiters; // (warp, lanes)
};

// Lanes asleep in mbarrier.try_wait on the mbarrier at a shared offset.
struct mbarrier_view {
    uint64_t offset = 0;
    std::vector<std::pair<uint32_t, uint32_t>> sleepers; // (warp, lanes)
};

// Where an address puts a lane's access, as access events name it
// (access_event::space, owner, offset): global and const memory by address,
// shared memory by owning CTA and offset, local memory by thread and offset
// with the call depth + 1 in bits 32 up.
struct memory_place {
    isa::space space = isa::space::global;
    uint64_t owner = 0, offset = 0;
};

class machine_view {
public:
    virtual ~machine_view() = default;
    // The CTAs live now, by linear index in the grid, in the engine's order.
    virtual std::vector<uint64_t> live_ctas() const = 0;
    virtual std::optional<dim3> cta_index(uint64_t cta) const = 0; // nullopt: not live
    virtual uint32_t warp_count(uint64_t cta) const = 0;
    virtual std::optional<warp_view> warp(uint64_t cta, uint32_t warp) const = 0;
    // A register slot (isa::exec_register_name) or predicate slot of a lane
    // at a call depth (0: the kernel; current_depth: the frame it runs in);
    // nullopt when the lane, frame or slot does not exist.
    static constexpr uint32_t current_depth = UINT32_MAX;
    virtual std::optional<uint64_t> reg(uint64_t cta, uint32_t warp, uint32_t lane, uint32_t slot,
                                        uint32_t depth = current_depth) const = 0;
    virtual std::optional<bool> pred(uint64_t cta, uint32_t warp, uint32_t lane, uint32_t slot,
                                     uint32_t depth = current_depth) const = 0;
    // The .local address of `offset` in the frame at call depth `depth`, so
    // read and place reach a caller's frame (a plain offset is the current one's).
    virtual uint64_t local_address(uint64_t offset, uint32_t depth) const = 0;
    // Where the lane's calls return to, outermost first (empty in the kernel).
    virtual std::vector<uint32_t> return_pcs(uint64_t cta, uint32_t warp, uint32_t lane) const = 0;
    // Reads `bytes` at `addr` in `sp` as the lane would (generic addresses
    // through their windows, .shared::cluster to other CTAs, .local of the
    // lane's current frame): empty on success, else why not.
    virtual std::string read(isa::space sp, uint64_t addr, void* dst, uint32_t bytes, uint64_t cta, uint32_t warp,
                             uint32_t lane) const = 0;
    // Where `addr` in `sp` puts an access of that lane; nullopt (with why) when nowhere.
    virtual std::optional<memory_place> place(isa::space sp, uint64_t addr, uint64_t cta, uint32_t warp, uint32_t lane,
                                              std::string& why) const = 0;
    // The CTA's shared memory bytes; 0 when not live.
    virtual uint64_t shared_bytes(uint64_t cta) const = 0;
    virtual std::vector<barrier_view> barriers(uint64_t cta) const = 0;
    virtual std::vector<mbarrier_view> mbarriers(uint64_t cta) const = 0;
    // Functions of the program, by function id (PC bits 20 up).
    virtual const isa::exec_function* function(int32_t id) const = 0;
};

} // namespace ptxsim::sim
