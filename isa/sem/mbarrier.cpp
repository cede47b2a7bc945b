// mbarrier: init, inval, arrive (.expect_tx, .noComplete, sink), arrive_drop,
// expect_tx, complete_tx, test_wait/try_wait (.parity), pending_count —
// phases and transaction counts as the PTX ISA defines them, on the packed
// object of mbarrier.hpp. Every step is one atomic read-modify-write of the
// 8 bytes, except init and inval, which only write them; the step that
// completes a phase also lands the asynchronous writes that waited for it
// (cp.async.bulk ... .mbarrier::complete_tx).
#include "isa/sem/mbarrier.hpp"

#include <fmt/format.h>

#include <cstring>

#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"

namespace ptxsim::isa::sem::mbar {

bool locate(exec_context& c, space sp, uint64_t addr, uint32_t lane, uint64_t& offset) {
    if (sp == space::generic) {
        if (c.generic_space(addr, lane) != space::shared) {
            c.fault(fault_kind::invalid_address, lane, addr, "an mbarrier object must be in shared memory");
            return false;
        }
        addr = c.from_generic(space::shared, addr, lane);
    }
    if (addr % 8) {
        c.fault(fault_kind::misaligned, lane, addr, "an mbarrier object is 8 bytes, 8-byte aligned");
        return false;
    }
    offset = addr;
    return true;
}

bool land_writes(exec_context& c, const write_group& g, uint32_t lane);

bool land(exec_context& c, write_group& writes, uint32_t lane) {
    write_group g;
    g.swap(writes);
    if (g.empty()) return true;
    c.note(sync_note::landing_begin, 1u << lane);
    bool ok = land_writes(c, g, lane);
    c.note(sync_note::landing_end, 1u << lane);
    return ok;
}

bool land_writes(exec_context& c, const write_group& g, uint32_t lane) {
    // In the largest naturally aligned pieces of up to 16 bytes (a TMA store's
    // row may start and end anywhere an element can).
    for (const auto& w : g) {
        c.note(sync_note::landing_copy, 1u << lane, w.tag);
        if (w.reduce) { // element by element, each one atomic
            for (size_t at = 0; at + w.element <= w.data.size(); at += w.element) {
                uint64_t v = 0, old = 0;
                std::memcpy(&v, w.data.data() + at, w.element);
                if (!c.atomic(w.sp, w.addr + at, w.element, lane, &old, w.reduce, v, 0)) return false;
            }
            continue;
        }
        for (size_t at = 0; at < w.data.size();) {
            uint32_t n = 16;
            while (n > w.data.size() - at || (w.addr + at) % n) n /= 2;
            if (!c.store(w.sp, w.addr + at, n, lane, w.data.data() + at)) return false;
            at += n;
        }
    }
    return true;
}

namespace {

std::string init(state& s, uint64_t count, uint64_t);
std::string inval(state& s, uint64_t, uint64_t);

struct step {
    change_fn change;
    uint64_t a, b;
    std::string error;
    state before;
    bool may_complete = true;
    bool completed = false;
};

void apply(uint8_t* value, uint32_t, const void* p) {
    auto& st = *const_cast<step*>(static_cast<const step*>(p));
    uint64_t v;
    std::memcpy(&v, value, 8);
    state s = state::unpack(v);
    st.before = s;
    st.error = st.change(s, st.a, st.b);
    if (!st.error.empty()) return;
    if (st.may_complete && s.pending == 0 && s.tx == 0) {
        s.parity ^= 1;
        s.pending = s.expected;
        st.completed = true;
    }
    v = s.pack();
    std::memcpy(value, &v, 8);
}

bool initialised(const state& s) { return s.expected != 0 || s.pending != 0 || s.tx != 0 || s.parity != 0; }

} // namespace

bool update(exec_context& c, uint64_t offset, uint32_t lane, change_fn change, uint64_t a, uint64_t b, state& before) {
    if (change == init || change == inval) {
        // A plain write of the object: the bytes before do not matter, so it
        // is no read of them (initcheck sees mbarrier.init on fresh shared
        // memory as the store it is).
        state s;
        if (std::string error = change(s, a, b); !error.empty()) {
            c.fault(fault_kind::invalid_operation, lane, offset, error);
            return false;
        }
        const uint64_t v = s.pack();
        if (!c.store(space::shared, offset, 8, lane, &v)) return false;
        before = {};
        c.note(sync_note::mbarrier_reset, 1u << lane, offset);
        return true;
    }
    // look only reads: it completes no phase.
    step st{change, a, b, {}, {}, change != look, false};
    uint8_t old[8];
    if (!c.atomic_bytes(space::shared, offset, 8, lane, old, apply, &st)) return false;
    before = st.before;
    if (!st.error.empty()) {
        c.fault(fault_kind::invalid_operation, lane, offset, st.error);
        return false;
    }
    if (change == look) return true;
    if (!st.completed) {
        c.note(sync_note::mbarrier_release, 1u << lane, offset);
        return true;
    }
    c.mbarrier_phase_completed(offset);
    bool ok = land(c, c.mbarrier_writes(offset), lane);
    // After the landing: the completed phase includes the copies' writes.
    c.note(sync_note::mbarrier_release, 1u << lane, offset, 1u | (st.before.parity & 1u) << 1);
    return ok;
}

bool defer(exec_context& c, uint64_t off, pending_write w, uint32_t lane) {
    if (w.sp == space::shared) {
        uint32_t rank = 0;
        if (!c.shared_rank(w.addr, false, lane, rank) || !c.map_shared_rank(w.addr, false, rank, lane, w.addr)) return false;
    }
    c.mbarrier_writes(off).push_back(std::move(w));
    return true;
}

bool cta_mask_fits(exec_context& c, uint64_t mask, const char* op, uint32_t lane) {
    const uint64_t ranks = c.special(special_reg::cluster_nctarank, lane);
    if (ranks >= 64 || mask >> ranks == 0) return true;
    c.fault(fault_kind::invalid_address, lane, mask,
            fmt::format("{} ctaMask {:#06x} names CTA rank {} of a cluster of {}", op, mask, 63 - __builtin_clzll(mask), ranks));
    return false;
}

bool track_copy(exec_context& c, uint64_t mbar, uint32_t lane, pending_write w, uint64_t bytes) {
    uint64_t off;
    if (!locate(c, space::shared, mbar, lane, off) || !defer(c, off, std::move(w), lane)) return false;
    state before;
    return update(c, off, lane, add_tx, bytes, /*complete_tx*/ 1, before);
}

namespace {

const char* uninitialised = "mbarrier used before mbarrier.init (or after mbarrier.inval)";

std::string init(state& s, uint64_t count, uint64_t) {
    if (count == 0 || count > count_limit) return fmt::format("mbarrier.init count {} is outside 1 to 2^20-1", count);
    s = state{static_cast<uint32_t>(count), static_cast<uint32_t>(count), 0, 0};
    return {};
}
std::string inval(state& s, uint64_t, uint64_t) {
    s = state{};
    return {};
}
} // namespace

std::string add_tx(state& s, uint64_t bytes, uint64_t sign) {
    if (!initialised(s)) return uninitialised;
    int64_t tx = s.tx + (sign ? -static_cast<int64_t>(bytes) : static_cast<int64_t>(bytes));
    if (bytes > count_limit || tx > count_limit || tx < -static_cast<int64_t>(count_limit))
        return fmt::format("mbarrier tx-count {} is outside ±(2^20-1)", tx);
    s.tx = static_cast<int32_t>(tx);
    return {};
}
std::string arrive(state& s, uint64_t count, uint64_t b) {
    if (!initialised(s)) return uninitialised;
    if (b >> 32) {
        std::string e = add_tx(s, b >> 32, 0);
        if (!e.empty()) return e;
    }
    if (count == 0 || count > count_limit) return fmt::format("mbarrier arrival count {} is outside 1 to 2^20-1", count);
    if (count > s.pending)
        return fmt::format("mbarrier arrival of {} when {} arrivals are pending in this phase (more arrivals than expected)", count,
                           s.pending);
    if ((b & 1) && count > s.expected) return fmt::format("mbarrier.arrive_drop of {} when {} arrivals are expected", count, s.expected);
    s.pending -= static_cast<uint32_t>(count);
    if (b & 1) s.expected -= static_cast<uint32_t>(count);
    if ((b & 2) && s.pending == 0 && s.tx == 0) return "mbarrier.arrive.noComplete would complete the phase";
    return {};
}
std::string look(state& s, uint64_t, uint64_t) { return initialised(s) ? std::string() : std::string(uninitialised); }

namespace {

uint64_t mbar_address(exec_context& c, const exec_instruction& ins, uint32_t op, uint32_t lane, bool& ok) {
    uint64_t off = 0;
    ok = locate(c, ins.sp, address(c, ins.ops[op], lane), lane, off);
    return off;
}

void init_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    for_lanes(mask, [&](uint32_t lane) {
        bool ok;
        uint64_t off = mbar_address(c, ins, 0, lane, ok);
        state before;
        if (ok) update(c, off, lane, init, read(c, ins.ops[1], lane), 0, before);
    });
}
void inval_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    for_lanes(mask, [&](uint32_t lane) {
        bool ok;
        uint64_t off = mbar_address(c, ins, 0, lane, ok);
        state before;
        if (ok) update(c, off, lane, inval, 0, 0, before);
    });
}
// ins.sub: 0 expect_tx, 1 complete_tx
void tx_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    for_lanes(mask, [&](uint32_t lane) {
        bool ok;
        uint64_t off = mbar_address(c, ins, 0, lane, ok);
        state before;
        if (ok) update(c, off, lane, add_tx, read(c, ins.ops[1], lane) & 0xFFFFFFFFu, ins.sub, before);
    });
}

