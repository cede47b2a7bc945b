// Engine throughput on grids of many CTAs, against the same computation
// compiled natively: the ALU-bound kernels of kernels/throughput.cu
// (integer xorshift-multiply, float fma chain; 1,024 CTAs x 256 threads by
// default) on one and two host threads, and throughput_native.cpp on one
// core in the same run, compiled at -O3 for the build's target and at -O3
// -mavx2 -mfma, the vector instructions the engine's handlers are built
// for (throughput_native.hpp). Prints a table; never passes or fails on time,
// but says so when ptxsim's output differs from the native one's.
//
//   ptxsim_throughput_bench [--ctas N] [--rounds N] [--repeat N] [--kernel xorshift_mul|fma_chain]
//
// Each figure is the best of --repeat runs (default 3): by CPU time for the
// per-core rate (summed over host threads, so it does not depend on how busy
// the machine is), by wall time for the speed-up of two host threads.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "bench/throughput_native.hpp"
#include "models/model.hpp"
#include "sim/device.hpp"

namespace {

using ptxsim::sim::dim3;

double cpu_now() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double wall_now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

struct timing {
    double cpu = 0, wall = 0;
    uint64_t thread_instructions = 0;
};

void keep_best(timing& best, const timing& t, bool first) {
    if (first || t.cpu < best.cpu) best.cpu = t.cpu;
    if (first || t.wall < best.wall) best.wall = t.wall;
    best.thread_instructions = t.thread_instructions;
}

using native_fn = void (*)(void* out, uint32_t threads, int rounds);

struct kernel_case {
    const char* name;
    native_fn o3, o3_avx2; // o3_avx2: null where the handlers are not built for AVX2
};

template <class T, void (*F)(T*, uint32_t, int)>
void call(void* out, uint32_t n, int rounds) {
    F(static_cast<T*>(out), n, rounds);
}

namespace nb = ptxsim::bench;
#ifdef PTXSIM_NATIVE_AVX2
constexpr native_fn xorshift_avx2 = call<uint32_t, nb::o3_avx2::xorshift_mul_native>;
constexpr native_fn fma_avx2 = call<float, nb::o3_avx2::fma_chain_native>;
#else
constexpr native_fn xorshift_avx2 = nullptr, fma_avx2 = nullptr;
#endif
const kernel_case cases[] = {
    {"xorshift_mul", call<uint32_t, nb::o3::xorshift_mul_native>, xorshift_avx2},
    {"fma_chain", call<float, nb::o3::fma_chain_native>, fma_avx2},
};

// Best CPU time of `repeat` runs of a native loop; false when its output is
// not ptxsim's (`got`), after saying where.
bool time_native(const char* kernel, const char* variant, native_fn f, uint32_t threads, int rounds, uint32_t repeat,
                 const std::vector<uint32_t>& got, double& best) {
    std::vector<uint32_t> want(threads);
    for (uint32_t i = 0; i < repeat; ++i) {
        const double c0 = cpu_now();
        f(want.data(), threads, rounds);
        const double t = cpu_now() - c0;
        if (i == 0 || t < best) best = t;
    }
    if (got == want) return true;
    auto at = std::mismatch(got.begin(), got.end(), want.begin()).first - got.begin();
    fmt::print(stderr, "{}: thread {} gives 0x{:08x} on ptxsim, 0x{:08x} natively ({})\n", kernel, at, got[size_t(at)],
               want[size_t(at)], variant);
    return false;
}

} // namespace

int main(int argc, char** argv) {
    uint32_t ctas = 1024, repeat = 3;
    int rounds = 64;
    std::string only;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string a = argv[i];
        if (a == "--ctas") ctas = static_cast<uint32_t>(std::max(1, std::atoi(argv[i + 1])));
        else if (a == "--rounds") rounds = std::max(0, std::atoi(argv[i + 1]));
        else if (a == "--repeat") repeat = static_cast<uint32_t>(std::max(1, std::atoi(argv[i + 1])));
        else if (a == "--kernel") only = argv[i + 1];
        else {
            fmt::print(stderr, "unknown option {}\n", a);
            return 2;
        }
    }
    const uint32_t block = 256, threads = ctas * block;
    ptxsim::parser::diagnostics d;
    auto model = ptxsim::models::load_model(std::string(PTXSIM_SOURCE_DIR) + "/models/h800.json", d);
    if (!model) return 2;
    ptxsim::sim::device dev(*model);
    if (!dev.load_module_file(std::string(PTXSIM_SOURCE_DIR) + "/bench/kernels/throughput.sm_90a.ptx", d)) {
        for (const auto& x : d.all()) fmt::print(stderr, "{}\n", x.message);
        return 2;
    }
    const uint64_t out = dev.allocate(uint64_t(threads) * 4);
    std::vector<uint8_t> params(16);
    std::memcpy(params.data(), &out, 8);
    std::memcpy(params.data() + 8, &rounds, 4);

    fmt::print("{} CTAs x {} threads, {} rounds; best of {}\n\n", ctas, block, rounds, repeat);
    fmt::print("| kernel | thread-instructions | ptxsim, 1 host thread: thread-instr/s | native -O3 (s) | ptxsim / native "
               "| native -O3 -mavx2 -mfma (s) | ptxsim / native | ptxsim, 2 host threads: thread-instr/s per core "
               "| speed-up, 2 host threads (wall) |\n"
               "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    int status = 0;
    for (const kernel_case& k : cases) {
        if (!only.empty() && only != k.name) continue;
        std::string why;
        auto ref = dev.find_kernel(k.name, why);
        if (!ref) {
            fmt::print(stderr, "{}\n", why);
            return 2;
        }
        timing sim[2];
        std::vector<uint32_t> got(threads);
        for (uint32_t host = 1; host <= 2; ++host)
            for (uint32_t i = 0; i < repeat; ++i) {
                ptxsim::sim::launch_options o;
                o.threads = host;
                const double c0 = cpu_now(), w0 = wall_now();
                auto r = dev.launch(*ref, {ctas}, {block}, 0, params, o, d);
                timing t{cpu_now() - c0, wall_now() - w0, r.stats.thread_instructions};
                if (!r.ok) {
                    fmt::print(stderr, "{}: {}\n", k.name, r.fault ? r.fault->format() : "launch failed");
                    return 1;
                }
                keep_best(sim[host - 1], t, i == 0);
            }
        dev.read(out, got.data(), uint64_t(threads) * 4);
        double o3 = 0, o3_avx2 = 0;
        if (!time_native(k.name, "-O3", k.o3, threads, rounds, repeat, got, o3)) status = 1;
        if (k.o3_avx2 && !time_native(k.name, "-O3 -mavx2 -mfma", k.o3_avx2, threads, rounds, repeat, got, o3_avx2))
            status = 1;
        const double n = static_cast<double>(sim[0].thread_instructions);
        fmt::print("| {} | {} | {:.3g} | {:.4f} | {:.1f}x | {} | {} | {:.3g} | {:.2f}x |\n", k.name, sim[0].thread_instructions,
                   n / sim[0].cpu, o3, sim[0].cpu / o3, k.o3_avx2 ? fmt::format("{:.4f}", o3_avx2) : "-",
                   k.o3_avx2 ? fmt::format("{:.1f}x", sim[0].cpu / o3_avx2) : "-", n / sim[1].cpu, sim[0].wall / sim[1].wall);
    }
    return status;
}
