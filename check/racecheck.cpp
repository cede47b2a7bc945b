#include "check/racecheck.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace ptxsim::check {
namespace {

using isa::mem_order;
using isa::mem_scope;

bool acquires(mem_order o) { return o == mem_order::acquire || o == mem_order::acq_rel || o == mem_order::sc; }
bool releases(mem_order o) { return o == mem_order::release || o == mem_order::acq_rel || o == mem_order::sc; }

const char* op_name(bool write, bool atomic) { return atomic ? "atomic" : write ? "write" : "read"; }

// The granule of shadow memory a 4-byte-aligned location is kept in.
// An asynchronous copy is an actor of its own: its write is ordered before
// a thread's access only once the thread has seen it complete.
uint32_t copy_actor(uint64_t tag) { return 0x80000000u | static_cast<uint32_t>(tag & 0x7FFFFFFFu); }

uint64_t granule_key(bool shared, uint64_t owner, uint64_t at) {
    return shared ? (1ull << 63) | owner << 22 | at >> 2 : at >> 2;
}

} // namespace

void racecheck::launch_begin(const sim::launch_event& e) {
    std::lock_guard lock(mutex_);
    kernel_ = e.kernel;
    locate_ = e.locate;
    grid_ = e.grid;
    block_ = e.block;
    cluster_ = e.cluster;
    warps_per_cta_ = static_cast<uint32_t>((e.block.count() + 31) / 32);
    forget_launch();
}

void racecheck::launch_end(const sim::launch_event&, const sim::launch_result&) {
    std::lock_guard lock(mutex_);
    // A launch boundary orders everything: nothing carries over.
    forget_launch();
}

void racecheck::forget_launch() {
    warps_.clear();
    shadow_.clear();
    sync_.clear();
    barriers_.clear();
    mbarriers_.clear();
    clusters_.clear();
    wgmma_commits_.clear();
    sc_fences_.clear();
}

racecheck::warp_info& racecheck::warp(const sim::event_site& s) {
    const uint64_t actor = s.cta * warps_per_cta_ + s.warp;
    auto [it, fresh] = warps_.try_emplace(actor);
    warp_info& w = it->second;
    if (fresh) {
        w.actor = static_cast<uint32_t>(actor);
        w.cta = s.cta;
        w.vc.set(w.actor, 1);
        w.lane_clock.fill(1);
    }
    return w;
}

void racecheck::release(warp_info& w) { w.vc.set(w.actor, w.vc.get(w.actor) + 1); }

// The lanes in `mask` synchronise with each other (bar.warp.sync, a CTA barrier).
void racecheck::lanes_sync(warp_info& w, uint32_t mask) {
    std::array<uint32_t, 32> joined{};
    for (uint32_t m = mask; m; m &= m - 1) {
        const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
        for (uint32_t k = 0; k < 32; ++k) joined[k] = std::max(joined[k], w.lane_vc[l][k]);
        joined[l] = std::max(joined[l], w.lane_clock[l]);
    }
    for (uint32_t m = mask; m; m &= m - 1) {
        const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
        w.lane_vc[l] = joined;
        ++w.lane_clock[l];
    }
}

// fence.sc by the lanes in `mask`: all fence.sc operations are in one total
// order, and each synchronises with the later ones of a covering scope (any
// scope covers lanes of one warp). So what a lane did before an earlier
// fence.sc of its warp, or before this one (the lanes fencing together, in
// one instruction), happens before what the fencing lanes do next.
void racecheck::sc_fence_lanes(warp_info& w, uint32_t mask) {
    for (uint32_t m = mask; m; m &= m - 1) {
        const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
        for (uint32_t k = 0; k < 32; ++k) w.sc_lanes[k] = std::max(w.sc_lanes[k], w.lane_vc[l][k]);
        w.sc_lanes[l] = std::max(w.sc_lanes[l], w.lane_clock[l]);
    }
    for (uint32_t m = mask; m; m &= m - 1) {
        const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
        for (uint32_t k = 0; k < 32; ++k) w.lane_vc[l][k] = std::max(w.lane_vc[l][k], w.sc_lanes[k]);
        ++w.lane_clock[l];
    }
}