// arrive / arrive_drop: ins.flags bit 0 drop, bit 1 noComplete, bit 2 expect_tx,
// bit 3 a state destination comes first.
void arrive_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const bool has_dest = ins.flags & 8;
    const uint32_t addr_op = has_dest ? 1 : 0;
    const bool has_count = ins.nops > addr_op + 1;
    for_lanes(mask, [&](uint32_t lane) {
        bool ok;
        uint64_t off = mbar_address(c, ins, addr_op, lane, ok);
        if (!ok) return;
        uint64_t operand = has_count ? read(c, ins.ops[addr_op + 1], lane) & 0xFFFFFFFFu : 1;
        uint64_t count = (ins.flags & 4) ? 1 : operand;
        uint64_t b = (ins.flags & 3) | ((ins.flags & 4) ? operand << 32 : 0);
        state before;
        if (!update(c, off, lane, arrive, count, b, before)) return;
        if (has_dest) write(c, ins.ops[0], lane, token(before.parity, before.pending - static_cast<uint32_t>(count)));
    });
}

// test_wait / try_wait: true once the phase the operand names has completed.
// With .parity the operand is that phase's parity; otherwise it is the state
// an arrive returned. ins.flags bit 0: .parity; bit 1: try_wait.
// test_wait never blocks: a false result lets the scheduler run other warps.
// try_wait suspends the thread until the phase completes or a time limit
// passes; ptxsim lets the lanes sleep until the phase completes, and ends
// the sleep with `false` only when nothing else in the CTA can run (which
// is how a wait that can never succeed is reported as a deadlock).
void wait_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    bool any_false = false;
    for_lanes(mask, [&](uint32_t lane) {
        bool ok;
        uint64_t off = mbar_address(c, ins, 1, lane, ok);
        if (!ok) return;
        state now;
        if (!update(c, off, lane, look, 0, 0, now)) return;
        uint64_t v = read(c, ins.ops[2], lane);
        uint32_t parity = (ins.flags & 1) ? static_cast<uint32_t>(v & 1) : static_cast<uint32_t>(v >> 63);
        bool done = now.parity != parity;
        if (!done && (ins.flags & 2) && !c.sleep_on_mbarrier(off, 1u << lane)) return; // asleep: runs again when woken
        if (done) c.note(sync_note::mbarrier_acquire, 1u << lane, off, parity);
        write(c, ins.ops[0], lane, done);
        any_false |= !done;
    });
    if (any_false) c.relinquish();
}

