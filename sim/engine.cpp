#include "sim/engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <deque>
#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <optional>

#include "isa/op_table.hpp"
#include "isa/sem/mbarrier.hpp"
#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"
#include "memory/multicast.hpp"
#include "sim/detail/engine_state.hpp"
#include "sim/detail/deadlock_report.hpp"
#include "sim/detail/device_printf.hpp"
#include "sim/detail/engine_view.hpp"
#include "sim/detail/livelock_probe.hpp"
#include "sim/device_heap.hpp"
#include "sim/device_runtime.hpp"
#include "sim/events.hpp"
#include "sim/scheduler.hpp"
#include "sim/texture_table.hpp"

namespace ptxsim::sim {
namespace {

using isa::fault_kind;
using isa::space;
using isa::special_reg;
using isa::warp_size;
using namespace detail;

// Generic-address windows for the state spaces that are not global memory.
// They sit far below where global allocations are placed.
constexpr uint64_t shared_window = 0x0000100000000000ull;
constexpr uint64_t local_window = 0x0000200000000000ull;
constexpr uint64_t param_window = 0x0000300000000000ull;
constexpr uint64_t window_size = 0x0000000100000000ull;
// alloca'd memory: .local offsets from here up are the lane's dynamic stack
// (a static .local frame never reaches this far). 2^31 keeps every
// alignment alloca may ask for (up to 2^23) and fits .u32 addresses.
constexpr uint64_t stack_base = 0x80000000ull;
// A .local address names a byte of the current call frame. One that has been
// made generic (cvta.local) carries the call depth of its frame, plus one, in
// bits 32-39, so that a callee given a pointer into its caller's frame (as
// -G builds and non-inlined functions pass structs and arrays) reaches the
// caller's frame; 0 there means "the current frame". alloca'd addresses
// (from stack_base up) are the same in every frame and carry no depth.
constexpr uint64_t local_window_size = 1ull << 40;
constexpr uint64_t local_depth_shift = 32;
// A shared::cluster address is a shared::cta offset with the cluster rank of
// the CTA it names, plus one, in bits 24-28; 0 there means "this CTA", so a
// CTA's own shared::cta addresses stay valid shared::cluster addresses (as
// the ISA requires). A CTA's shared memory (at most 228 KiB) never reaches
// bit 24. Generic shared addresses carry the same bits inside the window.
constexpr uint32_t cluster_rank_shift = 24;
constexpr uint64_t cta_offset_mask = (1ull << cluster_rank_shift) - 1;
constexpr uint64_t cluster_rank_mask = 0x1Full << cluster_rank_shift;

// A .shared (state-space) address is 32 bits: the hardware ignores the
// bits above, so a 64-bit generic shared address used in a .shared
// instruction (DeepGEMM's ld_shared/st_shared helpers pass cvta's result
// that way) reaches the same byte. The generic window's low 32 bits are
// the shared::cluster address, which makes that hold here too.
inline uint64_t shared_address_bits(uint64_t addr) { return addr & 0xFFFFFFFFull; }

constexpr uint32_t max_call_depth = 256;
// How many times in a row try_wait sleepers may time out with nothing else
// happening before the launch is reported as deadlocked.
constexpr uint32_t max_stalled_rounds = 64;

// The engine's default order, compiled in (no call per choice): live CTAs
// in the order they started, a CTA's warps in index order, each warp up to
// `quantum` instructions, a CTA up to four quanta per pass, divergent groups
// lowest PC first (pick_pc), no preemption inside a quantum.
struct default_order {
    static constexpr bool explores = false;
    uint32_t quantum;
};

// A scheduler (sim/scheduler.hpp) makes every choice, through virtual calls.
struct explored_order {
    static constexpr bool explores = true;
    scheduler& s;
};

// Observed: the instance run when launch_options::observer is set; only it
// calls the observer (sim/events.hpp), so the plain instance pays nothing.
template <bool Observed>
class engine final : public isa::exec_context {
public:
    engine(const launch_request& req, global_port& g, shared_state& shared, uint32_t resident, bool alone)
        : req_(req), fn_(*req.kernel), global_(g), shared_(shared), resident_(resident), alone_(alone) {
        for (const auto* f : req.functions) {
            if (!f) continue;
            max_regs_ = std::max(max_regs_, f->reg_slots);
            max_preds_ = std::max(max_preds_, f->pred_slots);
            max_params_ = std::max(max_params_, f->frame_param_bytes);
            max_local_ = std::max(max_local_, f->local_bytes);
        }
        if constexpr (Observed)
            if (req.options.observer->wants_instructions()) {
                watch_ = req.options.observer;
                const address_layout layout{shared_window, local_window,      param_window,      window_size,
                                            local_window_size, stack_base, local_depth_shift, cluster_rank_shift};
                view_ = std::make_unique<engine_view>(req, g, layout, max_local_, max_params_);
            }
    }

    // Runs CTAs, taking the next unstarted one whenever fewer than this
    // thread's share of resident CTAs are live, until all are done or any
    // thread faults. The order is the default one (default_order) unless the
    // launch names a scheduler.
    launch_result run() {
        if (scheduler* s = req_.options.schedule) {
            tracking_ = s->whole_grid_order() && s->incremental();
            s->launch_begins(req_.grid.count(), static_cast<uint32_t>((req_.block.count() + warp_size - 1) / warp_size));
            explored_order p{*s};
            return run_with(p);
        }
        default_order p{req_.options.quantum};
        return run_with(p);
    }

private:
    template <class P>
    launch_result run_with(P& p) {
        const uint64_t total = std::min<uint64_t>(req_.grid.count() / req_.cluster.count(), shared_.end_cluster);
        std::deque<std::unique_ptr<cluster_state>> live;
        if (view_) view_->set_live(&live);
        uint64_t counted = 0;
        bool started_all = false; // this thread found no unstarted cluster left
        while (!shared_.stop.load(std::memory_order_relaxed)) {
            bool progress = false;
            if constexpr (P::explores) {
                // The scheduler orders every live CTA: all are made first.
                while (live.size() < resident_ && start_cluster(live, total, started_all)) {}
                if (live.empty()) break;
                progress = run_pass(p, live);
            } else {
                // This pass starts as many clusters as are missing at its
                // start, each made when the pass reaches it rather than all
                // up front: the order is the same, and a cluster done in its
                // first turn gives its state back (retire_now) before the
                // next one is made, so a grid of short CTAs reuses one
                // cluster's memory instead of holding every resident one.
                uint64_t to_start = live.size() < resident_ ? resident_ - live.size() : 0;
                size_t visited = 0;
                for (size_t i = 0;; ++i) {
                    if (i == live.size()) {
                        if (!to_start || !start_cluster(live, total, started_all)) break;
                        --to_start;
                    }
                    cluster_state& cl = *live[i];
                    for (auto& cta : cl.ctas) {
                        if (run_cta(*cta, p)) progress = true;
                        if (fault_) break;
                    }
                    if (fault_) break;
                    if (retire_now(cl)) {
                        recycle(std::move(live[i]));
                        live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
                        --i;
                    }
                    ++visited;
                }
                if (!visited) break; // nothing live and nothing left to start
            }
            if (fault_) break;
            // Retire finished CTAs, keeping the order of the rest (for an
            // incremental scheduler, only after a pass in which a warp finished).
            const bool look = !tracking_ || std::exchange(warp_finished_, false);
            for (auto it = live.begin(); look && it != live.end();) {
                if (!(*it)->done()) {
                    ++it;
                    continue;
                }
                for (auto& cta : (*it)->ctas) land_at_exit(*cta);
                recycle(std::move(*it));
                it = live.erase(it);
            }
            if (!progress && !live.empty()) {
                // try_wait sleepers may still return false and do something
                // else; when they keep going back to sleep with nothing
                // completing (here or on other host threads), it is a deadlock.
                uint64_t others = shared_.warp_instructions.load() - counted;
                if (others != others_seen_) stalled_rounds_ = 0;
                others_seen_ = others;
                if (++stalled_rounds_ <= max_stalled_rounds && time_out_sleepers(live)) continue;
                deadlock(live, false);
                break;
            }
            uint64_t all = shared_.warp_instructions.fetch_add(result_.stats.warp_instructions - counted) +
                           (result_.stats.warp_instructions - counted);
            counted = result_.stats.warp_instructions;
            if (all > req_.options.max_warp_instructions && !live.empty()) {
                runaway(*live.front()->ctas.front(), all);
                break;
            }
            if constexpr (!P::explores) {
                if (!live.empty() && looping(live, all)) {
                    deadlock(live, true);
                    break;
                }
            }
        }
        result_.ok = !result_.fault;
        return result_;
    }

    // One pass over the live CTAs in the order the scheduler gives.
    bool run_pass(explored_order& p, const std::deque<std::unique_ptr<cluster_state>>& live) {
        if (tracking_) return run_changed_pass(p);
        std::vector<schedule_unit>& order = pass_order_; // kept between passes: a cycle model makes one pass a cycle
        order.clear();
        if (p.s.whole_grid_order()) { // every live warp in one order, one turn each
            std::vector<warp_state*>& warps = pass_warps_;
            warps.clear();
            for (auto& cl : live)
                for (auto& cta : cl->ctas)
                    for (auto& w : cta->warps)
                        if (!w->done()) {
                            schedule_unit u{cta->linear, w->index, static_cast<uint32_t>(warps.size())};
                            if (uint32_t pc = next_pc(*w); pc != no_pc) {
                                u.pc = pc;
                                u.next = &function_of(pc).code[pc & index_bits];
                            }
                            order.push_back(u);
                            warps.push_back(w.get());
                        }
            p.s.order_warps(order);
            bool progress = false;
            auto take_turn = [&](const schedule_unit& u) {
                uint32_t quantum = p.s.turn(u);
                if (!quantum) return;
                const uint64_t before = result_.stats.warp_instructions;
                bool m = run_warp(*warps[u.index], p, quantum);
                p.s.turn_ended(u, m ? static_cast<uint32_t>(std::max<uint64_t>(1, result_.stats.warp_instructions - before)) : 0);
                progress |= m;
            };
            if (const std::vector<uint32_t>* only = p.s.only_turns()) {
                for (uint32_t at : *only) {
                    take_turn(order[at]);
                    if (fault_) break;
                }
            } else {
                for (const auto& u : order) {
                    take_turn(u);
                    if (fault_) break;
                }
            }
            return progress;
        }
        std::vector<cta_state*> ctas;
        for (auto& cl : live)
            for (auto& cta : cl->ctas) {
                order.push_back({cta->linear, schedule_unit::no_warp, static_cast<uint32_t>(ctas.size())});
                ctas.push_back(cta.get());
            }
        p.s.order_ctas(order);
        bool progress = false;
        for (const auto& u : order) {
            if (run_cta(*ctas[u.index], p)) progress = true;
            if (fault_) break;
        }
        return progress;
    }

    std::vector<schedule_unit> pass_order_; // run_pass's lists, reused
    std::vector<warp_state*> pass_warps_;

    // A pass for an incremental scheduler (scheduler::incremental): it
    // hears only of the warps that changed since the last pass, and runs
    // the warps it picks. Which warps can change without taking a turn is
    // closed: only wake() (a barrier, mbarrier, cluster barrier, setmaxnreg
    // or wgmma wait released them, or a time-out) and a new cluster.
    bool run_changed_pass(explored_order& p) {
        for (warp_state* w : changed_warps_)
            if (w->changed) { // a warp listed twice, or retired since (recycle), is said once
                w->changed = false;
                changed_units_.push_back(unit_of(*w));
            }
        changed_warps_.clear();
        p.s.order_changed(changed_units_);
        changed_units_.clear();
        bool progress = false;
        const std::vector<uint32_t>& turns = *p.s.only_turns();
        for (size_t k = 0; k < turns.size(); ++k) {
            prefetch_turn(turns, k);
            const uint32_t slot = turns[k];
            warp_state& w = *by_slot_[slot];
            const schedule_unit& u = units_[slot]; // as listed: what the scheduler picked
            uint32_t quantum = p.s.turn(u);
            if (!quantum) continue;
            const uint64_t before = result_.stats.warp_instructions;
            bool m = run_warp(w, p, quantum);
            p.s.turn_ended(u, m ? static_cast<uint32_t>(std::max<uint64_t>(1, result_.stats.warp_instructions - before)) : 0);
            mark_changed(w);
            warp_finished_ |= w.done();
            progress |= m;
            if (fault_) break;
        }
        return progress;
    }

    // The warps of a cycle's turns are each touched once, among thousands:
    // their state, then their registers, are fetched a few turns ahead so
    // that the host's cache misses overlap instead of coming one by one.
    void prefetch_turn(const std::vector<uint32_t>& turns, size_t k) {
        if (k + 8 < turns.size()) {
            const char* w = reinterpret_cast<const char*>(by_slot_[turns[k + 8]]);
            __builtin_prefetch(w);
            __builtin_prefetch(w + 64);
            __builtin_prefetch(w + 128);
        }
        if (k + 4 < turns.size()) {
            const warp_state& w = *by_slot_[turns[k + 4]];
            if (!w.frames.empty()) __builtin_prefetch(&w.frames.front());
        }
        if (k + 2 < turns.size()) {
            const uint32_t slot = turns[k + 2];
            const warp_state& w = *by_slot_[slot];
            const isa::exec_instruction* ins = units_[slot].next;
            if (!ins || w.frames.empty()) return;
            const frame& f = w.frames.front();
            const uint64_t* regs = f.regs.data();
            for (uint32_t i = 0; i < ins->nops && i < 4; ++i) {
                const isa::exec_operand& o = ins->ops[i];
                if (o.kind != isa::opnd::reg || o.slot == isa::no_slot || size_t(o.slot + 1) * warp_size > f.regs.size()) continue;
                const char* r = reinterpret_cast<const char*>(regs + size_t(o.slot) * warp_size);
                for (uint32_t line = 0; line < warp_size * sizeof(uint64_t); line += 64) __builtin_prefetch(r + line);
            }
        }
    }

