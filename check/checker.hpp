#pragma once
// A checker: an observer of the engine's events (sim/events.hpp) that adds
// findings to a report, and the fan-out that lets `ptxsim check --tool all`
// attach several to one run.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "check/report.hpp"
#include "sim/events.hpp"

namespace ptxsim::check {

class checker : public sim::observer {
public:
    // After the launch file's last launch (leaks, unfinished state).
    virtual void finish() {}
};

// How checkers locate an event_site (launch_event::locate), and the
// findings built from one: tool, kernel, block, thread, PTX and CUDA
// file:line. `locate` may be null or empty (the location stays blank).
using locator = std::function<void(int32_t function_id, uint32_t pos, sim::fault_report&)>;
finding finding_at(const std::string& tool, const std::string& kernel, const locator* locate, const sim::event_site& s);
// The finding's own location (PTX, CUDA and inlined-from lines) from a located report.
void set_location(finding& f, const sim::fault_report& r);
// A race's other access: the instruction at (function_id, pos), its thread,
// block and size.
void set_other(finding& f, const locator* locate, int32_t function_id, uint32_t pos, sim::dim3 block, sim::dim3 thread, uint32_t size);

// racecheck's reading of `.volatile` loads and stores (docs/check.md,
// "volatile"). They carry release and acquire through a location under
// every model, as PTX says; the models differ in which pairs race.
enum class volatile_model : uint8_t {
    // Per instruction, from where it came from (parser/code_origin.hpp): a
    // .volatile that nvcc or clang emitted for CUDA C++ `volatile` is read
    // as `cuda`, one in inline asm or a hand-written module as `ptx`.
    auto_,
    // CUDA C++: volatile is not atomic and gives lanes of a warp no
    // ordering. Two volatile accesses by lanes of one warp that nothing
    // orders are an intra-warp hazard (the pre-Volta warp-synchronous
    // reduction); between warps, volatile keeps PTX's relaxed.sys (a flag
    // with __threadfence on both sides, as CUDA's own samples write it).
    cuda,
    // PTX: .volatile is relaxed at .sys scope, morally strong: two volatile
    // accesses never race.
    ptx,
    // Every volatile access is plain (weak), between lanes and warps alike
    // (`--volatile-as-plain`).
    plain,
};

// Choices that change what a checker calls an error (docs/check.md).
struct checker_options {
    volatile_model volatile_reading = volatile_model::auto_;
    // racecheck: the lanes of a warp run in lockstep, as before Volta (and as
    // warp-synchronous code without __syncwarp assumes): every access of a
    // warp is ordered after the warp's earlier ones, whichever lane made
    // them, so no intra-warp hazard is reported. Off by default: from sm_70
    // lanes are independent threads (PTX's model).
    bool warp_synchronous = false;
    // racecheck: report only hazards between lanes of one warp (what
    // GPUVerify's --only-warp checks), for code being moved off lockstep
    // warps; races between warps and CTAs are not reported.
    bool only_intra_warp = false;
    // synccheck: CUDA C++'s rule for __syncthreads() and thread_block::sync()
    // (a CTA-wide barrier in conditional code only where the condition is
    // the same across the block): a barrier without a thread count must be
    // reached by every thread of the CTA, at one instruction. The PTX ISA
    // is looser (barrier.sync lets a warp's lanes arrive apart, and threads
    // that exited release a barrier they hold up), so this is off by default.
    bool cuda_barrier_rule = false;
};

// The checkers `ptxsim check --tool` knows, in the order `all` runs them.
const std::vector<std::string>& tool_names();
// nullptr for a name that is not a tool.
std::unique_ptr<checker> make_checker(const std::string& name, report& r, const checker_options& o = {});

// Forwards every event to each checker, in order.
class fanout final : public checker {
public:
    void add(checker* c) { to_.push_back(c); }
    void launch_begin(const sim::launch_event& e) override { for (auto* c : to_) c->launch_begin(e); }
    void launch_end(const sim::launch_event& e, const sim::launch_result& r) override { for (auto* c : to_) c->launch_end(e, r); }
    void access(const sim::access_event& e) override { for (auto* c : to_) c->access(e); }
    void device_malloc(const sim::malloc_event& e) override { for (auto* c : to_) c->device_malloc(e); }
    void device_free(const sim::free_event& e) override { for (auto* c : to_) c->device_free(e); }
    void call(const sim::call_event& e) override { for (auto* c : to_) c->call(e); }
    void barrier(const sim::barrier_event& e) override { for (auto* c : to_) c->barrier(e); }
    void barrier_release(const sim::barrier_release_event& e) override { for (auto* c : to_) c->barrier_release(e); }
    void warp_sync(const sim::warp_sync_event& e) override { for (auto* c : to_) c->warp_sync(e); }
    void sync(const sim::sync_event& e) override { for (auto* c : to_) c->sync(e); }
    void pending_register(const sim::pending_register_event& e) override { for (auto* c : to_) c->pending_register(e); }
    void host_allocate(const sim::host_memory_event& e) override { for (auto* c : to_) c->host_allocate(e); }
    void host_write(const sim::host_memory_event& e) override { for (auto* c : to_) c->host_write(e); }
    void deadlock(const sim::deadlock_event& e) override { for (auto* c : to_) c->deadlock(e); }
    void finish() override { for (auto* c : to_) c->finish(); }
    bool wants_instructions() const override {
        return std::any_of(to_.begin(), to_.end(), [](const checker* c) { return c->wants_instructions(); });
    }
    void instruction(const sim::instruction_event& e) override {
        for (auto* c : to_)
            if (c->wants_instructions()) c->instruction(e);
    }

private:
    std::vector<checker*> to_;
};

} // namespace ptxsim::check
