#pragma once
// `ptxsim debug --batch -x` on a command script, for the debugger's tests:
// the script goes to a temporary file named for this process (tests run in
// parallel), the session's output comes back.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/test_support.hpp"

namespace ptxsim::test {

inline run_result debug_batch(const std::string& commands, const std::string& file, const std::string& options = "") {
    static int n = 0;
    auto path = std::filesystem::temp_directory_path() /
                ("ptxsim_debug_test_" + std::to_string(::getpid()) + "_" + std::to_string(++n) + ".gdb");
    std::ofstream(path) << commands;
    run_result r = run_ptxsim("debug --batch " + options + " -x " + path.string() + " " + file);
    std::filesystem::remove(path);
    return r;
}

inline bool has(const std::string& out, const std::string& text) { return out.find(text) != std::string::npos; }

} // namespace ptxsim::test