    // The warp as an incremental scheduler sees it, kept by slot for its turns.
    const schedule_unit& unit_of(warp_state& w) {
        const cta_state& cta = *w.cta;
        schedule_unit u{cta.linear, w.index, w.slot};
        u.order = (cta.cluster->index * req_.cluster.count() + cta.rank) * cta.warps.size() + w.index;
        u.done = w.done();
        if (uint32_t pc = u.done ? no_pc : next_pc(w); pc != no_pc) {
            u.pc = pc;
            u.next = &function_of(pc).code[pc & index_bits];
        }
        if (w.slot >= units_.size()) {
            units_.resize(w.slot + 1);
            by_slot_.resize(w.slot + 1, nullptr);
        }
        by_slot_[w.slot] = &w;
        return units_[w.slot] = u;
    }

    void mark_changed(warp_state& w) {
        if (w.changed) return;
        w.changed = true;
        changed_warps_.push_back(&w);
    }

    // Lanes released from a wait by another warp (or a time-out).
    void wake(warp_state& w, uint32_t lanes) {
        w.waiting &= ~lanes;
        if (tracking_) mark_changed(w);
    }

    bool tracking_ = false;                     // the scheduler is incremental
    bool warp_finished_ = false;                // in this pass (its cluster may be done)
    std::vector<warp_state*> changed_warps_;    // since the scheduler last heard (may repeat)
    std::vector<schedule_unit> changed_units_;  // retired warps' units, then the pass's
    std::vector<warp_state*> by_slot_;          // warp_state::slot -> the warp that has it
    std::vector<schedule_unit> units_;          // and as last listed
    uint32_t next_slot_ = 0;

    bool timed() const { return req_.options.schedule && req_.options.schedule->models_time(); }
    uint64_t clock_now() const { return timed() ? req_.options.schedule->cycle() : result_.stats.warp_instructions; }
    uint64_t timer_now() const { return timed() ? req_.options.schedule->nanoseconds() : result_.stats.warp_instructions; }

    // The PC of the instruction a warp runs next if given a turn (what
    // pick_group offers a scheduler first: the lowest PC not held at an
    // aligned barrier), or no_pc when none of its lanes can run.
    static constexpr uint32_t no_pc = 0xFFFFFFFFu;
    uint32_t next_pc(const warp_state& w) const {
        if (w.converged) return w.waiting ? no_pc : w.upc;
        const uint32_t runnable = w.alive & ~w.exited & ~w.waiting & ~w.sync_wait;
        uint32_t best = no_pc, held = no_pc;
        for (uint32_t lanes = runnable; lanes; lanes &= lanes - 1) {
            const uint32_t pc = w.pc[static_cast<uint32_t>(__builtin_ctz(lanes))];
            if (at_aligned_barrier(pc)) held = std::min(held, pc);
            else best = std::min(best, pc);
        }
        return best != no_pc ? best : held;
    }

    // Makes the next unstarted cluster live (at the end of `live`); false
    // when every cluster has been started, here or on other host threads.
    bool start_cluster(std::deque<std::unique_ptr<cluster_state>>& live, uint64_t total, bool& started_all) {
        if (started_all) return false;
        uint64_t next = shared_.next_cta.fetch_add(1);
        if (next >= total) {
            started_all = true;
            return false;
        }
        live.push_back(make_cluster(next));
        if (tracking_)
            for (auto& cta : live.back()->ctas)
                for (auto& w : cta->warps) mark_changed(*w);
        return true;
    }

    // Whether a cluster the default order just ran can be retired at once
    // rather than after the pass: it is done and has no bulk copies left to
    // land (land_at_exit), whose writes other CTAs of the pass must not see
    // earlier than when the pass ends.
    static bool retire_now(const cluster_state& cl) {
        if (!cl.done()) return false;
        for (const auto& cta : cl.ctas)
            for (const auto& w : cta->warps)
                if (w->async) return false;
        return true;
    }

    // A retired cluster's state goes back to the pool, to be made the next
    // cluster (every cluster of a launch has the same shape): its register
    // files, shared memory and warps are reused instead of allocated and
    // zeroed by the page.
    void recycle(std::unique_ptr<cluster_state> cl) {
        for (auto& cta : cl->ctas)
            for (auto& w : cta->warps) {
                if (last_issue_.warp == w.get()) last_issue_.warp = nullptr; // a new warp is not the one that issued
                if (tracking_) { // the scheduler hears it is done before its slot goes to a new warp
                    w->changed = false;
                    changed_units_.push_back(unit_of(*w));
                }
            }
        cluster_pool_.push_back(std::move(cl));
    }

    // Cluster `index` (x fastest over the grid of clusters) with its CTAs in
    // rank order, from the pool when it has one.
    std::unique_ptr<cluster_state> make_cluster(uint64_t index) {
        const dim3& c = req_.cluster;
        dim3 n{req_.grid.x / c.x, req_.grid.y / c.y, req_.grid.z / c.z};
        std::unique_ptr<cluster_state> cl;
        std::vector<std::unique_ptr<cta_state>> pooled;
        if (!cluster_pool_.empty()) {
            cl = std::move(cluster_pool_.back());
            cluster_pool_.pop_back();
            pooled = std::move(cl->ctas);
            *cl = cluster_state{};
        } else {
            cl = std::make_unique<cluster_state>();
        }
        cl->index = index;
        cl->id = {static_cast<uint32_t>(index % n.x), static_cast<uint32_t>(index / n.x % n.y),
                  static_cast<uint32_t>(index / (uint64_t(n.x) * n.y))};
        for (uint32_t r = 0; r < c.count(); ++r) {
            dim3 in{r % c.x, r / c.x % c.y, r / (c.x * c.y)};
            dim3 id{cl->id.x * c.x + in.x, cl->id.y * c.y + in.y, cl->id.z * c.z + in.z};
            auto cta = make_cta(id.x + uint64_t(req_.grid.x) * (id.y + uint64_t(req_.grid.y) * id.z),
                                r < pooled.size() ? std::move(pooled[r]) : nullptr);
            cta->cluster = cl.get();
            cta->rank = r;
            cta->cluster_ctaid = in;
            cl->threads += cta->threads;
            cl->ctas.push_back(std::move(cta));
        }
        return cl;
    }

    // A CTA as it starts: every field as a new cta_state's and every warp's
    // as a new warp_state's, zeroed registers and shared memory included
    // (uninitialised registers read 0). A pooled CTA keeps only the storage.
    std::unique_ptr<cta_state> make_cta(uint64_t linear, std::unique_ptr<cta_state> cta) {
        std::vector<std::unique_ptr<warp_state>> pooled;
        if (cta) {
            std::vector<uint8_t> shared = std::move(cta->shared);
            pooled = std::move(cta->warps);
            *cta = cta_state{};
            cta->shared = std::move(shared);
        } else {
            cta = std::make_unique<cta_state>();
        }
        cta->linear = linear;
        cta->id = {static_cast<uint32_t>(linear % req_.grid.x), static_cast<uint32_t>(linear / req_.grid.x % req_.grid.y),
                   static_cast<uint32_t>(linear / (uint64_t(req_.grid.x) * req_.grid.y))};
        cta->shared.assign(req_.static_shared + req_.dynamic_shared + req_.reserved_shared, 0);
        uint32_t threads = static_cast<uint32_t>(req_.block.count());
        cta->threads = threads;
        uint32_t nwarps = (threads + warp_size - 1) / warp_size;
        for (uint32_t w = 0; w < nwarps; ++w) {
            std::unique_ptr<warp_state> ws;
            if (w < pooled.size()) {
                ws = std::move(pooled[w]);
                // Only the kernel's frame is kept: a new warp has no deeper
                // ones (the livelock probe hashes every frame there is).
                std::vector<frame> frames = std::move(ws->frames);
                frames.resize(1);
                const uint32_t slot = ws->slot;
                *ws = warp_state{};
                ws->slot = slot;
                frame& f = frames.front(); // as ensure_frame makes it
                std::fill(f.regs.begin(), f.regs.end(), 0);
                std::fill(f.preds.begin(), f.preds.end(), 0);
                std::fill(f.params.begin(), f.params.end(), 0);
                std::fill(f.local.begin(), f.local.end(), 0);
                ws->frames = std::move(frames);
            } else {
                ws = std::make_unique<warp_state>();
                ws->slot = next_slot_++;
            }
            ws->cta = cta.get();
            ws->index = w;
            uint32_t lanes = std::min(warp_size, threads - w * warp_size);
            ws->alive = lanes == 32 ? ~0u : (1u << lanes) - 1;
            for (uint32_t l = 0; l < warp_size; ++l) ws->pc[l] = static_cast<uint32_t>(req_.kernel_id) << 20;
            ws->upc = ws->pc[0];
            ws->converged = true;
            ws->registers = req_.registers_per_thread;
            ensure_frame(*ws, 0);
            cta->warps.push_back(std::move(ws));
        }
        return cta;
    }

    // Bulk copies to global memory that no thread waited for still complete
    // when their CTA is done (copies into shared memory die with it). Their
    // destinations were checked when they were issued. Reductions combine
    // element by element, each atomically, as when a wait lands them.
    void land_at_exit(cta_state& cta) {
        for (auto& w : cta.warps) {
            if (!w->async) continue;
            for (uint32_t l = 0; l < warp_size; ++l) {
                auto& lane = (*w->async)[l];
                lane.bulk_groups.push_back(std::move(lane.bulk_open));
                for (auto& g : lane.bulk_groups)
                    for (auto& pw : g) {
                        if (pw.sp != space::global) continue;
                        if constexpr (Observed) { // one landing store event per copy, by the issuing thread
                            access_event e;
                            e.site.block = cta.id;
                            e.site.thread = thread_of(*w, l);
                            e.site.function_id = req_.kernel_id;
                            e.site.cta = cta.linear;
                            e.site.warp = w->index;
                            e.site.lane = l;
                            e.address = e.offset = pw.addr;
                            e.size = static_cast<uint32_t>(pw.data.size());
                            e.op = pw.reduce ? access_op::atomic : access_op::store;
                            e.data = pw.data.data();
                            e.landing = true;
                            req_.options.observer->access(e);
                        }
                        if (!pw.reduce) {
                            global_.write(pw.addr, pw.data.data(), static_cast<uint32_t>(pw.data.size()));
                            continue;
                        }
                        for (size_t at = 0; at + pw.element <= pw.data.size(); at += pw.element) {
                            std::lock_guard<std::mutex> lock(atomic_lock(pw.addr + at));
                            uint64_t v = 0, old = 0;
                            std::memcpy(&v, pw.data.data() + at, pw.element);
                            global_.read(pw.addr + at, &old, pw.element);
                            const uint64_t nv = pw.reduce(old, v, 0);
                            global_.write(pw.addr + at, &nv, pw.element);
                        }
                    }
                lane = {};
            }
        }
    }

    // Runs the CTA's warps in turn, each for up to a quantum, and goes round
    // again while any of them moves, up to a few quanta in all: a CTA whose
    // warps meet at barriers every few instructions then stays in the host's
    // caches instead of every resident CTA being touched per barrier phase.
    // False when no warp could move. A scheduler sets the order, the budget
    // and each warp's quantum.
    template <class P>
    bool run_cta(cta_state& cta, P& p) {
        const uint64_t start = result_.stats.warp_instructions;
        uint64_t budget;
        if constexpr (P::explores) budget = p.s.cta_budget({cta.linear, schedule_unit::no_warp, 0});
        else budget = uint64_t(p.quantum) * 4;
        bool any = false;
        std::vector<schedule_unit> order;
        for (bool moved = true; moved && !fault_ && result_.stats.warp_instructions - start < budget;) {
            moved = false;
            if constexpr (P::explores) {
                order.clear();
                for (uint32_t i = 0; i < cta.warps.size(); ++i)
                    if (!cta.warps[i]->done()) order.push_back({cta.linear, i, i});
                p.s.order_warps(order);
                for (const auto& u : order) {
                    uint32_t quantum = p.s.turn(u);
                    if (!quantum) continue;
                    const uint64_t before = result_.stats.warp_instructions;
                    preempted_ = false;
                    bool m = run_warp(*cta.warps[u.index], p, quantum);
                    p.s.turn_ended(u, m ? static_cast<uint32_t>(std::max<uint64_t>(1, result_.stats.warp_instructions - before)) : 0);
                    moved |= m;
                    if (fault_) break;
                    if (preempted_) { // the CTA's pass ends too: other CTAs run before its next turn
                        any |= moved;
                        return any;
                    }
                }
            } else {
                for (auto& w : cta.warps) {
                    if (w->done()) continue;
                    if (run_warp(*w, p, p.quantum)) moved = true;
                    if (fault_) break;
                }
            }
            any |= moved;
        }
        return any;
    }