// A generic write reaches the async proxy once its thread has issued fence.proxy.async after it.
bool racecheck::proxy_fenced(const record& p) const {
    auto it = warps_.find(p.actor);
    return it != warps_.end() && it->second.proxy_fenced >= p.epoch;
}

bool racecheck::ordered(const record& p, const warp_info& w, uint8_t lane) const {
    if (p.actor == w.actor) {
        // The same thread (program order), or an asynchronous copy's write
        // landing in this warp's own wait: ordered. Other lanes: only by
        // warp synchronisation.
        if (p.lane == lane) return true;
        // In lockstep every earlier instruction of the warp is done; lanes of
        // one instruction still conflict (two lanes storing to one word).
        if (options_.warp_synchronous) return p.step != w.step;
        return w.lane_vc[lane][p.lane] >= p.lane_epoch;
    }
    return w.vc.get(p.actor) >= p.epoch;
}

uint64_t racecheck::cluster_of(uint64_t cta) const {
    const sim::dim3 b = block_of(cta);
    const uint64_t nx = grid_.x / cluster_.x, ny = grid_.y / cluster_.y;
    return b.x / cluster_.x + nx * (b.y / cluster_.y + ny * (b.z / cluster_.z));
}

bool racecheck::in_scope(mem_scope s, uint64_t from, uint64_t to) const {
    switch (s) {
    case mem_scope::cta: return from == to;
    case mem_scope::cluster: return from == to || cluster_of(from) == cluster_of(to);
    case mem_scope::gpu:
    case mem_scope::sys: return true;
    case mem_scope::none: return false;
    }
    return false;
}

// Two strong accesses, each thread in the other's scope, do not race. Two
// CUDA C++ volatile accesses by lanes of one warp are no synchronisation:
// volatile there stands in for the lockstep execution that warp-synchronous
// code assumed before Volta, and lanes are independent threads since.
bool racecheck::morally_strong(const record& a, const record& b) const {
    if (a.cuda_volatile && b.cuda_volatile && a.actor == b.actor) return false;
    return a.strong && b.strong && in_scope(a.scope, a.cta, b.cta) && in_scope(b.scope, b.cta, a.cta);
}

sim::dim3 racecheck::block_of(uint64_t cta) const {
    return {static_cast<uint32_t>(cta % grid_.x), static_cast<uint32_t>(cta / grid_.x % grid_.y),
            static_cast<uint32_t>(cta / (uint64_t(grid_.x) * grid_.y))};
}

sim::dim3 racecheck::thread_of(uint32_t t) const { return {t % block_.x, t / block_.x % block_.y, t / (block_.x * block_.y)}; }

void racecheck::access(const sim::access_event& e) {
    // A landing is ordered by its copy's completion (sync landing_copy); a probe reads nothing.
    if (e.fault != isa::fault_kind::none || e.landing || e.probe) return;
    if (e.space != isa::space::global && e.space != isa::space::shared) return; // local, param, const: no races
    std::lock_guard lock(mutex_);
    warp_info& w = warp(e.site);
    if (options_.warp_synchronous) {
        const auto lane = static_cast<uint8_t>(e.site.lane);
        if (e.site.function_id != w.step_function || e.site.pos != w.step_pos || lane < w.step_lane) ++w.step;
        w.step_function = e.site.function_id;
        w.step_pos = e.site.pos;
        w.step_lane = lane;
    }
    const bool shared = e.space == isa::space::shared;
    const uint64_t first = e.offset, end = e.offset + e.size;
    for (uint64_t at = first & ~3ull; at < end; at += 4) {
        const uint64_t lo = std::max(at, first), hi = std::min(at + 4, end);
        uint8_t bytes = 0;
        uint32_t value = 0;
        for (uint64_t b = lo; b < hi; ++b) {
            bytes |= static_cast<uint8_t>(1u << (b - at));
            if (e.data) value |= uint32_t{e.data[b - first]} << (8 * (b - at));
        }
        check_granule(e, w, granule_key(shared, e.owner, at), bytes, value);
    }
    if (!e.async_issue && (e.op == sim::access_op::atomic || e.order != mem_order::weak))
        strong_access(e, w, granule_key(shared, e.owner, first & ~3ull));
}

