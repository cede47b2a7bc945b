#pragma once
// A debugging session over a launch file (docs/debug.md): the debugger is
// an observer of the engine (sim/events.hpp) that hears every instruction
// before it runs and, where a breakpoint, watchpoint, step, fault or
// finding says so, stops there and reads commands while the engine waits
// inside the event. The machine is deterministic, so going back in time
// is running again from the start, silently, to an earlier instruction
// (reverse-stepi, reverse-step, reverse-continue, last-write).
#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "check/checker.hpp"
#include "check/report.hpp"
#include "debug/expression.hpp"
#include "debug/line_input.hpp"
#include "debug/source_map.hpp"
#include "models/model.hpp"
#include "sim/events.hpp"
#include "sim/launch_file.hpp"
#include "sim/launch_runner.hpp"
#include "sim/schedule_policies.hpp"

namespace ptxsim::sim {
class device;
}

namespace ptxsim::debug {

class session;

// A front end other than the command line (the DAP server, debug/dap.hpp):
// told of each stop, it handles requests until one resumes the program
// (and returns) or throws to restart, kill or quit.
class session_driver {
public:
    virtual ~session_driver() = default;
    virtual void stopped(session& s, const char* kind, const std::string& reason) = 0;
    // Asked now and then while the program runs (every 4,096 instructions).
    virtual bool pause_requested() { return false; }
};

struct session_options {
    bool batch = false;                  // no prompts, no echo of commands read from a file
    bool echo = false;                   // print "(ptxsim) COMMAND" for commands not typed at a terminal
    std::optional<uint64_t> schedule;    // --replay S: the seeded schedule instead of the default order
    std::vector<std::string> tools;      // checkers that run with the program (catch finding)
    isa::validate_options validate;
    uint64_t max_warp_instructions = 2'000'000'000;
};

class session final : public sim::observer {
public:
    // The program: one launch file, or a CUDA program's launches as `ptxsim exec
    // --record` wrote them (each file its own device, run in order).
    session(models::gpu_model model, std::vector<sim::launch_file> files, session_options o, line_input& in, std::ostream& out);
    ~session() override;
    // Reads and carries out commands until quit or the end of input; the
    // exit status: 0, or 1 when a command failed.
    int run();

    // ---- sim::observer
    bool wants_instructions() const override { return true; }
    void instruction(const sim::instruction_event& e) override;
    void launch_begin(const sim::launch_event& e) override;
    void launch_end(const sim::launch_event& e, const sim::launch_result& r) override;
    void access(const sim::access_event& e) override;
    void deadlock(const sim::deadlock_event& e) override;
    void device_malloc(const sim::malloc_event& e) override { checkers_.device_malloc(e); }
    void device_free(const sim::free_event& e) override { checkers_.device_free(e); }
    void call(const sim::call_event& e) override { checkers_.call(e); }
    void barrier(const sim::barrier_event& e) override { checkers_.barrier(e); }
    void barrier_release(const sim::barrier_release_event& e) override { checkers_.barrier_release(e); }
    void warp_sync(const sim::warp_sync_event& e) override { checkers_.warp_sync(e); }
    void sync(const sim::sync_event& e) override {
        if (e.kind == sim::sync_kind::mbarrier_reset) mbarriers_[e.owner].insert(e.offset); // for info cuda mbarriers
        checkers_.sync(e);
    }
    void pending_register(const sim::pending_register_event& e) override { checkers_.pending_register(e); }
    void host_allocate(const sim::host_memory_event& e) override { checkers_.host_allocate(e); }
    void host_write(const sim::host_memory_event& e) override { checkers_.host_write(e); }