    // Runs up to a quantum of instructions; false when the warp could not
    // move. A scheduler may end the turn after a memory operation or a
    // backward branch.
    template <class P>
    bool run_warp(warp_state& w, P& p, uint32_t quantum) {
        bool moved = false;
        uint32_t n = 0;
        yield_ = false;
        while (n < quantum && !fault_ && !yield_) {
            if (w.converged) {
                if (w.waiting) break; // at a barrier
                n += run_converged(w, quantum - n, p);
                moved = true;
                if (w.converged) break; // the quantum is spent, a fault stopped it or the scheduler preempted it
                continue;               // a control instruction: the per-lane path takes it
            }
            uint32_t runnable = w.alive & ~w.exited & ~w.waiting & ~w.sync_wait;
            if (!runnable) break;
            uint32_t pc;
            if constexpr (P::explores) pc = pick_group(w, runnable, p);
            else pc = pick_pc(w, runnable);
            // Lanes at one PC but different call depths (recursion) use different frames: run one depth.
            uint32_t mask = 0, depth = UINT32_MAX;
            for (uint32_t lanes = runnable; lanes; lanes &= lanes - 1) {
                uint32_t l = static_cast<uint32_t>(__builtin_ctz(lanes));
                if (w.pc[l] != pc) continue;
                if (depth == UINT32_MAX) depth = w.depth[l];
                if (w.depth[l] == depth) mask |= 1u << l;
            }
            step(w, pc, mask);
            ++n;
            moved = true;
            try_converge(w);
            if constexpr (P::explores) {
                const isa::exec_instruction& ins = function_of(pc).code[pc & index_bits];
                int point = ins.branch && ins.target <= (pc & index_bits) ? static_cast<int>(schedule_point::backward_branch)
                                                                          : schedule_point_of(ins.row);
                if (point >= 0 && !fault_ && p.s.preempt(static_cast<schedule_point>(point), n)) {
                    preempted_ = true;
                    break;
                }
            }
        }
        return moved;
    }

    // The fast path: one PC for the whole warp, no per-lane bookkeeping.
    // Branches taken by all lanes or by none stay here; a divergent branch or
    // any other control instruction hands the warp to the per-lane path.
    // Returns the number of instructions run.
    template <class P>
    uint32_t run_converged(warp_state& w, uint32_t budget, [[maybe_unused]] P& p) {
        const uint32_t live = w.alive & ~w.exited;
        const uint32_t lanes = static_cast<uint32_t>(__builtin_popcount(live));
        uint32_t pc = w.upc;
        const isa::exec_function& fn = function_of(pc);
        const isa::exec_instruction* code = fn.code.data();
        const uint32_t depth = w.depth[static_cast<uint32_t>(__builtin_ctz(live))];
        frame& f = w.frames[depth];
        cur_ = &w;
        cur_fn_ = &fn;
        cur_depth_ = depth;
        regs = f.regs.data();
        preds = f.preds.data();
        this->pc = w.pc.data();
        exited = 0;
        uint32_t n = 0;
        for (; n < budget; ++n) {
            const isa::exec_instruction& ins = code[pc & index_bits];
            uint32_t eff = live;
            if (ins.guard != isa::no_slot) eff &= ins.guard_negated ? ~preds[ins.guard] : preds[ins.guard];
            if (ins.control && !ins.branch && !(ins.uniform && eff == live)) break;
            if constexpr (Observed)
                if (watch_) {
                    w.upc = pc; // what the view shows of a converged warp
                    observe_instruction(w, pc, live, eff, ins);
                }
            ++result_.stats.warp_instructions;
            result_.stats.thread_instructions += lanes;
            if (ins.branch) {
                if (eff == live) {
                    if constexpr (P::explores) {
                        const bool backward = ins.target <= (pc & index_bits);
                        pc = (pc & ~index_bits) | ins.target;
                        if (backward && p.s.preempt(schedule_point::backward_branch, n + 1)) {
                            preempted_ = true;
                            w.upc = pc;
                            return n + 1;
                        }
                    } else {
                        pc = (pc & ~index_bits) | ins.target;
                    }
                } else if (eff == 0) {
                    ++pc;
                } else { // divergent: the taken lanes go to the target, the rest fall through
                    w.upc = pc + 1;
                    leave_converged(w);
                    for (uint32_t l = eff; l; l &= l - 1) w.pc[static_cast<uint32_t>(__builtin_ctz(l))] = (pc & ~index_bits) | ins.target;
                    return n + 1;
                }
                continue;
            }
            cur_ins_ = &ins;
            cur_pc_ = pc;
            ++pc;
            if constexpr (Observed)
                if (eff && w.wgmma && !w.wgmma->empty()) observe_pending_registers(w, ins, eff);
            if constexpr (P::explores) {
                // Independent thread scheduling: some lanes may do this
                // access now and run ahead; the rest stay before it.
                if (lanes > 1 && splittable_access(ins.row)) {
                    const uint32_t ahead = p.s.split(live) & live;
                    if (ahead && ahead != live) return split_at(w, ins, eff, ahead, pc, n);
                }
            }
            if (eff) ins.run(*this, ins, eff);
            if (fault_) {
                ++n;
                break;
            }
            if (rewind_) { // lanes went to sleep in the instruction and run it again when woken
                uint32_t asleep = rewind_;
                rewind_ = 0;
                if (asleep == live) {
                    w.upc = cur_pc_;
                    return n + 1;
                }
                w.upc = pc;
                leave_converged(w);
                for (uint32_t l = asleep; l; l &= l - 1) w.pc[static_cast<uint32_t>(__builtin_ctz(l))] = cur_pc_;
                return n + 1;
            }
            if (w.waiting || yield_) { // every lane waits at a barrier, or the warp gives up its turn; it stays converged
                w.upc = pc;
                return n + 1;
            }
            if constexpr (P::explores) {
                if (int point = schedule_point_of(ins.row); point >= 0 && p.s.preempt(static_cast<schedule_point>(point), n + 1)) {
                    preempted_ = true;
                    w.upc = pc;
                    return n + 1;
                }
            }
        }
        w.upc = pc;
        if (n < budget && !fault_) leave_converged(w); // stopped at a control instruction
        return n;
    }

    // A scheduler split the converged warp at the access at cur_pc_: the
    // lanes `ahead` run it (`eff` is who its guard lets act) and go on from
    // `next`; the others stay at it, to run it on the per-lane path when the
    // scheduler picks their group. Thread instructions count the lanes that
    // ran it (the others count when they do). Returns run_converged's count.
    uint32_t split_at(warp_state& w, const isa::exec_instruction& ins, uint32_t eff, uint32_t ahead, uint32_t next, uint32_t n) {
        result_.stats.thread_instructions -= static_cast<uint32_t>(__builtin_popcount(w.alive & ~w.exited & ~ahead));
        if (eff & ahead) ins.run(*this, ins, eff & ahead);
        w.upc = next;
        if (fault_) return n + 1; // the launch stops here
        leave_converged(w);
        w.explored_split = true;
        w.split_waits = 0;
        for (uint32_t l = w.alive & ~w.exited & ~ahead; l; l &= l - 1) w.pc[static_cast<uint32_t>(__builtin_ctz(l))] = cur_pc_;
        return n + 1;
    }

    // Writes the converged PC back to every lane.
    void leave_converged(warp_state& w) {
        for (uint32_t l = w.alive & ~w.exited; l; l &= l - 1) {
            uint32_t lane = static_cast<uint32_t>(__builtin_ctz(l));
            w.pc[lane] = w.upc;
            w.last_run[lane] = result_.stats.warp_instructions;
        }
        w.converged = false;
        w.diverged_steps = 0;
    }

    // After a per-lane step: back to the fast path when every live lane is
    // at one PC and depth and none waits.
    void try_converge(warp_state& w) {
        uint32_t live = w.alive & ~w.exited;
        if (!live || w.waiting || w.sync_wait) return;
        uint32_t first = static_cast<uint32_t>(__builtin_ctz(live));
        uint32_t pc = w.pc[first], depth = w.depth[first];
        for (uint32_t l = live & (live - 1); l; l &= l - 1) {
            uint32_t lane = static_cast<uint32_t>(__builtin_ctz(l));
            if (w.pc[lane] != pc || w.depth[lane] != depth) return;
        }
        w.upc = pc;
        w.converged = true;
        w.explored_split = false;
    }

    bool at_aligned_barrier(uint32_t pc) const { return isa::sem::barrier_aligned(function_of(pc).code[pc & index_bits]); }

    // The scheduler's choice among the distinct PCs of the runnable lanes.
    uint32_t pick_group(warp_state& w, uint32_t runnable, explored_order& p) {
        std::array<uint32_t, warp_size> pcs;
        uint32_t n = 0;
        for (uint32_t lanes = runnable; lanes; lanes &= lanes - 1) {
            uint32_t pc = w.pc[static_cast<uint32_t>(__builtin_ctz(lanes))];
            if (std::find(pcs.begin(), pcs.begin() + n, pc) == pcs.begin() + n) pcs[n++] = pc;
        }
        if (n == 1) return pcs[0];
        // A group at an aligned CTA barrier waits there for the others: the
        // warp reaches a .aligned barrier together (reconverged), so no lane
        // passes it while another lane of the warp is still before it.
        uint32_t m = 0;
        for (uint32_t k = 0; k < n; ++k)
            if (!at_aligned_barrier(pcs[k])) pcs[m++] = pcs[k];
        if (m == 0) m = n; // all at aligned barriers (synccheck judges a divergent one)
        if (m == 1) return pcs[0];
        n = m;
        // After the scheduler split a converged warp, a group at activemask
        // lets the other groups go first, so that the split (a device for
        // exploring memory orders) does not change which lanes find
        // themselves converged there: coalesced_threads() in straight-line
        // code sees the lanes that real GPUs keep together. Bounded, so a
        // group spinning until the waiting one goes on cannot hold it.
        if (w.explored_split && w.split_waits < 64) {
            m = 0;
            for (uint32_t k = 0; k < n; ++k)
                if (!reads_convergence(function_of(pcs[k]).code[pcs[k] & index_bits].row)) pcs[m++] = pcs[k];
            if (m > 0 && m < n) ++w.split_waits;
            if (m == 1) return pcs[0];
            if (m > 0) n = m;
        }
        uint32_t i = p.s.pick_group(std::span<const uint32_t>(pcs.data(), n));
        return pcs[std::min(i, n - 1)];
    }

    // The lowest PC among runnable lanes reconverges structured code. While
    // lanes are diverged, every 64th choice goes instead to the group that
    // has waited longest, so a lane spinning on a lock held by another lane
    // of its warp cannot starve the holder.
    uint32_t pick_pc(warp_state& w, uint32_t runnable) {
        // Lanes at an aligned CTA barrier wait there for the rest of the
        // warp (see pick_group).
        uint32_t elsewhere = 0;
        for (uint32_t lanes = runnable; lanes; lanes &= lanes - 1) {
            uint32_t l = static_cast<uint32_t>(__builtin_ctz(lanes));
            if (!at_aligned_barrier(w.pc[l])) elsewhere |= 1u << l;
        }
        if (elsewhere) runnable = elsewhere;
        uint32_t lowest = UINT32_MAX, oldest_lane = 0;
        uint64_t oldest = UINT64_MAX;
        bool diverged = false;
        for (uint32_t lanes = runnable; lanes; lanes &= lanes - 1) {
            uint32_t l = static_cast<uint32_t>(__builtin_ctz(lanes));
            if (lowest != UINT32_MAX && w.pc[l] != lowest) diverged = true;
            lowest = std::min(lowest, w.pc[l]);
            if (w.last_run[l] < oldest) {
                oldest = w.last_run[l];
                oldest_lane = l;
            }
        }
        if (!diverged) {
            w.diverged_steps = 0;
            return lowest;
        }
        if (++w.diverged_steps % 64 == 0) return w.pc[oldest_lane];
        return lowest;
    }

