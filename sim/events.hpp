#pragma once
// What the engine tells an observer (a checker, a tracer) while it runs a
// launch: memory accesses, device malloc/free, launch begin and end.
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

#include "isa/sem/context.hpp"
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
};

// malloc() in a kernel: `address` is 0 when the heap refused.
struct malloc_event {
    event_site site;
    uint64_t size = 0;
    uint64_t address = 0;
};

// free() in a kernel: `error` says why it failed (double free, not a block
// malloc returned), empty when it succeeded. free(NULL) is an event too.
struct free_event {
    event_site site;
    uint64_t address = 0;
    std::string error;
};

struct launch_event {
    std::string kernel;
    dim3 grid, block;
    // PTX file:line (and CUDA file:line from .loc) of an event_site, into
    // the location fields of a fault_report. Valid until launch end returns.
    const std::function<void(int32_t function_id, uint32_t pos, fault_report&)>* locate = nullptr;
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
};

} // namespace ptxsim::sim
