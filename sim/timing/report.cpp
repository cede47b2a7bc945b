#include "sim/timing/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <ostream>

namespace ptxsim::sim::timing {

namespace {

double per_s(const launch_profile& p, double amount) {
    const double seconds = double(p.cycles) / (p.clock_mhz * 1e6);
    return seconds > 0 ? amount / seconds : 0;
}

uint64_t stall_total(const line_profile& l) {
    uint64_t n = 0;
    for (int i = 1; i < static_cast<int>(stall::count); ++i) n += l.stall_cycles[i];
    return n;
}

} // namespace

std::vector<std::pair<std::string, double>> metrics_of(const launch_profile& p, const models::gpu_model& m) {
    const auto& mem = p.memory;
    const double cycles = double(p.cycles);
    const double sub_cycles = cycles * p.sms * m.sm.sub_partitions;
    std::vector<std::pair<std::string, double>> v = {
        {"gpc__cycles_elapsed.max", cycles},
        {"gpu__time_duration.sum", cycles / (p.clock_mhz * 1e6) * 1e9}, // ns
        {"ptxsim__launch_overhead_cycles", p.launch_overhead_cycles},
        {"smsp__inst_executed.sum", double(p.warp_instructions)},
        {"sm__inst_executed.avg.per_cycle_active", p.sms_used && cycles ? double(p.warp_instructions) / (cycles * p.sms_used) : 0},
        {"sm__warps_active.avg.pct_of_peak_sustained_active", 100 * p.achieved_occupancy},
        {"sm__maximum_warps_per_active_cycle_pct", 100 * p.occupancy.theoretical},
        {"launch__occupancy_limit_registers", double(p.occupancy.limit_registers)},
        {"launch__occupancy_limit_shared_mem", double(p.occupancy.limit_shared_memory)},
        {"launch__occupancy_limit_warps", double(p.occupancy.limit_warps)},
        {"launch__occupancy_limit_blocks", double(p.occupancy.limit_ctas)},
        {"launch__registers_per_thread", double(p.registers_per_thread)},
        {"launch__sm_count", double(p.sms)},
        {"l1tex__t_sector_hit_rate.pct", mem.l1_sectors ? 100.0 * mem.l1_hits / mem.l1_sectors : 0},
        {"lts__t_sector_hit_rate.pct", mem.l2_sectors ? 100.0 * mem.l2_hits / mem.l2_sectors : 0},
        {"lts__t_sectors.sum", double(mem.l2_sectors)},
        {"dram__bytes_read.sum", double(mem.dram_read_bytes)},
        {"dram__bytes_write.sum", double(mem.dram_write_bytes)},
        {"dram__bytes.sum.per_second", per_s(p, double(mem.dram_read_bytes + mem.dram_write_bytes))},
        {"l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", double(mem.shared_wavefronts)},
        {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", double(mem.shared_wavefronts - mem.shared_ideal_wavefronts)},
        {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
         sub_cycles ? 100.0 * double(p.tensor_busy_cycles) / sub_cycles : 0},
    };
    // A resource that does not limit residency at all has no limit to show.
    std::erase_if(v, [](const auto& x) { return x.first.starts_with("launch__occupancy_limit") && x.second >= 4294967295.0; });
    for (int i = 0; i < static_cast<int>(stall::count); ++i)
        v.push_back({fmt::format("smsp__pcsamp_warps_issue_stalled_{}", to_string(static_cast<stall>(i))), double(p.stall_cycles[i])});
    return v;
}

void print_text(std::ostream& out, const launch_profile& p, const models::gpu_model& m, size_t top_lines) {
    out << fmt::format("{} grid ({},{},{}) block ({},{},{}) on {} of {}'s {} SMs ({} used), {} at {:.0f} MHz\n", p.kernel, p.grid.x,
                       p.grid.y, p.grid.z, p.block.x, p.block.y, p.block.z, p.sms, m.name, m.sm_count, p.sms_used,
                       p.ok ? "completed" : "stopped by a fault", p.clock_mhz);
    out << fmt::format("  cycles {}  ({:.2f} us; launch overhead {:.0f} cycles more)\n", p.cycles,
                       double(p.cycles) / p.clock_mhz, p.launch_overhead_cycles);
    out << fmt::format("  stream {}: cycles {} to {} of the run\n", p.stream, p.start, p.start + p.cycles);
    if (p.sampled())
        out << fmt::format("  sampled (--sample): the first {} of {} CTAs simulated in detail (to cycle {}), the other {} placed at\n"
                           "  {} cycles each (the measured steady rate); cycles, counters and source lines extrapolated (x{:.2f})\n",
                           p.sampled_ctas, p.grid.count(), p.start + p.detailed_cycles, p.grid.count() - p.sampled_ctas,
                           p.estimated_cta_cycles, double(p.grid.count()) / double(p.sampled_ctas));
    const double ipc = p.sms_used && p.cycles ? double(p.warp_instructions) / (double(p.cycles) * p.sms_used) : 0;
    out << fmt::format("  warp-instructions {}  IPC {:.2f} per active SM\n", p.warp_instructions, ipc);
    out << fmt::format("  occupancy: theoretical {:.1f}% ({} CTAs/SM, limited by {}), achieved {:.1f}%{}\n",
                       100 * p.occupancy.theoretical, p.occupancy.ctas_per_sm, p.occupancy.limiting_names(), 100 * p.achieved_occupancy,
                       !p.registers_per_thread  ? "  [registers per thread unknown: give \"registers_per_thread\" (ptxas -v)]"
                       : p.registers_estimated ? fmt::format("  [{} registers per thread estimated from the PTX]", p.registers_per_thread)
                                               : std::string());
    out << "\n  metric                                                         value\n";
    for (const auto& [name, value] : metrics_of(p, m))
        out << fmt::format("  {:<62} {}\n", name, value == double(uint64_t(value)) ? fmt::format("{}", uint64_t(value))
                                                                                        : fmt::format("{:.2f}", value));
    if (!top_lines || p.rows.empty()) return;
    std::vector<const line_row*> rows;
    for (const auto& r : p.rows) rows.push_back(&r);
    std::stable_sort(rows.begin(), rows.end(), [](const line_row* a, const line_row* b) {
        return stall_total(a->p) + a->p.instructions > stall_total(b->p) + b->p.instructions;
    });
    out << fmt::format("\n  source lines by cycles (top {}):\n  {:<34} {:<24} {:>10} {:>12}  top stall\n", std::min(top_lines, rows.size()),
                       "PTX line", "CUDA line", "issued", "stall cycles");
    for (size_t i = 0; i < rows.size() && i < top_lines; ++i) {
        const line_row& r = *rows[i];
        int top = 1;
        for (int k = 2; k < static_cast<int>(stall::count); ++k)
            if (r.p.stall_cycles[k] > r.p.stall_cycles[top]) top = k;
        const std::string ptx = fmt::format("{}:{}", r.ptx_file.substr(r.ptx_file.find_last_of('/') + 1), r.ptx_line);
        const std::string cuda = r.cuda_file.empty() ? "-" : fmt::format("{}:{}", r.cuda_file.substr(r.cuda_file.find_last_of('/') + 1), r.cuda_line);
        out << fmt::format("  {:<34} {:<24} {:>10} {:>12}  {}\n", ptx, cuda, r.p.instructions, stall_total(r.p),
                           r.p.stall_cycles[top] ? to_string(static_cast<stall>(top)) : "-");
    }
}

std::string to_json(const std::vector<launch_profile>& launches, const models::gpu_model& m) {
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (const auto& p : launches) {
        nlohmann::ordered_json j;
        j["kernel"] = p.kernel;
        j["grid"] = {p.grid.x, p.grid.y, p.grid.z};
        j["block"] = {p.block.x, p.block.y, p.block.z};
        j["model"] = m.name;
        j["completed"] = p.ok;
        j["stream"] = p.stream;
        j["start_cycle"] = p.start; // on the run's time line
        j["end_cycle"] = p.start + p.cycles;
        j["occupancy_limited_by"] = p.occupancy.limiting_names();
        j["ctas_per_sm"] = p.occupancy.ctas_per_sm;
        if (p.sampled()) {
            // "ctas" from index sampled_ctas on are estimates (sampling.hpp).
            j["sampled_ctas"] = p.sampled_ctas;
            j["detailed_end_cycle"] = p.start + p.detailed_cycles;
            j["estimated_cta_cycles"] = p.estimated_cta_cycles;
        }
        j["registers_source"] = p.registers_estimated ? "estimate" : p.registers_per_thread ? "known" : "unknown";
        nlohmann::ordered_json metrics;
        for (const auto& [name, value] : metrics_of(p, m)) metrics[name] = value;
        j["metrics"] = metrics;
        nlohmann::ordered_json lines = nlohmann::ordered_json::array();
        for (const auto& r : p.rows) {
            nlohmann::ordered_json l;
            l["ptx_file"] = r.ptx_file;
            l["ptx_line"] = r.ptx_line;
            if (!r.cuda_file.empty()) {
                l["cuda_file"] = r.cuda_file;
                l["cuda_line"] = r.cuda_line;
            }
            l["instructions"] = r.p.instructions;
            nlohmann::ordered_json st;
            for (int k = 1; k < static_cast<int>(stall::count); ++k)
                if (r.p.stall_cycles[k]) st[std::string(to_string(static_cast<stall>(k)))] = r.p.stall_cycles[k];
            l["stall_cycles"] = st;
            lines.push_back(l);
        }
        j["lines"] = lines;
        nlohmann::ordered_json ctas = nlohmann::ordered_json::array();
        for (size_t i = 0; i < p.cta_spans.size(); ++i) ctas.push_back({p.cta_spans[i].first, p.cta_spans[i].second, p.cta_ends[i]});
        j["ctas"] = ctas; // [SM, start cycle, end cycle]
        all.push_back(j);
    }
    return all.dump(2);
}

} // namespace ptxsim::sim::timing
