// Warp-level instructions: shfl.sync, vote.sync, bar.warp.sync, redux.sync,
// activemask, elect.sync, match.sync. Each waits (context.warp_sync) until every lane
// its member mask names has arrived, then reads all sources before writing
// any destination, as the lanes exchange values in one step.
#include <array>

#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"

namespace ptxsim::isa::sem {
namespace {

// Lanes in `mask` must be a subset of the member mask (PTX: otherwise undefined).
bool gather(exec_context& c, const exec_instruction& ins, uint32_t& mask, const exec_operand& member) {
    uint32_t lane = static_cast<uint32_t>(__builtin_ctz(mask));
    uint32_t membermask = static_cast<uint32_t>(read(c, member, lane));
    return c.warp_sync(membermask, mask);
}

enum class shfl_mode : uint8_t { up, down, bfly, idx };

// shfl.sync.mode.b32 d[|p], a, b, c, membermask
void shfl_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const uint32_t base = ins.dest_pair ? 2 : 1;
    if (!gather(c, ins, mask, ins.ops[base + 3])) return;
    std::array<uint32_t, warp_size> src{}, val{};
    std::array<bool, warp_size> ok{};
    for_lanes(mask, [&](uint32_t lane) {
        uint32_t b = static_cast<uint32_t>(read(c, ins.ops[base + 1], lane)) & 31;
        uint32_t cv = static_cast<uint32_t>(read(c, ins.ops[base + 2], lane));
        uint32_t clamp = cv & 31, segmask = (cv >> 8) & 31;
        uint32_t max_lane = (lane & segmask) | (clamp & ~segmask), min_lane = lane & segmask;
        int j = 0;
        bool p = false;
        switch (static_cast<shfl_mode>(ins.sub)) {
        case shfl_mode::up: j = static_cast<int>(lane) - static_cast<int>(b); p = j >= static_cast<int>(min_lane); break;
        case shfl_mode::down: j = static_cast<int>(lane + b); p = j <= static_cast<int>(max_lane); break;
        case shfl_mode::bfly: j = static_cast<int>(lane ^ b); p = j <= static_cast<int>(max_lane); break;
        case shfl_mode::idx: j = static_cast<int>(min_lane | (b & ~segmask)); p = j <= static_cast<int>(max_lane); break;
        }
        if (!p) j = static_cast<int>(lane);
        src[lane] = static_cast<uint32_t>(j);
        ok[lane] = p;
    });
    for_lanes(mask, [&](uint32_t lane) { val[lane] = static_cast<uint32_t>(read(c, ins.ops[base], src[lane])); });
    for_lanes(mask, [&](uint32_t lane) {
        write(c, ins.ops[0], lane, val[lane]);
        if (ins.dest_pair) write(c, ins.ops[1], lane, ok[lane]);
    });
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

// vote.sync.mode d, {!}a, membermask
void vote_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    if (!gather(c, ins, mask, ins.ops[2])) return;
    uint32_t ballot = 0;
    for_lanes(mask, [&](uint32_t lane) {
        if (read(c, ins.ops[1], lane) & 1) ballot |= 1u << lane;
    });
    uint64_t r = 0;
    switch (static_cast<vote_mode>(ins.sub)) {
    case vote_mode::all: r = (ballot & mask) == mask; break;
    case vote_mode::any: r = ballot != 0; break;
    case vote_mode::uni: r = ballot == 0 || ballot == mask; break;
    case vote_mode::ballot: r = ballot; break;
    }
    for_lanes(mask, [&](uint32_t lane) { write(c, ins.ops[0], lane, r); });
}
std::string dec_vote(const matched_instruction& m, exec_instruction& out) {
    out.control = out.uniform = true; // waits for its member lanes
    std::string_view mode = m.get("mode");
    out.sub = static_cast<uint8_t>(mode == "all" ? vote_mode::all : mode == "any" ? vote_mode::any
                                   : mode == "uni" ? vote_mode::uni : vote_mode::ballot);
    out.run = vote_handler;
    return {};
}

void warp_sync_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) { gather(c, ins, mask, ins.ops[0]); }
std::string dec_bar_warp(const matched_instruction&, exec_instruction& out) {
    out.control = out.uniform = true; // waits for its member lanes
    out.run = warp_sync_handler;
    return {};
}

