#pragma once
// The mbarrier object: 8 bytes of shared memory whose layout the hardware
// keeps private. ptxsim packs the four fields the PTX ISA defines into them:
//
//   bits  0-20  pending arrival count (arrivals still missing in this phase)
//   bits 21-41  expected arrival count (what pending resets to)
//   bits 42-62  tx-count, two's complement (bytes expected minus bytes done)
//   bit  63     phase parity
//
// Counts are at most 2^20 - 1 and tx-count lies in ±(2^20 - 1), as the ISA
// bounds them. All zero is an object no mbarrier.init has set up (init
// needs a count of at least 1), so use before init is caught.
#include <cstdint>
#include <string>

#include "isa/sem/context.hpp"

namespace ptxsim::isa::sem::mbar {

inline constexpr uint32_t count_limit = (1u << 20) - 1;

struct state {
    uint32_t pending = 0, expected = 0;
    int32_t tx = 0;
    uint32_t parity = 0;

    static state unpack(uint64_t v) {
        state s;
        s.pending = static_cast<uint32_t>(v & 0x1FFFFF);
        s.expected = static_cast<uint32_t>((v >> 21) & 0x1FFFFF);
        uint32_t t = static_cast<uint32_t>((v >> 42) & 0x1FFFFF);
        s.tx = static_cast<int32_t>(t << 11) >> 11;
        s.parity = static_cast<uint32_t>(v >> 63);
        return s;
    }
    uint64_t pack() const {
        return uint64_t(pending & 0x1FFFFF) | uint64_t(expected & 0x1FFFFF) << 21 |
               uint64_t(static_cast<uint32_t>(tx) & 0x1FFFFF) << 42 | uint64_t(parity & 1) << 63;
    }
};

// The state token mbarrier.arrive returns: the phase parity at the arrival
// (bit 63) and the pending count right after it (what pending_count reads).
inline uint64_t token(uint32_t parity, uint32_t pending) { return uint64_t(parity) << 63 | pending; }

// The shared-memory offset of the mbarrier at `addr` in space `sp` (generic
// addresses must point into shared memory); false after a located fault.
bool locate(exec_context& c, space sp, uint64_t addr, uint32_t lane, uint64_t& offset);

// One atomic step on the mbarrier at shared offset `offset`: `change` edits
// the state and returns an error text ("" when legal). When the step
// completes the phase (pending and tx-count both zero), the phase flips, the
// pending count reloads and the writes waiting for the phase land. `before`
// receives the state before the step. False after a located fault.
using change_fn = std::string (*)(state& s, uint64_t a, uint64_t b);
bool update(exec_context& c, uint64_t offset, uint32_t lane, change_fn change, uint64_t a, uint64_t b, state& before);

// Changes for update(). add_tx: tx-count += a (or -= a when b is 1:
// complete_tx). arrive: a arrivals; b bit 0 arrive_drop, bit 1 noComplete,
// bits 32 and up: expect_tx bytes added first. look: only checks that the
// object is initialised.
std::string add_tx(state& s, uint64_t bytes, uint64_t negative);
std::string arrive(state& s, uint64_t count, uint64_t flags);
std::string look(state& s, uint64_t, uint64_t);

// Queues write `w` to land when the current phase of the mbarrier at shared
// offset `off` completes. Another CTA of the cluster may complete that phase
// (a remote arrive or complete_tx, a peer's multicast copy) and lands the
// write in its own context, so a shared destination is kept as a
// shared::cluster address naming its CTA, never as a bare shared::cta
// offset (which would name the landing CTA). False after a located fault.
bool defer(exec_context& c, uint64_t off, pending_write w, uint32_t lane);

// A .multicast::cluster ctaMask may name only CTAs of the cluster (16 bits:
// up to 16 CTAs in a non-portable cluster); false after a located fault
// naming `op` and the first rank past the cluster.
bool cta_mask_fits(exec_context& c, uint64_t mask, const char* op, uint32_t lane);

// An asynchronous copy that completes through the mbarrier at shared
// address `mbar`: its writes wait for the current phase to complete, and its
// bytes count against the tx-count (which may complete the phase at once).
bool track_copy(exec_context& c, uint64_t mbar, uint32_t lane, pending_write w, uint64_t bytes);

// Applies a group of pending writes (async copies that complete); false
// after a located fault.
bool land(exec_context& c, write_group& writes, uint32_t lane);

} // namespace ptxsim::isa::sem::mbar