void racecheck::check_granule(const sim::access_event& e, warp_info& w, uint64_t key, uint8_t bytes, uint32_t value) {
    record cur;
    cur.actor = w.actor;
    cur.epoch = w.vc.get(w.actor);
    cur.lane = static_cast<uint8_t>(e.site.lane);
    cur.lane_epoch = w.lane_clock[cur.lane];
    cur.step = w.step;
    cur.bytes = bytes;
    cur.size = e.transfer ? e.transfer : e.size;
    cur.write = e.op != sim::access_op::load;
    cur.atomic = e.op == sim::access_op::atomic;
    // PTX: .volatile is relaxed.sys, strong. CUDA C++: volatile is not
    // atomic, and orders nothing between lanes of a warp (morally_strong).
    const bool vol = e.order == mem_order::volatile_ || e.order == mem_order::volatile_cuda;
    const volatile_model model = options_.volatile_reading;
    cur.strong = cur.atomic || (e.order != mem_order::weak && !(vol && model == volatile_model::plain));
    cur.cuda_volatile = vol && (model == volatile_model::cuda || (model == volatile_model::auto_ && e.order == mem_order::volatile_cuda));
    cur.scope = e.order == mem_order::weak && cur.atomic ? mem_scope::gpu : e.scope;
    cur.value = value;
    cur.cta = e.site.cta;
    cur.thread = e.site.warp * 32 + e.site.lane;
    cur.function_id = e.site.function_id;
    cur.pos = e.site.pos;

    cell& c = shadow_[key];
    auto conflicts = [&](const record& p) { return (p.bytes & bytes) && !ordered(p, w, cur.lane) && !morally_strong(p, cur); };
    if (e.async_issue) {
        // Checked against what came before with the issuing thread's clock
        // (the copy writes after its issue), then kept as the copy's write.
        if (c.has_write && conflicts(c.write)) report_race(e, cur, c.write);
        for (const record& r : c.reads)
            if (conflicts(r)) report_race(e, cur, r);
        cur.actor = copy_actor(e.tag);
        cur.epoch = 1;
        cur.lane = no_lane;
        c.write = cur;
        c.has_write = true;
        c.reads.clear();
        return;
    }
    if (c.has_write && conflicts(c.write)) report_race(e, cur, c.write);
    else if (c.has_write && e.async_proxy && c.write.lane != no_lane && (c.write.bytes & bytes) && !proxy_fenced(c.write))
        report_race(e, cur, c.write, true); // ordered, but the generic write never reached the async proxy
    if (cur.write)
        for (const record& r : c.reads)
            if (conflicts(r)) report_race(e, cur, r);
    if (cur.write) {
        c.write = cur;
        c.has_write = true;
        c.reads.clear();
        return;
    }
    // A read that happens before this one is covered by it: a later write
    // unordered with the old read is unordered with this one too.
    std::erase_if(c.reads, [&](const record& r) { return (r.actor == cur.actor && r.lane == cur.lane) || ordered(r, w, cur.lane); });
    if (c.reads.size() >= 64) c.reads.erase(c.reads.begin());
    c.reads.push_back(cur);
}

