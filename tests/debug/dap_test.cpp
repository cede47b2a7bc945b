// ptxsim dap driven by a scripted client: the messages an editor sends
// for a real session (initialize, launch, breakpoints, configurationDone,
// threads, stack, scopes, variables, evaluate, stepping forward and back,
// continue to a fault, to the end, disconnect), checking what comes back.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <map>
#include <string>
#include <vector>

namespace ptxsim::test {
namespace {

using json = nlohmann::json;

class dap_client {
public:
    dap_client() {
        int in[2], out[2];
        if (pipe(in) != 0 || pipe(out) != 0) throw std::runtime_error("pipe");
        pid_ = fork();
        if (pid_ == 0) {
            dup2(in[0], STDIN_FILENO);
            dup2(out[1], STDOUT_FILENO);
            close(in[1]);
            close(out[0]);
            execl(PTXSIM_BINARY, "ptxsim", "dap", static_cast<char*>(nullptr));
            _exit(127);
        }
        close(in[0]);
        close(out[1]);
        to_ = in[1];
        from_ = out[0];
    }
    ~dap_client() {
        close(to_);
        close(from_);
        if (pid_ > 0) waitpid(pid_, nullptr, 0);
    }
    int finish() {
        close(to_);
        to_ = -1;
        int status = 0;
        waitpid(pid_, &status, 0);
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    // Sends a request; returns its response, keeping the events that came before it.
    json request(const std::string& command, json args = json::object()) {
        const int seq = seq_++;
        json m{{"seq", seq}, {"type", "request"}, {"command", command}, {"arguments", args}};
        std::string body = m.dump();
        std::string all = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
        if (write(to_, all.data(), all.size()) != static_cast<ssize_t>(all.size())) throw std::runtime_error("write");
        for (;;) {
            json r = read_one();
            if (r.value("type", "") == "response" && r.value("request_seq", -1) == seq) return r;
            events_.push_back(r);
        }
    }
    // The next event of that name (earlier ones of other names are kept).
    json wait_event(const std::string& name) {
        for (;;) {
            for (size_t i = 0; i < events_.size(); ++i)
                if (events_[i].value("event", "") == name) {
                    json e = events_[i];
                    events_.erase(events_.begin() + static_cast<std::ptrdiff_t>(i));
                    return e;
                }
            events_.push_back(read_one());
        }
    }
    std::string console() const {
        std::string t;
        for (const auto& e : events_)
            if (e.value("event", "") == "output") t += e["body"].value("output", "");
        return t;
    }

private:
    json read_one() {
        for (;;) {
            size_t end = buf_.find("\r\n\r\n");
            if (end != std::string::npos) {
                size_t len = std::stoul(buf_.substr(buf_.find("Content-Length:") + 15, end));
                if (buf_.size() >= end + 4 + len) {
                    json m = json::parse(buf_.substr(end + 4, len));
                    buf_.erase(0, end + 4 + len);
                    return m;
                }
            }
            pollfd p{from_, POLLIN, 0};
            if (poll(&p, 1, 20000) <= 0) throw std::runtime_error("no message from ptxsim dap in 20 s; so far: " + buf_);
            char chunk[65536];
            ssize_t n = read(from_, chunk, sizeof chunk);
            if (n <= 0) throw std::runtime_error("ptxsim dap closed its output; so far: " + buf_);
            buf_.append(chunk, static_cast<size_t>(n));
        }
    }

    pid_t pid_ = -1;
    int to_ = -1, from_ = -1, seq_ = 1;
    std::string buf_;
    std::vector<json> events_;
};

const std::string dir = std::string(PTXSIM_SOURCE_DIR) + "/tests/debug/kernels";

// initialize, launch `file` (in tests/debug/kernels), a breakpoint at
// debug_demo.cu:`line` unless 0, configurationDone; the stopped event when
// there is a breakpoint.
json start(dap_client& c, const std::string& file, int line) {
    c.request("initialize", {{"clientID", "test"}, {"adapterID", "ptxsim"}, {"linesStartAt1", true}});
    c.wait_event("initialized");
    json l = c.request("launch", {{"program", dir + "/" + file}});
    EXPECT_TRUE(l.value("success", false)) << l.dump();
    if (line) {
        json b = c.request("setBreakpoints", {{"source", {{"path", dir + "/debug_demo.cu"}}}, {"breakpoints", {{{"line", line}}}}});
        EXPECT_EQ(b["body"]["breakpoints"].size(), 1u) << b.dump();
    }
    c.request("configurationDone");
    return line ? c.wait_event("stopped") : json();
}

TEST(dap, a_session_from_breakpoint_to_the_end) {
    dap_client c;
    json init = c.request("initialize", {{"clientID", "test"}, {"adapterID", "ptxsim"}, {"linesStartAt1", true}});
    ASSERT_TRUE(init.value("success", false)) << init.dump();
    EXPECT_TRUE(init["body"].value("supportsStepBack", false));
    c.wait_event("initialized");
    json l = c.request("launch", {{"program", dir + "/launch.json"}});
    ASSERT_TRUE(l.value("success", false)) << l.dump();
    json b = c.request("setBreakpoints", {{"source", {{"path", dir + "/debug_demo.cu"}}}, {"breakpoints", {{{"line", 32}}}}});
    ASSERT_TRUE(b.value("success", false)) << b.dump();
    ASSERT_EQ(b["body"]["breakpoints"].size(), 1u);
    EXPECT_TRUE(c.request("configurationDone").value("success", false));

    json s = c.wait_event("stopped");
    EXPECT_EQ(s["body"].value("reason", ""), "breakpoint") << s.dump();
    const int64_t tid = s["body"].value("threadId", int64_t(0));
    EXPECT_EQ(tid, 1); // block 0, warp 0

    json t = c.request("threads");
    ASSERT_TRUE(t.value("success", false));
    EXPECT_EQ(t["body"]["threads"][0].value("name", ""), "block (0,0,0) warp 0") << t.dump();
    EXPECT_EQ(t["body"]["threads"].size(), 2u) << t.dump(); // 64 threads: two warps

    json st = c.request("stackTrace", {{"threadId", tid}});
    ASSERT_TRUE(st.value("success", false)) << st.dump();
    json f0 = st["body"]["stackFrames"][0];
    EXPECT_EQ(f0.value("line", 0), 32) << st.dump();
    EXPECT_NE(f0.value("name", "").find("diverge_call (lane 0;"), std::string::npos) << st.dump();
    EXPECT_EQ(std::filesystem::path(f0["source"].value("path", "")).filename(), "debug_demo.cu");

    json sc = c.request("scopes", {{"frameId", f0.value("id", int64_t(0))}});
    ASSERT_TRUE(sc.value("success", false));
    auto scope_ref = [&](const std::string& name) {
        for (const auto& x : sc["body"]["scopes"])
            if (x.value("name", "") == name) return x.value("variablesReference", int64_t(0));
        ADD_FAILURE() << "no scope " << name << ": " << sc.dump();
        return int64_t(0);
    };
    EXPECT_EQ(sc["body"]["scopes"][0].value("name", ""), "Registers"); // no DWARF: no Locals
    json vars = c.request("variables", {{"variablesReference", scope_ref("Registers")}});
    bool found = false;
    for (const auto& v : vars["body"]["variables"])
        if (v.value("name", "") == "%rd1") found = true;
    EXPECT_TRUE(found) << vars.dump();
    json lanes = c.request("variables", {{"variablesReference", scope_ref("Lanes")}});
    EXPECT_EQ(lanes["body"]["variables"].size(), 32u);
    json shared = c.request("variables", {{"variablesReference", scope_ref("Shared")}});
    EXPECT_TRUE(shared["body"]["variables"].empty()) << shared.dump(); // diverge_call has no .shared

    json ev = c.request("evaluate", {{"expression", "threadIdx.x * 2"}, {"frameId", f0.value("id", int64_t(0))}, {"context", "watch"}});
    EXPECT_EQ(ev["body"].value("result", ""), "{0-31: 0, 2, ..., 62}") << ev.dump();
    json bad = c.request("evaluate", {{"expression", "%nosuch"}, {"frameId", f0.value("id", int64_t(0))}});
    EXPECT_FALSE(bad.value("success", true));

    // A step, and back.
    EXPECT_TRUE(c.request("next", {{"threadId", tid}}).value("success", false));
    EXPECT_EQ(c.wait_event("stopped")["body"].value("reason", ""), "step");
    json after = c.request("stackTrace", {{"threadId", tid}});
    // The next line .loc names after the else branch: out[t] = r starts with t (line 27).
    EXPECT_EQ(after["body"]["stackFrames"][0].value("line", 0), 27) << after.dump();
    EXPECT_TRUE(c.request("stepBack", {{"threadId", tid}}).value("success", false));
    c.wait_event("stopped");
    json back = c.request("stackTrace", {{"threadId", tid}});
    EXPECT_EQ(back["body"]["stackFrames"][0].value("line", 0), 32) << back.dump();

    // The other warp hits the breakpoint; then the off-by-one launch faults; then the end.
    EXPECT_TRUE(c.request("continue", {{"threadId", tid}}).value("success", false));
    json s2 = c.wait_event("stopped");
    EXPECT_EQ(s2["body"].value("threadId", int64_t(0)), 2) << s2.dump();
    c.request("continue", {{"threadId", 2}});
    json s3 = c.wait_event("stopped");
    EXPECT_EQ(s3["body"].value("reason", ""), "exception") << s3.dump();
    c.request("continue", {{"threadId", 1}});
    json ex = c.wait_event("exited");
    EXPECT_EQ(ex["body"].value("exitCode", -1), 1); // the fault
    c.wait_event("terminated");
    EXPECT_NE(c.console().find("Kernel fault"), std::string::npos) << c.console();
    EXPECT_TRUE(c.request("disconnect").value("success", false));
    EXPECT_EQ(c.finish(), 0);
}

// nvcc -G's DWARF: the innermost frame gets a Locals scope with CUDA
// variables, typed; Shared shows the kernel's static .shared words.
TEST(dap, locals_scope_shows_cuda_variables_from_dwarf) {
    dap_client c;
    json s = start(c, "launch_G.json", 16);
    const int64_t tid = s["body"].value("threadId", int64_t(0));
    json st = c.request("stackTrace", {{"threadId", tid}});
    const int64_t frame = st["body"]["stackFrames"][0].value("id", int64_t(0));
    json sc = c.request("scopes", {{"frameId", frame}});
    ASSERT_EQ(sc["body"]["scopes"][0].value("name", ""), "Locals") << sc.dump();
    json vars = c.request("variables", {{"variablesReference", sc["body"]["scopes"][0].value("variablesReference", int64_t(0))}});
    std::map<std::string, std::pair<std::string, std::string>> got; // name -> value, type
    for (const auto& v : vars["body"]["variables"]) got[v.value("name", "")] = {v.value("value", ""), v.value("type", "")};
    // Block 0 sums in[0..31] = 1..32 (the race drops the upper half): 528.
    EXPECT_EQ(got["s"].first, "528") << vars.dump();
    EXPECT_EQ(got["s"].second, "int");
    EXPECT_EQ(got["t"].first, "0");
    EXPECT_EQ(got["in"].second, "const int *");
    EXPECT_EQ(got["partial"].second, "int [64]");
    EXPECT_EQ(got["partial"].first.rfind("{1, 2, 3, ", 0), 0u) << got["partial"].first;
    for (const auto& x : sc["body"]["scopes"])
        if (x.value("name", "") == "Shared") {
            json sh = c.request("variables", {{"variablesReference", x.value("variablesReference", int64_t(0))}});
            ASSERT_EQ(sh["body"]["variables"].size(), 1u) << sh.dump();
            EXPECT_EQ(sh["body"]["variables"][0].value("value", "").rfind("256 bytes: 0x00000001 0x00000002", 0), 0u) << sh.dump();
        }
    json ev = c.request("evaluate", {{"expression", "partial[s % 64]"}, {"frameId", frame}, {"context", "hover"}});
    EXPECT_EQ(ev["body"].value("result", ""), "17") << ev.dump(); // the focused lane's: s is 528, partial[16] is 17
    c.request("disconnect");
    EXPECT_EQ(c.finish(), 0);
}

// In a device call, each stack frame has its own Locals: the callee's
// parameters, the caller's variables at its call; evaluate follows frameId.
TEST(dap, a_callers_frame_has_its_own_locals) {
    dap_client c;
    json s = start(c, "launch_G.json", 23);
    json st = c.request("stackTrace", {{"threadId", s["body"].value("threadId", int64_t(0))}});
    ASSERT_EQ(st["body"]["stackFrames"].size(), 2u) << st.dump();
    auto locals_of = [&](const json& frame) {
        std::map<std::string, std::string> got;
        json sc = c.request("scopes", {{"frameId", frame.value("id", int64_t(0))}});
        for (const auto& x : sc["body"]["scopes"])
            if (x.value("name", "") == "Locals") {
                json v = c.request("variables", {{"variablesReference", x.value("variablesReference", int64_t(0))}});
                for (const auto& e : v["body"]["variables"]) got[e.value("name", "")] = e.value("value", "");
            }
        return got;
    };
    auto callee = locals_of(st["body"]["stackFrames"][0]);
    EXPECT_EQ(callee["x"], "1"); // thread 1: triple_plus(1, 100)
    EXPECT_EQ(callee["k"], "100");
    EXPECT_EQ(callee["y"], "3");
    auto caller = locals_of(st["body"]["stackFrames"][1]);
    EXPECT_EQ(caller["t"], "1");
    EXPECT_EQ(caller.count("y"), 0u);
    json ev = c.request("evaluate", {{"expression", "t + 1000"}, {"frameId", st["body"]["stackFrames"][1].value("id", int64_t(0))}});
    EXPECT_EQ(ev["body"].value("result", "").rfind("{1: 1001, 3: 1003, 5: 1005,", 0), 0u) << ev.dump(); // the lanes in the call
    c.request("disconnect");
    EXPECT_EQ(c.finish(), 0);
}

// pause stops a kernel that is running (the session polls for it every
// 4,096 instructions); the stop lands in the loop, and disconnect ends it.
TEST(dap, pause_stops_a_running_kernel) {
    dap_client c;
    start(c, "spin.json", 0);
    usleep(300000); // let it run (a pause before the first instruction stops there, also correct)
    json p = c.request("pause", {{"threadId", 1}});
    EXPECT_TRUE(p.value("success", false)) << p.dump();
    json s = c.wait_event("stopped");
    EXPECT_EQ(s["body"].value("reason", ""), "pause") << s.dump();
    json st = c.request("stackTrace", {{"threadId", s["body"].value("threadId", int64_t(1))}});
    const int line = st["body"]["stackFrames"][0].value("line", 0);
    EXPECT_TRUE(line >= 13 && line <= 15) << st.dump(); // in the loop of spin.ptx
    json ev = c.request("evaluate", {{"expression", "%rd1 > 0"}, {"frameId", st["body"]["stackFrames"][0].value("id", int64_t(0))}});
    EXPECT_EQ(ev["body"].value("result", ""), "1") << ev.dump();
    EXPECT_TRUE(c.request("disconnect").value("success", false));
    EXPECT_EQ(c.finish(), 0);
}

TEST(dap, bad_requests_are_refused_with_a_message) {
    dap_client c;
    c.request("initialize");
    json early = c.request("threads");
    EXPECT_FALSE(early.value("success", true));
    json l = c.request("launch", {{"program", "/nonexistent/launch.json"}});
    EXPECT_FALSE(l.value("success", true));
    EXPECT_FALSE(l.value("message", "").empty());
    json unknown = c.request("frobnicate");
    EXPECT_FALSE(unknown.value("success", true));
    c.request("disconnect");
    EXPECT_EQ(c.finish(), 0);
}

} // namespace
} // namespace ptxsim::test
