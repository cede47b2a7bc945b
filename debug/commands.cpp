// The debugger's commands: reading them, run control, breakpoints,
// watchpoints, focus and the reverse commands (docs/debug.md).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <sstream>

#include "debug/session.hpp"

namespace ptxsim::debug {
namespace {

std::string trim(const std::string& s) {
    size_t a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
    return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

// gdb's names and abbreviations for the commands, mapped to one spelling.
std::string canonical(const std::string& c) {
    static const std::pair<const char*, const char*> aliases[] = {
        {"b", "break"},        {"br", "break"},         {"tb", "tbreak"},       {"r", "run"},
        {"c", "continue"},     {"cont", "continue"},    {"s", "step"},          {"n", "next"},
        {"si", "stepi"},       {"ni", "nexti"},         {"fin", "finish"},      {"p", "print"},
        {"bt", "backtrace"},   {"f", "frame"},   {"where", "backtrace"},  {"l", "list"},          {"i", "info"},
        {"d", "delete"},       {"q", "quit"},           {"h", "help"},          {"k", "kill"},
        {"rsi", "reverse-stepi"}, {"rs", "reverse-step"}, {"rn", "reverse-next"}, {"rc", "reverse-continue"},
        {"inspect", "print"},  {"exit", "quit"},
    };
    for (const auto& [a, b] : aliases)
        if (c == a) return b;
    return c;
}

uint64_t count_argument(const std::string& args, const char* cmd) {
    if (trim(args).empty()) return 1;
    try {
        size_t used = 0;
        long long n = std::stoll(trim(args), &used);
        if (used == trim(args).size() && n > 0) return static_cast<uint64_t>(n);
    } catch (const std::exception&) {
    }
    throw std::runtime_error(fmt::format("{}: expected a positive count, not '{}'", cmd, trim(args)));
}

} // namespace

void session::error(const std::string& message) {
    out_ << message << '\n';
    ++failed_;
}

int session::run() {
    try {
        command_loop();
    } catch (quit_request&) {
    }
    return failed_ ? 1 : 0;
}

void session::command_loop() {
    std::string& last = last_command_; // kept across stops, so an empty line after a step steps again
    for (;;) {
        auto line = in_.read(opt_.batch || !in_.interactive() ? "" : "(ptxsim) ");
        if (!line) {
            if (started_) throw kill_request{}; // the end of the commands ends the program, as gdb's batch mode does
            throw quit_request{};
        }
        std::string text = trim(*line);
        if (opt_.echo && !text.empty()) out_ << "(ptxsim) " << text << '\n';
        if (text.empty()) {
            if (!in_.interactive() || last.empty()) continue;
            text = last; // an empty line repeats the last command at a terminal
        }
        if (text[0] == '#') continue;
        last = text;
        if (!execute(text)) return;
        out_.flush();
    }
}

bool session::execute(const std::string& line) {
    size_t end = 0;
    while (end < line.size() && !std::isspace(static_cast<unsigned char>(line[end])) && line[end] != '/') ++end;
    std::string cmd = canonical(line.substr(0, end)), args = trim(line.substr(end));
    try {
        return dispatch(cmd, args);
    } catch (const command_error& e) {
        error(e.what());
    } catch (const expr_error& e) {
        error(e.what());
    } catch (const std::runtime_error& e) {
        error(e.what());
    }
    return true;
}

bool session::dispatch(const std::string& cmd, const std::string& args) {
    // x/FMT and print/FMT carry their format after a slash.
    std::string format;
    std::string rest = args;
    if (!rest.empty() && rest[0] == '/') {
        size_t sp = rest.find_first_of(" \t");
        format = rest.substr(1, sp == std::string::npos ? std::string::npos : sp - 1);
        rest = sp == std::string::npos ? "" : trim(rest.substr(sp));
    }
    if (cmd == "print" || cmd == "output" || cmd == "call") {
        if (format.size() > 1 || (format.size() == 1 && std::string("xduft").find(format[0]) == std::string::npos))
            throw command_error(fmt::format("Undefined output format \"{}\" (print takes /x, /d, /u, /f or /t).", format));
        cmd_print(rest, format.empty() ? 0 : format[0]);
        return true;
    }
    if (cmd == "x") {
        cmd_x(format, rest);
        return true;
    }
    if (!format.empty()) throw command_error(fmt::format("\"{}\" takes no /FORMAT.", cmd));
    if (cmd == "break" || cmd == "tbreak") return cmd_break(rest, cmd == "tbreak"), true;
    if (cmd == "watch") return cmd_watch(rest, 'w'), true;
    if (cmd == "rwatch") return cmd_watch(rest, 'r'), true;
    if (cmd == "awatch") return cmd_watch(rest, 'a'), true;
    if (cmd == "delete") return cmd_delete(rest), true;
    if (cmd == "ignore") return cmd_ignore(rest), true;
    if (cmd == "enable" || cmd == "disable") return cmd_enable(rest, cmd == "enable"), true;
    if (cmd == "cuda") return cmd_cuda(rest), true;
    if (cmd == "info") return cmd_info(rest), true;
    if (cmd == "frame" || cmd == "up" || cmd == "down") return cmd_frame(cmd, rest), true;
    if (cmd == "whatis" || cmd == "ptype") return cmd_whatis(rest), true;
    if (cmd == "backtrace") return cmd_backtrace(), true;
    if (cmd == "list") return cmd_list(rest), true;
    if (cmd == "last-write") return cmd_last_write(rest), true;
    if (cmd == "help") return cmd_help(rest), true;
    if (cmd == "echo") {
        std::string t = rest;
        for (size_t i = 0; (i = t.find("\\n", i)) != std::string::npos;) t.replace(i, 2, "\n");
        out_ << t;
        return true;
    }
    if (cmd == "catch") {
        if (rest == "fault") {
            out_ << "Catchpoint: kernel faults stop the program before the faulting instruction runs (always on).\n";
        } else if (rest == "finding") {
            if (opt_.tools.empty())
                throw command_error("catch finding: no checker runs; start ptxsim debug with --tool memcheck|racecheck|initcheck|synccheck|all");
            catch_findings_ = true;
            out_ << fmt::format("Catchpoint: stop at each new finding of {}.\n", fmt::join(opt_.tools, ", "));
        } else {
            throw command_error("catch: expected 'catch fault' or 'catch finding'.");
        }
        return true;
    }
    if (cmd == "quit") {
        if (started_) out_ << "[Program killed]\n";
        throw quit_request{};
    }
    return cmd_resume(cmd, rest);
}

bool session::cmd_resume(const std::string& cmd, const std::string& args) {
    if (cmd == "run" || cmd == "start") {
        if (!args.empty()) throw command_error(fmt::format("{} takes no arguments (the launch file says what runs).", cmd));
        if (started_) {
            out_ << "Starting the program again from the beginning.\n";
            caught_fault_.reset();
            replay_plan p;
            p.target = fresh_start;
            throw restart_request{p};
        }
        caught_fault_.reset();
        focus_set_ = false;
        start_program(std::nullopt);
        return true;
    }
    const bool resume = cmd == "continue" || cmd == "stepi" || cmd == "nexti" || cmd == "step" || cmd == "next" || cmd == "finish" ||
                        cmd == "kill" || cmd == "reverse-stepi" || cmd == "reverse-step" || cmd == "reverse-next" ||
                        cmd == "reverse-continue";
    if (!resume) {
        ++failed_;
        out_ << fmt::format("Undefined command: \"{}\".  Try \"help\".\n", cmd);
        return true;
    }
    if (!started_) throw command_error("The program is not being run.  Use \"run\" first.");
    frame_ = 0; // stepping and conditions are the innermost frame's
    if (cmd == "kill") throw kill_request{};
    if (cmd == "continue") {
        if (!args.empty()) { // gdb's: ignore the breakpoint stopped at N - 1 more times
            const uint64_t n = count_argument(args, "continue");
            auto b = std::find_if(breakpoints_.begin(), breakpoints_.end(), [&](const breakpoint& x) { return x.id == stopped_breakpoint_; });
            if (b == breakpoints_.end()) throw command_error("Not stopped at any breakpoint; the count means nothing here.");
            b->ignore = n - 1;
            out_ << fmt::format("Will ignore next {} crossings of breakpoint {}.  Continuing.\n", n - 1, b->id);
        }
        mode_ = mode::go;
        return false;
    }
    if (cmd.rfind("reverse-", 0) == 0) {
        if (!args.empty()) throw command_error(fmt::format("{} takes no count here.", cmd));
        if (cmd == "reverse-stepi") request_reverse(search_kind::warp_instruction, "");
        if (cmd == "reverse-step" || cmd == "reverse-next") request_reverse(search_kind::line_start, "");
        request_reverse(search_kind::hit, "");
    }
    // Steps belong to the focused warp (other warps run as the scheduler says).
    if (!running()) throw command_error("The kernel is not running: nothing to step (use continue).");
    auto w = view_->warp(focus_.cta, focus_.warp());
    if (!w) throw command_error("The focused thread's block is not running; choose another with 'cuda block ... thread ...'.");
    steps_left_ = count_argument(args, cmd.c_str());
    const uint32_t lane = focus_.lane();
    step_from_depth_ = w->depth[lane];
    if (auto pc = focus_pc()) step_from_line_ = map_->step_line(*pc);
    if (cmd == "stepi") mode_ = mode::stepi;
    else if (cmd == "nexti") mode_ = mode::nexti;
    else if (cmd == "step") mode_ = mode::step;
    else if (cmd == "next") mode_ = mode::next;
    else {
        if (step_from_depth_ == 0) throw command_error("\"finish\" not meaningful in the outermost frame.");
        mode_ = mode::finish;
    }
    return false;
}

// ---- breakpoints

void session::cmd_break(const std::string& args, bool temporary) {
    breakpoint b;
    b.temporary = temporary;
    std::string spec = args;
    if (size_t i = args.find(" if "); i != std::string::npos) {
        spec = trim(args.substr(0, i));
        b.condition = expression::parse(trim(args.substr(i + 4)));
    } else if (args.rfind("if ", 0) == 0) {
        throw command_error("break: a location comes before 'if'.");
    }
    if (spec.empty()) {
        if (!running()) throw command_error("break: give a location: FILE:LINE, LINE or a kernel or function name.");
        const source_line& l = map_->at(*focus_pc());
        spec = l.cuda_line ? fmt::format("{}:{}", l.cuda_file, l.cuda_line) : fmt::format("{}:{}", l.ptx_file, l.ptx_line);
    }
    b.spec = spec;
    const size_t colon = spec.rfind(':');
    auto number = [](const std::string& t, uint32_t& n) {
        if (t.empty() || !std::all_of(t.begin(), t.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) return false;
        n = static_cast<uint32_t>(std::stoul(t));
        return n > 0;
    };
    uint32_t line = 0;
    if (colon != std::string::npos && number(spec.substr(colon + 1), line)) {
        b.file = spec.substr(0, colon);
        b.line = line;
    } else if (number(spec, line)) {
        b.line = line;
    } else if (std::all_of(spec.begin(), spec.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; })) {
        b.function = spec;
    } else {
        throw command_error(fmt::format("break: '{}' is not a location (FILE:LINE, LINE, or a kernel or function name).", spec));
    }
    b.id = next_id_++;
    breakpoints_.push_back(std::move(b));
    breakpoint& nb = breakpoints_.back();
    if (map_) resolve(nb, true);
    if (nb.pcs.empty()) {
        out_ << fmt::format("{} {} ({}{}) pending: it is placed when a launch has code there.\n", temporary ? "Temporary breakpoint" : "Breakpoint",
                            nb.id, nb.spec, nb.condition ? " if " + nb.condition->text() : "");
    }
}

void session::resolve_breakpoints(bool announce) {
    for (auto& b : breakpoints_) resolve(b, announce);
}

void session::resolve(breakpoint& b, bool announce) {
    b.pcs.clear();
    if (!map_) return;
    const char* what = b.temporary ? "Temporary breakpoint" : "Breakpoint";
    if (!b.function.empty()) {
        b.pcs = map_->pcs_of_function(b.function);
        if (!b.pcs.empty() && announce && !b.noted) {
            out_ << fmt::format("{} {} at {}: {}\n", what, b.id, b.function, where(b.pcs.front()));
            b.noted = true;
        }
        return;
    }
    std::string file = b.file;
    if (file.empty()) {
        // A bare line is in the running kernel's CUDA file when it has .loc, else its PTX file.
        const int32_t kernel = static_cast<int32_t>(std::find_if(map_->functions().begin(), map_->functions().end(),
                                                                 [&](const isa::exec_function* f) { return f && f->name == kernel_; }) -
                                                    map_->functions().begin());
        const source_line& l = map_->at(make_pc(kernel, 0));
        file = map_->has_cuda_lines(kernel) ? l.cuda_file : l.ptx_file;
        if (running())
            if (auto pc = focus_pc()) file = map_->has_cuda_lines(function_of(*pc)) ? map_->at(*pc).cuda_file : map_->at(*pc).ptx_file;
    }
    uint32_t moved = 0;
    b.pcs = map_->pcs_at(file, b.line, moved);
    if (b.pcs.empty()) {
        if (announce && !b.noted && map_->knows_file(file)) {
            out_ << fmt::format("Breakpoint {}: no code at or after line {} of {}.\n", b.id, b.line, file);
            b.noted = true;
        }
        return;
    }
    if (announce && !b.noted) {
        if (moved != b.line) out_ << fmt::format("Note: line {} of {} has no code; the breakpoint moves to line {}.\n", b.line, file, moved);
        out_ << fmt::format("{} {} at {}{}\n", what, b.id, where(b.pcs.front()),
                            b.pcs.size() > 1 ? fmt::format(" ({} locations)", b.pcs.size()) : "");
        b.noted = true;
    }
}

std::optional<session::region> session::region_of(const expression& e, scalar_type& t, std::string& text) {
    isa::space sp;
    uint64_t addr;
    uint32_t size;
    if (!running()) {
        // Before a launch only global memory can be named: by address.
        const idle_context c;
        if (!e.memory_operand(c, sp, addr, size, t)) return std::nullopt;
        if (sp != isa::space::global && sp != isa::space::generic && sp != isa::space::const_)
            throw command_error(fmt::format("{} memory can be watched once the kernel runs (it belongs to a block or thread).", space_name(sp)));
        text = e.text();
        region r;
        r.space = isa::space::global;
        r.offset = addr;
        r.size = size;
        return r;
    }
    auto c = context_for(focus_.lane());
    if (!e.memory_operand(*c, sp, addr, size, t)) return std::nullopt;
    std::string why;
    auto place = view_->place(sp, addr, focus_.cta, focus_.warp(), focus_.lane(), why);
    if (!place) throw command_error(why);
    region r;
    r.space = place->space;
    r.owner = place->owner;
    r.offset = place->offset;
    r.size = size;
    if (r.space == isa::space::param) throw command_error("parameter space cannot be watched (kernels do not write it)");
    if (r.space == isa::space::shared || r.space == isa::space::local) r.launch = launch_;
    text = e.text();
    if (r.space == isa::space::shared) text += fmt::format(" (block {})", block_text(block_index(r.owner)));
    if (r.space == isa::space::local) text += fmt::format(" ({})", thread_text(block_index(r.owner / block_.count()), thread_index(static_cast<uint32_t>(r.owner % block_.count()))));
    return r;
}

void session::cmd_watch(const std::string& args, char kind) {
    expression e = expression::parse(args);
    watchpoint w;
    w.kind = kind;
    auto r = region_of(e, w.type, w.text);
    if (!r) throw command_error(fmt::format("Cannot watch '{}': give memory, as in *(int*)ADDR, *(@shared float*)16 or a variable.", args));
    w.where = *r;
    w.id = next_id_++;
    w.known = read_region(w.where, w.bytes);
    if (running() && !w.known) {
        uint64_t probe = 0;
        auto c = context_for(focus_.lane());
        isa::space sp;
        uint64_t addr;
        uint32_t size;
        scalar_type t;
        e.memory_operand(*c, sp, addr, size, t);
        std::string why = view_->read(sp, addr, &probe, std::min<uint32_t>(size, 8), focus_.cta, focus_.warp(), focus_.lane());
        throw command_error(fmt::format("Cannot watch {}: cannot access memory at address {:#x}{}", w.text, addr, why.empty() ? "" : ": " + why));
    }
    const char* what = kind == 'w' ? "Hardware watchpoint" : kind == 'r' ? "Hardware read watchpoint" : "Hardware access (read/write) watchpoint";
    out_ << fmt::format("{} {}: {}\n", what, w.id, w.text);
    watchpoints_.push_back(std::move(w));
}

// Breakpoint and watchpoint numbers of a delete, enable or disable.
static std::vector<int> numbers_of(const std::string& args, const char* cmd) {
    std::vector<int> ids;
    std::istringstream in(args);
    for (std::string t; in >> t;) {
        size_t used = 0;
        int id = 0;
        try {
            id = std::stoi(t, &used);
        } catch (const std::exception&) {
        }
        if (used != t.size() || id <= 0) throw std::runtime_error(fmt::format("{}: '{}' is not a breakpoint number.", cmd, t));
        ids.push_back(id);
    }
    return ids;
}

void session::cmd_delete(const std::string& args) {
    const auto ids = numbers_of(args, "delete");
    if (ids.empty()) {
        breakpoints_.clear();
        watchpoints_.clear();
        return;
    }
    for (int id : ids) {
        auto b = std::find_if(breakpoints_.begin(), breakpoints_.end(), [&](const breakpoint& x) { return x.id == id; });
        auto w = std::find_if(watchpoints_.begin(), watchpoints_.end(), [&](const watchpoint& x) { return x.id == id; });
        if (b != breakpoints_.end()) breakpoints_.erase(b);
        else if (w != watchpoints_.end()) watchpoints_.erase(w);
        else throw command_error(fmt::format("No breakpoint number {}.", id));
    }
}

void session::cmd_enable(const std::string& args, bool on) {
    const auto ids = numbers_of(args, on ? "enable" : "disable");
    for (int id : ids) {
        auto b = std::find_if(breakpoints_.begin(), breakpoints_.end(), [&](const breakpoint& x) { return x.id == id; });
        if (b == breakpoints_.end()) throw command_error(fmt::format("No breakpoint number {}.", id));
        b->enabled = on;
    }
    if (ids.empty())
        for (auto& b : breakpoints_) b.enabled = on;
}

// ---- focus: cuda block (x,y,z) thread (x,y,z) | cuda warp N | cuda lane N | cuda kernel

void session::cmd_cuda(const std::string& args) {
    if (args.empty() || args == "kernel" || args == "block" || args == "thread" || args == "warp" || args == "lane") {
        if (!focus_set_) throw command_error("Focus is not set: the program has not stopped in a kernel.");
        if (args == "kernel") out_ << fmt::format("kernel {} (launch {} of {})\n", base_name(kernel_), launch_ + 1, launch_specs().size());
        else out_ << focus_text() << '\n';
        return;
    }
    if (!running()) throw command_error("Focus can change only while a kernel runs.");
    // Parse "(x,y,z)", "(x)" or "x" after each keyword.
    auto parse_dim = [](const std::string& t, size_t& i, sim::dim3& d) {
        while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i;
        const bool paren = i < t.size() && t[i] == '(';
        if (paren) ++i;
        uint32_t v[3] = {0, 0, 0};
        int n = 0;
        for (; n < 3; ++n) {
            while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i;
            size_t s = i;
            while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
            if (s == i) break;
            v[n] = static_cast<uint32_t>(std::stoul(t.substr(s, i - s)));
            while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i;
            if (i < t.size() && t[i] == ',') ++i;
            else {
                ++n;
                break;
            }
        }
        if (n == 0) return false;
        if (paren) {
            while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i;
            if (i >= t.size() || t[i] != ')') return false;
            ++i;
        }
        d = {v[0], v[1], v[2]};
        return true;
    };
    sim::dim3 block = block_index(focus_.cta), thread = thread_index(focus_.thread);
    std::optional<uint32_t> warp, lane;
    std::istringstream words(args);
    size_t i = 0;
    while (i < args.size()) {
        while (i < args.size() && std::isspace(static_cast<unsigned char>(args[i]))) ++i;
        size_t s = i;
        while (i < args.size() && std::isalpha(static_cast<unsigned char>(args[i]))) ++i;
        std::string key = args.substr(s, i - s);
        if (key.empty()) break;
        sim::dim3 d;
        if (!parse_dim(args, i, d)) throw command_error(fmt::format("cuda {}: expected a number or (x,y,z) after it.", key));
        if (key == "block") block = d;
        else if (key == "thread") thread = d;
        else if (key == "warp") warp = d.x;
        else if (key == "lane") lane = d.x;
        else throw command_error(fmt::format("cuda: unknown focus '{}' (block, thread, warp, lane or kernel).", key));
    }
    if (block.x >= grid_.x || block.y >= grid_.y || block.z >= grid_.z)
        throw command_error(fmt::format("Block ({},{},{}) is outside the grid ({},{},{}).", block.x, block.y, block.z, grid_.x, grid_.y, grid_.z));
    if (thread.x >= block_.x || thread.y >= block_.y || thread.z >= block_.z)
        throw command_error(fmt::format("Thread ({},{},{}) is outside the block ({},{},{}).", thread.x, thread.y, thread.z, block_.x, block_.y, block_.z));
    focus_state f = focus_of(block, thread);
    if (warp || lane) {
        uint32_t wi = warp.value_or(f.warp()), li = lane.value_or(f.lane());
        if (li >= 32) throw command_error(fmt::format("Lane {} does not exist (a warp has 32).", li));
        f.thread = wi * 32 + li;
        if (f.thread >= block_.count()) throw command_error(fmt::format("Warp {} lane {} is outside the block of {} threads.", wi, li, block_.count()));
    }
    if (!view_->cta_index(f.cta))
        throw command_error(fmt::format("Block ({},{},{}) is not running now (not started yet, or finished).", block.x, block.y, block.z));
    focus_ = f;
    focus_set_ = true;
    out_ << "[Switching focus to " << focus_text() << "]\n";
    if (auto pc = focus_pc()) print_location(*pc);
}

// ---- last-write: who wrote this memory last, found by running again up to here

void session::cmd_last_write(const std::string& args) {
    if (!running() || !event_) throw command_error("last-write: the program is not stopped in a kernel.");
    expression e = expression::parse(args);
    scalar_type t;
    std::string text;
    auto r = region_of(e, t, text);
    if (!r) throw command_error(fmt::format("last-write: '{}' names no memory: give *(TYPE*)ADDR, *(@shared int*)16 or a variable.", args));
    lw_region_ = *r;
    lw_type_ = t;
    lw_text_ = text;
    lw_shadow_.clear();
    request_reverse(search_kind::last_write, "");
}

std::string session::last_write_text() const {
    if (!lw_found_) {
        std::vector<uint8_t> now;
        std::string value = read_region(*lw_region_, now) ? bytes_text(now, lw_type_) : std::string("?");
        return fmt::format("No write to {} in {} before this point; it holds {}.\n",
                           lw_text_, lw_region_->launch >= 0 ? "this launch" : "the program's launches", value);
    }
    const write_record& w = *lw_found_;
    std::string s = fmt::format("Last write to {} before this point (instruction {} of the run):\n", lw_text_, w.ordinal);
    s += fmt::format("  by {} (warp {}, lane {}) at {}\n", thread_text(w.site.block, w.site.thread), w.site.warp, w.site.lane,
                     where_pos(w.site.function_id, w.site.pos));
    sim::fault_report r;
    s += fmt::format("  value before: {}\n", w.before_known ? bytes_text(w.before, lw_type_) : std::string("(not known)"));
    s += fmt::format("  value after:  {}\n", bytes_text(w.after, lw_type_));
    return s;
}

// ---- help

void session::cmd_help(const std::string& args) {
    static const std::pair<const char*, const char*> topics[] = {
        {"run", "run -- start the launch file from the beginning (again, when running)"},
        {"continue", "continue (c) -- run until a breakpoint, watchpoint, fault or finding"},
        {"step", "step [N] (s) -- the focused thread to the next source line, into calls"},
        {"next", "next [N] (n) -- the focused thread to the next source line, over calls"},
        {"stepi", "stepi [N] (si) -- the focused warp by N PTX instructions"},
        {"nexti", "nexti [N] (ni) -- as stepi, over calls"},
        {"finish", "finish -- until the focused thread returns from its function"},
        {"kill", "kill -- end the program (run starts it again)"},
        {"reverse-stepi", "reverse-stepi (rsi) -- back to the focused warp's previous instruction"},
        {"reverse-step", "reverse-step (rs) -- back to the start of the focused thread's previous line"},
        {"reverse-continue", "reverse-continue (rc) -- back to the previous breakpoint or watchpoint hit"},
        {"last-write", "last-write EXPR -- who last wrote the memory EXPR names, with the value before and after"},
        {"break", "break LOCATION [if COND] (b) -- FILE:LINE (CUDA or PTX), LINE, or a kernel or function name"},
        {"tbreak", "tbreak LOCATION [if COND] -- a breakpoint deleted at its first hit"},
        {"watch", "watch EXPR -- stop when the memory EXPR names changes (rwatch: is read, awatch: either)"},
        {"delete", "delete [N...] (d) -- delete breakpoints and watchpoints (all without N)"},
        {"enable", "enable|disable [N...] -- turn breakpoints on or off"},
        {"ignore", "ignore N COUNT -- pass breakpoint N COUNT times before it stops again (continue COUNT+1 at it: the same)"},
        {"catch", "catch fault|finding -- stop at kernel faults (always) or checker findings (--tool)"},
        {"print", "print[/x|d|u|f|t] EXPR (p) -- EXPR for every lane of the focused warp"},
        {"x", "x/NFU ADDR -- N units (U: b h w g) of memory in format F (x d u f) from ADDR; x/Ni [$pc|FUNCTION|FILE:LINE]: N PTX instructions"},
        {"info", "info breakpoints|registers [REG...]|locals|args|line|frame|cuda kernels|blocks|warps|lanes|barriers|mbarriers"},
        {"whatis", "whatis EXPR (ptype) -- the type of EXPR: a CUDA variable's as its DWARF says (nvcc -G), else as ptxsim reads it"},
        {"cuda", "cuda block (x,y,z) thread (x,y,z) | cuda warp N | cuda lane N | cuda kernel -- show or change focus"},
        {"backtrace", "backtrace (bt) -- the focused thread's calls"},
        {"frame", "frame [N] (f), up [N], down [N] -- select a frame of the focused thread: print, x and info locals read it"},
        {"list", "list [LINE | FILE:LINE | FUNCTION] (l) -- source around a line (CUDA when known, else PTX)"},
        {"echo", "echo TEXT -- print TEXT (\\n for a new line)"},
        {"quit", "quit (q) -- leave the debugger"},
    };
    if (!args.empty()) {
        const std::string c = canonical(args);
        for (const auto& [name, text] : topics)
            if (c == name) {
                out_ << text << '\n';
                return;
            }
        throw command_error(fmt::format("Undefined command: \"{}\".  Try \"help\".", args));
    }
    out_ << "ptxsim debug commands (gdb's and cuda-gdb's names):\n";
    for (const auto& [name, text] : topics) out_ << "  " << text << '\n';
}

void session::cmd_ignore(const std::string& args) {
    std::istringstream in(args);
    int id = 0;
    long long count = -1;
    if (!(in >> id >> count) || count < 0) throw command_error("Argument required (a breakpoint number and a count: ignore 1 5).");
    auto b = std::find_if(breakpoints_.begin(), breakpoints_.end(), [&](const breakpoint& x) { return x.id == id; });
    if (b == breakpoints_.end()) throw command_error(fmt::format("No breakpoint number {}.", id));
    b->ignore = static_cast<uint64_t>(count);
    if (count == 0) out_ << fmt::format("Will stop next time breakpoint {} is reached.\n", id);
    else out_ << fmt::format("Will ignore next {} crossings of breakpoint {}.\n", count, id);
}

} // namespace ptxsim::debug
