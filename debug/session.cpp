// Running the program under the debugger: the observer side of a session
// (what each engine event does), stops, and the passes that go back in time.
#include "debug/session.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <ostream>
#include <sstream>
#include <streambuf>

#include "sim/device.hpp"
#include "sim/schedule_policies.hpp"
#include "sim/scheduler.hpp"

namespace ptxsim::debug {
namespace {

// Passes output through unless the session runs silently (a replay).
class gated_buf final : public std::streambuf {
public:
    gated_buf(std::streambuf* to, std::function<bool()> open) : to_(to), open_(std::move(open)) {}

protected:
    int overflow(int c) override {
        if (c != EOF && open_()) to_->sputc(static_cast<char>(c));
        return c == EOF ? 0 : c;
    }
    std::streamsize xsputn(const char* p, std::streamsize n) override {
        if (open_()) to_->sputn(p, n);
        return n;
    }

private:
    std::streambuf* to_;
    std::function<bool()> open_;
};

} // namespace

bool session::region::contains(const sim::access_event& e) const {
    auto kind = [](isa::space s) { return s == isa::space::const_ ? isa::space::global : s; };
    if (kind(e.space) != kind(space) || e.owner != owner) return false;
    return e.offset < offset + size && offset < e.offset + e.size;
}

session::session(models::gpu_model model, std::vector<sim::launch_file> files, session_options o, line_input& in, std::ostream& out)
    : model_(std::move(model)), files_(std::move(files)), opt_(std::move(o)), in_(in), out_(out) {}

std::vector<std::string> session::modules() const {
    std::vector<std::string> out;
    for (const auto& f : files_) out.insert(out.end(), f.modules.begin(), f.modules.end());
    return out;
}

std::vector<const sim::launch_spec*> session::launch_specs() const {
    std::vector<const sim::launch_spec*> out;
    for (const auto& f : files_)
        for (const auto& l : f.launches) out.push_back(&l);
    return out;
}

std::string session::entry_kernel() const {
    auto l = launch_specs();
    return l.empty() ? std::string() : l.front()->kernel;
}

session::~session() = default;

int session::run_once(const std::optional<replay_plan>& plan) {
    ordinal_ = 0;
    launch_ = -1;
    view_ = nullptr;
    event_ = nullptr;
    pending_hits_.clear();
    replay_to_.reset();
    search_.reset();
    lw_found_.reset();
    lw_known_ = false;
    mode_ = mode::go;
    for (auto& w : watchpoints_) w.known = false;
    if (plan && plan->search) {
        search_ = search_state{};
        search_->kind = plan->kind;
        search_->limit = plan->target;
    } else if (plan) {
        replay_to_ = plan->target;
        replay_note_ = plan->note;
        replay_kind_ = plan->stop_kind;
    }
    // Checkers start afresh with each run, as the machine does.
    report_ = std::make_unique<check::report>();
    owned_checkers_.clear();
    checkers_ = check::fanout();
    for (const auto& t : opt_.tools) {
        owned_checkers_.push_back(check::make_checker(t, *report_));
        checkers_.add(owned_checkers_.back().get());
    }
    findings_seen_ = 0;
    findings_listed_ = 0;

    // Each file is a checkpoint: a replay starts at the last one that begins at or before its target.
    size_t first = 0;
    if (plan && !plan->search && plan->target != fresh_start)
        while (first + 1 < file_start_.size() && file_start_[first + 1] <= plan->target) ++first;
    ordinal_ = first < file_start_.size() ? file_start_[first] : 0;
    launch_ = -1;
    for (size_t i = 0; i < first; ++i) launch_ += static_cast<int>(files_[i].launches.size());
    sim::run_settings s;
    s.options.observer = this;
    s.options.threads = 1;
    s.options.max_warp_instructions = opt_.max_warp_instructions;
    s.options.print = [this](const std::string& text) {
        if (!silent()) out_ << text;
    };
    s.report_faults = false;
    s.validate = opt_.validate;
    std::unique_ptr<sim::scheduler> sched;
    if (opt_.schedule) {
        sched = sim::make_scheduler(*opt_.schedule, schedule_params_);
        s.options.schedule = sched.get();
    }
    gated_buf gate(out_.rdbuf(), [this] { return !silent(); });
    std::ostream gated(&gate);
    started_ = true;
    int status = 0;
    try {
        for (size_t i = first; i < files_.size(); ++i) {
            if (file_start_.size() <= i) file_start_.resize(i + 1, ordinal_);
            sim::device dev(model_);
            device_ = &dev;
            status = std::max(status, sim::run_launch_file(dev, files_[i], s, gated, gated));
            device_ = nullptr;
            if (status == 2) break;
        }
    } catch (search_done&) {
        started_ = false;
        view_ = nullptr;
        device_ = nullptr;
        throw restart_request{after_search()};
    } catch (...) {
        started_ = false;
        view_ = nullptr;
        device_ = nullptr;
        throw;
    }
    started_ = false;
    view_ = nullptr;
    device_ = nullptr;
    if (search_) { // the program ended before the search's limit: it cannot, the run being the same; go on from the end
        search_.reset();
        replay_to_.reset();
    }
    for (auto& c : owned_checkers_) c->finish();
    last_status_ = status;
    const size_t launches = static_cast<size_t>(launch_ + 1);
    out_ << fmt::format("[Program finished: {} launch{}, exit status {}]\n", launches, launches == 1 ? "" : "es", status);
    return status;
}

void session::start_program(std::optional<replay_plan> plan) {
    if (opt_.schedule && !schedule_measured_) {
        // PCT's change points are sized by the default order's instruction count, as `run --replay` does.
        sim::run_settings s;
        s.report_faults = false;
        s.options.max_warp_instructions = opt_.max_warp_instructions;
        s.options.print = [](const std::string&) {};
        sim::launch_stats measured;
        s.totals = &measured;
        s.validate = opt_.validate;
        std::ostringstream sink;
        for (const auto& f : files_) {
            sim::device one(model_);
            sim::run_launch_file(one, f, s, sink, sink);
        }
        schedule_params_.quantum = s.options.quantum;
        schedule_params_.expected_instructions = std::max<uint64_t>(1, measured.warp_instructions);
        schedule_measured_ = true;
    }
    for (;;) {
        try {
            run_once(plan);
            return;
        } catch (restart_request& r) {
            plan = r.plan;
            if (plan && !plan->search && plan->target == fresh_start) plan.reset();
        } catch (kill_request&) {
            started_ = false;
            view_ = nullptr;
            out_ << "[Program killed]\n";
            return;
        }
    }
}

session::replay_plan session::after_search() {
    search_state s = *search_;
    search_.reset();
    replay_plan p;
    p.target = s.limit;
    switch (s.kind) {
    case search_kind::warp_instruction:
        if (s.found) p.target = *s.found;
        else p.note = "No more reverse-execution history: this is the focused warp's first instruction.";
        break;
    case search_kind::line_start:
        if (s.any_run && s.run_start < s.limit) p.target = s.run_start;
        else if (s.any_previous) p.target = s.previous_run_start;
        else p.note = "No more reverse-execution history: this is the focused thread's first line.";
        break;
    case search_kind::hit:
        if (s.found) {
            p.target = *s.found;
            p.note = s.found_note;
            p.stop_kind = s.found_kind;
            replay_focus_ = s.found_focus;
        } else {
            p.target = 0;
            p.note = "No more reverse-execution history: no breakpoint or watchpoint was hit before; stopped at the program's first instruction.";
            replay_focus_.reset();
        }
        break;
    case search_kind::last_write: break; // answered in place (note_search)
    }
    return p;
}

// ---- observer events

void session::launch_begin(const sim::launch_event& e) {
    ++launch_;
    mbarriers_.clear();
    kernel_ = e.kernel;
    grid_ = e.grid;
    block_ = e.block;
    map_ = std::make_unique<source_map>(*e.functions, *e.locate);
    stop_fn_ = e.stop;
    for (auto& w : watchpoints_) w.known = false;
    if (!silent())
        out_ << fmt::format("[Launch {} of {}: {}<<<({},{},{}),({},{},{})>>>]\n", launch_ + 1, launch_specs().size(), base_name(kernel_),
                            grid_.x, grid_.y, grid_.z, block_.x, block_.y, block_.z);
    resolve_breakpoints(!silent());
    checkers_.launch_begin(e);
}

void session::launch_end(const sim::launch_event& e, const sim::launch_result& r) {
    view_ = nullptr; // the engine is gone
    checkers_.launch_end(e, r);
    if (silent()) {
        findings_seen_ = report_->errors() + report_->warnings();
        findings_listed_ = report_->findings().size();
        return;
    }
    std::string reason = pending_reason();
    if (r.fault && r.fault->raised_by.empty() && r.fault->kind != "deadlock") {
        const uint64_t at = ordinal_ - 1;
        if (!caught_fault_ || *caught_fault_ != at) {
            // Back to just before the instruction that faulted, with the machine live.
            caught_fault_ = at;
            out_ << "\nKernel fault (the launch stops here on a GPU):\n" << r.fault->format() << '\n';
            replay_plan p;
            p.target = at;
            p.note = "Stopped before the faulting instruction runs (focus: the thread that faults).";
            p.stop_kind = "exception";
            replay_focus_ = focus_of(r.fault->block, r.fault->thread);
            throw restart_request{p};
        }
        out_ << "\nThe launch ended with its fault:\n" << r.fault->format() << '\n';
    } else if (r.fault) {
        out_ << "\nThe launch ended with a fault:\n" << r.fault->format() << '\n';
    }
    if (!reason.empty()) stop(nullptr, reason + "(the launch has ended)", pending_kind_);
}

void session::deadlock(const sim::deadlock_event& e) {
    checkers_.deadlock(e);
    if (silent()) return;
    std::string reason = "The launch cannot go on: every live warp waits";
    for (const auto& w : e.waits) {
        static const char* on[] = {"a CTA barrier", "a warp-synchronous instruction", "an mbarrier", "a cluster barrier",
                                   "registers (setmaxnreg)", "nothing that can change (a livelock)", "its warpgroup's wgmma"};
        reason += fmt::format("\n  block ({},{},{}) warp {} lanes {:#010x} wait for {} at {}", w.site.block.x, w.site.block.y,
                              w.site.block.z, w.site.warp, w.mask, on[static_cast<int>(w.on)],
                              map_ ? where_pos(w.site.function_id, w.site.pos) : std::string("?"));
    }
    reason += "\n(continue ends the launch with a deadlock fault)";
    stop(nullptr, reason, "exception");
}

void session::access(const sim::access_event& e) {
    checkers_.access(e);
    if (e.fault != isa::fault_kind::none || e.probe) return;
    const bool write = e.op != sim::access_op::load;
    if (search_ && search_->kind == search_kind::last_write && write && lw_region_ && lw_region_->contains(e) &&
        (lw_region_->launch < 0 || lw_region_->launch == launch_)) {
        write_record w;
        w.ordinal = ordinal_ - 1;
        w.site = e.site;
        w.before_known = lw_known_;
        w.before = lw_shadow_;
        if (e.data) apply_bytes(*lw_region_, e, lw_shadow_);
        w.after = lw_shadow_;
        lw_found_ = std::move(w);
    }
    for (auto& w : watchpoints_) {
        if (!w.where.contains(e) || (w.where.launch >= 0 && w.where.launch != launch_)) continue;
        std::vector<uint8_t> before = w.bytes;
        bool changed = false;
        if (write && e.data) {
            if (w.bytes.size() != w.where.size) w.bytes.assign(w.where.size, 0);
            apply_bytes(w.where, e, w.bytes);
            changed = !w.known || before != w.bytes;
            w.known = true;
        }
        const bool hit = (w.kind == 'w' && write && changed) || (w.kind == 'r' && !write) || w.kind == 'a';
        const bool heard = !silent() || (search_ && search_->kind == search_kind::hit);
        if (hit && heard) pending_hits_.push_back({w.id, write, before, w.bytes, e.site});
    }
}

void session::apply_bytes(const region& r, const sim::access_event& e, std::vector<uint8_t>& bytes) {
    if (bytes.size() != r.size) bytes.assign(r.size, 0);
    const uint64_t lo = std::max(r.offset, e.offset), hi = std::min(r.offset + r.size, e.offset + e.size);
    for (uint64_t a = lo; a < hi; ++a) bytes[a - r.offset] = e.data[a - e.offset];
}

bool session::read_region(const region& r, std::vector<uint8_t>& bytes) const {
    if (!view_) return false;
    bytes.assign(r.size, 0);
    std::string why;
    switch (r.space) {
    case isa::space::shared:
        why = view_->read(isa::space::shared, r.offset, bytes.data(), r.size, r.owner, 0, 0);
        break;
    case isa::space::local: {
        const uint64_t threads = block_.count();
        const uint64_t cta = r.owner / threads, t = r.owner % threads;
        why = view_->read(isa::space::local, r.offset, bytes.data(), r.size, cta, static_cast<uint32_t>(t / 32), static_cast<uint32_t>(t % 32));
        break;
    }
    default: {
        // Global memory is the same from any lane: the first live one reads it.
        auto ctas = view_->live_ctas();
        if (ctas.empty()) return false;
        why = view_->read(isa::space::global, r.offset, bytes.data(), r.size, ctas.front(), 0, 0);
    }
    }
    return why.empty();
}

void session::read_watch_values() {
    for (auto& w : watchpoints_)
        if (!w.known && (w.where.launch < 0 || w.where.launch == launch_)) w.known = read_region(w.where, w.bytes);
}

std::string session::pending_reason() {
    std::string reason;
    pending_kind_ = "step";
    // One paragraph per watchpoint: an instruction's lanes may hit it together.
    for (size_t i = 0; i < pending_hits_.size(); ++i) {
        const watch_hit& h = pending_hits_[i];
        bool first = true;
        for (size_t k = 0; k < i; ++k) first &= pending_hits_[k].id != h.id;
        if (!first) continue;
        pending_kind_ = "data breakpoint";
        auto w = std::find_if(watchpoints_.begin(), watchpoints_.end(), [&](const watchpoint& x) { return x.id == h.id; });
        if (w == watchpoints_.end()) continue;
        const watch_hit* last = &h;
        size_t lanes = 0;
        for (size_t k = i; k < pending_hits_.size(); ++k)
            if (pending_hits_[k].id == h.id) last = &pending_hits_[k], ++lanes;
        ++w->hits;
        const char* kind = w->kind == 'w' ? "Hardware watchpoint" : w->kind == 'r' ? "Hardware read watchpoint" : "Hardware access (read/write) watchpoint";
        reason += fmt::format("{} {}: {}\n\n", kind, w->id, w->text);
        if (h.write) reason += fmt::format("Old value = {}\nNew value = {}\n", bytes_text(h.before, w->type), bytes_text(last->after, w->type));
        else reason += fmt::format("Value = {}\n", bytes_text(last->after, w->type));
        reason += fmt::format("{} by {} at {}{}\n", h.write ? "written" : "read", thread_text(h.site.block, h.site.thread),
                              map_ ? where_pos(h.site.function_id, h.site.pos) : std::string("?"),
                              lanes > 1 ? fmt::format(" (and {} more access{} since the last stop)", lanes - 1, lanes == 2 ? "" : "es") : "");
        set_focus(h.site.cta, h.site.warp * 32 + h.site.lane);
    }
    pending_hits_.clear();
    if (catch_findings_ && report_) {
        const uint64_t now = report_->errors() + report_->warnings();
        if (now > findings_seen_) {
            pending_kind_ = "exception";
            std::ostringstream text;
            // The finding's own text, as ptxsim check prints it; the newest one is last
            // unless it folded into an earlier identical one.
            const auto& all = report_->findings();
            if (all.size() > findings_listed_) {
                for (size_t i = findings_listed_; i < all.size(); ++i) check::print_finding(text, all[i]);
                set_focus_thread(all.back().block, all.back().thread);
                reason += fmt::format("Finding ({} occurrence{}):\n{}", now - findings_seen_, now - findings_seen_ == 1 ? "" : "s", text.str());
            } else {
                reason += fmt::format("Finding: {} more occurrence{} of an earlier finding (folded into it: see 'info findings'):\n", now - findings_seen_,
                                      now - findings_seen_ == 1 ? "" : "s");
            }
            findings_listed_ = all.size();
            findings_seen_ = now;
        }
    }
    return reason;
}

void session::instruction(const sim::instruction_event& e) {
    const uint64_t ord = ordinal_++;
    view_ = e.view;
    checkers_.instruction(e); // initcheck follows values to their uses
    if (search_) {
        note_search(e, ord);
        quiet_sync();
        return;
    }
    if (replay_to_) {
        if (ord < *replay_to_) {
            pending_hits_.clear();
            if (report_) findings_seen_ = report_->errors() + report_->warnings(), findings_listed_ = report_->findings().size();
            return;
        }
        replay_to_.reset();
        pending_hits_.clear();
        if (report_) findings_seen_ = report_->errors() + report_->warnings(), findings_listed_ = report_->findings().size();
        if (replay_focus_) {
            set_focus(replay_focus_->cta, replay_focus_->thread);
            replay_focus_.reset();
        }
        read_watch_values();
        stopped_breakpoint_ = 0;
        stop(&e, replay_note_, replay_kind_);
        return;
    }
    read_watch_values();
    std::string reason = pending_reason();
    const char* kind = pending_kind_;
    stopped_breakpoint_ = 0;
    if (auto b = breakpoint_hit(e)) reason += *b, kind = "breakpoint";
    if (!reason.empty()) stop(&e, reason, kind);
    else if (mode_ != mode::go && step_finished(e)) stop(&e, reason, "step");
    else if (driver_ && (ord & 4095) == 0 && driver_->pause_requested()) stop(&e, "Paused.", "pause");
}

bool session::step_finished(const sim::instruction_event& e) {
    if (e.site.cta != focus_.cta || e.site.warp != focus_.warp()) {
        auto w = view_->warp(focus_.cta, focus_.warp());
        const uint32_t live = w ? w->alive & ~w->exited : 0;
        if (live >> focus_.lane() & 1) return false;
        if (live && (mode_ == mode::stepi || mode_ == mode::nexti)) return false; // instruction steps follow the warp
        // The focused thread is gone: stop at whatever runs next, there.
        step_note_ = fmt::format("[The focused thread has exited; focus moves to {}]", thread_text(e.site.block, e.site.thread));
        set_focus(e.site.cta, e.site.warp * 32 + e.site.lane);
        return true;
    }
    auto w = view_->warp(focus_.cta, focus_.warp());
    if (!w) return false;
    const uint32_t lane = focus_.lane();
    if (!((w->alive & ~w->exited) >> lane & 1)) {
        if (mode_ == mode::stepi || mode_ == mode::nexti) return --steps_left_ == 0;
        // The focused lane has exited; its warp goes on.
        step_note_ = fmt::format("[The focused thread has exited; focus moves to {}]", thread_text(e.site.block, e.site.thread));
        set_focus(e.site.cta, e.site.warp * 32 + e.site.lane);
        return true;
    }
    const uint32_t depth = w->depth[lane];
    switch (mode_) {
    case mode::go: return false;
    case mode::stepi: return --steps_left_ == 0;
    case mode::nexti:
        if (depth > step_from_depth_) return false;
        return --steps_left_ == 0;
    case mode::finish:
        return (e.mask >> lane & 1) && depth < step_from_depth_;
    case mode::step:
    case mode::next: {
        if (!(e.mask >> lane & 1)) return false;
        if (mode_ == mode::next && depth > step_from_depth_) return false;
        if (depth < step_from_depth_) return true;
        auto line = map_->step_line(e.pc);
        if (line == step_from_line_ && depth == step_from_depth_) return false;
        if (line.second == 0) return false;
        if (--steps_left_ == 0) return true;
        step_from_line_ = line;
        step_from_depth_ = depth;
        return false;
    }
    }
    return false;
}

std::optional<std::pair<int, uint32_t>> session::match_breakpoint(const sim::instruction_event& e) {
    for (auto& b : breakpoints_) {
        if (!b.enabled || std::find(b.pcs.begin(), b.pcs.end(), e.pc) == b.pcs.end()) continue;
        // The focused lane first, so a stop keeps the focus when it can.
        uint32_t order[32], n = 0;
        if (e.site.cta == focus_.cta && e.site.warp == focus_.warp() && (e.mask >> focus_.lane() & 1)) order[n++] = focus_.lane();
        for (uint32_t l = e.mask; l; l &= l - 1) {
            uint32_t lane = static_cast<uint32_t>(__builtin_ctz(l));
            if (n == 0 || order[0] != lane) order[n++] = lane;
        }
        for (uint32_t k = 0; k < n; ++k) {
            if (!b.condition) return std::pair{b.id, order[k]};
            try {
                auto c = context_in(e.site.cta, e.site.warp, order[k]);
                if (b.condition->evaluate(*c).truthy()) return std::pair{b.id, order[k]};
            } catch (const expr_error& x) {
                if (!silent()) out_ << fmt::format("Error in testing the condition of breakpoint {}: {}\n", b.id, x.what());
                return std::pair{b.id, order[k]};
            }
        }
    }
    return std::nullopt;
}

std::optional<std::string> session::breakpoint_hit(const sim::instruction_event& e) {
    auto m = match_breakpoint(e);
    if (!m) return std::nullopt;
    auto b = std::find_if(breakpoints_.begin(), breakpoints_.end(), [&](const breakpoint& x) { return x.id == m->first; });
    ++b->hits;
    if (b->ignore) {
        --b->ignore;
        return std::nullopt;
    }
    stopped_breakpoint_ = b->id;
    set_focus(e.site.cta, e.site.warp * 32 + m->second);
    std::string text = fmt::format("{} {}, {}<<<({},{},{}),({},{},{})>>> at {}\n", b->temporary ? "Temporary breakpoint" : "Breakpoint", b->id,
                                   base_name(kernel_), grid_.x, grid_.y, grid_.z, block_.x, block_.y, block_.z, where(e.pc));
    if (b->temporary) breakpoints_.erase(b);
    return text;
}

void session::note_search(const sim::instruction_event& e, uint64_t ord) {
    search_state& s = *search_;
    const bool mine = e.site.cta == search_focus_.cta && e.site.warp == search_focus_.warp();
    switch (s.kind) {
    case search_kind::warp_instruction:
        if (mine && ord < s.limit) s.found = ord;
        break;
    case search_kind::line_start:
        if (mine && (e.mask >> search_focus_.lane() & 1)) {
            auto line = map_->step_line(e.pc);
            if (!s.any_run || line != s.run_line) {
                s.previous_run_start = s.run_start;
                s.any_previous = s.any_run;
                s.run_start = ord;
                s.run_line = line;
                s.any_run = true;
            }
        }
        break;
    case search_kind::hit:
        if (ord < s.limit) {
            std::string note;
            focus_state at{};
            bool hit = false;
            for (const auto& h : pending_hits_) {
                auto w = std::find_if(watchpoints_.begin(), watchpoints_.end(), [&](const watchpoint& x) { return x.id == h.id; });
                if (w == watchpoints_.end()) continue;
                note = fmt::format("Watchpoint {}: {} ({} by {})", w->id, w->text, h.write ? "written" : "read",
                                   thread_text(h.site.block, h.site.thread));
                at = {h.site.cta, h.site.warp * 32 + h.site.lane};
                hit = true;
                s.found_kind = "data breakpoint";
            }
            pending_hits_.clear();
            if (auto m = match_breakpoint(e)) {
                note = fmt::format("Breakpoint {}, {}<<<({},{},{}),({},{},{})>>> at {}", m->first, base_name(kernel_), grid_.x, grid_.y, grid_.z,
                                   block_.x, block_.y, block_.z, where(e.pc));
                at = {e.site.cta, e.site.warp * 32 + m->second};
                hit = true;
                s.found_kind = "breakpoint";
            }
            if (hit) {
                s.found = ord;
                s.found_note = note;
                s.found_focus = at;
            }
        }
        break;
    case search_kind::last_write:
        if (!lw_known_ && lw_region_ && (lw_region_->launch < 0 || lw_region_->launch == launch_)) lw_known_ = read_region(*lw_region_, lw_shadow_);
        break;
    }
    if (ord < s.limit) return;
    if (s.kind == search_kind::last_write) {
        // The machine is where the command was given: answer, and stop here again.
        search_.reset();
        quiet_sync();
        out_ << last_write_text();
        stop(&e, "", "step");
        return;
    }
    throw search_done{};
}

void session::quiet_sync() {
    pending_hits_.clear();
    if (report_) findings_seen_ = report_->errors() + report_->warnings(), findings_listed_ = report_->findings().size();
}

void session::request_reverse(search_kind kind, const std::string& note) {
    if (!running() || !event_) throw command_error("The program is not being run (or has no instruction to go back from).");
    search_focus_ = focus_;
    replay_plan p;
    p.search = true;
    p.kind = kind;
    p.target = stop_ordinal_;
    p.note = note;
    throw restart_request{p};
}

void session::stop(const sim::instruction_event* e, const std::string& reason, const char* kind) {
    frame_ = 0;
    if (e) {
        stop_ordinal_ = ordinal_ - 1;
        if (!focus_set_) set_focus(e->site.cta, e->site.warp * 32 + e->site.lane);
    }
    event_ = e;
    if (e && !focus_pc()) set_focus(e->site.cta, e->site.warp * 32 + e->site.lane); // the focused thread is gone
    out_ << '\n';
    if (!step_note_.empty()) {
        out_ << step_note_ << '\n';
        step_note_.clear();
    }
    if (focus_moved_) {
        out_ << "[Switching focus to " << focus_text() << "]\n";
        focus_moved_ = false;
    }
    if (!reason.empty()) out_ << reason << (reason.back() == '\n' ? "" : "\n");
    if (auto pc = focus_pc()) print_location(*pc);
    mode_ = mode::go;
    if (driver_) driver_->stopped(*this, kind, reason);
    else command_loop();
    event_ = nullptr;
}

void session::set_focus(uint64_t cta, uint32_t thread) {
    frame_ = 0;
    if (focus_set_ && focus_.cta == cta && focus_.thread == thread) return;
    focus_moved_ = !silent();
    focus_ = {cta, thread};
    focus_set_ = true;
}

void session::set_focus_thread(sim::dim3 block, sim::dim3 thread) {
    auto f = focus_of(block, thread);
    set_focus(f.cta, f.thread);
}

session::focus_state session::focus_of(sim::dim3 block, sim::dim3 thread) const {
    focus_state f;
    f.cta = block.x + uint64_t(grid_.x) * (block.y + uint64_t(grid_.y) * block.z);
    f.thread = static_cast<uint32_t>(thread.x + uint64_t(block_.x) * (thread.y + uint64_t(block_.y) * thread.z));
    return f;
}

} // namespace ptxsim::debug
