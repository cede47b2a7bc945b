#include "cuda/driver/call_site.hpp"

#include <dlfcn.h>
#include <execinfo.h>

#include <cxxabi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

namespace ptxsim::cuda::driver {
namespace {

// Whether an ELF file is position-independent (ET_DYN: addresses in it are
// offsets from where it was loaded) rather than fixed (ET_EXEC).
bool position_independent(const std::string& path) {
    static std::map<std::string, bool> known;
    if (auto it = known.find(path); it != known.end()) return it->second;
    std::ifstream in(path, std::ios::binary);
    unsigned char header[18] = {};
    in.read(reinterpret_cast<char*>(header), sizeof header);
    const bool pie = !in || header[16] == 3;  // e_type: 2 ET_EXEC, 3 ET_DYN
    return known[path] = pie;
}

std::string demangled(const std::string& name) {
    int status = 0;
    char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
    std::string out = status == 0 && d ? d : name;
    std::free(d);
    return out;
}

// Frames that are not the program's own call.
bool runtime_frame(const std::string& object, const std::string& function, const std::string& kernel) {
    const std::string file = std::filesystem::path(object).filename().string();
    if (file.rfind("libcuda.so", 0) == 0 || file.rfind("libcudart.so", 0) == 0) return true;
    if (function.empty() || function == "??") return true;
    for (const char* prefix : {"cuda", "__cuda", "cudart::", "_ZN6cudart", "__device_stub", "cuLaunch", "libcudart"})
        if (function.rfind(prefix, 0) == 0) return true;
    // nvcc's host stub for the kernel carries the kernel's own name.
    return function == kernel || function == demangled(kernel);
}

std::string run_addr2line(const std::string& object, uint64_t address) {
    const std::string command = fmt::format("addr2line -f -C -e '{}' {:#x} 2>/dev/null", object, address);
    FILE* p = popen(command.c_str(), "r");
    if (!p) return "";
    std::string out;
    char buffer[512];
    while (std::fgets(buffer, sizeof buffer, p)) out += buffer;
    pclose(p);
    return out;
}

} // namespace

std::vector<host_frame> capture_host_stack() {
    void* frames[48];
    const int n = backtrace(frames, 48);
    Dl_info self{};
    dladdr(reinterpret_cast<void*>(&capture_host_stack), &self);
    std::vector<host_frame> out;
    for (int i = 1; i < n; ++i) {
        Dl_info info{};
        if (!dladdr(frames[i], &info) || !info.dli_fname) continue;
        if (info.dli_fbase == self.dli_fbase) continue;  // this driver
        // A return address points after the call: one byte back is the call.
        const uint64_t pc = reinterpret_cast<uint64_t>(frames[i]) - 1;
        std::string object = info.dli_fname;
        if (object.empty() || object.find('/') == std::string::npos) {
            std::error_code ec;
            object = std::filesystem::read_symlink("/proc/self/exe", ec).string();
        }
        const bool pie = position_independent(object);
        out.push_back({object, pie ? pc - reinterpret_cast<uint64_t>(info.dli_fbase) : pc});
    }
    return out;
}

call_sites::symbol call_sites::lookup(const host_frame& f) {
    const auto key = std::pair{f.object, f.address};
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    symbol s;
    const std::string out = run_addr2line(f.object, f.address);
    const size_t newline = out.find('\n');
    if (newline != std::string::npos) {
        s.function = out.substr(0, newline);
        std::string where = out.substr(newline + 1);
        while (!where.empty() && (where.back() == '\n' || where.back() == ' ')) where.pop_back();
        if (const size_t paren = where.find(" ("); paren != std::string::npos) where = where.substr(0, paren);  // "(discriminator 2)"
        if (where.rfind("??", 0) != 0 && where.find(":0") == std::string::npos) s.location = where;
    }
    return cache_[key] = s;
}

std::string call_sites::describe(const std::vector<host_frame>& stack, const std::string& kernel) {
    for (const host_frame& f : stack) {
        const symbol s = lookup(f);
        if (runtime_frame(f.object, s.function, kernel)) continue;
        if (!s.location.empty()) return fmt::format("{} at {}", s.function, s.location);
        return fmt::format("{} ({}+{:#x})", s.function, std::filesystem::path(f.object).filename().string(), f.address);
    }
    return "";
}

} // namespace ptxsim::cuda::driver
