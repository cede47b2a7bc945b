#pragma once
// `ptxsim prof PROGRAM`: every launch the program makes runs under the
// timing model (sim/timing/), one after the other on one simulated time
// line, and is reported at exit as `ptxsim prof` reports a launch file's.
// tools/cmd_prof.cpp asks for it through the environment: PTXSIM_PROF=1,
// PTXSIM_PROF_REPORT (a file instead of stderr), PTXSIM_PROF_JSON=1,
// PTXSIM_PROF_LINES, PTXSIM_PROF_SAMPLE, PTXSIM_PROF_TRACE, PTXSIM_PROF_SVG.
// Registers per thread come from ptxas -v on each module's PTX when the
// toolkit is found, else from the driver's estimate (the report says so).
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "sim/launch_types.hpp"

namespace ptxsim::sim::timing {
class timing_model;
}

namespace ptxsim::cuda::driver {

class state;
struct function_object;
struct green_context_object;
struct stream_object;

class program_profiling {
public:
    // Null when the program is not being profiled.
    static program_profiling* get();

    // Puts the timing model on a launch of `f` into `stream` (as the program
    // named it: null, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD or one it
    // made) and gives the registers per thread occupancy uses.
    void attach(state& st, const function_object& f, sim::launch_options& o, void* stream);
    // Simulated time in milliseconds (what cudaEventElapsedTime reads under prof).
    double ms(uint64_t cycle) const;

    // The time line's order beyond each stream's (docs/timing.md, "Streams
    // in CUDA programs"): the cycle at which the work queued on `stream`
    // so far ends (an event recorded there completes then); a stream's
    // later work waiting for a cycle (cuStreamWaitEvent); the host waiting
    // for one (a synchronisation), after which what it launches starts no
    // sooner; and the cycle at which everything queued so far ends.
    uint64_t point(state& st, void* stream);
    void stream_waits(state& st, void* stream, uint64_t cycle);
    void host_waits(uint64_t cycle);
    uint64_t everything() const;
    // A green context's streams, its null stream among them.
    // A copy or memset of `bytes` queued on `stream`: after the stream's
    // earlier work (and the legacy stream's order) it takes the host
    // link's time (timing.host_link_gb_per_s, each direction one copy after
    // another) or, on the device, HBM's sustained rate (a copy reads and
    // writes each byte). When it ends.
    enum class transfer { to_device, to_host, on_device, fill };
    uint64_t copy(state& st, void* stream, uint64_t bytes, transfer kind);
    uint64_t point(const green_context_object& g) const;
    void stream_waits(const green_context_object& g, uint64_t cycle);
    // A stream (or a green context's null stream) destroyed: its handle may come back as another.
    void forget(const void* stream_object) { streams_.erase(stream_object); }
    // At exit: the report, the trace and the timeline.
    void finish(state& st);

private:
    program_profiling() = default;
    uint32_t registers(state& st, const function_object& f);
    // The timing model's stream for a stream object (null: the primary
    // context's legacy stream; CU_STREAM_PER_THREAD's own token), made on first use.
    // A stream on the time line: the timing model's stream, whether it
    // keeps step with the primary context's legacy stream (a blocking
    // stream: the legacy stream waits for it and it for the legacy
    // stream), and the green context it belongs to.
    struct line {
        uint32_t id = 0;
        bool blocking = false;
        const green_context_object* green = nullptr;
    };
    // Keyed by the stream object (null: the primary context's legacy
    // stream), made on first use.
    const line& line_of(state& st, void* stream);
    const void* key_of(state& st, void* stream) const;
    uint64_t legacy_point() const;
    std::map<const void*, line> streams_;
    uint32_t next_id_ = 1; // the others' numbers, in the order the program first uses them
    uint64_t host_ = 0;  // the host's time: the latest cycle it waited for
    uint64_t link_free_[2] = {0, 0}; // when the host link is free again, to the device and to the host
    void make_model(state& st);
    // The cycle a stream's next work may start at: the host's last wait and the legacy stream's order.
    uint64_t floor_of(state& st, void* stream);
    std::unique_ptr<sim::timing::timing_model> timing_;
    std::map<size_t, std::map<std::string, uint32_t>> ptxas_;  // module -> kernel -> registers (ptxas -v)
    std::string report_path_, trace_path_, svg_path_, ptxas_path_;
    bool json_ = false, finished_ = false, ptxas_looked_ = false;
    size_t lines_ = 10;
    uint32_t sample_ = 0;
    double clock_mhz_ = 0;
};

} // namespace ptxsim::cuda::driver