    void step(warp_state& w, uint32_t pc, uint32_t mask) {
        const isa::exec_function& fn = function_of(pc);
        const isa::exec_instruction& ins = fn.code[pc & index_bits];
        cur_ = &w;
        cur_ins_ = &ins;
        cur_fn_ = &fn;
        cur_pc_ = pc;
        cur_depth_ = w.depth[static_cast<uint32_t>(__builtin_ctz(mask))];
        frame& f = w.frames[cur_depth_];
        regs = f.regs.data();
        preds = f.preds.data();
        this->pc = w.pc.data();
        exited = 0;
        uint32_t eff = mask;
        if (ins.guard != isa::no_slot) {
            uint32_t g = f.preds[ins.guard];
            eff &= ins.guard_negated ? ~g : g;
        }
        if constexpr (Observed)
            if (watch_) observe_instruction(w, pc, mask, eff, ins);
        ++result_.stats.warp_instructions;
        for (uint32_t lanes = mask; lanes; lanes &= lanes - 1) {
            uint32_t l = static_cast<uint32_t>(__builtin_ctz(lanes));
            ++w.pc[l];
            w.last_run[l] = result_.stats.warp_instructions;
        }
        result_.stats.thread_instructions += static_cast<uint64_t>(__builtin_popcount(mask));
        if constexpr (Observed)
            if (eff && w.wgmma && !w.wgmma->empty()) observe_pending_registers(w, ins, eff);
        if (eff) ins.run(*this, ins, eff);
        if (rewind_) { // lanes went to sleep in the instruction and run it again when woken
            for (uint32_t l = rewind_; l; l &= l - 1) w.pc[static_cast<uint32_t>(__builtin_ctz(l))] = pc;
            rewind_ = 0;
        }
        if (exited) {
            if constexpr (Observed)
                for (uint32_t lanes = w.alive & ~w.exited & ~exited; lanes; lanes &= lanes - 1)
                    if (at_aligned_barrier(w.pc[static_cast<uint32_t>(__builtin_ctz(lanes))])) {
                        w.exited_past_aligned |= exited;
                        break;
                    }
            w.exited |= exited;
            // A warp-synchronous instruction waits only for the members that
            // have not exited (PTX ISA, sm_70 on): lanes waiting for these
            // run their instruction again (their PC is still on it), and
            // meet without them.
            uint32_t retry = 0;
            for (uint32_t lanes = w.sync_wait; lanes; lanes &= lanes - 1) {
                const uint32_t l = static_cast<uint32_t>(__builtin_ctz(lanes));
                if (w.sync_mask[l] & exited) retry |= 1u << l;
            }
            w.sync_wait &= ~retry;
            w.cta->exited_threads += static_cast<uint32_t>(__builtin_popcount(exited));
            release_barriers_if_possible(*w.cta);
            if (w.done()) wake_wgmma_sleepers(*w.cta); // a warp that left no longer holds back its warpgroup
            // An exited thread no longer takes part in barrier.cluster.
            cluster_state& cl = *w.cta->cluster;
            cl.exited_threads += static_cast<uint32_t>(__builtin_popcount(exited));
            cl.arrived -= static_cast<uint32_t>(__builtin_popcount(exited & w.cluster_pending));
            w.cluster_pending &= ~exited;
            w.cluster_arrived &= ~exited;
            release_cluster_if_possible(cl);
        }
    }

    // A debugger hears of the instruction before it runs (sim/events.hpp).
    void observe_instruction(warp_state& w, uint32_t pc, uint32_t mask, uint32_t eff, const isa::exec_instruction& ins) {
        instruction_event e;
        const uint32_t lane = static_cast<uint32_t>(__builtin_ctz(mask));
        e.site.block = w.cta->id;
        e.site.thread = thread_of(w, lane);
        e.site.function_id = static_cast<int32_t>(pc >> 20);
        e.site.pos = ins.pos;
        e.site.cta = w.cta->linear;
        e.site.warp = w.index;
        e.site.lane = lane;
        e.pc = pc;
        e.mask = mask;
        e.active = eff;
        e.ins = &ins;
        e.view = view_.get();
        watch_->instruction(e);
    }

    // ---- exec_context
    bool window(uint64_t addr, uint64_t base, uint64_t& off) {
        if (addr >= base && addr - base < window_size) {
            off = addr - base;
            return true;
        }
        return false;
    }

    // The state space a generic address falls in, and its offset there
    // (global addresses are their own offset). Constant variables are global
    // memory here; generic_space tells them apart for isspacep.
    space classify(uint64_t addr, uint64_t& off) {
        if (window(addr, shared_window, off)) return space::shared;
        if (addr - local_window < local_window_size) {
            off = addr - local_window;
            return space::local;
        }
        if (window(addr, param_window, off)) return space::param;
        off = addr;
        return space::global;
    }

    // Resolves an access to a host pointer in shared, local or param storage,
    // or returns nullptr with `is_global` set for global memory.
    uint8_t* locate(space sp, uint64_t addr, uint32_t bytes, uint32_t lane, bool& is_global, bool writing) {
        is_global = false;
        uint64_t off = addr;
        if (sp == space::generic) sp = classify(addr, off);
        else if (sp == space::shared) off = shared_address_bits(addr);
        uint32_t depth = cur_depth_; // of a .local address
        if (sp == space::local) {
            uint64_t tag = off >> local_depth_shift;
            off &= (1ull << local_depth_shift) - 1;
            if (tag) depth = static_cast<uint32_t>(tag - 1);
            if (depth > cur_depth_ && off < stack_base) {
                fault(fault_kind::invalid_address, lane, addr,
                      fmt::format("local address of call depth {}, which has returned (the thread is at depth {})", depth, cur_depth_));
                return nullptr;
            }
        }
        if (sp == space::global || sp == space::const_) {
            is_global = true;
            return nullptr;
        }
        std::vector<uint8_t>* store = nullptr;
        size_t base = 0, limit = 0;
        const char* name = "";
        if (sp == space::shared) {
            cta_state* owner = shared_owner(off, lane, addr);
            if (!owner) return nullptr;
            store = &owner->shared;
            limit = store->size();
            name = "shared";
        } else if (sp == space::local && off >= stack_base) { // alloca'd
            store = &cur_->stacks[lane].bytes;
            off -= stack_base;
            limit = cur_->stacks[lane].top;
            name = "alloca stack";
        } else if (sp == space::local) {
            store = &cur_->frames[depth].local;
            base = size_t(lane) * max_local_;
            limit = depth == cur_depth_ ? cur_fn_->local_bytes : max_local_;
            name = "local";
        } else if (off >= isa::frame_param_tag) { // a .func's parameters or call-site variables
            store = &cur_->frames[cur_depth_].params;
            off -= isa::frame_param_tag;
            base = size_t(lane) * max_params_;
            limit = cur_fn_->frame_param_bytes;
            name = "param";
        } else {
            if (writing) {
                fault(fault_kind::invalid_address, lane, addr, "store to kernel parameter space");
                return nullptr;
            }
            limit = req_.params.size();
            if (off + bytes > limit || off + bytes < off) {
                fault(fault_kind::out_of_bounds, lane, addr,
                      fmt::format("out-of-bounds param {} of {} bytes at offset {} (parameters are {} bytes)",
                                  writing ? "write" : "read", bytes, off, limit));
                return nullptr;
            }
            return const_cast<uint8_t*>(req_.params.data()) + off;
        }
        if (off + bytes > limit || off + bytes < off) {
            fault(fault_kind::out_of_bounds, lane, addr,
                  fmt::format("out-of-bounds {} {} of {} bytes at offset {} ({} memory is {} bytes)", name,
                              writing ? "write" : "read", bytes, off, name, limit));
            return nullptr;
        }
        if (bytes > 1 && off % bytes != 0) {
            fault(fault_kind::misaligned, lane, addr,
                  fmt::format("misaligned {} {} of {} bytes at offset {}", name, writing ? "write" : "read", bytes, off));
            return nullptr;
        }
        return store->data() + base + off;
    }

    // The CTA whose shared memory a shared::cluster address names, with `off`
    // reduced to the offset there; nullptr after reporting a bad rank.
    cta_state* shared_owner(uint64_t& off, uint32_t lane, uint64_t addr) {
        uint64_t tag = (off >> cluster_rank_shift) & 0x1F;
        if (!tag && off >> (cluster_rank_shift + 5) == 0) return cur_->cta;
        cluster_state& cl = *cur_->cta->cluster;
        if (!tag || tag - 1 >= cl.ctas.size() || off >> (cluster_rank_shift + 5)) {
            fault(fault_kind::invalid_address, lane, addr,
                  fmt::format("shared::cluster address {:#x} names CTA rank {} of a cluster of {}", off,
                              tag ? static_cast<int64_t>(tag) - 1 : -1, cl.ctas.size()));
            return nullptr;
        }
        off &= cta_offset_mask;
        return cl.ctas[tag - 1].get();
    }

    bool global_access(uint64_t addr, uint32_t bytes, uint32_t lane, void* data, bool writing) {
        if (bytes > 1 && addr % bytes != 0) {
            fault(fault_kind::misaligned, lane, addr, fmt::format("misaligned global {} of {} bytes", writing ? "write" : "read", bytes));
            return false;
        }
        fault_kind k = writing ? global_.write(addr, data, bytes) : global_.read(addr, data, bytes);
        if (k == fault_kind::none) return true;
        fault(k, lane, addr, fmt::format("invalid global {} of {} bytes: {}", writing ? "write" : "read", bytes, global_.describe(addr)));
        return false;
    }

    uint8_t* span(space sp, uint64_t lo, uint64_t hi, bool writing) override {
        if constexpr (Observed) return nullptr; // lane by lane, so that each lane's access is an event
        if (hi <= lo) return nullptr;
        uint64_t off = lo;
        if (sp == space::generic) {
            sp = classify(lo, off);
            if (sp == space::local || sp == space::param) return nullptr; // per lane
        } else if (sp == space::shared) {
            off = shared_address_bits(lo);
        }
        if (sp == space::shared) {
            if (off & ~cta_offset_mask) return nullptr; // another CTA's (the lane path checks the rank)
            auto& mem = cur_->cta->shared;
            return off <= mem.size() && hi - lo <= mem.size() - off ? mem.data() + off : nullptr;
        }
        if (sp == space::global || (sp == space::const_ && !writing))
            return reinterpret_cast<uint8_t*>(global_.span(lo, hi - lo));
        // The kernel's parameters, which every lane reads at the same place
        // (locate: below frame_param_tag, read-only, bounds but no alignment).
        if (sp == space::param && !writing && hi <= isa::frame_param_tag && hi <= req_.params.size())
            return const_cast<uint8_t*>(req_.params.data()) + lo;
        return nullptr;
    }

    bool load(space sp, uint64_t addr, uint32_t bytes, uint32_t lane, void* out) override {
        bool ok = do_load(sp, addr, bytes, lane, out);
        if constexpr (Observed) observe_access(access_op::load, sp, addr, bytes, lane, ok, out);
        return ok;
    }

    bool probe(space sp, uint64_t addr, uint32_t bytes, uint32_t lane, void* scratch) override {
        if constexpr (Observed) probing_ = true;
        bool ok = load(sp, addr, bytes, lane, scratch);
        if constexpr (Observed) probing_ = false;
        return ok;
    }

    bool store(space sp, uint64_t addr, uint32_t bytes, uint32_t lane, const void* in) override {
        bool ok = do_store(sp, addr, bytes, lane, in);
        if constexpr (Observed) observe_access(access_op::store, sp, addr, bytes, lane, ok, in);
        return ok;
    }

    void observe_access(access_op op, space sp, uint64_t addr, uint32_t bytes, uint32_t lane, bool ok, const void* data) {
        access_event e;
        e.site = site_of(lane);
        e.address = addr;
        e.size = bytes;
        uint64_t off = addr;
        e.space = sp == space::generic ? classify(addr, off) : sp;
        e.generic = sp == space::generic;
        e.op = op;
        e.fault = ok ? fault_kind::none : last_fault_kind_;
        if (cur_ins_) {
            e.order = cur_ins_->order;
            e.scope = cur_ins_->scope;
        }
        e.landing = landing_;
        e.async_proxy = async_proxy_;
        if (async_proxy_) e.transfer = async_transfer_;
        e.probe = probing_;
        if (ok) {
            e.data = static_cast<const uint8_t*>(data);
            resolve(e.space, off, lane, e.owner, e.offset);
            if (e.space == space::shared && cur_ins_ && cur_ins_->shared_region != isa::exec_instruction::no_region &&
                e.owner == cur_->cta->linear && cur_ins_->shared_region < cur_fn_->shared_regions.size()) {
                const isa::shared_region& v = cur_fn_->shared_regions[cur_ins_->shared_region];
                if (e.offset < v.offset || e.offset + bytes > uint64_t{v.offset} + v.size) e.outside_variable = &v;
            }
        }
        req_.options.observer->access(e);
    }

    uint64_t async_write_issued(space sp, uint64_t addr, uint64_t bytes, uint32_t lane) override {
        if constexpr (Observed) {
            // A piece that continues the lane's previous one (a TMA store's
            // row, element by element) is part of the same copy.
            if (!(last_issue_.lane == lane && last_issue_.warp == cur_ && last_issue_.end == addr && last_issue_.ins == cur_ins_))
                last_issue_.tag = ++issued_;
            last_issue_ = {cur_, cur_ins_, lane, addr + bytes, last_issue_.tag};
            access_event e;
            e.site = site_of(lane);
            e.address = addr;
            e.size = static_cast<uint32_t>(std::min<uint64_t>(bytes, UINT32_MAX));
            uint64_t off = addr;
            e.space = sp == space::generic ? classify(addr, off) : sp;
            e.op = access_op::store;
            e.async_issue = true;
            e.tag = last_issue_.tag;
            resolve(e.space, off, lane, e.owner, e.offset);
            req_.options.observer->access(e);
            return last_issue_.tag;
        } else {
            (void)sp, (void)addr, (void)bytes, (void)lane;
            return 0;
        }
    }

