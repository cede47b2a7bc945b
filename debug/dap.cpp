#include "debug/dap.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "models/model.hpp"
#include "sim/launch_file.hpp"

namespace ptxsim::debug {
namespace {

// DAP thread ids are warps: block linear index * 32 + warp + 1 (a block has at most 32 warps).
int64_t thread_id(uint64_t cta, uint32_t warp) { return static_cast<int64_t>(cta * 32 + warp + 1); }
void thread_of(int64_t id, uint64_t& cta, uint32_t& warp) {
    cta = static_cast<uint64_t>(id - 1) / 32;
    warp = static_cast<uint32_t>((id - 1) % 32);
}
// Frames: thread id * 256 + depth; variable references: frame id * 8 + scope
// (1 registers, 2 lanes, 3 locals: nvcc -G's CUDA variables, 4 the kernel's .shared).
constexpr int64_t frames_per_thread = 256;
constexpr int64_t scopes_per_frame = 8;

} // namespace

dap_server::dap_server(int in_fd, int out_fd, dap_settings s) : in_(in_fd), out_(out_fd), settings_(std::move(s)) {}
dap_server::~dap_server() = default;

std::optional<nlohmann::json> dap_server::read_message(bool wait) {
    for (;;) {
        // A message: "Content-Length: N\r\n\r\n" then N bytes of JSON.
        const size_t header_end = buffer_.find("\r\n\r\n");
        if (header_end != std::string::npos) {
            size_t length = 0;
            const size_t at = buffer_.find("Content-Length:");
            if (at != std::string::npos && at < header_end) length = std::stoul(buffer_.substr(at + 15, header_end - at - 15));
            if (buffer_.size() >= header_end + 4 + length) {
                std::string body = buffer_.substr(header_end + 4, length);
                buffer_.erase(0, header_end + 4 + length);
                json m = json::parse(body, nullptr, false);
                if (m.is_discarded() || !m.is_object()) continue; // not JSON: dropped, as a client cannot be answered about it
                return m;
            }
        }
        pollfd p{in_, POLLIN, 0};
        if (!wait && poll(&p, 1, 0) <= 0) return std::nullopt;
        char chunk[65536];
        ssize_t n = ::read(in_, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return std::nullopt;
        buffer_.append(chunk, static_cast<size_t>(n));
    }
}

void dap_server::send(const json& m) {
    const std::string body = m.dump();
    const std::string all = fmt::format("Content-Length: {}\r\n\r\n{}", body.size(), body);
    for (size_t done = 0; done < all.size();) {
        ssize_t n = ::write(out_, all.data() + done, all.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        done += static_cast<size_t>(n);
    }
}

void dap_server::respond(const json& request, json body) {
    send({{"seq", seq_++}, {"type", "response"}, {"request_seq", request.value("seq", 0)}, {"success", true},
          {"command", request.value("command", "")}, {"body", std::move(body)}});
}

void dap_server::fail(const json& request, const std::string& message) {
    send({{"seq", seq_++}, {"type", "response"}, {"request_seq", request.value("seq", 0)}, {"success", false},
          {"command", request.value("command", "")}, {"message", message}});
}

void dap_server::event(const std::string& name, json body) {
    send({{"seq", seq_++}, {"type", "event"}, {"event", name}, {"body", std::move(body)}});
}

void dap_server::flush_output() {
    std::string t = text_.str();
    if (t.empty()) return;
    text_.str("");
    event("output", {{"category", "console"}, {"output", t}});
}

std::optional<nlohmann::json> dap_server::next_message() {
    if (!queued_.empty()) {
        json m = std::move(queued_.front());
        queued_.pop_front();
        return m;
    }
    return read_message(true);
}

int dap_server::run() {
    while (!done_) {
        auto m = next_message();
        if (!m) break;
        handle(*m);
        flush_output();
    }
    return 0; // the program's own status went to the client in the exited event
}

bool dap_server::launch(const json& r) {
    const json args = r.value("arguments", json::object());
    const std::string program = args.value("program", "");
    if (program.empty()) {
        fail(r, "launch: \"program\" must name a launch file (docs/launch-file.md)");
        return false;
    }
    parser::diagnostics d;
    auto model = models::load_model(args.value("model", settings_.default_model), d);
    auto file = model ? sim::read_launch_file(program, d) : std::nullopt;
    if (!model || !file) {
        std::ostringstream why;
        for (const auto& x : d.all()) parser::print_text(why, x);
        fail(r, why.str());
        return false;
    }
    session_options o;
    o.batch = true;
    if (args.contains("replay")) o.schedule = args.value("replay", uint64_t(0));
    const std::string tool = args.value("tool", "");
    if (tool == "all") o.tools = check::tool_names();
    else if (!tool.empty()) o.tools = {tool};
    for (const auto& t : o.tools) {
        const auto& names = check::tool_names();
        if (std::find(names.begin(), names.end(), t) == names.end()) {
            fail(r, fmt::format("launch: unknown tool '{}' (memcheck, racecheck, initcheck, synccheck or all)", t));
            return false;
        }
    }
    stop_on_entry_ = args.value("stopOnEntry", false);
    static std::istringstream nothing;
    no_input_ = stream_input(nothing);
    std::vector<sim::launch_file> files;
    files.push_back(std::move(*file));
    session_ = std::make_unique<session>(std::move(*model), std::move(files), o, *no_input_, text_);
    session_->attach(this);
    if (!o.tools.empty()) session_->command("catch finding");
    text_.str("");
    respond(r);
    return true;
}

nlohmann::json dap_server::threads() const {
    json list = json::array();
    if (session_ && session_->stopped_in_kernel())
        for (const auto& w : session_->live_warps()) list.push_back({{"id", thread_id(w.cta, w.warp)}, {"name", w.name}});
    if (list.empty()) list.push_back({{"id", 1}, {"name", "no kernel running"}});
    return {{"threads", list}};
}

void dap_server::focus_thread(const json& args) {
    if (!args.contains("threadId") || !session_) return;
    uint64_t cta;
    uint32_t warp;
    thread_of(args.value("threadId", int64_t(1)), cta, warp);
    session_->focus_warp(cta, warp);
}

nlohmann::json dap_server::stack_trace(const json& args) {
    json frames = json::array();
    const int64_t tid = args.value("threadId", int64_t(1));
    uint64_t cta;
    uint32_t warp;
    thread_of(tid, cta, warp);
    uint32_t lane = cta == session_->focus_cta() && warp == session_->focus_warp_index() ? session_->focus_lane() : 32;
    auto fs = session_->frames(cta, warp, lane);
    for (size_t i = 0; i < fs.size() && static_cast<int64_t>(i) < frames_per_thread; ++i) {
        const auto& f = fs[i];
        const std::string path = session_->resolved_source(f.file);
        frames.push_back({{"id", tid * frames_per_thread + static_cast<int64_t>(i)},
                          {"name", fmt::format("{} (lane {}; {}:{})", f.function, lane, std::filesystem::path(f.ptx_file).filename().string(), f.ptx_line)},
                          {"source", {{"name", std::filesystem::path(path).filename().string()}, {"path", path}}},
                          {"line", f.line},
                          {"column", 1}});
    }
    return {{"stackFrames", frames}, {"totalFrames", frames.size()}};
}

nlohmann::json dap_server::scopes(const json& args) {
    const int64_t frame = args.value("frameId", int64_t(0));
    json list = json::array();
    { // each frame's registers and variables (a caller's at its call)
        uint64_t cta;
        uint32_t warp;
        thread_of(frame / frames_per_thread, cta, warp);
        uint32_t lane = cta == session_->focus_cta() && warp == session_->focus_warp_index() ? session_->focus_lane() : 32;
        session_->frames(cta, warp, lane);
        const auto depth = static_cast<uint32_t>(frame % frames_per_thread);
        if (!session_->locals(cta, warp, lane, depth).empty()) // CUDA variables: the PTX has nvcc -G's DWARF
            list.push_back({{"name", "Locals"}, {"variablesReference", frame * scopes_per_frame + 3}, {"expensive", false}});
        list.push_back({{"name", "Registers"}, {"variablesReference", frame * scopes_per_frame + 1}, {"expensive", false}});
    }
    list.push_back({{"name", "Lanes"}, {"variablesReference", frame * scopes_per_frame + 2}, {"expensive", false}});
    list.push_back({{"name", "Shared"}, {"variablesReference", frame * scopes_per_frame + 4}, {"expensive", false}});
    return {{"scopes", list}};
}

nlohmann::json dap_server::variables(const json& args) {
    const int64_t ref = args.value("variablesReference", int64_t(0));
    const int64_t frame = ref / scopes_per_frame, tid = frame / frames_per_thread;
    uint64_t cta;
    uint32_t warp;
    thread_of(tid, cta, warp);
    json list = json::array();
    std::vector<std::pair<std::string, std::string>> vs;
    const int64_t scope = ref % scopes_per_frame;
    if (scope == 1 || scope == 3) {
        uint32_t lane = cta == session_->focus_cta() && warp == session_->focus_warp_index() ? session_->focus_lane() : 32;
        session_->frames(cta, warp, lane); // picks the lane shown
        const auto depth = static_cast<uint32_t>(frame % frames_per_thread);
        if (scope == 1) vs = session_->registers(cta, warp, lane, depth);
        else
            for (const auto& l : session_->locals(cta, warp, lane, depth))
                list.push_back({{"name", l.name}, {"value", l.value}, {"type", l.type}, {"variablesReference", 0}});
    } else if (scope == 2) {
        vs = session_->lane_states(cta, warp);
    } else {
        vs = session_->shared_variables(cta, warp);
    }
    for (const auto& [n, v] : vs) list.push_back({{"name", n}, {"value", v}, {"variablesReference", 0}});
    return {{"variables", list}};
}

bool dap_server::handle(const json& r) {
    const std::string cmd = r.value("command", "");
    const json args = r.value("arguments", json::object());
    if (r.value("type", "") != "request") return true;
    if (cmd == "initialize") {
        respond(r, {{"supportsConfigurationDoneRequest", true},
                    {"supportsConditionalBreakpoints", true},
                    {"supportsFunctionBreakpoints", true},
                    {"supportsStepBack", true},
                    {"supportsEvaluateForHovers", true},
                    {"supportsTerminateRequest", true},
                    {"supportsSteppingGranularity", true},
                    {"exceptionBreakpointFilters", json::array({{{"filter", "fault"}, {"label", "Kernel faults"}, {"default", true}}})}});
        event("initialized");
        return true;
    }
    if (cmd == "disconnect" || cmd == "terminate") {
        respond(r);
        done_ = true;
        if (session_ && in_stop_) session_->command("quit"); // leaves the program by the session's own exception
        return true;
    }
    if (cmd == "launch") return launch(r), true;
    if (!session_) {
        fail(r, fmt::format("{}: send 'launch' first", cmd));
        return true;
    }
    if (cmd == "setBreakpoints") {
        const std::string path = args.value("source", json::object()).value("path", "");
        std::vector<std::pair<uint32_t, std::string>> lines;
        for (const auto& b : args.value("breakpoints", json::array())) lines.push_back({b.value("line", 0u), b.value("condition", "")});
        json out = json::array();
        try {
            for (const auto& [line, id] : session_->set_line_breakpoints(path, lines))
                out.push_back({{"id", id}, {"verified", line != 0}, {"line", line}, {"message", line ? "" : "pending: placed when a launch has code there"}});
        } catch (const std::exception& e) {
            fail(r, e.what());
            return true;
        }
        respond(r, {{"breakpoints", out}});
        return true;
    }
    if (cmd == "setFunctionBreakpoints") {
        json out = json::array();
        for (const auto& b : args.value("breakpoints", json::array())) {
            session_->command("break " + b.value("name", std::string("?")));
            out.push_back({{"verified", true}});
        }
        respond(r, {{"breakpoints", out}});
        return true;
    }
    if (cmd == "setExceptionBreakpoints") return respond(r), true;
    if (cmd == "threads") return respond(r, threads()), true;
    if (cmd == "configurationDone") {
        respond(r);
        if (configured_) return true;
        configured_ = true;
        if (stop_on_entry_) session_->command("tbreak " + session_->entry_kernel());
        if (!session_->start()) done_ = true;
        flush_output();
        exit_code_ = session_->program_status();
        event("exited", {{"exitCode", exit_code_}});
        event("terminated");
        return true;
    }
    if (!in_stop_) {
        fail(r, fmt::format("{}: the program is not stopped", cmd));
        return true;
    }
    if (cmd == "stackTrace") return respond(r, stack_trace(args)), true;
    if (cmd == "scopes") return respond(r, scopes(args)), true;
    if (cmd == "variables") return respond(r, variables(args)), true;
    if (cmd == "evaluate") {
        if (args.contains("frameId")) {
            const int64_t f = args.value("frameId", int64_t(0));
            focus_thread({{"threadId", f / frames_per_thread}});
            session_->select_frame(static_cast<uint32_t>(f % frames_per_thread)); // a caller's frame: its variables
        }
        const std::string e = args.value("expression", "");
        try {
            // The debug console takes commands too: a leading '-' or a known command word runs it.
            if (args.value("context", "") == "repl" && !e.empty() && e[0] == '-') {
                session_->command(e.substr(1));
                std::string t = text_.str();
                text_.str("");
                respond(r, {{"result", t}, {"variablesReference", 0}});
                return true;
            }
            respond(r, {{"result", session_->evaluate(e)}, {"variablesReference", 0}});
        } catch (const std::exception& x) {
            fail(r, x.what());
        }
        return true;
    }
    if (cmd == "pause") return respond(r), true; // already stopped
    static const std::pair<const char*, const char*> steps[] = {
        {"continue", "continue"}, {"next", "next"}, {"stepIn", "step"}, {"stepOut", "finish"}, {"stepBack", "reverse-step"},
        {"reverseContinue", "reverse-continue"}};
    for (const auto& [dap, gdb] : steps) {
        if (cmd != dap) continue;
        focus_thread(args);
        std::string line = gdb;
        if (args.value("granularity", "") == "instruction") {
            if (line == "next") line = "nexti";
            else if (line == "step") line = "stepi";
            else if (line == "reverse-step") line = "reverse-stepi";
        }
        respond(r, cmd == "continue" ? json{{"allThreadsContinued", true}} : json::object());
        flush_output();
        // Resuming commands return false; reverse ones throw to re-run (through the session).
        if (!session_->command(line)) return false;
        flush_output(); // the command failed (e.g. finish in the outermost frame): still stopped
        event("stopped", {{"reason", "step"}, {"threadId", thread_id(session_->focus_cta(), session_->focus_warp_index())},
                          {"allThreadsStopped", true}});
        return true;
    }
    fail(r, fmt::format("'{}' is not supported by ptxsim dap", cmd));
    return true;
}

void dap_server::stopped(session& s, const char* kind, const std::string& reason) {
    flush_output();
    event("stopped", {{"reason", kind},
                      {"description", reason.empty() ? std::string(kind) : reason.substr(0, reason.find('\n'))},
                      {"text", reason},
                      {"threadId", thread_id(s.focus_cta(), s.focus_warp_index())},
                      {"allThreadsStopped", true}});
    in_stop_ = true;
    while (!done_) {
        auto m = next_message();
        if (!m) {
            done_ = true;
            break;
        }
        bool stay = handle(*m);
        flush_output();
        if (!stay) break;
    }
    in_stop_ = false;
    if (done_) s.command("quit");
}

bool dap_server::pause_requested() {
    flush_output();
    // Requests that come while the program runs: pause stops it; the rest wait for the stop.
    while (auto m = read_message(false)) {
        if (m->value("command", "") == "pause") {
            respond(*m);
            return true;
        }
        if (m->value("command", "") == "threads") {
            respond(*m, threads());
            continue;
        }
        queued_.push_back(std::move(*m));
    }
    return false;
}

} // namespace ptxsim::debug