// Release and acquire through a location: strong writes publish a clock
// (their own for .release, the last release fence's for a relaxed one;
// read-modify-writes continue a release sequence), strong reads take it
// (at once for .acquire, at the next acquire fence for a relaxed one).
void racecheck::strong_access(const sim::access_event& e, warp_info& w, uint64_t key) {
    const mem_scope scope = e.order == mem_order::weak ? mem_scope::gpu : e.scope; // a plain atom is .gpu
    const bool reads = e.op != sim::access_op::store, writes = e.op != sim::access_op::load;
    if (reads) {
        auto it = sync_.find(key);
        if (it != sync_.end() && !it->second.clock.empty() && in_scope(it->second.scope, it->second.cta, w.cta) &&
            in_scope(scope, w.cta, it->second.cta)) {
            if (acquires(e.order)) w.vc.join(it->second.clock);
            else w.pending[it->second.cta == w.cta ? 0 : cluster_of(it->second.cta) == cluster_of(w.cta) ? 1 : 2].join(it->second.clock);
        }
    }
    if (!writes) return;
    vector_clock published;
    mem_scope published_scope = scope;
    if (releases(e.order)) {
        published = w.vc;
        release(w);
    } else if (w.fenced) {
        published = w.fence_release;
        published_scope = std::min(scope, w.fence_scope);
    }
    sync_clock& s = sync_[key];
    if (e.op == sim::access_op::atomic) s.clock.join(published);
    else s.clock = std::move(published);
    s.scope = published_scope;
    s.cta = w.cta;
}

void racecheck::barrier(const sim::barrier_event& e) {
    std::lock_guard lock(mutex_);
    warp_info& w = warp(e.site);
    barrier_phase& b = barriers_[e.site.cta * 16 + e.id];
    b.accum.join(w.vc);
    if (e.wait) {
        auto it = std::find_if(b.waiters.begin(), b.waiters.end(), [&](const auto& p) { return p.first == w.actor; });
        if (it != b.waiters.end()) it->second |= e.mask;
        else b.waiters.push_back({w.actor, e.mask});
    }
    release(w);
}

void racecheck::barrier_release(const sim::barrier_release_event& e) {
    std::lock_guard lock(mutex_);
    auto it = barriers_.find(e.cta * 16 + e.id);
    if (it == barriers_.end()) return;
    for (auto [actor, lanes] : it->second.waiters) {
        auto wi = warps_.find(actor);
        if (wi == warps_.end()) continue;
        wi->second.vc.join(it->second.accum);
        lanes_sync(wi->second, lanes);
    }
    barriers_.erase(it);
}

void racecheck::warp_sync(const sim::warp_sync_event& e) {
    if (!e.complete || !e.orders_memory) return;
    std::lock_guard lock(mutex_);
    lanes_sync(warp(e.site), e.mask);
}

