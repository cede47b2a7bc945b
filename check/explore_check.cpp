#include "check/explore_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>

#include "check/checker.hpp"
#include "check/write_watch.hpp"
#include "sim/device.hpp"
#include "sim/explore.hpp"

namespace ptxsim::check {
namespace {

// Carries out one run with fresh checkers attached (and a passive watch,
// when set); the run's own findings are in `last` afterwards. The same
// checkers in every run, so a replay runs exactly as the exploration did.
struct checked_runner {
    explicit checked_runner(const std::vector<std::string>& t, const checker_options& o, write_watch* w = nullptr,
                            std::vector<uint64_t>* a = nullptr)
        : tools(t), options(o), watch(w), addresses(a) {}
    checked_runner(const checked_runner&) = delete; // as_runner() holds `this`

    const std::vector<std::string>& tools;
    const checker_options& options;
    write_watch* watch;
    std::vector<uint64_t>* addresses; // filled for the watch
    report last;

    int operator()(sim::device& dev, const sim::launch_file& f, const sim::run_settings& s, std::ostream& out, std::ostream& err) {
        last = report();
        std::vector<std::unique_ptr<checker>> checkers;
        fanout all;
        for (const auto& name : tools) {
            checkers.push_back(make_checker(name, last, options));
            all.add(checkers.back().get());
        }
        if (watch) {
            watch->reset();
            all.add(watch);
        }
        sim::run_settings settings = s;
        settings.options.observer = &all;
        settings.options.threads = 1; // one host thread: the schedule alone fixes the order
        if (addresses) settings.buffer_addresses = addresses;
        int status = sim::run_launch_file(dev, f, settings, out, err);
        if (status != 2) all.finish(); // leaks, when the launch file ran to its end
        return status;
    }
    sim::schedule_runner as_runner() {
        return [this](sim::device& d, const sim::launch_file& f, const sim::run_settings& s, std::ostream& o, std::ostream& e) {
            return (*this)(d, f, s, o, e);
        };
    }
};

// Findings of every run, folded: the first run that showed one keeps it
// (and its count), later runs only count the runs.
struct merged_finding {
    finding f;
    uint32_t runs = 1;
};

void merge(std::vector<merged_finding>& into, const report& run, std::optional<uint64_t> seed) {
    for (const finding& f : run.findings()) {
        auto it = std::find_if(into.begin(), into.end(), [&](const merged_finding& m) { return same_finding(m.f, f); });
        if (it != into.end()) {
            ++it->runs;
            continue;
        }
        finding g = f;
        g.scheduled = true;
        g.seed = seed;
        into.push_back({std::move(g), 1});
    }
}

std::string schedule_name(std::optional<uint64_t> seed) { return seed ? fmt::format("seed {}", *seed) : "the default order"; }

// Where two fault-free runs' buffers first differ.
struct byte_difference {
    size_t buffer = 0;
    uint64_t offset = 0;
};

std::optional<byte_difference> first_difference(const sim::schedule_outcome& a, const sim::schedule_outcome& b) {
    for (size_t i = 0; i < a.buffers.size() && i < b.buffers.size(); ++i) {
        const auto& x = a.buffers[i].second;
        const auto& y = b.buffers[i].second;
        for (uint64_t k = 0; k < x.size() && k < y.size(); ++k)
            if (x[k] != y[k]) return byte_difference{i, k};
    }
    return std::nullopt;
}

// Reruns one schedule (with the same checkers, so it runs as it did) with a
// watch on the differing byte: the last instruction that wrote it, and the
// byte's value, to make sure the rerun reproduced the run.
struct watched_run {
    std::optional<write_watch::write> last;
    std::optional<uint8_t> value;
};

watched_run rerun_watching(const models::gpu_model& model, const sim::launch_file& f, const schedule_check_settings& s,
                           std::optional<uint64_t> seed, byte_difference d) {
    sim::launch_file quiet = f; // the exploration's runs wrote the outputs; a rerun adds nothing
    quiet.outputs.clear();
    std::vector<uint64_t> addresses;
    write_watch watch(addresses, d.buffer, d.offset);
    checked_runner runner(s.tools, s.options, &watch, &addresses);
    std::vector<std::pair<std::string, std::vector<uint8_t>>> buffers;
    sim::run_settings settings = s.run;
    settings.final_buffers = &buffers;
    std::ostringstream out, err;
    if (seed) {
        sim::run_schedule(model, quiet, settings, *seed, out, err, runner.as_runner());
    } else {
        sim::device dev(model);
        runner(dev, quiet, settings, out, err);
    }
    watched_run w;
    w.last = watch.last();
    if (d.buffer < buffers.size() && d.offset < buffers[d.buffer].second.size()) w.value = buffers[d.buffer].second[d.offset];
    return w;
}

std::string where(const sim::fault_report& r) {
    std::string s = fmt::format("{}:{}", r.ptx_file, r.ptx_line);
    if (!r.source_file.empty() && r.inlined_file.empty()) s += fmt::format(" ({}:{})", r.source_file, r.source_line);
    else if (!r.source_file.empty())
        s += fmt::format(" ({}:{}, inlined from {}:{})", r.source_file, r.source_line, r.inlined_file, r.inlined_line);
    return s;
}

const char* op_text(const write_watch::write& w) { return w.op == sim::access_op::atomic ? "an atomic" : "a write"; }

std::string write_text(const write_watch::write& w) {
    return fmt::format("{} of {} bytes at {} by thread ({},{},{}) in block ({},{},{})", op_text(w), w.size, where(w.where), w.site.thread.x,
                       w.site.thread.y, w.site.thread.z, w.site.block.x, w.site.block.y, w.site.block.z);
}

// The output-depends-on-schedule finding for two fault-free runs `a` and
// `b` whose buffers differ: at the last write of the first differing byte
// under `b` (a seed), or under `a` when nothing wrote it under `b`.
finding output_finding(const models::gpu_model& model, const sim::launch_file& f, const schedule_check_settings& s,
                       const sim::schedule_outcome& a, const sim::schedule_outcome& b, byte_difference d) {
    finding g;
    // racecheck's finding where racecheck runs (a race is the usual cause), else the first tool's.
    g.tool = std::find(s.tools.begin(), s.tools.end(), "racecheck") != s.tools.end() ? "racecheck" : s.tools.front();
    g.kind = "output-depends-on-schedule";
    g.space = "global";
    g.scheduled = true;
    g.headline = "Output depends on schedule: " + sim::compare_outcomes(f, a, b);
    const watched_run wa = rerun_watching(model, f, s, a.seed, d), wb = rerun_watching(model, f, s, b.seed, d);
    const bool at_b = wb.last.has_value() || !wa.last;
    const watched_run& here = at_b ? wb : wa;
    const watched_run& there = at_b ? wa : wb;
    const sim::schedule_outcome& here_o = at_b ? b : a;
    const sim::schedule_outcome& there_o = at_b ? a : b;
    g.seed = here_o.seed;
    g.kernel = f.launches.empty() ? std::string() : f.launches.back().kernel;
    if (here.last) {
        const write_watch::write& w = *here.last;
        g.kernel = w.kernel;
        g.address = w.address;
        g.has_address = true;
        g.size = w.size;
        set_location(g, w.where);
        g.block = w.site.block;
        g.thread = w.site.thread;
        g.details.push_back(fmt::format("byte {} of buffer '{}' was last written here under {}, by {} of {} bytes", d.offset,
                                        a.buffers[d.buffer].first, schedule_name(here_o.seed), op_text(w), w.size));
    } else {
        g.details.push_back(fmt::format("no instruction wrote byte {} of buffer '{}' when rerun", d.offset, a.buffers[d.buffer].first));
    }
    g.details.push_back(there.last ? fmt::format("under {}: by {}", schedule_name(there_o.seed), write_text(*there.last))
                                   : fmt::format("under {}: no instruction wrote it", schedule_name(there_o.seed)));
    // A rerun that does not give the exploration's byte would make the location above unsound: say so.
    auto reproduced = [&](const watched_run& w, const sim::schedule_outcome& o) {
        if (w.value != std::optional<uint8_t>(o.buffers[d.buffer].second[d.offset]))
            g.details.push_back(fmt::format("warning: rerunning {} did not reproduce its output", schedule_name(o.seed)));
    };
    reproduced(wa, a);
    reproduced(wb, b);
    if (here_o.seed) g.details.push_back(fmt::format("replay it with: ptxsim check --replay {} {}", *here_o.seed, f.path));
    return g;
}

std::string tool_list(const std::vector<std::string>& tools) {
    std::string s;
    for (const auto& t : tools) s += (s.empty() ? "" : ", ") + t;
    return s;
}

} // namespace

int check_schedules(const models::gpu_model& model, const sim::launch_file& f, const schedule_check_settings& s, report& rep,
                    std::ostream& out, std::ostream& err) {
    checked_runner runner(s.tools, s.options);
    std::vector<merged_finding> found;
    // The default order's fault-free outcome, the first fault-free seeded
    // one, and the first seeded one whose bytes differ from that (as
    // explore_schedules compares: seeds among themselves, then the default
    // order against the first seed).
    std::optional<sim::schedule_outcome> default_run, first_seeded, differing;
    std::string mismatches;
    int worst = 0;
    uint32_t runs = 0;

    sim::explore_settings e;
    e.run = s.run;
    e.seed = s.seed;
    e.schedules = s.schedules;
    e.runner = runner.as_runner();
    e.on_outcome = [&](const sim::schedule_outcome& o) {
        ++runs;
        if (o.status == 2) return;
        merge(found, runner.last, o.seed);
        worst = std::max(worst, o.status);
        // Faults are findings; what else a run printed is an output mismatch.
        if (mismatches.empty() && !o.messages.empty()) mismatches = fmt::format("under {}:\n{}", schedule_name(o.seed), o.messages);
        if (o.buffers.empty()) return; // stopped at a fault: its outputs are not a result
        if (!o.seed) {
            default_run = o;
        } else if (!first_seeded) {
            first_seeded = o;
        } else if (!differing && first_difference(*first_seeded, o)) {
            differing = o;
        }
    };
    std::ostringstream explore_out, explore_err;
    const sim::explore_result r = sim::explore_schedules(model, f, e, explore_out, explore_err);
    if (r.status == 2) {
        err << explore_err.str();
        return 2;
    }

    for (auto& m : found) {
        m.f.details.push_back(fmt::format("first seen under {}; in {} of {} runs", schedule_name(m.f.seed), m.runs, runs));
        rep.add(std::move(m.f));
    }
    const sim::schedule_outcome* a = nullptr;
    const sim::schedule_outcome* b = nullptr;
    if (differing) {
        a = &*first_seeded;
        b = &*differing;
    } else if (default_run && first_seeded && first_difference(*default_run, *first_seeded)) {
        a = &*default_run;
        b = &*first_seeded;
    }
    out << fmt::format("schedules: the default order and {} seeded schedules (seeds derived from {}), each with {}; {}\n", s.schedules,
                       s.seed, tool_list(s.tools),
                       a ? "the outputs depend on the schedule" : "every fault-free run leaves the same bytes in every buffer");
    if (a) rep.add(output_finding(model, f, s, *a, *b, *first_difference(*a, *b)));
    err << mismatches;
    return worst;
}

int check_replay(const models::gpu_model& model, const sim::launch_file& f, const schedule_check_settings& s, uint64_t seed,
                 report& rep, std::ostream& out, std::ostream& err) {
    checked_runner runner(s.tools, s.options);
    // run_schedule first runs the default order quietly (to size PCT's
    // change points as the exploration did); `runner.last` is then the
    // seeded run's.
    const int status = sim::run_schedule(model, f, s.run, seed, out, err, runner.as_runner());
    if (status == 2) return 2;
    std::vector<merged_finding> found;
    merge(found, runner.last, seed);
    for (auto& m : found) {
        m.f.details.push_back(fmt::format("seen under seed {}", seed));
        rep.add(std::move(m.f));
    }
    return status;
}

} // namespace ptxsim::check
