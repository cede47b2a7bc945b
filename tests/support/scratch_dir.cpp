// Every test process gets its own scratch directory for the files it
// writes (launch files, recordings, command files, outputs of ptxsim runs)
// and removes it when it exits. Tests name their files under
// std::filesystem::temp_directory_path() or $TMPDIR, and the ptxsim and
// Python processes they start inherit TMPDIR, so pointing TMPDIR here keeps
// a ctest run from leaving thousands of files in /tmp. Linked into every
// test executable (tests/CMakeLists.txt), before main runs.
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace {

struct scratch_dir {
    std::string path;
    scratch_dir() {
        const char* base = std::getenv("TMPDIR");
        std::string pattern = std::string(base && *base ? base : "/tmp") + "/ptxsim_tests_XXXXXX";
        if (mkdtemp(pattern.data()) == nullptr) return; // keep the caller's TMPDIR
        path = pattern;
        setenv("TMPDIR", path.c_str(), 1);
    }
    ~scratch_dir() {
        if (path.empty()) return;
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
};

const scratch_dir the_scratch_dir;

} // namespace