void racecheck::sync(const sim::sync_event& e) {
    std::lock_guard lock(mutex_);
    if (e.kind == sim::sync_kind::cluster_release) {
        cluster_barrier& c = clusters_[e.owner];
        c.completed = std::move(c.accum);
        c.accum.clear();
        return;
    }
    if (e.kind == sim::sync_kind::landing_begin || e.kind == sim::sync_kind::landing_end) return;
    warp_info& w = warp(e.site);
    if (e.kind == sim::sync_kind::proxy_fence) { // the warp's generic writes so far reach the async proxy
        w.proxy_fenced = w.vc.get(w.actor);
        return;
    }
    if (e.kind == sim::sync_kind::landing_copy) { // the thread completing the copy knows its write happened
        w.vc.set(copy_actor(e.tag), 1);
        return;
    }
    const uint64_t mkey = e.owner << 24 | e.offset;
    switch (e.kind) {
    case sim::sync_kind::fence:
        if (acquires(e.order)) {
            w.vc.join(w.pending[0]);
            w.pending[0].clear();
            if (e.scope != mem_scope::cta) {
                w.vc.join(w.pending[1]);
                w.pending[1].clear();
            }
            if (e.scope == mem_scope::gpu || e.scope == mem_scope::sys) {
                w.vc.join(w.pending[2]);
                w.pending[2].clear();
            }
        }
        if (e.order == mem_order::sc) {
            const uint64_t key = e.scope == mem_scope::cta       ? w.cta << 2
                                 : e.scope == mem_scope::cluster ? cluster_of(w.cta) << 2 | 1
                                                                 : 2;
            vector_clock& order = sc_fences_[key];
            w.vc.join(order);
            order.join(w.vc);
            sc_fence_lanes(w, e.mask);
        }
        if (releases(e.order)) {
            w.fence_release = w.vc;
            w.fence_scope = e.scope;
            w.fenced = true;
            release(w);
        }
        return;
    case sim::sync_kind::mbarrier_reset: mbarriers_.erase(mkey); return;
    case sim::sync_kind::mbarrier_release: {
        mbarrier_state& m = mbarriers_[mkey];
        m.accum.join(w.vc);
        release(w);
        if (e.completed) {
            m.completed[e.parity] = std::move(m.accum);
            m.has[e.parity] = true;
            m.accum.clear();
        }
        return;
    }
    case sim::sync_kind::mbarrier_acquire: {
        auto it = mbarriers_.find(mkey);
        if (it != mbarriers_.end() && it->second.has[e.parity]) w.vc.join(it->second.completed[e.parity]);
        return;
    }
    case sim::sync_kind::cluster_arrive:
        if (e.order == mem_order::relaxed) return; // synchronises execution, orders no memory
        clusters_[e.owner].accum.join(w.vc);
        release(w);
        for (uint32_t m = e.mask; m; m &= m - 1) { // the arriving lanes' own knowledge, for the warp's other lanes
            const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
            for (uint32_t k = 0; k < 32; ++k) w.cluster_lanes[k] = std::max(w.cluster_lanes[k], w.lane_vc[l][k]);
            w.cluster_lanes[l] = std::max(w.cluster_lanes[l], w.lane_clock[l]);
            ++w.lane_clock[l];
        }
        return;
    case sim::sync_kind::cluster_wait: {
        auto it = clusters_.find(e.owner);
        if (it != clusters_.end()) w.vc.join(it->second.completed);
        // Every arrival of the phase precedes every wait that passes it, so
        // the lanes of this warp that arrived (release) before are ordered
        // before the waiting lanes.
        for (uint32_t m = e.mask; m; m &= m - 1) {
            const uint32_t l = static_cast<uint32_t>(__builtin_ctz(m));
            for (uint32_t k = 0; k < 32; ++k) w.lane_vc[l][k] = std::max(w.lane_vc[l][k], w.cluster_lanes[k]);
        }
        return;
    }
    case sim::sync_kind::wgmma_commit: { // the group's operand reads happened before its completion
        auto& recent = wgmma_commits_[e.site.cta << 16 | e.site.warp];
        recent.emplace_back(e.tag, w.vc);
        if (recent.size() > 16) recent.pop_front();
        release(w);
        return;
    }
    case sim::sync_kind::wgmma_wait: { // the warpgroup's groups up to e.tag completed: every warp's reads for them
        const uint32_t first = e.site.warp & ~3u;
        for (uint32_t i = first; i < first + 4; ++i) {
            if (i == e.site.warp) continue;
            auto it = wgmma_commits_.find(e.site.cta << 16 | i);
            if (it == wgmma_commits_.end()) continue;
            // The clock at that warp's commit of group e.tag; when the warp
            // ran more than 16 groups ahead, its oldest kept commit (a later
            // clock: it can hide a race, never invent one).
            for (const auto& [n, clock] : it->second)
                if (n >= e.tag) {
                    w.vc.join(clock);
                    break;
                }
        }
        return;
    }
    default: return;
    }
}

// wgmma accumulators used before wgmma.wait_group: a RAW on registers
// between the wgmma (the async proxy writes them) and the instruction.
void racecheck::pending_register(const sim::pending_register_event& e) {
    std::lock_guard lock(mutex_);
    finding f = finding_at("racecheck", kernel_, locate_, e.site);
    f.kind = "RAW";
    f.space = "register";
    f.size = 4;
    set_other(f, locate_, e.site.function_id, e.wgmma_pos, e.site.block, e.site.thread, 4);
    f.headline = "RAW hazard on a wgmma accumulator register: used before the wgmma.wait_group that completes the wgmma writing it";
    report_.add(std::move(f));
}