void activemask_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    for_lanes(mask, [&](uint32_t lane) { write(c, ins.ops[0], lane, mask); });
}
std::string dec_activemask(const matched_instruction&, exec_instruction& out) {
    out.control = out.uniform = true; // waits for its member lanes
    out.run = activemask_handler;
    return {};
}

enum class redux_op : uint8_t { add, min, max, and_, or_, xor_ };

// redux.sync.op.type d, a, membermask
void redux_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    if (!gather(c, ins, mask, ins.ops[2])) return;
    const bool sign = is_signed(ins.type);
    const auto op = static_cast<redux_op>(ins.sub);
    bool first = true;
    uint32_t acc = 0;
    for_lanes(mask, [&](uint32_t lane) {
        uint32_t v = static_cast<uint32_t>(read(c, ins.ops[1], lane));
        if (first) {
            acc = v;
            first = false;
            return;
        }
        switch (op) {
        case redux_op::add: acc += v; break;
        case redux_op::min: acc = sign ? static_cast<uint32_t>(std::min<int32_t>(static_cast<int32_t>(acc), static_cast<int32_t>(v))) : std::min(acc, v); break;
        case redux_op::max: acc = sign ? static_cast<uint32_t>(std::max<int32_t>(static_cast<int32_t>(acc), static_cast<int32_t>(v))) : std::max(acc, v); break;
        case redux_op::and_: acc &= v; break;
        case redux_op::or_: acc |= v; break;
        case redux_op::xor_: acc ^= v; break;
        }
    });
    for_lanes(mask, [&](uint32_t lane) { write(c, ins.ops[0], lane, acc); });
}
std::string dec_redux(const matched_instruction& m, exec_instruction& out) {
    out.control = out.uniform = true; // waits for its member lanes
    if (out.type == parser::data_type::f32) return "redux.sync on f32 is not implemented yet";
    std::string_view op = m.get("op");
    out.sub = static_cast<uint8_t>(op == "add" ? redux_op::add : op == "min" ? redux_op::min : op == "max" ? redux_op::max
                                   : op == "and" ? redux_op::and_ : op == "or" ? redux_op::or_ : redux_op::xor_);
    out.run = redux_handler;
    return {};
}

// elect.sync d|p, membermask: the lowest member lane is the leader.
void elect_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const uint32_t member_op = ins.dest_pair ? 2 : 1;
    if (!gather(c, ins, mask, ins.ops[member_op])) return;
    uint32_t leader = static_cast<uint32_t>(__builtin_ctz(mask));
    for_lanes(mask, [&](uint32_t lane) {
        write(c, ins.ops[0], lane, leader);
        if (ins.dest_pair) write(c, ins.ops[1], lane, lane == leader);
    });
}
std::string dec_elect(const matched_instruction&, exec_instruction& out) {
    out.control = out.uniform = true; // waits for its member lanes
    out.run = elect_handler;
    return {};
}

// match.any.sync.type d, a, membermask: d = the member lanes whose a equals this lane's;
// match.all.sync.type d[|p], a, membermask: d = the members when all a agree, else 0; p says whether they do.
void match_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const uint32_t base = ins.dest_pair ? 2 : 1;
    if (!gather(c, ins, mask, ins.ops[base + 1])) return;
    const uint64_t width = mask_bits(bits_of(ins.type));
    std::array<uint64_t, warp_size> val{};
    for_lanes(mask, [&](uint32_t lane) { val[lane] = read(c, ins.ops[base], lane) & width; });
    const bool all = ins.sub;
    bool same = true;
    uint32_t first = static_cast<uint32_t>(__builtin_ctz(mask));
    for_lanes(mask, [&](uint32_t lane) { same = same && val[lane] == val[first]; });
    for_lanes(mask, [&](uint32_t lane) {
        uint32_t d = 0;
        if (all) {
            d = same ? mask : 0;
        } else {
            for_lanes(mask, [&](uint32_t other) {
                if (val[other] == val[lane]) d |= 1u << other;
            });
        }
        write(c, ins.ops[0], lane, d);
        if (ins.dest_pair) write(c, ins.ops[1], lane, same);
    });
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
