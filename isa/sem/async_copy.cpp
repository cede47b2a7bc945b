// Asynchronous copies: cp.async (with src-size / ignore-src zero fill,
// commit_group, wait_group, wait_all, cp.async.mbarrier.arrive) and the
// non-tensor bulk copies cp.async.bulk global -> shared (completing through
// an mbarrier's tx-count) and shared -> global (bulk groups), with
// cp.async.bulk.commit_group / wait_group{.read} and bulk prefetch.
//
// A copy reads its source when issued and keeps the bytes (isa/async_state.hpp);
// its destination changes only when the copy completes: when the thread
// waits for the copy's group, or when the mbarrier phase that tracks it
// completes. Reading the destination earlier sees the old bytes, as it may
// on the GPU, so a missing wait shows up as wrong results instead of
// passing by luck. The destination's bounds are checked at issue, so a bad
// address faults at the copy that names it.
#include <fmt/format.h>

#include "isa/sem/mbarrier.hpp"
#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"

namespace ptxsim::isa::sem {
namespace {

// Reads [addr, addr + bytes) in 16-byte pieces (callers check alignment),
// and a tail that is not a whole power of two (cp.async's src-size) byte by
// byte; false after a located fault. `probe`: only check the addresses.
bool read_bytes(exec_context& c, space sp, uint64_t addr, uint32_t bytes, uint32_t lane, std::vector<uint8_t>& out,
                bool probe = false) {
    out.resize(bytes);
    for (uint32_t at = 0; at < bytes;) {
        uint32_t n = bytes - at >= 16 ? 16 : at == 0 && !(bytes & (bytes - 1)) ? bytes : 1;
        if (!(probe ? c.probe(sp, addr + at, n, lane, out.data() + at) : c.load(sp, addr + at, n, lane, out.data() + at)))
            return false;
        at += n;
    }
    return true;
}

// The destination exists and is aligned: probe it now rather than fault when the copy lands.
// Observers see the copy's write issued here (pending_write::tag).
bool check_destination(exec_context& c, space sp, uint64_t addr, uint32_t bytes, uint32_t lane, pending_write& w) {
    std::vector<uint8_t> scratch;
    const bool ok = read_bytes(c, sp, addr, bytes, lane, scratch, /*probe*/ true);
    if (ok) w.tag = c.async_write_issued(sp, addr, bytes, lane);
    return ok;
}

// Generic addresses of the shared window become shared offsets, so that the
// writes land in the CTA's shared memory whoever completes them.
bool to_space(exec_context& c, space& sp, uint64_t& addr, uint32_t lane) {
    if (sp != space::generic) return true;
    sp = c.generic_space(addr, lane);
    if (sp != space::shared && sp != space::global) {
        c.fault(fault_kind::invalid_address, lane, addr, "an asynchronous copy needs a global or shared address");
        return false;
    }
    addr = c.from_generic(sp, addr, lane);
    return true;
}

// ---- cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size | ignore-src}{, policy}
// ins.flags bit 0: a src-size operand at ops[3]; bit 1: an ignore-src predicate there.
void cp_async_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t dst = address(c, ins.ops[0], lane), src = address(c, ins.ops[1], lane);
        uint32_t size = static_cast<uint32_t>(read(c, ins.ops[2], lane));
        uint32_t src_size = size;
        if (ins.flags & 1) src_size = static_cast<uint32_t>(read(c, ins.ops[3], lane));
        if ((ins.flags & 2) && read(c, ins.ops[3], lane)) src_size = 0;
        if ((size != 4 && size != 8 && size != 16) || dst % size || src % size) {
            c.fault(fault_kind::misaligned, lane, dst % size ? dst : src,
                    fmt::format("cp.async copies 4, 8 or 16 bytes between addresses aligned to that size (cp-size {})", size));
            return;
        }
        if (src_size > size) {
            c.fault(fault_kind::invalid_operation, lane, src, fmt::format("cp.async src-size {} exceeds cp-size {}", src_size, size));
            return;
        }
        pending_write w{space::shared, dst, {}};
        if (!check_destination(c, space::shared, dst, size, lane, w)) return;
        if (src_size && !read_bytes(c, space::global, src, src_size, lane, w.data)) return;
        w.data.resize(size, 0); // bytes past src-size are zero
        c.async_state(lane).open.push_back(std::move(w));
    });
}

bool land_groups(exec_context& c, std::deque<write_group>& groups, size_t keep, uint32_t lane) {
    while (groups.size() > keep) {
        if (!mbar::land(c, groups.front(), lane)) return false;
        groups.pop_front();
    }
    return true;
}

// ins.sub: 0 cp.async.commit_group, 1 cp.async.bulk.commit_group
void commit_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    for_lanes(mask, [&](uint32_t lane) {
        async_lane_state& a = c.async_state(lane);
        auto& open = ins.sub ? a.bulk_open : a.open;
        auto& groups = ins.sub ? a.bulk_groups : a.groups;
        groups.push_back(std::move(open)); // an empty group is a group too
        open.clear();
    });
}