void racecheck::host_allocate(const sim::host_memory_event& e) {
    std::lock_guard lock(mutex_);
    allocations_[e.address] = {e.size, fmt::format("launch-file buffer '{}'", e.name)};
}

void racecheck::device_malloc(const sim::malloc_event& e) {
    if (!e.address) return;
    std::lock_guard lock(mutex_);
    allocations_[e.address] = {e.size, fmt::format("device malloc block of block ({},{},{}) thread ({},{},{})", e.site.block.x, e.site.block.y,
                                                   e.site.block.z, e.site.thread.x, e.site.thread.y, e.site.thread.z)};
}

// The allocation an access lies in, and its offset there.
std::string racecheck::where(const sim::access_event& e) const {
    if (e.space == isa::space::shared) {
        const sim::dim3 b = block_of(e.owner);
        return fmt::format("at offset {} of the shared memory of block ({},{},{})", e.offset, b.x, b.y, b.z);
    }
    auto it = allocations_.upper_bound(e.offset);
    if (it == allocations_.begin()) return {};
    --it;
    if (e.offset - it->first >= it->second.first) return {};
    return fmt::format("{} bytes into {} ({} bytes at 0x{:x})", e.offset - it->first, it->second.second, it->second.first, it->first);
}

void racecheck::report_race(const sim::access_event& e, const record& cur, const record& prior, bool unfenced) {
    const bool same_warp = prior.actor == cur.actor;
    const bool async = prior.lane == no_lane || e.async_issue || e.async_proxy; // a hazard across proxies, not between lanes
    if (options_.only_intra_warp && !(same_warp && !async)) return;
    finding f = finding_at("racecheck", kernel_, locate_, e.site);
    f.space = e.space == isa::space::shared ? "shared" : "global";
    if (same_warp && !async) f.kind = "intra-warp-hazard";
    else if (e.space == isa::space::global) f.kind = "race";
    else f.kind = prior.write && cur.write ? "WAW" : prior.write ? "RAW" : "WAR";
    // Lanes that all store the same bytes cannot produce a different value.
    const uint8_t both = prior.bytes & cur.bytes;
    uint32_t mask = 0;
    for (uint32_t b = 0; b < 4; ++b)
        if (both >> b & 1) mask |= 0xFFu << (8 * b);
    if (same_warp && !async && prior.write && cur.write && !prior.atomic && !cur.atomic && (prior.value & mask) == (cur.value & mask)) f.severity = "warning";
    f.size = e.transfer ? e.transfer : e.size; // a bulk copy is one access of its whole transfer
    f.address = e.address;
    f.has_address = true;
    set_other(f, locate_, prior.function_id, prior.pos, block_of(prior.cta), thread_of(prior.thread), prior.size);
    f.headline = fmt::format("{}{} on __{}__ memory: {} of size {} byte{} and an earlier {} by {} are not ordered",
                             f.kind == "race" ? "Race" : f.kind == "intra-warp-hazard" ? "Intra-warp hazard" : f.kind + " hazard",
                             f.severity == "warning" ? " (every write stores the same value)" : "", f.space, op_name(cur.write, cur.atomic),
                             e.size, e.size == 1 ? "" : "s", op_name(prior.write, prior.atomic),
                             prior.lane == no_lane                          ? "an asynchronous copy not known to have completed"
                             : same_warp && prior.thread == cur.thread      ? "the same thread"
                             : same_warp                                    ? "another lane of the warp"
                             : prior.cta == cur.cta       ? "another warp of the block"
                                                          : "another block");
    if (e.async_issue) f.details.push_back("this access is an asynchronous copy's write, issued here and landing when the copy completes");
    if (unfenced)
        f.details.push_back("the write happens before this access, but its thread issued no fence.proxy.async after it: this access "
                            "reads through the async proxy (a wgmma operand, a bulk or tensor copy's source), which need not see the write");
    if (std::string w = where(e); !w.empty()) f.details.push_back(w);
    report_.add(std::move(f));
}

} // namespace ptxsim::check
