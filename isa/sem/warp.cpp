// Warp-level instructions: shfl.sync, vote.sync, bar.warp.sync, redux.sync,
// activemask, elect.sync, match.sync.
//
// Each lane names its own member mask, and the lanes that run the
// instruction together need not name the same one: cooperative groups'
// tiles of a converged warp (thread_block_tile<16>: 0xffff and 0xffff0000)
// run one vote.sync with two masks. The PTX ISA's rule is per lane: a lane
// waits until every non-exited lane of its mask has executed the
// instruction with the same mask, and the result is computed over those
// lanes only. So the lanes are grouped by the mask they give (gather), each
// group waits on its own (context.warp_sync), and each complete group gets
// its own result. Reading every source of a group before writing any
// destination keeps the exchange one step. What the ISA leaves undefined
// (a lane outside its own mask, lanes of one mask naming a lane that runs
// with another, shfl sourcing a lane that is not a running member) is a
// located fault, never a guessed value.
#include <array>

#include <fmt/format.h>

#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"
#include "isa/sem/warp_collective.hpp"

namespace ptxsim::isa::sem {
namespace {

// Lanes that meet at the instruction: every one gave `membermask`.
struct member_group {
    uint32_t lanes, membermask;
};

struct groups {
    std::array<member_group, warp_size> g; // the first n are set
    uint32_t n = 0; // groups complete (all their members are here): these run now
};

void outside_own_mask(exec_context& c, uint32_t lane, uint32_t membermask, const char* name) {
    c.fault(fault_kind::invalid_operation, lane, 0,
            fmt::format("lane {} executes {} with member mask 0x{:08x}, which does not name it{}", lane, name, membermask,
                        undefined_member_mask));
}

// Groups the lanes of `mask` by the member mask each gives, checks the ISA's
// rules, and waits per group. Groups whose members are all here come back
// in `out` (lanes widened to the members that waited for them); the others
// wait at the instruction. False after a fault.
bool gather(exec_context& c, uint32_t mask, const exec_operand& member, const char* name, groups& out) {
    out.n = 0;
    // The common case, one mask for all (an immediate, or a register that
    // agrees): one group.
    const uint32_t m0 = static_cast<uint32_t>(read(c, member, static_cast<uint32_t>(__builtin_ctz(mask))));
    bool one = member.kind != opnd::reg && member.kind != opnd::special;
    if (!one) {
        one = true;
        for_lanes(mask, [&](uint32_t lane) { one = one && static_cast<uint32_t>(read(c, member, lane)) == m0; });
    }
    if (one) {
        if (uint32_t outside = mask & ~m0) {
            outside_own_mask(c, static_cast<uint32_t>(__builtin_ctz(outside)), m0, name);
            return false;
        }
        member_group g{mask, m0};
        if (c.warp_sync(g.membermask, g.lanes)) out.g[out.n++] = g;
        return true;
    }
    std::array<uint32_t, warp_size> mm;
    for_lanes(mask, [&](uint32_t lane) { mm[lane] = static_cast<uint32_t>(read(c, member, lane)); });
    for (uint32_t lanes = mask; lanes; lanes &= lanes - 1) {
        const uint32_t lane = static_cast<uint32_t>(__builtin_ctz(lanes));
        if (!(mm[lane] >> lane & 1)) {
            outside_own_mask(c, lane, mm[lane], name);
            return false;
        }
    }
    std::array<member_group, warp_size> all;
    uint32_t count = 0;
    for (uint32_t rest = mask; rest;) {
        const uint32_t membermask = mm[static_cast<uint32_t>(__builtin_ctz(rest))];
        uint32_t lanes = 0;
        for_lanes(rest, [&](uint32_t lane) {
            if (mm[lane] == membermask) lanes |= 1u << lane;
        });
        // A lane of this mask that runs the instruction now with another
        // mask: the ISA asks every member for the same mask value.
        if (uint32_t other = membermask & mask & ~lanes) {
            const uint32_t o = static_cast<uint32_t>(__builtin_ctz(other));
            c.fault(fault_kind::invalid_operation, static_cast<uint32_t>(__builtin_ctz(lanes)), 0,
                    fmt::format("{}: lanes 0x{:08x} give member mask 0x{:08x}, which names lane {}, but lane {} gives 0x{:08x}; "
                                "every member must give the same mask{}",
                                name, lanes, membermask, o, o, mm[o], undefined_member_mask));
            return false;
        }
        all[count++] = {lanes, membermask};
        rest &= ~lanes;
    }
    for (uint32_t k = 0; k < count; ++k) {
        member_group g = all[k];
        if (c.warp_sync(g.membermask, g.lanes)) out.g[out.n++] = g;
    }
    return true;
}

enum class shfl_mode : uint8_t { up, down, bfly, idx };
constexpr const char* shfl_names[] = {"shfl.sync.up", "shfl.sync.down", "shfl.sync.bfly", "shfl.sync.idx"};

// shfl.sync.mode.b32 d[|p], a, b, c, membermask: the ISA's semantics, with
// the source lane j read within the lane's group.
void shfl_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const uint32_t base = ins.dest_pair ? 2 : 1;
    const auto mode = static_cast<shfl_mode>(ins.sub);
    groups gs;
    if (!gather(c, mask, ins.ops[base + 3], shfl_names[ins.sub], gs)) return;
    for (uint32_t k = 0; k < gs.n; ++k) {
        const member_group& g = gs.g[k];
        std::array<uint32_t, warp_size> val;
        std::array<bool, warp_size> in_range;
        bool bad = false;
        for_lanes(g.lanes, [&](uint32_t lane) {
            if (bad) return;
            const uint32_t b = static_cast<uint32_t>(read(c, ins.ops[base + 1], lane)) & 31;
            const uint32_t cv = static_cast<uint32_t>(read(c, ins.ops[base + 2], lane));
            const uint32_t clamp = cv & 31, segmask = (cv >> 8) & 31;
            const int max_lane = static_cast<int>((lane & segmask) | (clamp & ~segmask));
            const int min_lane = static_cast<int>(lane & segmask);
            int j = 0;
            bool p = false;
            switch (mode) {
            case shfl_mode::up: j = static_cast<int>(lane) - static_cast<int>(b); p = j >= max_lane; break;
            case shfl_mode::down: j = static_cast<int>(lane + b); p = j <= max_lane; break;
            case shfl_mode::bfly: j = static_cast<int>(lane ^ b); p = j <= max_lane; break;
            case shfl_mode::idx: j = min_lane | static_cast<int>(b & ~segmask); p = j <= max_lane; break;
            }
            if (!p) j = static_cast<int>(lane);
            // Lanes past 31 are out of range whatever the clamp: j <= max_lane <= 31 and j >= max_lane >= 0.
            const uint32_t src = static_cast<uint32_t>(j);
            if (!(g.lanes >> src & 1)) {
                c.fault(fault_kind::invalid_operation, lane, 0,
                        fmt::format("lane {} of {} reads lane {}, which {}{}", lane, shfl_names[ins.sub], src,
                                    g.membermask >> src & 1
                                        ? "has exited or is not part of the block"
                                        : fmt::format("its member mask 0x{:08x} does not name", g.membermask),
                                    undefined_member_mask));
                bad = true;
                return;
            }
            val[lane] = static_cast<uint32_t>(read(c, ins.ops[base], src));
            in_range[lane] = p;
        });
        if (bad) return;
        for_lanes(g.lanes, [&](uint32_t lane) {
            write(c, ins.ops[0], lane, val[lane]);
            if (ins.dest_pair) write(c, ins.ops[1], lane, in_range[lane]);
        });
    }
}
std::string dec_shfl(const matched_instruction& m, exec_instruction& out) {
    out.control = out.uniform = true; // waits for its member lanes
    std::string_view mode = m.get("mode");
    out.sub = static_cast<uint8_t>(mode == "up" ? shfl_mode::up : mode == "down" ? shfl_mode::down
                                   : mode == "bfly" ? shfl_mode::bfly : shfl_mode::idx);
    out.run = shfl_handler;
    return {};
}

enum class vote_mode : uint8_t { all, any, uni, ballot };

// vote.sync.mode d, {!}a, membermask: a reduction over the group's lanes,
// which are the non-exited lanes of the mask (lanes outside it give 0).
void vote_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    groups gs;
    if (!gather(c, mask, ins.ops[2], "vote.sync", gs)) return;
    for (uint32_t k = 0; k < gs.n; ++k) {
        const uint32_t lanes = gs.g[k].lanes;
        uint32_t ballot = 0;
        for_lanes(lanes, [&](uint32_t lane) {
            if (read(c, ins.ops[1], lane) & 1) ballot |= 1u << lane;
        });
        uint64_t r = 0;
        switch (static_cast<vote_mode>(ins.sub)) {
        case vote_mode::all: r = ballot == lanes; break;
        case vote_mode::any: r = ballot != 0; break;
        case vote_mode::uni: r = ballot == 0 || ballot == lanes; break;
        case vote_mode::ballot: r = ballot; break;
        }
        for_lanes(lanes, [&](uint32_t lane) { write(c, ins.ops[0], lane, r); });
    }
}
std::string dec_vote(const matched_instruction& m, exec_instruction& out) {
    out.control = out.uniform = true; // waits for its member lanes
    std::string_view mode = m.get("mode");
    out.sub = static_cast<uint8_t>(mode == "all" ? vote_mode::all : mode == "any" ? vote_mode::any
                                   : mode == "uni" ? vote_mode::uni : vote_mode::ballot);
    out.run = vote_handler;
    return {};
}

