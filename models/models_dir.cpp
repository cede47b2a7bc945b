#include "models/models_dir.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <system_error>
#include <vector>

namespace ptxsim::models {
namespace {

namespace fs = std::filesystem;

bool holds_models(const fs::path& dir) {
    std::error_code ec;
    return fs::is_regular_file(dir / "h800.json", ec);
}

// The files this code may have been loaded from: the object dladdr names
// (a shared library such as ptxsim's libcuda.so.1, or the executable), and
// the executable itself.
std::vector<fs::path> loaded_from() {
    std::vector<fs::path> out;
    std::error_code ec;
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&models_dir), &info) && info.dli_fname && *info.dli_fname) {
        fs::path p = fs::weakly_canonical(info.dli_fname, ec);
        if (!ec) out.push_back(p);
    }
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) out.push_back(exe);
    return out;
}

} // namespace

fs::path models_dir(const char* source_dir) {
    if (const char* env = std::getenv("PTXSIM_MODELS"); env && *env) return env;
    for (const fs::path& file : loaded_from())
        for (fs::path dir = file.parent_path(); !dir.empty(); dir = dir.parent_path()) {
            if (holds_models(dir / "models")) return dir / "models";
            if (dir == dir.root_path()) break;
        }
    if (source_dir && holds_models(fs::path(source_dir) / "models")) return fs::path(source_dir) / "models";
    return {};
}

fs::path default_model_path(const char* source_dir) {
    fs::path dir = models_dir(source_dir);
    return (dir.empty() ? fs::path(source_dir ? source_dir : ".") / "models" : dir) / "h800.json";
}

} // namespace ptxsim::models
