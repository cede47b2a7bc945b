#include "tests/support/test_support.hpp"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "isa/validate.hpp"
#include "parser/parser.hpp"

namespace ptxsim::test {

parsed parse_text(const std::string& text, bool validate) {
    parsed p;
    p.m = parser::parse("test.ptx", text, p.diags);
    if (validate) isa::validate(p.m, p.diags);
    return p;
}

std::vector<std::string> messages(const parser::diagnostics& d) {
    std::vector<std::string> out;
    for (const auto& x : d.all())
        out.push_back(fmt::format("{}:{}: {}: {}", x.line, x.col, parser::to_string(x.level), x.message));
    return out;
}

std::string source_dir() { return PTXSIM_SOURCE_DIR; }

std::vector<std::string> ptx_files(const std::string& dir) {
    std::vector<std::string> out;
    std::filesystem::path root = std::filesystem::path(source_dir()) / dir;
    if (!std::filesystem::exists(root)) return out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(root))
        if (e.is_regular_file() && e.path().extension() == ".ptx") out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

namespace {
std::string slurp(const std::string& path) {
    std::string s = read_file(path);
    std::remove(path.c_str());
    return s;
}
} // namespace

run_result run_ptxsim(const std::string& args, const std::string& env) {
    static int counter = 0;
    std::string base = fmt::format("{}/ptxsim_test_{}_{}", std::filesystem::temp_directory_path().string(), getpid(), counter++);
    std::string cmd = fmt::format("{} '{}' {} >'{}.out' 2>'{}.err' </dev/null", env, PTXSIM_BINARY, args, base, base);
    int rc = std::system(cmd.c_str());
    run_result r;
    r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    r.out = slurp(base + ".out");
    r.err = slurp(base + ".err");
    return r;
}

std::string find_tool(const std::string& name) {
    for (const char* dir : {"/usr/local/cuda/bin", "/usr/bin", "/usr/local/bin"}) {
        std::string p = fmt::format("{}/{}", dir, name);
        if (access(p.c_str(), X_OK) == 0) return p;
    }
    return {};
}

} // namespace ptxsim::test