// wait_group N: every group but the newest N completes. ins.sub: 0 cp.async,
// 1 bulk, 2 bulk .read (only the sources must have been read: they were, at
// issue), 3 cp.async.wait_all (commit, then wait for all).
void wait_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    for_lanes(mask, [&](uint32_t lane) {
        async_lane_state& a = c.async_state(lane);
        if (ins.sub == 2) return;
        if (ins.sub == 3) {
            a.groups.push_back(std::move(a.open));
            a.open.clear();
        }
        size_t keep = ins.sub == 3 ? 0 : read(c, ins.ops[0], lane);
        land_groups(c, ins.sub == 1 ? a.bulk_groups : a.groups, keep, lane);
    });
}

// cp.async.mbarrier.arrive{.noinc}.b64 [mbar]: an arrive that happens when
// every cp.async the thread issued so far has completed. They complete now.
// Without .noinc the pending count is raised by one first, so the pair
// leaves the count as it was; with .noinc it is an arrival like any other.
void cp_async_arrive_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    for_lanes(mask, [&](uint32_t lane) {
        async_lane_state& a = c.async_state(lane);
        a.groups.push_back(std::move(a.open));
        a.open.clear();
        if (!land_groups(c, a.groups, 0, lane)) return;
        uint64_t off;
        if (!mbar::locate(c, ins.sp, address(c, ins.ops[0], lane), lane, off)) return;
        mbar::state before;
        if (ins.flags & 1) mbar::update(c, off, lane, mbar::arrive, 1, 0, before);
        else mbar::update(c, off, lane, mbar::look, 0, 0, before);
    });
}

// ---- cp.async.bulk.dst.src.completion [dst], [src], size{, [mbar]}{, policy}
// and cp.reduce.async.bulk.dst.src.completion.op.type (the same operands):
// ins.sp is the destination space, ins.sub the source space; ins.flags bit
// 0: completes through an mbarrier (ops[3]), else through the thread's bulk
// group. ins.rmw (reductions only): each element of the type is combined
// into the destination with red's update when the copy completes.
void bulk_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    for_lanes(mask, [&](uint32_t lane) {
        space dsp = ins.sp, ssp = static_cast<space>(ins.sub);
        uint64_t dst = address(c, ins.ops[0], lane), src = address(c, ins.ops[1], lane);
        uint64_t size = read(c, ins.ops[2], lane) & 0xFFFFFFFFu;
        if (!to_space(c, dsp, dst, lane) || !to_space(c, ssp, src, lane)) return;
        if (size % 16 || dst % 16 || src % 16) {
            c.fault(fault_kind::misaligned, lane, size % 16 ? size : dst % 16 ? dst : src,
                    fmt::format("{} needs 16-byte aligned addresses and a size that is a multiple of 16 (size {})",
                                ins.rmw ? "cp.reduce.async.bulk" : "cp.async.bulk", size));
            return;
        }
        pending_write w{dsp, dst, {}, ins.rmw, ins.rmw ? bits_of(ins.type) / 8 : 0};
        if (!(ins.flags & 2) && !check_destination(c, dsp, dst, static_cast<uint32_t>(size), lane, w)) return;
        c.note(sync_note::async_proxy_begin, 1u << lane, 0, static_cast<uint32_t>(size)); // a bulk copy reads its source through the async proxy
        const bool source_read = read_bytes(c, ssp, src, static_cast<uint32_t>(size), lane, w.data);
        c.note(sync_note::async_proxy_end, 1u << lane);
        if (!source_read) return;
        if (!(ins.flags & 1)) {
            c.async_state(lane).bulk_open.push_back(std::move(w));
            return;
        }
        if (!(ins.flags & 2)) {
            mbar::track_copy(c, address(c, ins.ops[3], lane), lane, std::move(w), size);
            return;
        }
        uint64_t off;
        if (!mbar::locate(c, space::shared, address(c, ins.ops[3], lane), lane, off)) return;
        // .multicast::cluster: the same bytes go to the same offset in every
        // CTA of ctaMask, each completing on that CTA's mbarrier at the
        // mbarrier's offset.
        uint64_t cta_mask = read(c, ins.ops[4], lane) & 0xFFFFu;
        if (!mbar::cta_mask_fits(c, cta_mask, "cp.async.bulk .multicast::cluster", lane)) return;
        for (uint32_t rank = 0; cta_mask; ++rank, cta_mask >>= 1) {
            if (!(cta_mask & 1)) continue;
            uint64_t rdst, roff;
            if (!c.map_shared_rank(dst, false, rank, lane, rdst) || !c.map_shared_rank(off, false, rank, lane, roff)) return;
            pending_write copy{dsp, rdst, w.data};
            if (!check_destination(c, dsp, rdst, static_cast<uint32_t>(size), lane, copy)) return;
            if (!mbar::defer(c, roff, std::move(copy), lane)) return;
            mbar::state before;
            if (!mbar::update(c, roff, lane, mbar::add_tx, size, /*complete_tx*/ 1, before)) return;
        }
    });
}

