#include "sim/timing/register_counts.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace ptxsim::sim::timing {

namespace {

// Quoted for sh -c: the path between single quotes, each ' as '\''.
std::string quoted(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

} // namespace

std::string find_ptxas() {
    if (const char* p = std::getenv("PTXAS"); p && *p) return std::filesystem::exists(p) ? p : ""; // named: that one or none
    if (std::filesystem::exists("/usr/local/cuda/bin/ptxas")) return "/usr/local/cuda/bin/ptxas";
    if (const char* path = std::getenv("PATH")) {
        std::stringstream dirs(path);
        for (std::string dir; std::getline(dirs, dir, ':');)
            if (!dir.empty() && std::filesystem::exists(std::filesystem::path(dir) / "ptxas")) return (std::filesystem::path(dir) / "ptxas").string();
    }
    return {};
}

std::map<std::string, uint32_t> ptxas_registers(const std::string& ptxas, const std::string& module_path, std::string& why) {
    std::map<std::string, uint32_t> out;
    std::ifstream in(module_path);
    std::string text((std::istreambuf_iterator<char>(in)), {});
    std::smatch m;
    static const std::regex target(R"(\.target\s+(sm_[0-9]+[a-z]?))");
    if (!std::regex_search(text, m, target)) {
        why = module_path + " names no .target";
        return out;
    }
    const std::string cmd = quoted(ptxas) + " -arch=" + m[1].str() + " -v " + quoted(module_path) + " -o /dev/null 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) {
        why = "cannot run " + ptxas;
        return out;
    }
    std::string log;
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) log.append(buf, n);
    const int status = pclose(p);
    if (status != 0) {
        why = "ptxas -v failed on " + module_path;
        return out;
    }
    static const std::regex entry(R"(Compiling entry function '([^']+)')"), used(R"(Used ([0-9]+) registers)");
    std::string current;
    std::stringstream lines(log);
    for (std::string line; std::getline(lines, line);) {
        if (std::regex_search(line, m, entry)) current = m[1].str();
        else if (!current.empty() && std::regex_search(line, m, used)) {
            out[current] = static_cast<uint32_t>(std::stoul(m[1].str()));
            current.clear();
        }
    }
    return out;
}

} // namespace ptxsim::sim::timing
