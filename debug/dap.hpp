#pragma once
// `ptxsim dap`: the Debug Adapter Protocol over a pair of file
// descriptors (stdin/stdout), so VS Code, Neovim, Emacs or Zed debug
// kernels (docs/debug.md, "Editors"). A DAP thread is a warp (block and
// warp index), its stack the frames of its focused lane, its scopes the
// lane's registers and the warp's lanes. The session (session.hpp) does
// the debugging; this file only translates.
#include <deque>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "debug/session.hpp"

namespace ptxsim::debug {

struct dap_settings {
    std::string default_model; // models/h800.json unless the launch request names one
};

class dap_server final : public session_driver {
public:
    dap_server(int in_fd, int out_fd, dap_settings s);
    ~dap_server() override;
    // Serves requests until `disconnect` or the end of input; 0 (the program's status goes in the exited event).
    int run();

    void stopped(session& s, const char* kind, const std::string& reason) override;
    bool pause_requested() override;

private:
    using json = nlohmann::json;
    std::optional<json> read_message(bool wait);
    void send(const json& m);
    void respond(const json& request, json body = json::object());
    void fail(const json& request, const std::string& message);
    void event(const std::string& name, json body = json::object());
    void flush_output();
    // Handles one request; false when it resumed the program (in stopped()).
    bool handle(const json& request);
    bool launch(const json& request);
    json threads() const;
    json stack_trace(const json& args);
    json scopes(const json& args);
    json variables(const json& args);
    void focus_thread(const json& args);
    std::optional<json> next_message();

    int in_, out_;
    dap_settings settings_;
    std::string buffer_;                 // bytes read and not yet framed
    std::deque<json> queued_;            // requests read while the program ran
    int seq_ = 1;
    std::unique_ptr<session> session_;
    std::unique_ptr<line_input> no_input_;
    std::ostringstream text_;            // what the session prints, sent as output events
    bool configured_ = false, stop_on_entry_ = false, done_ = false, in_stop_ = false;
    int exit_code_ = 0;
};

} // namespace ptxsim::debug