    // Registers that an unfinished wgmma of the warp writes, used by another
    // instruction (wgmma.* themselves may chain on their accumulators).
    void observe_pending_registers(const warp_state& w, const isa::exec_instruction& ins, uint32_t eff) {
        static const std::vector<bool> is_wgmma = [] {
            std::vector<bool> v;
            for (const auto& row : isa::op_table::get().rows()) v.push_back(row.key.rfind("wgmma", 0) == 0);
            return v;
        }();
        if (ins.row < is_wgmma.size() && is_wgmma[ins.row]) return;
        auto check = [&](uint32_t slot) {
            if (slot == isa::no_slot) return;
            if (const isa::wgmma_write* p = w.wgmma->newest(slot))
                req_.options.observer->pending_register({site_of(static_cast<uint32_t>(__builtin_ctz(eff))), slot, p->pos});
        };
        for (uint32_t i = 0; i < ins.nops; ++i) {
            const isa::exec_operand& o = ins.ops[i];
            if (o.kind == isa::opnd::reg || o.kind == isa::opnd::addr) check(o.slot);
            else if (o.kind == isa::opnd::vec)
                for (uint32_t k = 0; k < o.count; ++k) check(o.count > 8 ? isa::sem::vec_slot(o, k) : o.elems[k]);
        }
    }

    // Where a successful access's bytes are (access_event::owner, offset);
    // `off` is the address within its space.
    void resolve(space sp, uint64_t off, uint32_t lane, uint64_t& owner, uint64_t& offset) {
        owner = 0;
        offset = off;
        if (sp == space::shared) {
            uint64_t tag = (off >> cluster_rank_shift) & 0x1F;
            const cluster_state& cl = *cur_->cta->cluster;
            owner = tag && tag - 1 < cl.ctas.size() ? cl.ctas[tag - 1]->linear : cur_->cta->linear;
            offset = off & cta_offset_mask;
        } else if (sp == space::local || sp == space::param) {
            owner = cur_->cta->linear * req_.block.count() + cur_->index * warp_size + lane;
            if (sp == space::local && (off >> local_depth_shift) == 0 && off < stack_base)
                offset = off | uint64_t(cur_depth_ + 1) << local_depth_shift;
        }
    }

    event_site site_of(uint32_t lane) const {
        event_site s;
        s.block = cur_->cta->id;
        s.thread = thread_of(*cur_, lane);
        s.function_id = static_cast<int32_t>(cur_pc_ >> 20);
        s.pos = cur_ins_ ? cur_ins_->pos : 0;
        s.cta = cur_->cta->linear;
        s.warp = cur_->index;
        s.lane = lane;
        return s;
    }

    // ---- synchronisation seen by observers (sim/events.hpp)
    void note(isa::sync_note n, uint32_t mask, uint64_t address, uint32_t arg) override {
        if constexpr (Observed) {
            sync_event e;
            e.site = site_of(static_cast<uint32_t>(__builtin_ctz(mask)));
            e.mask = mask;
            if (cur_ins_) {
                e.order = cur_ins_->order;
                e.scope = cur_ins_->scope;
            }
            switch (n) {
            case isa::sync_note::fence: e.kind = sync_kind::fence; break;
            case isa::sync_note::proxy_fence: e.kind = sync_kind::proxy_fence; break;
            case isa::sync_note::landing_begin: landing_ = true; e.kind = sync_kind::landing_begin; break;
            case isa::sync_note::landing_end: landing_ = false; e.kind = sync_kind::landing_end; break;
            case isa::sync_note::landing_copy: e.kind = sync_kind::landing_copy; e.tag = address; break;
            case isa::sync_note::wgmma_commit: e.kind = sync_kind::wgmma_commit; e.tag = address; break;
            case isa::sync_note::wgmma_wait: e.kind = sync_kind::wgmma_wait; e.tag = address; break;
            case isa::sync_note::async_proxy_begin:
                async_proxy_ = true;
                async_transfer_ = arg;
                return;
            case isa::sync_note::async_proxy_end: async_proxy_ = false; return;
            case isa::sync_note::mbarrier_reset:
            case isa::sync_note::mbarrier_release:
            case isa::sync_note::mbarrier_acquire: {
                e.kind = n == isa::sync_note::mbarrier_reset     ? sync_kind::mbarrier_reset
                         : n == isa::sync_note::mbarrier_release ? sync_kind::mbarrier_release
                                                                 : sync_kind::mbarrier_acquire;
                uint64_t off = address;
                e.owner = mbarrier_owner(off).linear;
                e.offset = off;
                if (n == isa::sync_note::mbarrier_release) {
                    e.completed = arg & 1;
                    e.parity = (arg >> 1) & 1;
                } else {
                    e.parity = arg & 1;
                }
                break;
            }
            }
            req_.options.observer->sync(e);
        } else {
            (void)n, (void)mask, (void)address, (void)arg;
        }
    }

    dim3 thread_of(const warp_state& w, uint32_t lane) const { return thread_index(req_.block, w, lane); }

    bool do_load(space sp, uint64_t addr, uint32_t bytes, uint32_t lane, void* out) {
        bool is_global;
        uint8_t* p = locate(sp, addr, bytes, lane, is_global, false);
        if (is_global) return global_access(addr, bytes, lane, out, false);
        if (!p) return false;
        std::memcpy(out, p, bytes);
        return true;
    }

    bool do_store(space sp, uint64_t addr, uint32_t bytes, uint32_t lane, const void* in) {
        bool is_global;
        uint8_t* p = locate(sp, addr, bytes, lane, is_global, true);
        if (is_global) return global_access(addr, bytes, lane, const_cast<void*>(in), true);
        if (!p) return false;
        std::memcpy(p, in, bytes);
        return true;
    }

    // Atomic across the launch's host threads: a lock chosen by address
    // (shared and local memory belong to one thread's CTA, but the same lock
    // rule keeps this simple).
    bool atomic(space sp, uint64_t addr, uint32_t bytes, uint32_t lane, void* old_out,
                uint64_t (*op)(uint64_t, uint64_t, uint64_t), uint64_t a, uint64_t b) override {
        std::lock_guard<std::mutex> lock(atomic_lock(addr));
        uint64_t old = 0;
        bool ok = do_load(sp, addr, bytes, lane, &old);
        uint64_t nv = ok ? op(old, a, b) : 0;
        ok = ok && do_store(sp, addr, bytes, lane, &nv);
        if constexpr (Observed) observe_access(access_op::atomic, sp, addr, bytes, lane, ok, &nv);
        if (!ok) return false;
        std::memcpy(old_out, &old, bytes);
        return true;
    }

    // One lock per aligned 16 bytes, so a 128-bit atomic and a narrower one
    // inside the same 16 bytes exclude each other.
    std::mutex& atomic_lock(uint64_t addr) { return shared_.atomic_locks[(addr >> 4) % shared_.atomic_locks.size()]; }

    bool atomic_bytes(space sp, uint64_t addr, uint32_t bytes, uint32_t lane, uint8_t* old_out, isa::rmw_bytes op,
                      const void* state) override {
        std::lock_guard<std::mutex> lock(atomic_lock(addr));
        uint8_t v[16];
        if (bytes > sizeof v) return false;
        bool ok = do_load(sp, addr, bytes, lane, v);
        if (ok) {
            std::memcpy(old_out, v, bytes);
            op(v, bytes, state);
            ok = do_store(sp, addr, bytes, lane, v);
        }
        if constexpr (Observed) observe_access(access_op::atomic, sp, addr, bytes, lane, ok, v);
        return ok;
    }

    uint32_t multicast_members(uint64_t addr, uint32_t bytes, uint32_t lane, uint64_t* out, uint32_t max) override {
        auto hit = req_.multicast ? req_.multicast->find(addr, bytes) : std::nullopt;
        if (!hit) {
            fault(fault_kind::invalid_address, lane, addr,
                  fmt::format("multimem access of {} bytes at {:#x}: not inside a multicast object", bytes, addr));
            return 0;
        }
        const auto& members = hit->object->members;
        uint32_t n = static_cast<uint32_t>(std::min<size_t>(members.size(), max));
        for (uint32_t i = 0; i < n; ++i) out[i] = members[i] + hit->offset;
        return n;
    }

    space generic_space(uint64_t addr, uint32_t) override {
        uint64_t off;
        if (space sp = classify(addr, off); sp != space::global) return sp;
        for (const auto& [base, size] : req_.const_ranges)
            if (addr - base < size) return space::const_;
        return space::global;
    }

    bool stack_alloc(uint64_t bytes, uint64_t align, uint32_t lane, uint64_t& addr) override {
        lane_stack& s = cur_->stacks[lane];
        const uint64_t limit = req_.options.stack_bytes;
        uint64_t at = (s.top + align - 1) & ~(align - 1);
        if (at > limit || bytes > limit - at) {
            fault(fault_kind::stack_overflow, lane, 0,
                  fmt::format("alloca of {} bytes overflows the {}-byte per-thread stack ({} bytes in use)", bytes, limit, s.top));
            return false;
        }
        s.top = static_cast<uint32_t>(at + bytes);
        if (s.bytes.size() < s.top) s.bytes.resize(s.top, 0);
        addr = stack_base + at;
        return true;
    }
    uint64_t stack_pointer(uint32_t lane) override { return stack_base + cur_->stacks[lane].top; }
    bool set_stack_pointer(uint64_t sp, uint32_t lane) override {
        // Within this function's part of the stack: from its entry to now.
        uint32_t floor = cur_depth_ && !cur_->returns[lane].empty() ? cur_->returns[lane].back().stack_top : 0;
        lane_stack& s = cur_->stacks[lane];
        if (sp < stack_base + floor || sp > stack_base + s.top) {
            fault(fault_kind::invalid_address, lane, sp,
                  fmt::format("stackrestore to {:#x}, outside this function's stack [{:#x}, {:#x}]", sp, stack_base + floor,
                              stack_base + s.top));
            return false;
        }
        s.top = static_cast<uint32_t>(sp - stack_base);
        return true;
    }

    uint64_t to_generic(space sp, uint64_t addr, uint32_t) override {
        switch (sp) {
        case space::shared: return shared_window + (addr & (window_size - 1));
        case space::local: {
            addr &= local_window_size - 1;
            if ((addr >> local_depth_shift) == 0 && addr < stack_base) addr |= uint64_t(cur_depth_ + 1) << local_depth_shift;
            return local_window + addr;
        }
        case space::param: return param_window + (addr & (window_size - 1));
        default: return addr;
        }
    }
    uint64_t from_generic(space sp, uint64_t addr, uint32_t) override {
        uint64_t off;
        if (sp == space::shared && window(addr, shared_window, off)) return off;
        if (sp == space::local && addr - local_window < local_window_size) return addr - local_window;
        if (sp == space::param && window(addr, param_window, off)) return off;
        return addr;
    }

    // The warp's lanes at once: the thread index as one loop, the values
    // every lane shares (block and grid shape, CTA index) read once, and
    // the rest lane by lane without a virtual call each.
    void special_lanes(special_reg r, uint32_t mask, uint64_t* out) override {
        const uint32_t first = cur_->index * warp_size;
        const dim3& b = req_.block;
        switch (r) {
        case special_reg::tid_x:
            for (uint32_t l = 0; l < warp_size; ++l) out[l] = (first + l) % b.x;
            return;
        case special_reg::tid_y:
            for (uint32_t l = 0; l < warp_size; ++l) out[l] = (first + l) / b.x % b.y;
            return;
        case special_reg::tid_z:
            for (uint32_t l = 0; l < warp_size; ++l) out[l] = (first + l) / (b.x * b.y);
            return;
        case special_reg::ntid_x: case special_reg::ntid_y: case special_reg::ntid_z:
        case special_reg::ctaid_x: case special_reg::ctaid_y: case special_reg::ctaid_z:
        case special_reg::nctaid_x: case special_reg::nctaid_y: case special_reg::nctaid_z: {
            const uint64_t v = engine::special(r, 0);
            for (uint32_t l = 0; l < warp_size; ++l) out[l] = v;
            return;
        }
        default:
            for (uint32_t m = mask; m; m &= m - 1) {
                const uint32_t lane = static_cast<uint32_t>(__builtin_ctz(m));
                out[lane] = engine::special(r, lane);
            }
        }
    }

