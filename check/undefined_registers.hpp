#pragma once
// initcheck's definedness of registers: which lanes' registers hold a value
// loaded from local memory that nothing wrote, tracked from the load to
// where the value is used (docs/check.md, initcheck).
//
// The same holds for loads from shared memory. nvcc loads a local variable unconditionally and discards the value with
// `selp` when a branch says it is not needed (`int v; if (c->pop(v)) out =
// v; else out = -1;`), so reporting the load itself reports correct
// programs. Instead the load's finding waits in its destination registers:
// - pure register arithmetic (mov, cvt, add, fma, and, setp, ...) passes it
//   on to its destinations, lane by lane; `selp` only from the source its
//   predicate picks for the lane;
// - any other instruction that reads such a register (a store, an address,
//   a branch's guard, a shuffle, a call's argument) uses the value: the
//   finding is reported then, once, at the load, naming the use;
// - a store to shared or local memory of such a value is no use either: the
//   bytes it writes stay unwritten (a later load of them is judged the same
//   way), as when a scan adds up the never-written tail of a shared array;
// - a register written with anything else is defined again.
// A value never used is never reported. The lanes of a warp are tracked per
// function (a recursive call's frames share their function's shadow).
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "check/report.hpp"
#include "isa/exec.hpp"
#include "sim/events.hpp"

namespace ptxsim::check {

class undefined_registers {
public:
    undefined_registers();
    // The instruction each warp runs (before it runs): the values it uses are
    // returned as findings to report now, and its destinations' definedness
    // is set from its sources. `where()` names the instruction for a finding.
    void instruction(const sim::instruction_event& e, std::vector<finding>& used, const std::function<std::string()>& where);
    // Whether the warp's current instruction is a load whose destinations
    // can hold a deferred finding.
    bool defers(const sim::event_site& s) const;
    // A deferred load's finding: `f` waits in the destination elements of
    // the warp's current load whose bytes [first, first + size) of the
    // access at `offset` (`unwritten` runs, in the same offsets) were never written.
    void loaded(const sim::event_site& s, finding f, uint64_t offset, const std::vector<std::pair<uint64_t, uint64_t>>& unwritten);
    // The bytes of the current store by lane s.lane (an access of `size`
    // bytes) whose value was never written, as runs from the access's start.
    std::vector<std::pair<uint64_t, uint64_t>> undefined_bytes(const sim::event_site& s, uint32_t size) const;
    void clear();

private:
    // The instruction a host thread's warp runs now: its accesses follow its
    // instruction event on the same host thread.
    struct current {
        const isa::exec_instruction* ins = nullptr;
        int32_t function = 0;
        uint64_t warp = 0; // (CTA << 16 | warp)
        // A store's value elements that hold no written value, per lane (bit i: element i).
        std::array<uint8_t, isa::warp_size> undefined_elements{};
        bool store_undefined = false;
    };
    // Only warps holding a pending finding have one (a large grid's warps
    // cost nothing otherwise).
    struct warp_shadow {
        // (function << 33 | pred << 32 | slot) -> per lane: a pending finding's index, or -1
        std::unordered_map<uint64_t, std::array<int32_t, isa::warp_size>> regs;
    };
    static uint64_t key(int32_t function, bool pred, uint32_t slot) {
        return static_cast<uint64_t>(static_cast<uint32_t>(function)) << 33 | uint64_t{pred} << 32 | slot;
    }
    int32_t lane_state(const warp_shadow& w, int32_t function, bool pred, uint32_t slot, uint32_t lane) const;
    void set_lane(warp_shadow& w, int32_t function, bool pred, uint32_t slot, uint32_t lane, int32_t pending);
    static uint64_t warp_key(const sim::event_site& s) { return s.cta << 16 | s.warp; }

    std::vector<uint8_t> pure_;  // by instruction-table row: passes definedness through
    std::vector<uint8_t> loads_; // by row: ld
    std::vector<uint8_t> stores_; // by row: st
    std::unordered_map<uint64_t, warp_shadow> warps_; // by (CTA << 16 | warp)
    std::unordered_map<std::thread::id, current> current_;
    std::vector<finding> pending_;
    std::vector<uint8_t> reported_;
};

} // namespace ptxsim::check