void pending_count_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    for_lanes(mask, [&](uint32_t lane) { write(c, ins.ops[0], lane, read(c, ins.ops[1], lane) & 0x1FFFFF); });
}

std::string dec_init(const matched_instruction& m, exec_instruction& out) {
    out.sp = space_of(m.get("space"));
    out.run = init_handler;
    return {};
}
std::string dec_inval(const matched_instruction& m, exec_instruction& out) {
    out.sp = space_of(m.get("space"));
    out.run = inval_handler;
    return {};
}
std::string dec_expect_tx(const matched_instruction& m, exec_instruction& out) {
    out.sp = space_of(m.get("space"));
    out.sub = 0;
    out.run = tx_handler;
    return {};
}
std::string dec_complete_tx(const matched_instruction& m, exec_instruction& out) {
    out.sp = space_of(m.get("space"));
    out.sub = 1;
    out.run = tx_handler;
    return {};
}
std::string dec_arrive_common(const matched_instruction& m, exec_instruction& out, bool drop) {
    out.sp = space_of(m.get("space"));
    std::string_view variant = m.get("variant");
    out.flags = static_cast<uint8_t>((drop ? 1 : 0) | (variant == "noComplete" ? 2 : 0) | (variant == "expect_tx" ? 4 : 0) |
                                     (out.ops[0].kind != opnd::addr ? 8 : 0));
    if ((out.flags & 6) && out.nops < ((out.flags & 8) ? 3 : 2)) return "mbarrier.arrive." + std::string(variant) + " needs its count operand";
    out.run = arrive_handler;
    return {};
}
std::string dec_arrive(const matched_instruction& m, exec_instruction& out) { return dec_arrive_common(m, out, false); }
std::string dec_arrive_drop(const matched_instruction& m, exec_instruction& out) { return dec_arrive_common(m, out, true); }
std::string dec_test_wait(const matched_instruction& m, exec_instruction& out) {
    out.sp = space_of(m.get("space"));
    out.flags = m.has("parity") ? 1 : 0;
    out.run = wait_handler;
    return {};
}
std::string dec_try_wait(const matched_instruction& m, exec_instruction& out) {
    out.sp = space_of(m.get("space"));
    out.flags = (m.has("parity") ? 1 : 0) | 2;
    out.run = wait_handler;
    return {};
}
std::string dec_pending_count(const matched_instruction&, exec_instruction& out) {
    out.run = pending_count_handler;
    return {};
}

constexpr entry entries[] = {
    {"mbarrier.init", dec_init},           {"mbarrier.inval", dec_inval},
    {"mbarrier.expect_tx", dec_expect_tx}, {"mbarrier.complete_tx", dec_complete_tx},
    {"mbarrier.arrive", dec_arrive},       {"mbarrier.arrive_drop", dec_arrive_drop},
    {"mbarrier.test_wait", dec_test_wait}, {"mbarrier.try_wait", dec_try_wait},
    {"mbarrier.pending_count", dec_pending_count},
};

} // namespace
} // namespace ptxsim::isa::sem::mbar

namespace ptxsim::isa::sem {
std::span<const entry> mbarrier_entries() { return mbar::entries; }
} // namespace ptxsim::isa::sem
