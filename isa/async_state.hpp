#pragma once
// Asynchronous copies in flight (cp.async, cp.async.bulk): each has read its
// source when issued and holds the bytes it will write; the write becomes
// visible only when the copy completes, i.e. when the issuing thread waits
// for its group or when the mbarrier phase that tracks it completes. The
// engine keeps this state (per lane, and per CTA for mbarriers); the
// semantics in isa/sem/async_copy.cpp and mbarrier.cpp drive it.
#include <cstdint>
#include <deque>
#include <vector>

#include "isa/exec.hpp"

namespace ptxsim::isa {

struct pending_write {
    space sp = space::shared;   // shared (offset) or global
    uint64_t addr = 0;
    std::vector<uint8_t> data;  // a multiple of 16 bytes, or one cp.async's 4, 8 or 16
    // cp.reduce.async.bulk: each element of `element` bytes is combined into
    // the destination by this update (as red does) instead of overwriting it.
    uint64_t (*reduce)(uint64_t old, uint64_t value, uint64_t unused) = nullptr;
    uint32_t element = 0;
    // What exec_context::async_write_issued returned (observers match the
    // landing with the issue by it; 0 in a plain run).
    uint64_t tag = 0;
};

using write_group = std::vector<pending_write>;

// One thread's copies: cp.async ones and bulk (cp.async.bulk .bulk_group)
// ones, each kind with the copies issued since its last commit_group and the
// committed groups, oldest first.
struct async_lane_state {
    write_group open, bulk_open;
    std::deque<write_group> groups, bulk_groups;
    bool empty() const { return open.empty() && bulk_open.empty() && groups.empty() && bulk_groups.empty(); }
};

} // namespace ptxsim::isa