    // ---- for front ends other than the command line (debug/api.cpp)
    void attach(session_driver* d) { driver_ = d; }
    // Runs the program as `run` does; false when a command quit the debugger.
    bool start();
    // Carries out a command line as typed; false when it resumed the program
    // (return from session_driver::stopped then). Reverse commands, run,
    // kill and quit leave by exceptions the session catches itself.
    bool command(const std::string& line);
    bool stopped_in_kernel() const { return running(); }
    int program_status() const { return last_status_; } // the last run's (0 ok, 1 fault or mismatch, 2 bad input)
    std::string entry_kernel() const;
    int failed_commands() const { return failed_; }
    struct warp_ref {
        uint64_t cta = 0;
        uint32_t warp = 0;
        std::string name; // "block (0,0,0) warp 1"
    };
    std::vector<warp_ref> live_warps() const;
    struct frame_ref {
        std::string function, file, ptx_file; // file: the CUDA source when known, else the PTX
        uint32_t line = 0, ptx_line = 0;
    };
    // The lane's calls, innermost first; the lane: `lane`, or the warp's first live one when that has exited.
    std::vector<frame_ref> frames(uint64_t cta, uint32_t warp, uint32_t& lane) const;
    // `frame`: 0 where the lane runs, 1 its caller, ...
    std::vector<std::pair<std::string, std::string>> registers(uint64_t cta, uint32_t warp, uint32_t lane, uint32_t frame = 0) const;
    std::vector<std::pair<std::string, std::string>> lane_states(uint64_t cta, uint32_t warp) const;
    // The CUDA variables in scope for a lane (nvcc -G DWARF), innermost first.
    struct local_ref {
        std::string name, type, value;
        bool parameter = false;
    };
    std::vector<local_ref> locals(uint64_t cta, uint32_t warp, uint32_t lane, uint32_t frame = 0) const;
    bool has_source_variables(uint32_t pc) const; // the PTX of the function at pc has DWARF variables
    std::vector<std::pair<std::string, std::string>> shared_variables(uint64_t cta, uint32_t warp) const; // the kernel's static .shared, as words
    // Moves focus to the warp (keeping the lane where it lives).
    void focus_warp(uint64_t cta, uint32_t warp);
    void select_frame(uint32_t frame) { frame_ = frame; } // of the focused thread: 0 innermost (as frame N)
    uint64_t focus_cta() const { return focus_.cta; }
    uint32_t focus_warp_index() const { return focus_.warp(); }
    uint32_t focus_lane() const { return focus_.lane(); }
    // print's value text for EXPR (folded over the focused warp's lanes); throws expr_error.
    std::string evaluate(const std::string& expr, char format = 0);
    // Replaces the breakpoints at lines of `file` (DAP's setBreakpoints):
    // for each, the line it was placed at (0: pending) and its number.
    std::vector<std::pair<uint32_t, int>> set_line_breakpoints(const std::string& file, const std::vector<std::pair<uint32_t, std::string>>& lines);
    std::string resolved_source(const std::string& file); // the path to open for a source a frame names

private:
    // What resuming asks for, until the next stop.
    enum class mode : uint8_t { go, stepi, nexti, step, next, finish };
    // A search pass of a reverse command: what it looks for before `limit`.
    enum class search_kind : uint8_t { warp_instruction, line_start, hit, last_write };

    struct breakpoint {
        int id = 0;
        std::string spec;            // as given: file:line, line or function
        std::string file, function;  // file empty: a function (or the default file)
        uint32_t line = 0;
        std::optional<expression> condition;
        bool enabled = true, temporary = false, noted = false;
        uint64_t ignore = 0;         // hits to pass before the next stop (gdb's ignore count)
        std::vector<uint32_t> pcs;   // in the running launch
        uint64_t hits = 0;
    };
    // A stretch of memory as access events name it (sim::memory_place).
    struct region {
        isa::space space = isa::space::global; // global (const too), shared or local
        uint64_t owner = 0, offset = 0;
        uint32_t size = 0;
        int launch = -1;             // shared and local memory: the launch it belongs to; -1: any
        bool contains(const sim::access_event& e) const;
    };
    struct watchpoint {
        int id = 0;
        char kind = 'w';             // 'w' watch, 'r' rwatch, 'a' awatch
        std::string text;
        region where;
        scalar_type type;
        std::vector<uint8_t> bytes;  // its value as last seen
        bool known = false;
        uint64_t hits = 0;
    };
    struct watch_hit {
        int id = 0;
        bool write = false;
        std::vector<uint8_t> before, after;
        sim::event_site site;
    };
    struct focus_state {
        uint64_t cta = 0;
        uint32_t thread = 0; // linear in the block
        uint32_t warp() const { return thread / 32; }
        uint32_t lane() const { return thread % 32; }
    };
    struct replay_plan {
        bool search = false;
        search_kind kind = search_kind::warp_instruction;
        uint64_t target = 0;         // the ordinal to stop at (no search), or the search's limit
        std::string note;            // printed at the stop
        const char* stop_kind = "step"; // how a front end names the stop (DAP's stopped reasons)
    };
    struct restart_request {
        replay_plan plan;
    };
    struct kill_request {};
    struct quit_request {};
    struct search_done {};
    struct command_error : std::runtime_error {
        using std::runtime_error::runtime_error;
    };
    static constexpr uint64_t fresh_start = UINT64_MAX; // a replay_plan target: run from the start, stopping as usual