void nop_handler(exec_context&, const exec_instruction&, uint32_t) {}

std::string dec_cp_async(const matched_instruction& m, exec_instruction& out) {
    out.sp = space::shared;
    uint32_t extra = out.nops - 3 - (m.has("hint") && out.nops > 3 ? 1 : 0);
    if (extra == 1) out.flags = out.ops[3].kind == opnd::pred ? 2 : 1;
    if (m.get("cop") == "cg" && out.ops[2].kind == opnd::imm && out.ops[2].imm != 16) return "cp.async.cg copies 16 bytes";
    if (m.get("cop") == "cg") out.cache = hint_l1_bypass; // for the cycle model: .cg caches in the L2 only
    out.run = cp_async_handler;
    return {};
}
std::string dec_commit(const matched_instruction&, exec_instruction& out) {
    out.sub = 0;
    out.run = commit_handler;
    return {};
}
std::string dec_bulk_commit(const matched_instruction&, exec_instruction& out) {
    out.sub = 1;
    out.run = commit_handler;
    return {};
}
std::string dec_wait(const matched_instruction&, exec_instruction& out) {
    out.sub = 0;
    out.run = wait_handler;
    return {};
}
std::string dec_wait_all(const matched_instruction&, exec_instruction& out) {
    out.sub = 3;
    out.run = wait_handler;
    return {};
}
std::string dec_bulk_wait(const matched_instruction& m, exec_instruction& out) {
    out.sub = m.has("read") ? 2 : 1;
    out.run = wait_handler;
    return {};
}
std::string dec_cp_async_arrive(const matched_instruction& m, exec_instruction& out) {
    out.sp = space_of(m.get("space"));
    out.flags = m.has("noinc") ? 1 : 0;
    out.run = cp_async_arrive_handler;
    return {};
}
std::string dec_bulk(const matched_instruction& m, exec_instruction& out) {
    if (m.has("mask")) return "cp.async.bulk .cp_mask is not implemented yet";
    out.sp = space_of(m.get("space", 0));
    out.sub = static_cast<uint8_t>(space_of(m.get("space", 1)));
    bool mbarrier = m.get("completion") == "mbarrier::complete_tx::bytes";
    out.flags = (mbarrier ? 1 : 0) | (m.has("multicast") ? 2 : 0);
    if (mbarrier && (out.nops < 4 || out.ops[3].kind != opnd::addr)) return "cp.async.bulk with an mbarrier needs the [mbar] operand";
    if ((out.flags & 2) && (!mbarrier || out.sp != space::shared || out.nops < 5))
        return "cp.async.bulk .multicast::cluster copies into shared::cluster through an mbarrier and needs its ctaMask operand";
    out.run = bulk_handler;
    return {};
}
std::string dec_reduce(const matched_instruction& m, exec_instruction& out) {
    out.sp = space_of(m.get("space", 0));
    out.sub = static_cast<uint8_t>(space_of(m.get("space", 1)));
    out.type = type_of(m.get("type"));
    if (out.type == parser::data_type::b32) out.type = parser::data_type::u32;
    if (out.type == parser::data_type::b64) out.type = parser::data_type::u64;
    out.rmw = reduction_update(m.get("op"), out.type);
    if (!out.rmw) return "cp.reduce.async.bulk ." + std::string(m.get("op")) + "." + std::string(m.get("type")) + " has no reduction";
    bool mbarrier = m.get("completion") == "mbarrier::complete_tx::bytes";
    out.flags = mbarrier ? 1 : 0;
    if (mbarrier && (out.nops < 4 || out.ops[3].kind != opnd::addr)) return "cp.reduce.async.bulk with an mbarrier needs the [mbar] operand";
    out.run = bulk_handler;
    return {};
}

// A prefetch (of bytes, or of a tensor map's box) only warms L2: nothing a
// program can observe changes.
std::string dec_prefetch(const matched_instruction&, exec_instruction& out) {
    out.run = nop_handler;
    return {};
}

constexpr entry entries[] = {
    {"cp.async", dec_cp_async},
    {"cp.async.commit_group", dec_commit},
    {"cp.async.wait_group", dec_wait},
    {"cp.async.wait_all", dec_wait_all},
    {"cp.async.mbarrier.arrive", dec_cp_async_arrive},
    {"cp.async.bulk", dec_bulk},
    {"cp.async.bulk.commit_group", dec_bulk_commit},
    {"cp.async.bulk.wait_group", dec_bulk_wait},
    {"cp.async.bulk.prefetch", dec_prefetch},
    {"cp.async.bulk.prefetch.tensor", dec_prefetch},
    {"cp.reduce.async.bulk", dec_reduce},
};

} // namespace

std::span<const entry> async_copy_entries() { return entries; }

} // namespace ptxsim::isa::sem