// bar.warp.sync membermask: each group waits for its own members.
void warp_sync_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    groups gs;
    gather(c, mask, ins.ops[0], "bar.warp.sync", gs);
}
std::string dec_bar_warp(const matched_instruction&, exec_instruction& out) {
    out.control = out.uniform = true; // waits for its member lanes
    out.run = warp_sync_handler;
    return {};
}

// activemask.b32 d: the lanes running this instruction together, guard
// true (not a .sync instruction: it waits for no one).
void activemask_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    for_lanes(mask, [&](uint32_t lane) { write(c, ins.ops[0], lane, mask); });
}
std::string dec_activemask(const matched_instruction&, exec_instruction& out) {
    out.control = out.uniform = true; // the running set is its result: a divergent warp runs it per group
    out.run = activemask_handler;
    return {};
}

enum class redux_op : uint8_t { add, min, max, and_, or_, xor_ };

// redux.sync.op.type d, a, membermask: over the group's lanes.
void redux_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    groups gs;
    if (!gather(c, mask, ins.ops[2], "redux.sync", gs)) return;
    const bool sign = is_signed(ins.type);
    const auto op = static_cast<redux_op>(ins.sub);
    for (uint32_t k = 0; k < gs.n; ++k) {
        const uint32_t lanes = gs.g[k].lanes;
        bool first = true;
        uint32_t acc = 0;
        for_lanes(lanes, [&](uint32_t lane) {
            uint32_t v = static_cast<uint32_t>(read(c, ins.ops[1], lane));
            if (first) {
                acc = v;
                first = false;
                return;
            }
            switch (op) {
            case redux_op::add: acc += v; break; // truncated to 32 bits
            case redux_op::min: acc = sign ? static_cast<uint32_t>(std::min<int32_t>(static_cast<int32_t>(acc), static_cast<int32_t>(v))) : std::min(acc, v); break;
            case redux_op::max: acc = sign ? static_cast<uint32_t>(std::max<int32_t>(static_cast<int32_t>(acc), static_cast<int32_t>(v))) : std::max(acc, v); break;
            case redux_op::and_: acc &= v; break;
            case redux_op::or_: acc |= v; break;
            case redux_op::xor_: acc ^= v; break;
            }
        });
        for_lanes(lanes, [&](uint32_t lane) { write(c, ins.ops[0], lane, acc); });
    }
}
std::string dec_redux(const matched_instruction& m, exec_instruction& out) {
    out.control = out.uniform = true; // waits for its member lanes
    // .f32 (and .abs/.NaN) need sm_100a or the sm_100f family (PTX ISA 8.6/8.8).
    if (out.type == parser::data_type::f32) return "redux.sync on f32 (sm_100a) is not implemented yet";
    std::string_view op = m.get("op");
    out.sub = static_cast<uint8_t>(op == "add" ? redux_op::add : op == "min" ? redux_op::min : op == "max" ? redux_op::max
                                   : op == "and" ? redux_op::and_ : op == "or" ? redux_op::or_ : redux_op::xor_);
    out.run = redux_handler;
    return {};
}

