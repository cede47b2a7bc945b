#pragma once
// Runs CUDA's ptxas on a module the tensor-core tests write, so the tests
// know their PTX is what the real assembler accepts for sm_90a.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <fmt/format.h>

#include "tests/support/test_support.hpp"

namespace ptxsim::test::tensor {

struct ptxas_result {
    bool available = false; // false when the CUDA toolkit is not installed
    bool accepted = false;
    std::string output;     // ptxas's messages (advisories included)
};

inline ptxas_result run_ptxas(const std::string& module, const std::string& arch = "sm_90a") {
    ptxas_result r;
    const std::string ptxas = find_tool("ptxas");
    if (ptxas.empty()) return r;
    r.available = true;
    const auto dir = std::filesystem::temp_directory_path();
    const std::string in = (dir / fmt::format("ptxsim_tensor_{}.ptx", getpid())).string();
    std::ofstream(in) << module;
    const std::string cmd = fmt::format("'{}' -arch={} '{}' -o /dev/null 2>&1", ptxas, arch, in);
    if (FILE* p = popen(cmd.c_str(), "r")) {
        char buf[512];
        while (fgets(buf, sizeof buf, p)) r.output += buf;
        const int rc = pclose(p);
        r.accepted = WIFEXITED(rc) && WEXITSTATUS(rc) == 0;
    }
    std::remove(in.c_str());
    return r;
}

} // namespace ptxsim::test::tensor