    // ---- running (session.cpp)
    void start_program(std::optional<replay_plan> plan);
    int run_once(const std::optional<replay_plan>& plan);
    bool silent() const { return search_.has_value() || (replay_to_ && ordinal_ < *replay_to_); }
    // `kind`: "breakpoint", "step", "exception", "data breakpoint", "pause" (DAP's names).
    void stop(const sim::instruction_event* e, const std::string& reason, const char* kind);
    bool step_finished(const sim::instruction_event& e);
    std::optional<std::string> breakpoint_hit(const sim::instruction_event& e);
    void note_search(const sim::instruction_event& e, uint64_t ordinal);
    replay_plan after_search();
    void quiet_sync(); // a silent pass has shown nothing: what it met is not news at the next stop
    void read_watch_values();
    void request_reverse(search_kind kind, const std::string& note);
    std::optional<std::pair<int, uint32_t>> match_breakpoint(const sim::instruction_event& e);
    std::string pending_reason(); // watchpoint hits and new findings since the last stop, as a stop's reason
    static void apply_bytes(const region& r, const sim::access_event& e, std::vector<uint8_t>& bytes);
    bool read_region(const region& r, std::vector<uint8_t>& bytes) const;
    std::string last_write_text() const;
    void set_focus(uint64_t cta, uint32_t thread);
    void set_focus_thread(sim::dim3 block, sim::dim3 thread);
    focus_state focus_of(sim::dim3 block, sim::dim3 thread) const;

    // ---- commands (commands.cpp)
    // false: resume the program (a run-control command).
    bool execute(const std::string& line);
    bool dispatch(const std::string& cmd, const std::string& args);
    void command_loop();
    void cmd_break(const std::string& args, bool temporary);
    void cmd_watch(const std::string& args, char kind);
    void cmd_delete(const std::string& args);
    void cmd_enable(const std::string& args, bool on);
    void cmd_cuda(const std::string& args);
    bool cmd_resume(const std::string& cmd, const std::string& args);
    void cmd_last_write(const std::string& args);
    void resolve_breakpoints(bool announce);
    void resolve(breakpoint& b, bool announce);
    void cmd_help(const std::string& args);
    std::optional<region> region_of(const expression& e, scalar_type& t, std::string& text);

    // ---- looking (inspect.cpp)
    void cmd_print(const std::string& args, char format);
    std::string print_value(const std::string& args, char format); // "7", "{0-31: 0, 1, ..., 31}"
    void cmd_x(const std::string& format, const std::string& args);
    void x_instructions(uint64_t count, const std::string& where);
    void cmd_info(const std::string& args);
    void cmd_whatis(const std::string& args);
    void cmd_ignore(const std::string& args);
    void cmd_backtrace();
    void cmd_frame(const std::string& cmd, const std::string& args);
    std::vector<uint32_t> focus_frames() const;          // the focused thread's frames' PCs, innermost first (callers at their calls)
    std::string frame_text(size_t i, uint32_t pc) const; // "#1  diverge_call at debug_demo.cu:30 (…ptx:215)"
    void cmd_list(const std::string& args);
    void info_registers(const std::string& args);
    void info_cuda(const std::string& what);
    void info_breakpoints();
    void print_location(uint32_t pc);
    std::string where(uint32_t pc) const;         // "saxpy.cu:7 (saxpy.sm_90a.ptx:34)"
    std::string where_pos(int32_t function_id, uint32_t pos) const; // the same for an event site
    std::string focus_text() const;
    std::optional<uint32_t> focus_pc() const;
    std::string thread_text(sim::dim3 block, sim::dim3 thread) const;
    std::string block_text(sim::dim3 block) const;
    sim::dim3 thread_index(uint32_t linear) const;
    sim::dim3 block_index(uint64_t linear) const;
    const std::string* source_text(const std::string& file, uint32_t line);
    std::string bytes_text(const std::vector<uint8_t>& b, const scalar_type& t) const;
    std::unique_ptr<eval_context> context_for(uint32_t lane) const; // a lane of the focused warp
    std::unique_ptr<eval_context> context_in(uint64_t cta, uint32_t warp, uint32_t lane) const; // the focused warp: in the selected frame
    std::unique_ptr<eval_context> context_at(uint64_t cta, uint32_t warp, uint32_t lane, uint32_t frame) const;
    bool running() const { return view_ != nullptr; }
    void error(const std::string& message);

