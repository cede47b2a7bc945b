#include "cuda/driver/profiling.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "cuda/driver/state.hpp"
#include "parser/source.hpp"
#include "sim/timing/register_counts.hpp"
#include "sim/timing/report.hpp"
#include "sim/timing/timing_model.hpp"
#include "sim/timing/trace.hpp"

namespace ptxsim::cuda::driver {
namespace {

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

void write_or_warn(state& st, const std::string& path, const std::string& text, const char* what) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out) st.warn(fmt::format("prof: cannot write the {} to {}", what, path));
}

} // namespace

program_profiling* program_profiling::get() {
    static program_profiling* made = []() -> program_profiling* {
        if (env("PTXSIM_PROF") != "1") return nullptr;
        auto* p = new program_profiling();  // lives to the end of the process
        p->report_path_ = env("PTXSIM_PROF_REPORT");
        p->trace_path_ = env("PTXSIM_PROF_TRACE");
        p->svg_path_ = env("PTXSIM_PROF_SVG");
        p->json_ = env("PTXSIM_PROF_JSON") == "1";
        if (const std::string l = env("PTXSIM_PROF_LINES"); !l.empty()) p->lines_ = std::strtoull(l.c_str(), nullptr, 10);
        if (const std::string w = env("PTXSIM_PROF_SAMPLE"); !w.empty()) p->sample_ = uint32_t(std::strtoul(w.c_str(), nullptr, 10));
        return p;
    }();
    return made;
}

// ptxas -v on the module's PTX, once per module; else the driver's estimate.
uint32_t program_profiling::registers(state& st, const function_object& f) {
    const size_t module = f.kernel.module;
    if (!ptxas_looked_) {
        ptxas_path_ = sim::timing::find_ptxas();
        ptxas_looked_ = true;
        if (ptxas_path_.empty())
            st.warn("prof: ptxas not found: registers per thread are estimated from the PTX (25% from ptxas on average), so "
                    "occupancy may differ from the GPU's");
    }
    if (!ptxas_path_.empty() && !ptxas_.count(module)) {
        auto& regs = ptxas_[module];
        if (const parser::source_file* src = st.device().module_source(module)) {
            const auto path = std::filesystem::temp_directory_path() / fmt::format("ptxsim-prof-{}-m{}.ptx", getpid(), module);
            std::ofstream(path, std::ios::binary) << src->text();
            std::string why;
            regs = sim::timing::ptxas_registers(ptxas_path_, path.string(), why);
            std::filesystem::remove(path);
            if (!why.empty()) st.warn(fmt::format("prof: {}; its kernels' registers are estimated from the PTX", why));
        }
    }
    if (auto m = ptxas_.find(module); m != ptxas_.end())
        if (auto k = m->second.find(f.kernel.name); k != m->second.end() && k->second) return k->second;
    return 0;  // the launch estimates them (launch_options::estimate_registers)
}

void program_profiling::make_model(state& st) {
    if (timing_) return;
    timing_ = std::make_unique<sim::timing::timing_model>(st.model());
    clock_mhz_ = st.model().clock_mhz;
}

uint64_t program_profiling::floor_of(state& st, void* stream) {
    const void* key = key_of(st, stream);
    const line& l = line_of(st, stream);
    uint64_t floor = host_;
    if (!key) floor = std::max(floor, legacy_point());
    else if (auto legacy = streams_.find(nullptr); l.blocking && legacy != streams_.end())
        floor = std::max(floor, timing_->stream_end(legacy->second.id));
    return floor;
}

uint64_t program_profiling::copy(state& st, void* stream, uint64_t bytes, transfer kind) {
    make_model(st);
    const models::gpu_model& m = st.model();
    const double bytes_per_cycle =
        kind == transfer::to_device || kind == transfer::to_host
            ? double(m.timing.host_link_gb_per_s) * 1e9 / (m.clock_mhz * 1e6)
            : m.dram.bandwidth_bytes_per_s * (m.timing.dram_efficiency_pct / 100.0) / (m.clock_mhz * 1e6) /
                  (kind == transfer::on_device ? 2.0 : 1.0);
    const uint64_t cycles = static_cast<uint64_t>(std::ceil(double(bytes) / std::max(bytes_per_cycle, 1e-9)));
    uint64_t from = floor_of(st, stream);
    const uint32_t id = line_of(st, stream).id;
    if (kind == transfer::to_device || kind == transfer::to_host) {
        uint64_t& link = link_free_[kind == transfer::to_host];
        from = std::max({from, link, timing_->stream_end(id)});
        link = from + cycles;
    }
    return timing_->occupy(id, from, cycles);
}

void program_profiling::attach(state& st, const function_object& f, sim::launch_options& o, void* stream) {
    make_model(st);
    o.observer = timing_.get();
    o.schedule = timing_.get();
    o.sample_waves = sample_;
    o.registers_per_thread = registers(st, f);
    o.estimate_registers = true;
    // Its stream on the time line, after what it waits for: the host's
    // last synchronisation, and the legacy stream's implicit order.
    o.stream = line_of(st, stream).id;
    timing_->not_before(o.stream, floor_of(st, stream));
}

