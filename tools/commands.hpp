#pragma once
// One function per subcommand; each takes the arguments after its name and
// returns the process exit status (0 ok, 1 findings, 2 bad input or usage).
#include <string>
#include <vector>

namespace ptxsim::tools {

int cmd_lint(const std::vector<std::string>& args);
int cmd_print(const std::vector<std::string>& args);
int cmd_run(const std::vector<std::string>& args);
int cmd_check(const std::vector<std::string>& args);
int cmd_prof(const std::vector<std::string>& args);
int cmd_exec(const std::vector<std::string>& args);
int cmd_debug(const std::vector<std::string>& args);
int cmd_dap(const std::vector<std::string>& args);

inline constexpr int exit_ok = 0;
inline constexpr int exit_findings = 1;
inline constexpr int exit_usage = 2;

} // namespace ptxsim::tools
