#include "tools/huge_pages.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace ptxsim::tools {

namespace {

// Whether transparent huge pages are on only for memory that asks (madvise):
// with "always" malloc's memory gets them anyway, with "never" it cannot.
bool huge_pages_on_request() {
    std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string line;
    return std::getline(f, line) && line.find("[madvise]") != std::string::npos;
}

} // namespace

void restart_with_huge_pages(char** argv) {
    if (std::getenv("PTXSIM_NO_HUGE_PAGES")) return;
    const char* given = std::getenv("GLIBC_TUNABLES");
    std::string tunables = given ? given : "";
    if (tunables.find("glibc.malloc.hugetlb") != std::string::npos) return; // said already (or by our restart)
    if (!huge_pages_on_request()) return;
    tunables = tunables.empty() ? "glibc.malloc.hugetlb=1" : tunables + ":glibc.malloc.hugetlb=1";
    // By its own path rather than /proc/self/exe, so that the process keeps its name (ps, perf).
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return;
    self[n] = '\0';
    if (setenv("GLIBC_TUNABLES", tunables.c_str(), 1) != 0) return;
    execv(self, argv);
    // Not restarted: go on as we are, without the tunable in our children's environment.
    if (given) setenv("GLIBC_TUNABLES", given, 1);
    else unsetenv("GLIBC_TUNABLES");
}

} // namespace ptxsim::tools