    models::gpu_model model_;
    std::vector<sim::launch_file> files_;
    std::vector<std::string> modules() const;               // every file's modules
    std::vector<const sim::launch_spec*> launch_specs() const; // every file's launches, in order
    std::vector<uint64_t> file_start_;                     // the ordinal each file's first instruction had (learned as they run)
    session_options opt_;
    line_input& in_;
    std::ostream& out_;

    // The program's run
    bool started_ = false;              // a run is in progress (the engine waits in a stop)
    sim::device* device_ = nullptr;     // the run's device, for module variables
    const sim::machine_view* view_ = nullptr; // while a launch runs
    const sim::instruction_event* event_ = nullptr; // the event stopped at
    std::unique_ptr<source_map> map_;
    std::string kernel_;
    sim::dim3 grid_, block_;
    int launch_ = -1;                   // index of the running launch in the file
    uint64_t ordinal_ = 0;              // instruction events so far in this run (the next one's number)
    uint64_t stop_ordinal_ = 0;
    std::optional<uint64_t> replay_to_;
    std::string replay_note_;
    const char* replay_kind_ = "step";
    const char* pending_kind_ = "step";
    session_driver* driver_ = nullptr;
    mode mode_ = mode::go;
    uint64_t steps_left_ = 0;
    std::pair<std::string, uint32_t> step_from_line_;
    uint32_t step_from_depth_ = 0;
    int stopped_breakpoint_ = 0;
    std::map<uint64_t, std::set<uint64_t>> mbarriers_; // CTA -> shared offsets mbarrier.init has set up, this launch
    uint32_t frame_ = 0;          // the selected frame of the focused thread (frame, up, down); 0 at each stop  // the breakpoint the current stop is at (0: none)
    focus_state focus_;
    bool focus_set_ = false, focus_moved_ = false;
    std::string step_note_;
    std::optional<focus_state> replay_focus_; // where focus goes when a replay arrives
    std::optional<uint64_t> caught_fault_;    // the faulting instruction already stopped before
    const std::function<void(const sim::stop_request&)>* stop_fn_ = nullptr;
    sim::schedule_params schedule_params_;
    bool schedule_measured_ = false;

    // Searching backwards
    struct search_state {
        search_kind kind;
        uint64_t limit = 0;
        std::optional<uint64_t> found;  // the last ordinal that matched before the limit
        std::string found_note;
        focus_state found_focus;
        const char* found_kind = "breakpoint";
        // line_start: the start of the focused lane's current and previous runs of one line
        uint64_t run_start = 0, previous_run_start = 0;
        std::pair<std::string, uint32_t> run_line;
        bool any_run = false, any_previous = false;
    };
    std::optional<search_state> search_;
    focus_state search_focus_;
    // last-write
    struct write_record {
        uint64_t ordinal = 0;
        sim::event_site site;
        std::vector<uint8_t> before, after;
        bool before_known = false;
    };
    std::optional<region> lw_region_;
    scalar_type lw_type_;
    std::string lw_text_;
    std::vector<uint8_t> lw_shadow_;
    bool lw_known_ = false;
    std::optional<write_record> lw_found_;

    // Breakpoints and watchpoints (one numbering, as gdb's)
    int next_id_ = 1;
    std::vector<breakpoint> breakpoints_;
    std::vector<watchpoint> watchpoints_;
    std::vector<watch_hit> pending_hits_;

    // Checkers for catch finding
    std::unique_ptr<check::report> report_;
    std::vector<std::unique_ptr<check::checker>> owned_checkers_;
    check::fanout checkers_;
    uint64_t findings_seen_ = 0;   // occurrences, folded ones included
    size_t findings_listed_ = 0;   // distinct findings already shown
    bool catch_findings_ = false;

    // Values printed ($1, $2 ...), source files read, the last list position
    int value_number_ = 0;
    std::map<std::string, std::vector<std::string>> sources_;
    std::string list_file_;
    uint32_t list_line_ = 0;
    int failed_ = 0;
    int last_status_ = 0;
    std::string last_command_;
};

} // namespace ptxsim::debug
