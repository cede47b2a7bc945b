#include "sim/timing/trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <nlohmann/json.hpp>

namespace ptxsim::sim::timing {

namespace {

// The last cycle of the run: when its last launch ended.
double run_end(const std::vector<launch_profile>& launches) {
    double end = 1;
    for (const auto& p : launches) end = std::max(end, double(p.start + p.cycles));
    return end;
}

std::string escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '<') out += "&lt;";
        else if (c == '>') out += "&gt;";
        else if (c == '&') out += "&amp;";
        else if (c == '"') out += "&quot;";
        else out += c;
    }
    return out;
}

} // namespace

std::string chrome_trace(const std::vector<launch_profile>& launches, const models::gpu_model& m, const memory_timing* memory) {
    nlohmann::ordered_json events = nlohmann::ordered_json::array();
    const double us = 1.0 / m.clock_mhz; // microseconds per cycle
    for (uint32_t sm = 0; sm < m.sm_count; ++sm)
        events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", sm}, {"args", {{"name", fmt::format("SM {}", sm)}}}});
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 0}, {"args", {{"name", m.name}}}});
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"args", {{"name", "streams"}}}});
    std::set<uint32_t> streams;
    for (const auto& p : launches)
        if (streams.insert(p.stream).second)
            events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", p.stream}, {"args", {{"name", fmt::format("stream {}", p.stream)}}}});
    for (size_t i = 0; i < launches.size(); ++i) {
        const launch_profile& p = launches[i];
        events.push_back({{"name", p.kernel},
                          {"cat", fmt::format("launch {}", i)},
                          {"ph", "X"},
                          {"pid", 1},
                          {"tid", p.stream},
                          {"ts", double(p.start) * us},
                          {"dur", std::max(double(p.cycles), 1.0) * us},
                          {"args", {{"launch", i}, {"ctas", p.cta_spans.size()}, {"sms", p.sms}, {"cycles", p.cycles}}}});
        for (size_t c = 0; c < p.cta_spans.size(); ++c) {
            const double begin = double(p.cta_spans[c].second), end = double(p.cta_ends[c]);
            nlohmann::ordered_json args = {{"cta", c}};
            if (p.estimated(c)) args["estimated"] = true; // --sample extrapolated it
            events.push_back({{"name", p.kernel},
                              {"cat", fmt::format("launch {}", i)},
                              {"ph", "X"},
                              {"pid", 0},
                              {"tid", p.cta_spans[c].first},
                              {"ts", begin * us},
                              {"dur", std::max(end - begin, 1.0) * us},
                              {"args", args}});
        }
    }
    // HBM bandwidth over the run, from the calendar, in at most ~500 steps.
    if (memory) {
        const auto& used = memory->dram().used();
        const uint32_t width = memory->dram().bucket_cycles();
        const size_t group = std::max<size_t>(1, (used.size() + 499) / 500);
        for (size_t b = 0; b < used.size(); b += group) {
            double bytes = 0;
            const size_t n = std::min(group, used.size() - b);
            for (size_t k = 0; k < n; ++k) bytes += used[b + k];
            const double seconds = double(n * width) / (m.clock_mhz * 1e6);
            events.push_back({{"name", "DRAM GB/s"}, {"ph", "C"}, {"pid", 0}, {"ts", double(b * width) * us}, {"args", {{"GB/s", bytes / seconds / 1e9}}}});
        }
        events.push_back({{"name", "DRAM GB/s"}, {"ph", "C"}, {"pid", 0}, {"ts", double(used.size() * width) * us}, {"args", {{"GB/s", 0}}}});
    }
    nlohmann::ordered_json doc;
    doc["traceEvents"] = events;
    doc["displayTimeUnit"] = "ns";
    return doc.dump(1) + "\n";
}

std::string svg_timeline(const std::vector<launch_profile>& launches, const models::gpu_model& m) {
    static const char* colours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf"};
    const double total = run_end(launches);
    const double left = 60, top = 30, width = 900, row = 4;
    const double height = top + row * m.sm_count + 40 + 16 * double(launches.size());
    std::string out = fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" width="{:.0f}" height="{:.0f}" font-family="sans-serif" font-size="11">)"
                                  "\n",
                                  left + width + 20, height);
    out += fmt::format(R"(<text x="{:.0f}" y="18">{}: SMs (rows) over time, one bar per CTA, coloured by kernel</text>)" "\n", left, escape(m.name));
    out += fmt::format(R"(<rect x="{:.0f}" y="{:.0f}" width="{:.0f}" height="{:.0f}" fill="#f4f4f4"/>)" "\n", left, top, width, row * m.sm_count);
    for (uint32_t sm = 0; sm < m.sm_count; sm += 20)
        out += fmt::format(R"(<text x="4" y="{:.1f}">SM {}</text>)" "\n", top + row * sm + 8, sm);
    for (size_t i = 0; i < launches.size(); ++i) {
        const launch_profile& p = launches[i];
        const char* colour = colours[i % std::size(colours)];
        for (size_t c = 0; c < p.cta_spans.size(); ++c) {
            const double begin = double(p.cta_spans[c].second), end = double(p.cta_ends[c]);
            // --sample's estimated CTAs lighter than the simulated ones.
            out += fmt::format(R"(<rect x="{:.2f}" y="{:.1f}" width="{:.2f}" height="{:.1f}" fill="{}" fill-opacity="{}"/>)" "\n",
                               left + width * begin / total, top + row * p.cta_spans[c].first,
                               std::max(0.5, width * (end - begin) / total), row - 0.5, colour, p.estimated(c) ? "0.25" : "0.6");
        }
        out += fmt::format(R"(<rect x="{:.0f}" y="{:.0f}" width="10" height="10" fill="{}"/><text x="{:.0f}" y="{:.0f}">{} (stream {}: {} CTAs on {} SMs, cycles {} to {}{})</text>)" "\n",
                           left, top + row * m.sm_count + 30 + 16 * double(i), colour, left + 14, top + row * m.sm_count + 39 + 16 * double(i),
                           escape(p.kernel), p.stream, p.cta_spans.size(), p.sms_used, p.start, p.start + p.cycles,
                           p.sampled() ? fmt::format("; sampled: CTAs after the first {} extrapolated, lighter", p.sampled_ctas)
                               : std::string());
    }
    out += fmt::format(R"(<text x="{:.0f}" y="{:.0f}">0</text><text x="{:.0f}" y="{:.0f}" text-anchor="end">{:.0f} cycles ({:.2f} us)</text>)" "\n",
                       left, top + row * m.sm_count + 14, left + width, top + row * m.sm_count + 14, total, total / m.clock_mhz);
    return out + "</svg>\n";
}

} // namespace ptxsim::sim::timing
