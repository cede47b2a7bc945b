#pragma once
// What the engine tells an observer (a checker, a tracer) while it runs a
// launch: memory accesses, device malloc/free, barriers, warp-synchronous
// instructions, fences and mbarrier/cluster synchronisation, launch begin
// and end.
//
// Free when nobody listens: the engine is compiled twice (a template
// parameter), and only the instance run for a launch with an observer
// attached (launch_options::observer) contains the calls. The plain
// `ptxsim run` path has no test, no call and keeps its span fast path.
//
// With an observer, every access goes lane by lane through the engine's
// checked path (no whole-warp span shortcut), so each lane's access is one
// event. Calls come from the host threads running the launch, possibly
// several at once (launch_options::threads); an observer that keeps state
// must lock. Events of one lane arrive in program order.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "isa/sem/context.hpp"
#include "models/occupancy.hpp"
#include "sim/inspect.hpp"
#include "sim/launch_types.hpp"

namespace ptxsim::sim {

enum class access_op : uint8_t { load, store, atomic };

// Who and where: the thread, and the instruction as (function id, position
// of the instruction in its function's source) that launch_event::locate
// turns into PTX and CUDA file:line.
struct event_site {
    dim3 block, thread;
    int32_t function_id = 0;
    uint32_t pos = 0;
    uint64_t cta = 0;       // the block's linear index in the grid
    uint32_t warp = 0;      // warp index in the CTA
    uint32_t lane = 0;
};

struct access_event {
    event_site site;
    uint64_t address = 0;          // as the instruction gave it (generic addresses stay generic)
    uint32_t size = 0;             // bytes
    // The state space the access reached: the instruction's, or for a
    // generic address the window it falls in (global outside every window).
    isa::space space = isa::space::global;
    bool generic = false;          // the instruction used a generic address
    access_op op = access_op::load;
    // none when the access succeeded; otherwise why it failed. The engine
    // stops the launch at the first fault, so this is the last access event.
    isa::fault_kind fault = isa::fault_kind::none;
    // The instruction's memory-model qualifiers (weak for a plain ld/st;
    // atomics are relaxed.gpu unless they say otherwise).
    isa::mem_order order = isa::mem_order::weak;
    isa::mem_scope scope = isa::mem_scope::none;
    // Where the bytes are, resolved: for shared memory the owning CTA's
    // linear index and the offset in its shared memory (another CTA's for
    // a shared::cluster address); for local memory the thread's linear index
    // in the grid and the offset in its frame (alloca'd bytes from 2^31; the
    // call depth in bits 32 up); for global and const memory the address
    // (owner 0). Valid only when the access succeeded.
    uint64_t owner = 0, offset = 0;
    // The bytes stored (for an atomic, the new value) or loaded; `size` of
    // them. nullptr when the access failed.
    const uint8_t* data = nullptr;
    // An asynchronous copy's write landing (cp.async, bulk and tensor
    // copies): `site` is the thread whose wait or arrival completed it, not
    // the one that issued it.
    bool landing = false;
    // Not an access yet: an asynchronous copy issued here will write these
    // bytes when it completes (`data` is nullptr). Its landing stores come
    // later, after a sync_event landing_copy with the same `tag`.
    bool async_issue = false;
    uint64_t tag = 0;
    // A read by the async proxy (a bulk or tensor copy's source, a wgmma
    // operand): generic writes reach it only through fence.proxy.async.
    bool async_proxy = false;
    uint32_t transfer = 0; // bytes of the whole bulk or tensor transfer the read is part of (0: not one)
    // A shared access made through a .shared variable of its function
    // (isa/shared_provenance.hpp) that leaves that variable, though not the
    // CTA's shared memory: the variable. nullptr otherwise.
    const isa::shared_region* outside_variable = nullptr;
    // A load that only checks its address (exec_context::probe: an
    // asynchronous copy's destination at issue, an L2 cache-line
    // operation): no value is read.
    bool probe = false;
};

// bar.sync / bar.arrive / bar.red / barrier.*: lanes `mask` of a warp
// arrive at barrier `id` of their CTA, expecting `count` threads (0: all).
struct barrier_event {
    event_site site;     // the first lane of `mask`
    uint32_t id = 0, count = 0;
    uint32_t mask = 0;   // lanes arriving
    uint32_t live = 0;   // lanes of the warp that have not exited
    // Lanes in `live` that exited while the rest of the warp was held at this
    // aligned barrier (the engine reconverges a warp there): they never arrive.
    uint32_t exited_instead = 0;
    bool wait = true;    // false for bar.arrive
    // bar.* and barrier.*.aligned: the PTX ISA requires the whole warp to
    // execute this instruction together. barrier.* without .aligned lets a
    // warp's lanes arrive separately.
    bool aligned = true;
};

// A phase of a CTA barrier completed: every lane waiting at it goes on.
struct barrier_release_event {
    uint64_t cta = 0;
    uint32_t id = 0;
    uint32_t arrived = 0; // threads that took part
};

// A warp-synchronous instruction (shfl/vote/match/redux/elect.sync,
// bar.warp.sync): lanes `mask` reach it naming `membermask`; `complete` when
// every named live lane is there and they run it together (then `mask` is
// all of them). orders_memory: bar.warp.sync, which orders memory among its lanes.
struct warp_sync_event {
    event_site site;
    uint32_t membermask = 0, mask = 0, live = 0;
    bool complete = false;
    bool orders_memory = false;
};

// An instruction other than a wgmma uses register `slot` (as a source or a
// destination) while a wgmma.mma_async of the warp that writes it has not
// been waited for (wgmma.wait_group): its value is undefined in PTX.
struct pending_register_event {
    event_site site;     // the first lane of the instruction
    uint32_t slot = 0;
    uint32_t wgmma_pos = 0; // the wgmma's source position (same function as `site`)
};

enum class sync_kind : uint8_t {
    fence,            // fence / membar: `order`, `scope`
    proxy_fence,      // fence.proxy.*
    mbarrier_reset,   // mbarrier.init / inval
    mbarrier_release, // an arrival or tx update (release); `completed` when it completed a phase of `parity`
    mbarrier_acquire, // a wait found the phase of `parity` complete (acquire)
    landing_begin,    // asynchronous copies' writes land: access events until landing_end are theirs (also flagged `landing`)
    landing_end,
    landing_copy,     // the landing stores that follow are the copy issued with `tag` (access_event::tag)
    cluster_arrive,   // barrier.cluster.arrive (`order`: release, or relaxed)
    cluster_release,  // a phase of the cluster barrier completed (`owner`: the cluster's first CTA)
    cluster_wait,     // barrier.cluster.wait passed (acquire)
    wgmma_commit,     // wgmma.commit_group closed the warp's `tag`-th group (release)
    wgmma_wait,       // wgmma.wait_group completed groups up to the `tag`-th of every warp of the warpgroup (acquire)
};

struct sync_event {
    event_site site;   // the first lane of `mask`
    sync_kind kind = sync_kind::fence;
    uint32_t mask = 0;
    isa::mem_order order = isa::mem_order::weak;
    isa::mem_scope scope = isa::mem_scope::none;
    // An mbarrier: the CTA holding it and its shared offset there.
    uint64_t owner = 0, offset = 0;
    bool completed = false;
    uint32_t parity = 0;
    uint64_t tag = 0;  // landing_copy; wgmma_commit, wgmma_wait: a group count
};

// malloc() in a kernel: `address` is 0 when the heap refused.
struct malloc_event {
    event_site site;
    uint64_t size = 0;
    uint64_t address = 0;
};

// A lane entered a function (a call that is not a builtin such as malloc):
// its frame at call depth `depth` (the kernel's is 0) is new, and so is its
// alloca'd stack from `stack_top` up (access_event offsets: local memory of
// `thread`, depth + 1 in bits 32 up; alloca'd bytes at 2^31 + offset).
struct call_event {
    event_site site;
    uint64_t thread = 0; // the lane's linear index in the grid (access_event::owner)
    uint32_t depth = 0;
    uint64_t stack_top = 0;
};

// free() in a kernel: `error` says why it failed (double free, not a block
// malloc returned), empty when it succeeded. free(NULL) is an event too.
struct free_event {
    event_site site;
    uint64_t address = 0;
    std::string error;
};

// The host side of a launch file (sim/launch_runner.cpp), before the first
// launch: `host_allocate` for a buffer that exists without contents, as
// cudaMalloc leaves it (`name` is the launch file's name for it), then
// `host_write` for bytes the host filled (init, struct contents,
// cudaMemcpyToSymbol). Device memory the runner does not announce (module
// variables, which their module initialises) is initialised by definition.
struct host_memory_event {
    uint64_t address = 0, size = 0;
    std::string name;
};

// A warp is about to run one instruction (only to an observer whose
// wants_instructions() is true: a debugger). The lanes `mask` are at `pc`
// (function id << 20 | instruction index); `active` of them pass its guard.
// `view` shows the whole machine as it is before the instruction runs; it
// is valid during the call only. Events of one launch are numbered in the
// order they happen on its host thread.
struct instruction_event {
    event_site site;     // the first lane of `mask`
    uint32_t pc = 0;
    uint32_t mask = 0, active = 0;
    const isa::exec_instruction* ins = nullptr;
    const machine_view* view = nullptr;
};

// What a group of blocked lanes waits for when the launch deadlocks.
enum class wait_kind : uint8_t {
    cta_barrier,     // bar.sync / barrier.sync / bar.red on barrier `id` of its CTA
    warp_sync,       // a warp-synchronous instruction, for lanes its member mask names
    mbarrier,        // mbarrier.try_wait on the mbarrier at (`owner`, `offset`)
    cluster_barrier, // barrier.cluster.wait
    registers,       // setmaxnreg.inc, for registers another warpgroup has not released
    spin,            // running, in a loop that came back to the same state with memory unchanged (a livelock)
    warpgroup_mma,   // wgmma.wait_group, for other warps of its warpgroup to issue the wgmmas it waits for
};

struct blocked_lanes {
    // The first lane of `mask`, at the instruction it waits in (for a CTA
    // barrier the bar.sync it executed, although its PC has moved past it).
    event_site site;
    wait_kind on = wait_kind::cta_barrier;
    uint32_t mask = 0;   // the lanes of site.warp blocked there
    uint32_t id = 0;     // cta_barrier: the barrier
    uint64_t owner = 0, offset = 0; // mbarrier: the CTA holding it and its shared offset
};

// Nothing can run: every lane of every live CTA on the host thread that
// found it is blocked, or spins (wait_kind::spin): every live warp came back
// to a state it was in, registers, PCs, barriers and shared memory alike,
// with global memory as it was then, so no live thread changes what the
// spinning ones read, and the launch would go round for ever. `waits` lists each blocked group; after this event
// the engine ends the launch with a `deadlock` fault (unless an observer
// stopped it first, see launch_event::stop).
struct deadlock_event {
    std::vector<blocked_lanes> waits;
};

// An observer's request to end the launch (launch_event::stop).
struct stop_request {
    event_site site;     // becomes the fault's location, block and thread
    std::string by;      // the observer's name, e.g. "synccheck": fault_report::raised_by
    std::string kind;    // fault_report::kind
    std::string message;
};

struct launch_event {
    std::string kernel;
    dim3 grid, block;
    dim3 cluster{1, 1, 1}; // cluster dimensions (1,1,1 without clusters)
    // Resident CTAs per SM and what limits them (models/occupancy.hpp), and
    // the SMs the launch may use (all of the model's unless the launch
    // names fewer): for a timing model (sim/timing/).
    const models::occupancy* occupancy = nullptr;
    const std::vector<uint32_t>* sms = nullptr; // empty: every SM of the model
    uint32_t registers_per_thread = 0; // as the launch gave them (0: not known)
    bool registers_estimated = false;  // ... estimated from the PTX (launch_options::estimate_registers)
    uint32_t stream = 0;               // launch_options::stream
    // CTAs that run under the observer (launch_options::sample_waves): the
    // first this many of the grid; the rest run unobserved after them.
    uint64_t observed_ctas = 0;
    // PTX file:line (and CUDA file:line from .loc) of an event_site, into
    // the location fields of a fault_report. Valid until launch end returns.
    const std::function<void(int32_t function_id, uint32_t pos, fault_report&)>* locate = nullptr;
    // Ends the launch as a fault at the request's site would, with the
    // request as the launch's fault report (the first fault of a launch is
    // its fault): for an observer that found behaviour the GPU leaves
    // undefined, where running on would only report its consequences (a
    // deadlock after a bad barrier). Call it from a barrier, barrier_release,
    // warp_sync or deadlock handler: the engine stops as soon as that handler
    // returns. Valid until launch end returns.
    const std::function<void(const stop_request&)>* stop = nullptr;
    // Every function of the program by function id, and the kernel's id.
    const std::vector<const isa::exec_function*>* functions = nullptr;
    int32_t kernel_id = 0;
};

class observer {
public:
    virtual ~observer() = default;
    virtual void launch_begin(const launch_event&) {}
    // After every host thread has stopped; `result.fault` is the fault that
    // stopped the launch, if any (located, with the nearest allocation).
    virtual void launch_end(const launch_event&, const launch_result&) {}
    virtual void access(const access_event&) {}
    virtual void device_malloc(const malloc_event&) {}
    virtual void device_free(const free_event&) {}
    virtual void call(const call_event&) {}
    virtual void barrier(const barrier_event&) {}
    virtual void barrier_release(const barrier_release_event&) {}
    virtual void warp_sync(const warp_sync_event&) {}
    virtual void sync(const sync_event&) {}
    virtual void pending_register(const pending_register_event&) {}
    virtual void host_allocate(const host_memory_event&) {}
    virtual void host_write(const host_memory_event&) {}
    virtual void deadlock(const deadlock_event&) {}
    // Asked once per launch: whether to hear instruction events (a call per
    // warp-instruction, which checkers do without).
    virtual bool wants_instructions() const { return false; }
    virtual void instruction(const instruction_event&) {}
};

} // namespace ptxsim::sim