// elect.sync d|p, membermask: the lowest lane of the group is the leader
// (the same leader for the same mask every time, as the ISA asks).
void elect_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const uint32_t member_op = ins.dest_pair ? 2 : 1;
    groups gs;
    if (!gather(c, mask, ins.ops[member_op], "elect.sync", gs)) return;
    for (uint32_t k = 0; k < gs.n; ++k) {
        const uint32_t lanes = gs.g[k].lanes;
        const uint32_t leader = static_cast<uint32_t>(__builtin_ctz(lanes));
        for_lanes(lanes, [&](uint32_t lane) {
            write(c, ins.ops[0], lane, leader);
            if (ins.dest_pair) write(c, ins.ops[1], lane, lane == leader);
        });
    }
}
std::string dec_elect(const matched_instruction&, exec_instruction& out) {
    out.control = out.uniform = true; // waits for its member lanes
    out.run = elect_handler;
    return {};
}

// match.any.sync.type d, a, membermask: d = the group's lanes whose a equals this lane's;
// match.all.sync.type d[|p], a, membermask: d = the group's lanes when all a agree, else 0; p says whether they do.
void match_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const uint32_t base = ins.dest_pair ? 2 : 1;
    groups gs;
    if (!gather(c, mask, ins.ops[base + 1], ins.sub ? "match.all.sync" : "match.any.sync", gs)) return;
    const uint64_t width = mask_bits(bits_of(ins.type));
    const bool all = ins.sub;
    for (uint32_t k = 0; k < gs.n; ++k) {
        const uint32_t lanes = gs.g[k].lanes;
        std::array<uint64_t, warp_size> val{};
        for_lanes(lanes, [&](uint32_t lane) { val[lane] = read(c, ins.ops[base], lane) & width; });
        const uint32_t first = static_cast<uint32_t>(__builtin_ctz(lanes));
        bool same = true;
        for_lanes(lanes, [&](uint32_t lane) { same = same && val[lane] == val[first]; });
        std::array<uint32_t, warp_size> d{};
        for_lanes(lanes, [&](uint32_t lane) {
            if (all) {
                d[lane] = same ? lanes : 0;
            } else {
                for_lanes(lanes, [&](uint32_t other) {
                    if (val[other] == val[lane]) d[lane] |= 1u << other;
                });
            }
        });
        for_lanes(lanes, [&](uint32_t lane) {
            write(c, ins.ops[0], lane, d[lane]);
            if (ins.dest_pair) write(c, ins.ops[1], lane, same);
        });
    }
}
std::string dec_match(const matched_instruction& m, exec_instruction& out) {
    out.control = true; // waits for its member lanes
    out.sub = m.get("mode") == "all" ? 1 : 0;
    if (out.dest_pair && !out.sub) return "match.any has no predicate output";
    out.run = match_handler;
    return {};
}

constexpr entry entries[] = {
    {"shfl.sync", dec_shfl}, {"vote.sync", dec_vote}, {"bar.warp.sync", dec_bar_warp}, {"activemask", dec_activemask},
    {"redux.sync", dec_redux}, {"elect.sync", dec_elect}, {"match", dec_match},
};

} // namespace

std::span<const entry> warp_entries() { return entries; }

} // namespace ptxsim::isa::sem
