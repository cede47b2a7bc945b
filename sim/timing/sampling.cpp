#include "sim/timing/sampling.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <unordered_map>

namespace ptxsim::sim::timing {

namespace {

uint64_t scaled(uint64_t v, double f) { return static_cast<uint64_t>(std::llround(double(v) * f)); }

} // namespace

void extrapolate(launch_profile& p, uint64_t grid_ctas, uint64_t warp_instructions, uint32_t ctas_per_sm,
                 const std::vector<uint32_t>& sm_ids) {
    const uint64_t detailed = p.cta_spans.size();
    p.sampled_ctas = detailed;
    p.detailed_cycles = p.cycles;
    if (detailed == 0 || detailed >= grid_ctas) return;
    ctas_per_sm = std::max<uint32_t>(1, ctas_per_sm);
    const uint64_t wave = uint64_t(ctas_per_sm) * sm_ids.size();
    // The GPU's steady rate of CTA completions, over the last wave's worth
    // of completions while every slot was busy: those after the (D - 2W)th
    // and up to the (D - W)th of the D detailed CTAs (W a wave). Up to there
    // new CTAs kept every slot busy; after it the detailed part drains. The
    // latest such wave, because the first waves start all at once and take
    // a few waves to lose step (a cold start). Counted by completions, not
    // by CTA, so CTAs that end together (a burst) fall on one side.
    std::vector<uint64_t> ends = p.cta_ends;
    std::sort(ends.begin(), ends.end());
    double rate = double(detailed) / double(std::max<uint64_t>(1, p.cycles)); // fewer than 3 waves: the mean over all
    uint64_t tb = UINT64_MAX;
    std::vector<uint64_t> steady; // durations of the CTAs that ended in the measured wave
    if (detailed > 2 * wave) {
        const uint64_t ta = ends[detailed - 2 * wave - 1];
        if (ends[detailed - wave - 1] > ta) {
            tb = ends[detailed - wave - 1];
            rate = double(wave) / double(tb - ta);
            for (uint64_t i = 0; i < detailed; ++i)
                if (p.cta_ends[i] > ta && p.cta_ends[i] <= tb) steady.push_back(p.cta_ends[i] - p.cta_spans[i].second);
        }
    }
    // By Little's law a CTA stays wave / rate cycles while every slot is busy.
    const uint64_t duration = std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(double(wave) / rate)));
    p.estimated_cta_cycles = duration;
    // The CTAs still running at tb ran on into the drain, with the SMs
    // emptying and so faster than they would have with the rest of the grid
    // behind them: they end as steady-state CTAs would (no earlier than the
    // detailed run says).
    for (uint64_t i = 0; i < detailed; ++i)
        if (p.cta_ends[i] > tb) p.cta_ends[i] = std::max(p.cta_ends[i], p.cta_spans[i].second + duration);

    // Each SM's slots free when the last detailed CTAs on it ended (an SM
    // the detailed part left idle is free from the launch's start).
    std::unordered_map<uint32_t, std::vector<uint64_t>> on_sm;
    for (uint64_t i = 0; i < detailed; ++i) on_sm[p.cta_spans[i].first].push_back(p.cta_ends[i]);
    using slot = std::pair<uint64_t, uint32_t>; // free from, SM id
    std::priority_queue<slot, std::vector<slot>, std::greater<slot>> free;
    for (uint32_t sm : sm_ids) {
        std::vector<uint64_t>& e = on_sm[sm];
        std::sort(e.begin(), e.end(), std::greater<uint64_t>());
        for (uint32_t k = 0; k < ctas_per_sm; ++k) free.push({k < e.size() ? e[k] : p.start, sm});
    }
    for (uint64_t c = detailed; c < grid_ctas; ++c) {
        auto [at, sm] = free.top();
        free.pop();
        p.cta_spans.push_back({sm, at});
        p.cta_ends.push_back(at + duration);
        free.push({at + duration, sm});
    }
    // The launch ends when its slowest last CTA does, not a mean one: the
    // CTAs that end last on their slots take the longest duration of the
    // measured wave (with the whole grid simulated, the tail's spread is
    // what decides the end; the mean alone came out up to 5% short in
    // scripts/sample_error.py).
    uint64_t tail = duration;
    for (uint64_t d : steady) tail = std::max(tail, d);
    std::unordered_map<uint32_t, uint32_t> last_seen; // per SM: how many of its slots' last CTAs were found, going backwards
    for (uint64_t c = grid_ctas; c-- > detailed;)
        if (uint32_t& n = last_seen[p.cta_spans[c].first]; n < ctas_per_sm) {
            ++n;
            p.cta_ends[c] = p.cta_spans[c].second + tail;
        }
    uint64_t end = p.start + p.cycles;
    for (uint64_t e : p.cta_ends) end = std::max(end, e);
    p.cycles = end - p.start;

    const double f = double(grid_ctas) / double(detailed);
    for (auto& s : p.stall_cycles) s = scaled(s, f);
    for (auto& n : p.pipe_instructions) n = scaled(n, f);
    p.tensor_busy_cycles = scaled(p.tensor_busy_cycles, f);
    for (uint64_t* v : {&p.memory.shared_requests, &p.memory.shared_wavefronts, &p.memory.shared_ideal_wavefronts, &p.memory.l1_sectors,
                        &p.memory.l1_hits, &p.memory.l2_sectors, &p.memory.l2_hits, &p.memory.dram_read_bytes, &p.memory.dram_write_bytes})
        *v = scaled(*v, f);
    for (auto& [where, l] : p.lines) {
        l.instructions = scaled(l.instructions, f);
        for (auto& s : l.stall_cycles) s = scaled(s, f);
    }
    p.warp_instructions = warp_instructions;
    std::vector<bool> used_sm;
    p.sms_used = 0;
    for (const auto& [sm, start] : p.cta_spans) {
        if (sm >= used_sm.size()) used_sm.resize(sm + 1, false);
        if (!used_sm[sm]) ++p.sms_used;
        used_sm[sm] = true;
    }
}

} // namespace ptxsim::sim::timing
