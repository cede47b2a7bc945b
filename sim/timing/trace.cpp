#include "sim/timing/trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace ptxsim::sim::timing {

namespace {

// Where each launch starts on one time line: the previous one's end plus
// the model's launch overhead.
std::vector<double> launch_starts(const std::vector<launch_profile>& launches) {
    std::vector<double> starts;
    double t = 0;
    for (const auto& p : launches) {
        t += p.launch_overhead_cycles;
        starts.push_back(t);
        t += double(p.cycles);
    }
    return starts;
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

std::string chrome_trace(const std::vector<launch_profile>& launches, const models::gpu_model& m) {
    nlohmann::ordered_json events = nlohmann::ordered_json::array();
    const double us = 1.0 / m.clock_mhz; // microseconds per cycle
    for (uint32_t sm = 0; sm < m.sm_count; ++sm)
        events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", sm}, {"args", {{"name", fmt::format("SM {}", sm)}}}});
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 0}, {"args", {{"name", m.name}}}});
    const auto starts = launch_starts(launches);
    for (size_t i = 0; i < launches.size(); ++i) {
        const launch_profile& p = launches[i];
        for (size_t c = 0; c < p.cta_spans.size(); ++c) {
            const double begin = starts[i] + double(p.cta_spans[c].second), end = starts[i] + double(p.cta_ends[c]);
            events.push_back({{"name", p.kernel},
                              {"cat", fmt::format("launch {}", i)},
                              {"ph", "X"},
                              {"pid", 0},
                              {"tid", p.cta_spans[c].first},
                              {"ts", begin * us},
                              {"dur", std::max(end - begin, 1.0) * us},
                              {"args", {{"cta", c}}}});
        }
        const double seconds = double(p.cycles) / (p.clock_mhz * 1e6);
        const double dram = seconds > 0 ? double(p.memory.dram_read_bytes + p.memory.dram_write_bytes) / seconds / 1e9 : 0;
        events.push_back({{"name", "DRAM GB/s"}, {"ph", "C"}, {"pid", 0}, {"ts", starts[i] * us}, {"args", {{"GB/s", dram}}}});
        events.push_back({{"name", "DRAM GB/s"}, {"ph", "C"}, {"pid", 0}, {"ts", (starts[i] + double(p.cycles)) * us}, {"args", {{"GB/s", 0}}}});
    }
    nlohmann::ordered_json doc;
    doc["traceEvents"] = events;
    doc["displayTimeUnit"] = "ns";
    return doc.dump(1) + "\n";
}

std::string svg_timeline(const std::vector<launch_profile>& launches, const models::gpu_model& m) {
    static const char* colours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf"};
    const auto starts = launch_starts(launches);
    const double total = launches.empty() ? 1 : std::max(1.0, starts.back() + double(launches.back().cycles));
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
            const double begin = starts[i] + double(p.cta_spans[c].second), end = starts[i] + double(p.cta_ends[c]);
            out += fmt::format(R"(<rect x="{:.2f}" y="{:.1f}" width="{:.2f}" height="{:.1f}" fill="{}" fill-opacity="0.6"/>)" "\n",
                               left + width * begin / total, top + row * p.cta_spans[c].first,
                               std::max(0.5, width * (end - begin) / total), row - 0.5, colour);
        }
        out += fmt::format(R"(<rect x="{:.0f}" y="{:.0f}" width="10" height="10" fill="{}"/><text x="{:.0f}" y="{:.0f}">{} ({} CTAs on {} SMs, {} cycles)</text>)" "\n",
                           left, top + row * m.sm_count + 30 + 16 * double(i), colour, left + 14, top + row * m.sm_count + 39 + 16 * double(i),
                           escape(p.kernel), p.cta_spans.size(), p.sms_used, p.cycles);
    }
    out += fmt::format(R"(<text x="{:.0f}" y="{:.0f}">0</text><text x="{:.0f}" y="{:.0f}" text-anchor="end">{:.0f} cycles ({:.2f} us)</text>)" "\n",
                       left, top + row * m.sm_count + 14, left + width, top + row * m.sm_count + 14, total, total / m.clock_mhz);
    return out + "</svg>\n";
}

} // namespace ptxsim::sim::timing