    uint64_t special(special_reg r, uint32_t lane) override {
        const warp_state& w = *cur_;
        uint32_t t = w.index * warp_size + lane;
        const dim3& b = req_.block;
        const dim3& c = w.cta->id;
        switch (r) {
        case special_reg::tid_x: return t % b.x;
        case special_reg::tid_y: return t / b.x % b.y;
        case special_reg::tid_z: return t / (b.x * b.y);
        case special_reg::ntid_x: return b.x;
        case special_reg::ntid_y: return b.y;
        case special_reg::ntid_z: return b.z;
        case special_reg::ctaid_x: return c.x;
        case special_reg::ctaid_y: return c.y;
        case special_reg::ctaid_z: return c.z;
        case special_reg::nctaid_x: return req_.grid.x;
        case special_reg::nctaid_y: return req_.grid.y;
        case special_reg::nctaid_z: return req_.grid.z;
        case special_reg::laneid: return lane;
        case special_reg::warpid: return w.index;
        case special_reg::nwarpid: return 64;
        case special_reg::smid: // the timing model places CTAs itself; a functional run spreads them over the launch's SMs
            if (timed()) return req_.options.schedule->sm_of(w.cta->linear);
            if (const auto& ids = req_.options.sms; !ids.empty()) return ids[w.cta->linear % ids.size()];
            return static_cast<uint32_t>(w.cta->linear % req_.sm_count);
        case special_reg::nsmid: return req_.sm_count;
        case special_reg::gridid: return 1;
        // A virtual clock: warp-instructions executed so far (deterministic).
        // Untimed: a virtual clock, warp-instructions executed so far
        // (deterministic); under a timing model, its cycle and nanoseconds.
        case special_reg::clock: return clock_now() & 0xFFFFFFFFu;
        case special_reg::clock_hi: return clock_now() >> 32;
        case special_reg::clock64: return clock_now();
        case special_reg::globaltimer: return timer_now(); // untimed: 1 ns per warp-instruction
        case special_reg::globaltimer_lo: return timer_now() & 0xFFFFFFFFu;
        case special_reg::globaltimer_hi: return timer_now() >> 32;
        case special_reg::lanemask_eq: return 1u << lane;
        case special_reg::lanemask_le: return lane == 31 ? ~0u : (2u << lane) - 1;
        case special_reg::lanemask_lt: return (1u << lane) - 1;
        case special_reg::lanemask_ge: return ~((1u << lane) - 1);
        case special_reg::lanemask_gt: return lane == 31 ? 0 : ~((2u << lane) - 1);
        case special_reg::dynamic_smem_size: return req_.dynamic_shared;
        case special_reg::total_smem_size: return req_.dynamic_shared + req_.static_shared;
        case special_reg::clusterid_x: return w.cta->cluster->id.x;
        case special_reg::clusterid_y: return w.cta->cluster->id.y;
        case special_reg::clusterid_z: return w.cta->cluster->id.z;
        case special_reg::nclusterid_x: return req_.grid.x / req_.cluster.x;
        case special_reg::nclusterid_y: return req_.grid.y / req_.cluster.y;
        case special_reg::nclusterid_z: return req_.grid.z / req_.cluster.z;
        case special_reg::cluster_ctaid_x: return w.cta->cluster_ctaid.x;
        case special_reg::cluster_ctaid_y: return w.cta->cluster_ctaid.y;
        case special_reg::cluster_ctaid_z: return w.cta->cluster_ctaid.z;
        case special_reg::cluster_nctaid_x: return req_.cluster.x;
        case special_reg::cluster_nctaid_y: return req_.cluster.y;
        case special_reg::cluster_nctaid_z: return req_.cluster.z;
        case special_reg::cluster_ctarank: return w.cta->rank;
        case special_reg::cluster_nctarank: return req_.cluster.count();
        case special_reg::is_explicit_cluster: return req_.explicit_cluster;
        // The reserved region follows the CTA's own shared memory (empty when
        // no function of the launch names it): offset 0 at its start for
        // one system user, offset 1 half way for another (cooperative
        // groups keeps a multi-warp tile's state there).
        case special_reg::reserved_smem_begin:
        case special_reg::reserved_smem_0: return req_.dynamic_shared + req_.static_shared;
        case special_reg::reserved_smem_1: return req_.dynamic_shared + req_.static_shared + req_.reserved_shared / 2;
        case special_reg::reserved_smem_end:
        case special_reg::reserved_smem_cap:
        case special_reg::aggr_smem_size: return req_.dynamic_shared + req_.static_shared + req_.reserved_shared;
        default: break;
        }
        auto n = static_cast<unsigned>(r) - static_cast<unsigned>(special_reg::envreg0);
        return n < req_.envreg.size() ? req_.envreg[n] : 0;
    }

    void barrier(uint32_t id, uint32_t count, uint32_t mask, bool wait) override {
        cta_state& cta = *cur_->cta;
        if (id >= cta.barriers.size()) {
            fault(fault_kind::invalid_address, static_cast<uint32_t>(__builtin_ctz(mask)), id,
                  fmt::format("barrier {} does not exist (0 to 15)", id));
            return;
        }
        if constexpr (Observed) {
            barrier_event e;
            e.site = site_of(static_cast<uint32_t>(__builtin_ctz(mask)));
            e.id = id;
            e.count = count;
            e.mask = mask;
            e.aligned = isa::sem::barrier_aligned(*cur_ins_);
            e.live = cur_->alive & ~cur_->exited;
            if (e.aligned) {
                e.exited_instead = std::exchange(cur_->exited_past_aligned, 0);
                e.live |= e.exited_instead;
            }
            e.wait = wait;
            req_.options.observer->barrier(e);
            if (observer_stopped()) return;
        }
        barrier_state& b = cta.barriers[id];
        b.expected = count;
        b.arrived += static_cast<uint32_t>(__builtin_popcount(mask));
        if (wait) {
            cur_->waiting |= mask;
            cta.waiters[id].push_back({cur_, mask});
        }
        release_barriers_if_possible(cta);
    }

    void barrier_reduce(uint32_t id, uint32_t count, uint32_t mask, uint32_t votes, isa::bar_reduction op,
                        const isa::exec_operand& dest) override {
        if (id < cur_->cta->barriers.size()) {
            cur_->cta->barriers[id].popc += static_cast<uint32_t>(__builtin_popcount(votes & mask));
            cur_->cta->reduce_waiters[id].push_back({cur_, mask, cur_depth_, op, dest});
        }
        barrier(id, count, mask, true);
    }

    // bar.red completes: each waiting lane gets the count (popc) or whether
    // all (and) or any (or) of the participating threads' predicates held.
    void deliver_reduction(cta_state& cta, uint32_t id, uint32_t arrived) {
        uint32_t popc = cta.barriers[id].popc;
        cta.barriers[id].popc = 0;
        for (auto it = cta.reduce_waiters[id].begin(); it != cta.reduce_waiters[id].end(); ++it) {
            frame& f = it->warp->frames[it->depth];
            bool flag = it->op == isa::bar_reduction::and_ ? popc == arrived : popc != 0;
            for (uint32_t lanes = it->mask; lanes; lanes &= lanes - 1) {
                uint32_t l = static_cast<uint32_t>(__builtin_ctz(lanes));
                if (it->dest.kind == isa::opnd::reg) f.regs[size_t(it->dest.slot) * warp_size + l] = popc;
                else if (it->dest.kind == isa::opnd::pred)
                    f.preds[it->dest.slot] = flag ? f.preds[it->dest.slot] | (1u << l) : f.preds[it->dest.slot] & ~(1u << l);
            }
        }
        cta.reduce_waiters[id].clear();
    }

    void call(const isa::exec_instruction& ins, uint32_t mask) override {
        const isa::exec_call_site& site = cur_fn_->calls[ins.target];
        warp_state& w = *cur_;
        for (uint32_t lanes = mask; lanes && !fault_; lanes &= lanes - 1) {
            uint32_t lane = static_cast<uint32_t>(__builtin_ctz(lanes));
            int32_t callee = site.callee;
            if (site.indirect_slot != isa::no_slot) {
                uint64_t addr = reg(site.indirect_slot, lane);
                auto it = req_.function_addresses.find(addr);
                if (it == req_.function_addresses.end()) {
                    fault(fault_kind::invalid_address, lane, addr, "indirect call to an address that is not a function");
                    return;
                }
                callee = it->second;
            }
            if (callee < 0) {
                call_builtin(static_cast<isa::builtin>(callee), site, lane);
                continue;
            }
            uint32_t d = w.depth[lane];
            if (d + 1 >= max_call_depth) {
                fault(fault_kind::stack_overflow, lane, 0, fmt::format("call depth exceeds {} (runaway recursion?)", max_call_depth));
                return;
            }
            ensure_frame(w, d + 1);
            const isa::exec_function& f = *req_.functions[static_cast<size_t>(callee)];
            uint8_t* from = w.frames[d].params.data() + size_t(lane) * max_params_;
            uint8_t* to = w.frames[d + 1].params.data() + size_t(lane) * max_params_;
            for (size_t i = 0; i < site.args.size() && i < f.formal_params.size(); ++i)
                std::memcpy(to + f.formal_params[i].offset, from + site.args[i].first,
                            std::min(site.args[i].second, f.formal_params[i].size));
            w.returns[lane].push_back({w.pc[lane], &site, w.stacks[lane].top});
            // The callee's .local frame takes its room on the per-thread stack
            // that alloca also uses (cudaLimitStackSize; the kernel's own frame
            // is sized statically and not counted), so deep recursion overflows
            // it as on a GPU. Return gives it back with the alloca'd bytes.
            lane_stack& s = w.stacks[lane];
            if constexpr (Observed)
                req_.options.observer->call({site_of(lane), w.cta->linear * req_.block.count() + w.index * warp_size + lane, d + 1, s.top});
            const uint64_t need = (uint64_t{f.local_bytes} + 15) / 16 * 16, limit = req_.options.stack_bytes;
            if (need > limit || s.top > limit - need) {
                fault(fault_kind::stack_overflow, lane, 0,
                      fmt::format("a call needing {} bytes of stack at depth {} overflows the {}-byte per-thread stack ({} bytes in use; "
                                  "recursion too deep?)",
                                  need, d + 1, limit, s.top));
                return;
            }
            s.top = static_cast<uint32_t>(s.top + need);
            w.depth[lane] = d + 1;
            w.pc[lane] = static_cast<uint32_t>(callee) << 20;
        }
    }

    bool branch_target(uint32_t table, uint64_t index, uint32_t lane, uint32_t& target) override {
        const auto& t = cur_fn_->branch_tables[table];
        if (index >= t.size()) {
            fault(fault_kind::invalid_address, lane, index,
                  fmt::format("brx.idx index {} is outside its {}-entry .branchtargets list", index, t.size()));
            return false;
        }
        target = t[index];
        return true;
    }

    void ret(uint32_t mask) override {
        warp_state& w = *cur_;
        for (uint32_t lanes = mask; lanes; lanes &= lanes - 1) {
            uint32_t lane = static_cast<uint32_t>(__builtin_ctz(lanes));
            uint32_t d = w.depth[lane];
            if (d == 0 || w.returns[lane].empty()) {
                exited |= 1u << lane;
                continue;
            }
            return_entry e = w.returns[lane].back();
            w.returns[lane].pop_back();
            w.stacks[lane].top = e.stack_top;
            const isa::exec_function& f = *cur_fn_;
            uint8_t* from = w.frames[d].params.data() + size_t(lane) * max_params_;
            uint8_t* to = w.frames[d - 1].params.data() + size_t(lane) * max_params_;
            for (size_t i = 0; i < e.site->rets.size() && i < f.formal_rets.size(); ++i)
                std::memcpy(to + e.site->rets[i].first, from + f.formal_rets[i].offset,
                            std::min(e.site->rets[i].second, f.formal_rets[i].size));
            w.depth[lane] = d - 1;
            w.pc[lane] = e.pc;
        }
    }

    // Reads a NUL-terminated string through a generic address (at most 4 KiB).
    std::optional<std::string> read_string(uint64_t addr, uint32_t lane) {
        std::string out;
        for (uint32_t i = 0; i < 4096; ++i) {
            char c = 0;
            if (!load(space::generic, addr + i, 1, lane, &c)) return std::nullopt;
            if (!c) return out;
            out += c;
        }
        return out;
    }

    uint64_t param_arg(const isa::exec_call_site& site, size_t i, uint32_t lane) {
        if (i >= site.args.size()) return 0;
        uint64_t v = 0;
        const uint8_t* p = cur_->frames[cur_depth_].params.data() + size_t(lane) * max_params_ + site.args[i].first;
        std::memcpy(&v, p, std::min<uint32_t>(site.args[i].second, 8));
        return v;
    }

    void call_builtin(isa::builtin b, const isa::exec_call_site& site, uint32_t lane) {
        switch (b) {
        case isa::builtin::vprintf: {
            auto fmt_text = read_string(param_arg(site, 0, lane), lane);
            if (!fmt_text) return;
            std::string text = format_printf(*fmt_text, param_arg(site, 1, lane), lane);
            if (fault_) return;
            if (req_.print) {
                std::lock_guard<std::mutex> lock(shared_.print_mutex);
                req_.print(text);
            }
            if (!site.rets.empty()) { // vprintf returns the number of characters
                int32_t n = static_cast<int32_t>(text.size());
                std::memcpy(cur_->frames[cur_depth_].params.data() + size_t(lane) * max_params_ + site.rets[0].first, &n, 4);
            }
            return;
        }
        case isa::builtin::assertfail: {
            auto message = read_string(param_arg(site, 0, lane), lane).value_or("?");
            auto file = read_string(param_arg(site, 1, lane), lane).value_or("?");
            auto function = read_string(param_arg(site, 3, lane), lane).value_or("?");
            uint32_t line = static_cast<uint32_t>(param_arg(site, 2, lane));
            const dim3& c = cur_->cta->id;
            uint32_t t = cur_->index * warp_size + lane;
            dim3 th{t % req_.block.x, t / req_.block.x % req_.block.y, t / (req_.block.x * req_.block.y)};
            fault(fault_kind::assertion, lane, 0,
                  fmt::format("{}:{}: {}: block: [{},{},{}], thread: [{},{},{}] Assertion `{}` failed.", file, line, function, c.x,
                              c.y, c.z, th.x, th.y, th.z, message));
            return;
        }
        case isa::builtin::malloc: {
            uint64_t size = param_arg(site, 0, lane);
            uint64_t p = req_.heap ? req_.heap->malloc(size, req_.options.malloc_heap_bytes) : 0;
            if constexpr (Observed) req_.options.observer->device_malloc({site_of(lane), size, p});
            if (!site.rets.empty())
                std::memcpy(cur_->frames[cur_depth_].params.data() + size_t(lane) * max_params_ + site.rets[0].first, &p,
                            std::min<uint32_t>(site.rets[0].second, 8));
            return;
        }
        case isa::builtin::free: {
            uint64_t p = param_arg(site, 0, lane);
            std::string why = req_.heap ? req_.heap->free(p) : std::string("device free without a device heap");
            if constexpr (Observed) req_.options.observer->device_free({site_of(lane), p, why});
            if (!why.empty()) fault(fault_kind::invalid_address, lane, p, std::move(why));
            return;
        }
        case isa::builtin::graph_set_conditional: {
            // A conditional graph node's handle is the address of the word it
            // reads (cuda/driver/api_graphs.cpp); outside a graph it faults as a bad address would.
            const uint32_t value = static_cast<uint32_t>(param_arg(site, 1, lane));
            store(space::generic, param_arg(site, 0, lane), 4, lane, &value);
            return;
        }
        default:
            if (b <= isa::builtin::first_cdp && b >= isa::builtin::last_cdp && req_.runtime) {
                call_device_runtime(b, site, lane);
                return;
            }
            fault(fault_kind::unsupported, lane, 0, "an unknown built-in function");
            return;
        }
    }