double program_profiling::ms(uint64_t cycle) const { return clock_mhz_ ? double(cycle) / (clock_mhz_ * 1000.0) : 0; }

// The null stream (and CU_STREAM_LEGACY) is the current context's: a green
// context's own, else the primary context's legacy stream (key null).
const void* program_profiling::key_of(state& st, void* stream) const {
    static const stream_object per_thread{};
    if (!stream || stream == CU_STREAM_LEGACY || stream == CU_STREAM_PER_THREAD) {
        if (green_context_object* g = st.green_of_context(st.current_context)) return &g->default_stream;
        return stream == CU_STREAM_PER_THREAD ? &per_thread : nullptr;
    }
    return st.find(st.streams_owned, stream);
}

const program_profiling::line& program_profiling::line_of(state& st, void* stream) {
    const void* key = key_of(st, stream);
    auto [it, fresh] = streams_.try_emplace(key);
    if (fresh) {
        line& l = it->second;
        l.id = key ? next_id_++ : 0; // the report's stream 0 is the default stream, as in CUDA
        const green_context_object* current = st.green_of_context(st.current_context);
        if (const stream_object* s = st.find(st.streams_owned, stream)) {
            l.blocking = !(s->flags & CU_STREAM_NON_BLOCKING) && !s->green;
            l.green = s->green;
        } else if (key && current) {
            l.green = current;  // a green context's null stream: never blocking (its streams are non-blocking)
        } else {
            l.blocking = key != nullptr;  // CU_STREAM_PER_THREAD keeps step with the legacy stream
        }
    }
    return it->second;
}

uint64_t program_profiling::legacy_point() const {
    uint64_t t = 0;
    if (!timing_) return t;
    for (const auto& [key, l] : streams_)
        if (!key || l.blocking) t = std::max(t, timing_->stream_end(l.id));
    return t;
}

uint64_t program_profiling::point(state& st, void* stream) {
    if (!timing_) return host_;
    // What the stream's next work would wait for, or its own work's end.
    return std::max(floor_of(st, stream), timing_->stream_end(line_of(st, stream).id));
}

void program_profiling::stream_waits(state& st, void* stream, uint64_t cycle) {
    if (!timing_) return host_waits(cycle);  // nothing launched yet: the stream's work starts after the host's anyway
    timing_->not_before(line_of(st, stream).id, cycle);
}

void program_profiling::host_waits(uint64_t cycle) { host_ = std::max(host_, cycle); }

uint64_t program_profiling::everything() const { return std::max(host_, timing_ ? timing_->run_end() : 0); }

uint64_t program_profiling::point(const green_context_object& g) const {
    uint64_t t = host_;
    if (timing_)
        for (const auto& [key, l] : streams_)
            if (l.green == &g) t = std::max(t, timing_->stream_end(l.id));
    return t;
}

void program_profiling::stream_waits(const green_context_object& g, uint64_t cycle) {
    if (!timing_) return host_waits(cycle);
    if (auto [it, fresh] = streams_.try_emplace(&g.default_stream); fresh) it->second = line{next_id_++, false, &g};
    for (const auto& [key, l] : streams_)
        if (l.green == &g) timing_->not_before(l.id, cycle);
}

void program_profiling::finish(state& st) {
    if (finished_) return;
    finished_ = true;
    const models::gpu_model& m = st.model();
    if (!timing_ || timing_->launches().empty()) {
        st.warn("prof: the program launched no kernel");
        return;
    }
    const auto& launches = timing_->launches();
    std::ostringstream out;
    if (json_) {
        out << sim::timing::to_json(launches, m) << '\n';
    } else {
        std::set<std::string> estimated;
        uint64_t end = 0;
        for (size_t i = 0; i < launches.size(); ++i) {
            const auto& p = launches[i];
            out << fmt::format("\n==== launch #{} of {}\n", i + 1, p.kernel);
            sim::timing::print_text(out, p, m, lines_);
            if (p.registers_estimated) estimated.insert(p.kernel);
            end = std::max(end, p.start + p.cycles);
        }
        out << fmt::format("\nprogram: {} launch{} end at cycle {} ({:.2f} us of simulated GPU time, launch overheads included)\n",
                           launches.size(), launches.size() == 1 ? "" : "es", end, double(end) / m.clock_mhz);
        for (const auto& k : estimated)
            out << fmt::format("note: {}: registers per thread estimated from the PTX, not ptxas\n", k);
    }
    if (report_path_.empty()) std::cerr << out.str();
    else write_or_warn(st, report_path_, out.str(), "report");
    if (!trace_path_.empty()) write_or_warn(st, trace_path_, sim::timing::chrome_trace(launches, m, timing_->memory()), "trace");
    if (!svg_path_.empty()) write_or_warn(st, svg_path_, sim::timing::svg_timeline(launches, m), "timeline");
}

} // namespace ptxsim::cuda::driver
