// Parse-and-validate throughput and peak memory on a generated PTX file of
// at least 10 MB, with ptxas -O0 on the same file beside it when installed.
// Prints a table; never passes or fails on time.
//
//   ptxsim_parse_bench [--size-mb N] [--runs N] [--no-ptxas] [FILE]
#include <fmt/format.h>
#include <sys/resource.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "bench/ptx_generator.hpp"
#include "isa/validate.hpp"
#include "parser/parser.hpp"

namespace {

// CPU time of this thread: "MB/s on one core", and much less disturbed than
// wall time when other work shares the machine.
double cpu_now() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

long status_kb(const char* key) {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(key, 0) == 0) return std::atol(line.c_str() + std::strlen(key));
    return -1;
}

std::string read_exact(const std::string& path) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    std::string text(static_cast<size_t>(in.tellg()), '\0');
    in.seekg(0);
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    return text;
}

// Peak resident memory that parse + validate add, measured in a fresh
// process (this program re-run with --measure-memory) so that nothing this
// process did before counts: it reads the file into a string of exact size,
// notes its RSS, parses and validates, and prints VmHWM minus that RSS.
int measure_memory(const std::string& path) {
    std::string text = read_exact(path);
    long before = status_kb("VmRSS:");
    {
        ptxsim::parser::diagnostics d;
        auto m = ptxsim::parser::parse(path, std::move(text), d);
        ptxsim::isa::validate(m, d);
    }
    std::printf("%ld\n", status_kb("VmHWM:") - before);
    return 0;
}

long peak_kb(const std::string& path) {
    std::string cmd = fmt::format("'/proc/{}/exe' --measure-memory '{}'", getpid(), path);
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return -1;
    long kb = -1;
    if (std::fscanf(p, "%ld", &kb) != 1) kb = -1;
    pclose(p);
    return kb;
}

} // namespace

int main(int argc, char** argv) {
    size_t size_mb = 12;
    int runs = 5;
    bool with_ptxas = true;
    std::string file;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--size-mb" && i + 1 < argc) size_mb = std::strtoul(argv[++i], nullptr, 10);
        else if (a == "--runs" && i + 1 < argc) runs = std::atoi(argv[++i]);
        else if (a == "--no-ptxas") with_ptxas = false;
        else if (a == "--measure-memory" && i + 1 < argc) return measure_memory(argv[i + 1]);
        else if (a == "-h" || a == "--help") {
            std::puts("usage: ptxsim_parse_bench [--size-mb N] [--runs N] [--no-ptxas] [FILE]");
            return 0;
        } else file = a;
    }
    std::string text;
    if (file.empty()) {
        text = ptxsim::bench::generate_ptx(size_mb << 20);
        file = "/tmp/ptxsim_bench.ptx";
        std::ofstream(file) << text;
    } else {
        text = read_exact(file);
    }
    double mb = static_cast<double>(text.size()) / (1 << 20);

    double best_parse = 1e30, best_all = 1e30;
    size_t errors = 0;
    for (int r = 0; r < runs; ++r) {
        std::string copy = text;
        ptxsim::parser::diagnostics d;
        double t0 = cpu_now();
        auto m = ptxsim::parser::parse(file, std::move(copy), d);
        double tp = cpu_now() - t0;
        ptxsim::isa::validate(m, d);
        double ta = cpu_now() - t0;
        best_parse = std::min(best_parse, tp);
        best_all = std::min(best_all, ta);
        errors = d.error_count();
    }
    long peak = peak_kb(file);

    fmt::print("input: {} ({:.1f} MB, {} lines), best of {} runs, 1 thread\n", file, mb,
               std::count(text.begin(), text.end(), '\n'), runs);
    if (errors) fmt::print("WARNING: {} diagnostics on the input\n", errors);
    fmt::print("| step | CPU time (s) | MB/s |\n|---|---:|---:|\n");
    fmt::print("| parse | {:.3f} | {:.1f} |\n", best_parse, mb / best_parse);
    fmt::print("| parse + validate | {:.3f} | {:.1f} |\n", best_all, mb / best_all);
    if (with_ptxas && access("/usr/local/cuda/bin/ptxas", X_OK) == 0) {
        auto t0 = std::chrono::steady_clock::now();
        int rc = std::system(fmt::format("/usr/local/cuda/bin/ptxas -O0 -arch=sm_90a '{}' -o /dev/null 2>/tmp/ptxsim_bench_ptxas.log", file).c_str());
        double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        fmt::print("| ptxas -O0 -arch=sm_90a{} (wall time) | {:.3f} | {:.2f} |\n", rc == 0 ? "" : " (failed)", t, mb / t);
    } else {
        fmt::print("| ptxas | not installed | |\n");
    }
    fmt::print("\npeak memory added by parse + validate: {:.1f} MB = {:.2f}x the file size\n", peak / 1024.0,
               peak / 1024.0 / mb);
    return 0;
}