    // Dynamic parallelism (sim/device_runtime.hpp): the arguments' bytes
    // from the caller's frame, the result into its return variable.
    void call_device_runtime(isa::builtin b, const isa::exec_call_site& site, uint32_t lane) {
        std::array<std::array<uint8_t, 16>, 8> args{};
        const uint8_t* frame = cur_->frames[cur_depth_].params.data() + size_t(lane) * max_params_;
        for (size_t i = 0; i < site.args.size() && i < args.size(); ++i)
            std::memcpy(args[i].data(), frame + site.args[i].first, std::min<uint32_t>(site.args[i].second, 16));
        runtime_call c;
        c.args = std::span<const std::array<uint8_t, 16>>(args.data(), std::min(site.args.size(), args.size()));
        c.cta = cur_->cta->linear;
        c.load = [&](uint64_t addr, void* out, uint32_t n) { return load(space::generic, addr, n, lane, out); };
        c.store = [&](uint64_t addr, const void* in, uint32_t n) { return store(space::generic, addr, n, lane, in); };
        const device_runtime::result r = req_.runtime->call(b, req_, c);
        if (r.faulted || fault_ || site.rets.empty()) return;
        std::memcpy(cur_->frames[cur_depth_].params.data() + size_t(lane) * max_params_ + site.rets[0].first, &r.value,
                    std::min<uint32_t>(site.rets[0].second, 8));
    }

    // CUDA's printf: the argument buffer holds each value at its natural
    // alignment (ints 4 bytes, long long/double/pointers 8).
    std::string format_printf(const std::string& f, uint64_t args, uint32_t lane) {
        return format_device_printf(
            f, args, [&](uint64_t addr, uint32_t bytes, uint64_t& v) { return load(space::generic, addr, bytes, lane, &v); },
            [&](uint64_t addr) { return read_string(addr, lane); });
    }

    // Lanes meet at a warp-synchronous instruction when every live lane its
    // member mask names is there with the same mask (the handler calls this
    // once per mask its lanes give: isa/sem/warp.cpp). bar.warp.sync lanes
    // also meet lanes waiting at another bar.warp.sync with the same member
    // mask (the ISA allows it from sm_70: __syncwarp() on both sides of a
    // branch); shfl, vote, match, redux and elect exchange values, so only
    // lanes at one instruction meet.
    bool warp_sync(uint32_t membermask, uint32_t& mask) override {
        warp_state& w = *cur_;
        uint32_t needed = membermask & w.alive & ~w.exited;
        uint32_t here = mask;
        const bool barrier = cur_ins_->order != isa::mem_order::weak; // bar.warp.sync
        for (uint32_t lanes = w.sync_wait; lanes; lanes &= lanes - 1) {
            uint32_t l = static_cast<uint32_t>(__builtin_ctz(lanes));
            if (w.sync_mask[l] != membermask) continue; // another group: it waits for its own members
            if (w.pc[l] == cur_pc_) {
                here |= 1u << l;
            } else if (barrier) {
                // Another bar.warp.sync: the same handler (shfl, vote ... have their own).
                if (function_of(w.pc[l]).code[w.pc[l] & index_bits].run == cur_ins_->run) here |= 1u << l;
            }
        }
        if constexpr (Observed) {
            warp_sync_event e;
            e.site = site_of(static_cast<uint32_t>(__builtin_ctz(mask)));
            e.membermask = membermask;
            e.mask = (needed & ~here) == 0 ? here : mask;
            e.live = w.alive & ~w.exited;
            e.complete = (needed & ~here) == 0;
            e.orders_memory = cur_ins_ && cur_ins_->order != isa::mem_order::weak;
            req_.options.observer->warp_sync(e);
            if (observer_stopped()) return false;
        }
        if ((needed & ~here) == 0) { // everyone is here: run them together
            uint32_t released = here & w.sync_wait;
            // Each goes on after its own instruction (they wait with the PC on it).
            for (uint32_t lanes = released; lanes; lanes &= lanes - 1) ++w.pc[static_cast<uint32_t>(__builtin_ctz(lanes))];
            w.sync_wait &= ~released;
            mask = here;
            return true;
        }
        for (uint32_t lanes = mask; lanes; lanes &= lanes - 1) {
            const uint32_t l = static_cast<uint32_t>(__builtin_ctz(lanes));
            w.pc[l] = cur_pc_;
            w.sync_mask[l] = membermask;
        }
        w.sync_wait |= mask;
        return false;
    }

    void release_barriers_if_possible(cta_state& cta) {
        for (uint32_t id = 0; id < cta.barriers.size(); ++id) {
            barrier_state& b = cta.barriers[id];
            if (b.arrived == 0) continue;
            // A whole-CTA barrier waits for the threads that have not exited.
            uint32_t needed = b.expected ? b.expected : cta.threads - cta.exited_threads;
            if (b.arrived < needed) continue;
            if constexpr (Observed) {
                req_.options.observer->barrier_release({cta.linear, id, b.arrived});
                if (observer_stopped()) return;
            }
            deliver_reduction(cta, id, b.arrived);
            b.arrived = 0;
            for (auto [w, lanes] : cta.waiters[id]) wake(*w, lanes);
            cta.waiters[id].clear();
        }
    }

    isa::async_lane_state& async_state(uint32_t lane) override {
        if (!cur_->async) cur_->async = std::make_unique<std::array<isa::async_lane_state, warp_size>>();
        return (*cur_->async)[lane];
    }
    // The CTA holding the mbarrier at a shared::cluster address (checked by
    // the access that came first) and its offset there.
    cta_state& mbarrier_owner(uint64_t& offset) {
        uint64_t tag = (offset >> cluster_rank_shift) & 0x1F;
        cluster_state& cl = *cur_->cta->cluster;
        offset &= cta_offset_mask;
        return tag && tag - 1 < cl.ctas.size() ? *cl.ctas[tag - 1] : *cur_->cta;
    }
    isa::write_group& mbarrier_writes(uint64_t offset) override {
        cta_state& owner = mbarrier_owner(offset);
        return owner.mbarrier_writes[offset];
    }
    isa::wgmma_warp_state& wgmma_state() override {
        if (!cur_->wgmma) cur_->wgmma = std::make_unique<isa::wgmma_warp_state>();
        return *cur_->wgmma;
    }
    void relinquish() override { yield_ = true; }

    uint32_t sleep_on_mbarrier(uint64_t offset, uint32_t mask) override {
        uint32_t timed_out = cur_->mbar_timed_out & mask;
        cur_->mbar_timed_out &= ~mask;
        if (uint32_t sleep = mask & ~timed_out) {
            cur_->waiting |= sleep;
            cta_state& owner = mbarrier_owner(offset);
            owner.mbarrier_sleepers[offset].push_back({cur_, sleep});
            rewind_ |= sleep;
        }
        return timed_out;
    }

    void mbarrier_phase_completed(uint64_t offset) override {
        stalled_rounds_ = 0;
        cta_state& owner = mbarrier_owner(offset);
        auto it = owner.mbarrier_sleepers.find(offset);
        if (it == owner.mbarrier_sleepers.end()) return;
        for (auto [w, lanes] : it->second) wake(*w, lanes);
        owner.mbarrier_sleepers.erase(it);
    }

    // ---- thread-block clusters
    void cluster_arrive(uint32_t mask) override {
        warp_state& w = *cur_;
        if (uint32_t twice = mask & w.cluster_arrived) {
            fault(fault_kind::invalid_operation, static_cast<uint32_t>(__builtin_ctz(twice)), 0,
                  "barrier.cluster.arrive again before barrier.cluster.wait");
            return;
        }
        if constexpr (Observed) cluster_note(sync_kind::cluster_arrive, mask);
        w.cluster_arrived |= mask;
        w.cluster_pending |= mask;
        w.cta->cluster->arrived += static_cast<uint32_t>(__builtin_popcount(mask));
        release_cluster_if_possible(*w.cta->cluster);
    }

    void cluster_wait(uint32_t mask) override {
        warp_state& w = *cur_;
        if (uint32_t never = mask & ~w.cluster_arrived) {
            fault(fault_kind::invalid_operation, static_cast<uint32_t>(__builtin_ctz(never)), 0,
                  "barrier.cluster.wait without a preceding barrier.cluster.arrive");
            return;
        }
        if (uint32_t sleep = mask & w.cluster_pending) {
            w.waiting |= sleep;
            w.cta->cluster->waiters.push_back({&w, sleep});
            rewind_ |= sleep;
        }
        if constexpr (Observed)
            if (uint32_t pass = mask & ~w.cluster_pending) cluster_note(sync_kind::cluster_wait, pass);
        w.cluster_arrived &= ~(mask & ~w.cluster_pending);
    }

    // The phase completes when every thread of the cluster that has not
    // exited has arrived.
    void release_cluster_if_possible(cluster_state& cl) {
        if (cl.arrived == 0 || cl.arrived < cl.threads - cl.exited_threads) return;
        cl.arrived = 0;
        stalled_rounds_ = 0;
        if constexpr (Observed) {
            sync_event e;
            e.kind = sync_kind::cluster_release;
            e.owner = cl.ctas.front()->linear;
            req_.options.observer->sync(e);
        }
        for (auto& cta : cl.ctas)
            for (auto& w : cta->warps) w->cluster_pending = 0;
        for (auto [w, lanes] : cl.waiters) wake(*w, lanes);
        cl.waiters.clear();
    }

    void cluster_note(sync_kind k, uint32_t mask) {
        sync_event e;
        e.site = site_of(static_cast<uint32_t>(__builtin_ctz(mask)));
        e.kind = k;
        e.mask = mask;
        if (cur_ins_) {
            e.order = cur_ins_->order;
            e.scope = isa::mem_scope::cluster;
        }
        e.owner = cur_->cta->cluster->ctas.front()->linear;
        req_.options.observer->sync(e);
    }

    bool map_shared_rank(uint64_t addr, bool generic, uint32_t rank, uint32_t lane, uint64_t& out) override {
        uint64_t off = generic ? addr : shared_address_bits(addr);
        if (generic && classify(addr, off) != space::shared) {
            fault(fault_kind::invalid_address, lane, addr, "mapa of a generic address outside shared memory");
            return false;
        }
        const cluster_state& cl = *cur_->cta->cluster;
        if (rank >= cl.ctas.size()) {
            fault(fault_kind::invalid_address, lane, addr, fmt::format("mapa to CTA rank {} of a cluster of {}", rank, cl.ctas.size()));
            return false;
        }
        if ((off & cta_offset_mask) >= cur_->cta->shared.size() || off >> (cluster_rank_shift + 5)) {
            fault(fault_kind::invalid_address, lane, addr,
                  fmt::format("mapa of shared offset {:#x}, outside the CTA's {} bytes of shared memory", off, cur_->cta->shared.size()));
            return false;
        }
        out = (off & cta_offset_mask) | (uint64_t(rank) + 1) << cluster_rank_shift;
        if (generic) out += shared_window;
        return true;
    }

    bool shared_rank(uint64_t addr, bool generic, uint32_t lane, uint32_t& rank) override {
        uint64_t off = generic ? addr : shared_address_bits(addr);
        if (generic && classify(addr, off) != space::shared) {
            fault(fault_kind::invalid_address, lane, addr, "getctarank of a generic address outside shared memory");
            return false;
        }
        cta_state* owner = shared_owner(off, lane, addr);
        if (!owner) return false;
        rank = owner->rank;
        return true;
    }

    // Registers move between the warp and its CTA's pool, 32 threads' worth
    // per step (the hardware does it per warpgroup; four warps' steps add up
    // to the same).
    bool set_max_registers(uint32_t count, bool increase, uint32_t mask) override {
        warp_state& w = *cur_;
        cta_state& cta = *w.cta;
        const uint32_t lane = static_cast<uint32_t>(__builtin_ctz(mask));
        if (increase ? count < w.registers : count > w.registers) {
            fault(fault_kind::invalid_operation, lane, 0,
                  fmt::format("setmaxnreg.{} {} when the warp has {} registers per thread", increase ? "inc" : "dec", count, w.registers));
            return false;
        }
        const uint64_t change = uint64_t(count > w.registers ? count - w.registers : w.registers - count) * warp_size;
        if (!increase) {
            cta.free_registers += change;
            w.registers = count;
            for (auto [sw, lanes] : cta.register_sleepers) wake(*sw, lanes); // they try again
            cta.register_sleepers.clear();
            return true;
        }
        if (cta.free_registers < change) { // wait for another warpgroup's .dec
            w.waiting |= mask;
            cta.register_sleepers.push_back({&w, mask});
            rewind_ |= mask;
            return true;
        }
        cta.free_registers -= change;
        w.registers = count;
        return true;
    }

    bool wgmma_warpgroup_issued(uint64_t groups, uint32_t mask) override {
        warp_state& w = *cur_;
        cta_state& cta = *w.cta;
        const uint32_t first = w.index & ~3u;
        for (uint32_t i = first; i < first + 4 && i < cta.warps.size(); ++i) {
            const warp_state& other = *cta.warps[i];
            if (i == w.index || other.done()) continue;
            if (!other.wgmma || other.wgmma->committed < groups) {
                w.waiting |= mask;
                cta.wgmma_sleepers.push_back({&w, mask});
                rewind_ |= mask;
                return false;
            }
        }
        return true;
    }

    void wgmma_committed() override { wake_wgmma_sleepers(*cur_->cta); }

    void wake_wgmma_sleepers(cta_state& cta) {
        for (auto [sw, lanes] : cta.wgmma_sleepers) wake(*sw, lanes); // they look again
        cta.wgmma_sleepers.clear();
    }

    // Nothing in this thread's CTAs can run: the time limit of every
    // try_wait sleeper passes, and each returns false. True if there were any.
    bool time_out_sleepers(const std::deque<std::unique_ptr<cluster_state>>& live) {
        bool any = false;
        for (auto& cl : live)
        for (auto& cta : cl->ctas) {
            for (auto& [offset, sleepers] : cta->mbarrier_sleepers)
                for (auto [w, lanes] : sleepers) {
                    wake(*w, lanes);
                    w->mbar_timed_out |= lanes;
                    any = true;
                }
            cta->mbarrier_sleepers.clear();
        }
        return any;
    }

    const isa::texture_object* lookup_texture(uint64_t handle) override {
        return req_.textures ? req_.textures->find(handle) : nullptr;
    }

    void fault(fault_kind kind, uint32_t lane, uint64_t addr, std::string message) override {
        last_fault_kind_ = kind;
        if (fault_) return;
        fault_ = true;
        fault_report r;
        static constexpr const char* kinds[] = {"fault", "out-of-bounds access", "misaligned access", "invalid address",
                                                "trap", "unsupported instruction", "stack overflow", "use after free",
                                                "assertion failed", "invalid operation"};
        r.kind = kinds[static_cast<size_t>(kind)];
        if (kind == fault_kind::unsupported) {
            r.message = !message.empty() ? std::move(message)
                        : addr < cur_fn_->unsupported.size() ? cur_fn_->unsupported[addr] : "not implemented";
        } else {
            r.message = std::move(message);
            r.address = addr;
            r.has_address = kind != fault_kind::trap && kind != fault_kind::assertion;
        }
        r.kernel = fn_.name;
        if (cur_fn_ != &fn_) r.message += fmt::format(" (in function '{}')", cur_fn_->name);
        r.block = cur_->cta->id;
        uint32_t t = cur_->index * warp_size + lane;
        r.thread = {t % req_.block.x, t / req_.block.x % req_.block.y, t / (req_.block.x * req_.block.y)};
        if (req_.locate) req_.locate(static_cast<int32_t>(cur_pc_ >> 20), cur_ins_->pos, r);
        publish(std::move(r));
    }

    // An observer ended the launch from the event it was just given
    // (launch_event::stop), or another host thread faulted: stop here too.
    bool observer_stopped() {
        if (!shared_.stop.load(std::memory_order_relaxed)) return false;
        fault_ = true;
        return true;
    }

    // The first fault of any thread is the launch's; every thread stops.
    void publish(fault_report r) {
        fault_ = true;
        std::lock_guard<std::mutex> lock(shared_.fault_mutex);
        if (!shared_.fault) shared_.fault = r;
        result_.fault = std::move(r);
        shared_.stop = true;
    }

    void deadlock(const std::deque<std::unique_ptr<cluster_state>>& live, bool spinning) {
        if constexpr (Observed) {
            req_.options.observer->deadlock(blocked_groups(req_, live, spinning));
            if (observer_stopped()) return; // the observer's stop is the launch's fault
        }
        publish(deadlock_fault(req_, live, spinning));
    }

    // The livelock test: whether the live warps are back in a state they were
    // in, with global memory unchanged (sim/detail/livelock_probe.hpp).
    bool looping(const std::deque<std::unique_ptr<cluster_state>>& live, uint64_t executed) {
        return probe_.looping(live, executed, alone_, global_);
    }

    void runaway(const cta_state& cta, uint64_t executed) {
        fault_report r;
        r.kind = "instruction budget exhausted";
        r.kernel = fn_.name;
        r.block = cta.id;
        for (const auto& w : cta.warps) // the CTA's first thread still running, not dim3's default (1,1,1)
            if (!w->done()) {
                r.thread = thread_of(*w, static_cast<uint32_t>(__builtin_ctz(w->alive & ~w->exited)));
                break;
            }
        r.message = fmt::format("stopped after {} warp-instructions (--max-instructions); the kernel may not terminate",
                                executed);
        publish(std::move(r));
    }

    // Frames deeper than the kernel's may hold any function of the program;
    // the kernel's own (depth 0) only ever holds the kernel's registers, so
    // a small kernel in a module with a large function does not allocate
    // and zero that function's register file in every warp.
    void ensure_frame(warp_state& w, uint32_t depth) {
        while (w.frames.size() <= depth) {
            const bool kernel = w.frames.empty();
            frame f;
            f.regs.assign(size_t(kernel ? fn_.reg_slots : max_regs_) * warp_size, 0);
            f.preds.assign(kernel ? fn_.pred_slots : max_preds_, 0);
            f.params.assign(size_t(max_params_) * warp_size, 0);
            f.local.assign(size_t(max_local_) * warp_size, 0);
            w.frames.push_back(std::move(f));
        }
    }
    const isa::exec_function& function_of(uint32_t pc) const { return *req_.functions[pc >> 20]; }

    const launch_request& req_;
    const isa::exec_function& fn_;
    uint32_t max_regs_ = 0, max_preds_ = 0, max_params_ = 0, max_local_ = 0;
    global_port& global_;
    launch_result result_;
    bool fault_ = false;
    fault_kind last_fault_kind_ = fault_kind::none; // of the last fault() call, for access events
    shared_state& shared_;
    uint32_t resident_;
    bool alone_; // the launch's only host thread
    warp_state* cur_ = nullptr;
    const isa::exec_instruction* cur_ins_ = nullptr;
    const isa::exec_function* cur_fn_ = nullptr;
    uint32_t cur_pc_ = 0;
    uint32_t cur_depth_ = 0;
    bool yield_ = false; // the running warp waits for others (relinquish): end its turn
    bool preempted_ = false; // a scheduler ended the running warp's turn at a preemption point
    bool landing_ = false; // asynchronous copies' writes are landing (observers see it on their access events)
    bool probing_ = false; // the access is a probe (exec_context::probe; observers see it on their access events)
    bool async_proxy_ = false; // accesses are the async proxy's (observers see it on their access events)
    uint32_t async_transfer_ = 0; // the bytes of the async-proxy transfer they belong to
    // Asynchronous writes issued (async_write_issued's tags) and the last one.
    uint64_t issued_ = 0;
    struct {
        const warp_state* warp = nullptr;
        const isa::exec_instruction* ins = nullptr;
        uint32_t lane = 0;
        uint64_t end = 0, tag = 0;
    } last_issue_;
    uint32_t rewind_ = 0; // lanes that went to sleep in the running instruction (sleep_on_mbarrier)
    // Times in a row that nothing could run but try_wait sleepers, woken by
    // their time limit, with no mbarrier phase completing in between.
    uint32_t stalled_rounds_ = 0;
    uint64_t others_seen_ = 0; // other host threads' instruction count at the last such round
    livelock_probe probe_;
    std::vector<std::unique_ptr<cluster_state>> cluster_pool_; // retired clusters, for make_cluster
    // An observer that hears every instruction (a debugger), and its view of the machine.
    observer* watch_ = nullptr;
    std::unique_ptr<engine_view> view_;
};

} // namespace

launch_result run_launch(const launch_request& req, const std::function<std::unique_ptr<global_port>()>& make_port) {
    auto t0 = std::chrono::steady_clock::now();
    shared_state shared;
    // Host threads take whole clusters (of one CTA without cluster dimensions).
    uint32_t resident_clusters = std::max<uint32_t>(1, req.resident_ctas / static_cast<uint32_t>(req.cluster.count()));
    observer* const obs = req.options.observer;
    // Sampling: the first waves run observed and scheduled, the rest plainly after them.
    const uint64_t clusters = req.grid.count() / req.cluster.count();
    uint64_t observed = clusters;
    if ((obs || req.options.schedule) && req.options.sample_waves)
        observed = std::min<uint64_t>(clusters, uint64_t(req.options.sample_waves) * resident_clusters);
    launch_event event;
    // An observer's stop: its report is the launch's fault, and every host thread stops.
    const std::function<void(const stop_request&)> stop = [&](const stop_request& q) {
        fault_report r;
        r.kind = q.kind;
        r.message = q.message;
        r.raised_by = q.by;
        r.kernel = req.kernel->name;
        r.block = q.site.block;
        r.thread = q.site.thread;
        if (req.locate) req.locate(q.site.function_id, q.site.pos, r);
        std::lock_guard<std::mutex> lock(shared.fault_mutex);
        if (!shared.fault) shared.fault = std::move(r);
        shared.stop = true;
    };
    if (obs) {
        event.kernel = req.kernel->name;
        event.grid = req.grid;
        event.block = req.block;
        event.cluster = req.cluster;
        event.occupancy = &req.occupancy;
        event.sms = &req.options.sms;
        event.stream = req.options.stream;
        event.registers_per_thread = req.registers_estimated ? req.registers_per_thread
                                     : req.options.registers_per_thread ? req.options.registers_per_thread
                                                                        : req.kernel->maxnreg;
        event.registers_estimated = req.registers_estimated;
        event.observed_ctas = observed * req.cluster.count();
        event.locate = &req.locate;
        event.stop = &stop;
        event.functions = &req.functions;
        event.kernel_id = req.kernel_id;
        obs->launch_begin(event);
    }
    launch_result out;
    // Runs clusters [shared.next_cta, shared.end_cluster) of `r`.
    auto run_part = [&](const launch_request& r) {
        // A scheduler's order is one host thread's (the same seed, the same interleaving).
        const uint32_t threads =
            r.options.schedule ? 1 : std::max<uint32_t>(1, std::min<uint32_t>(r.options.threads, resident_clusters));
        const uint32_t share = std::max<uint32_t>(1, resident_clusters / threads);
        std::vector<launch_result> results(threads);
        auto work = [&](uint32_t i) {
            auto port = make_port();
            results[i] = r.options.observer ? engine<true>(r, *port, shared, share, threads == 1).run()
                                            : engine<false>(r, *port, shared, share, threads == 1).run();
        };
        if (threads == 1) {
            work(0);
        } else {
            // Plain threads, not a task pool: a CTA spinning on a flag that a CTA
            // on another thread sets needs both to run at the same time.
            std::vector<std::thread> pool;
            for (uint32_t i = 0; i < threads; ++i) pool.emplace_back(work, i);
            for (auto& t : pool) t.join();
        }
        for (const auto& x : results) {
            out.stats.warp_instructions += x.stats.warp_instructions;
            out.stats.thread_instructions += x.stats.thread_instructions;
        }
    };
    shared.end_cluster = observed;
    run_part(req);
    if (observed < clusters && !shared.stop.load()) {
        // A CTA of the observed waves could not have waited for a later one
        // on the GPU either (it would not have been resident), so running
        // the rest after them is an order the GPU could take.
        launch_request rest = req;
        rest.options.observer = nullptr;
        rest.options.schedule = nullptr;
        shared.next_cta = observed;
        shared.end_cluster = clusters;
        run_part(rest);
    }
    out.fault = shared.fault;
    out.ok = !out.fault;
    out.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (obs) obs->launch_end(event, out);
    return out;
}

std::string fault_report::format() const {
    std::string out = fmt::format("ptxsim: {} in kernel '{}'", kind, kernel);
    if (!ptx_file.empty()) out += fmt::format(" at {}:{}", ptx_file, ptx_line);
    if (!source_file.empty()) {
        if (inlined_file.empty()) out += fmt::format(" ({}:{})", source_file, source_line);
        else out += fmt::format(" ({}:{}, inlined from {}:{})", source_file, source_line, inlined_file, inlined_line);
    }
    out += fmt::format("\n  block ({},{},{}) thread ({},{},{})", block.x, block.y, block.z, thread.x, thread.y, thread.z);
    if (has_address) out += fmt::format(" address 0x{:x}", address);
    if (!message.empty()) out += fmt::format("\n  {}", message);
    if (!allocation.empty()) out += fmt::format("\n  {}", allocation);
    return out + "\n";
}

} // namespace ptxsim::sim
