#include "sim/explore.hpp"

#include <fmt/format.h>

#include <cstring>
#include <memory>
#include <ostream>
#include <sstream>

#include "sim/schedule_policies.hpp"

namespace ptxsim::sim {
namespace {

std::string first_line(const std::string& text) {
    size_t end = text.find('\n');
    std::string line = text.substr(0, end);
    return line.empty() ? std::string("(nothing printed)") : line;
}

std::string element_text(const std::string& type, uint32_t bytes, const uint8_t* p) {
    uint64_t bits = 0;
    std::memcpy(&bits, p, bytes);
    if (type[0] == 'f' || type == "bf16") return fmt::format("{} (0x{:x})", decode_value(type, bits), bits);
    if (type[0] == 's') {
        int64_t v = bytes == 8 ? static_cast<int64_t>(bits) : static_cast<int64_t>(bits << (64 - 8 * bytes)) >> (64 - 8 * bytes);
        return fmt::format("{}", v);
    }
    return fmt::format("{}", bits);
}

// One run on a fresh device; its printing is kept, not shown.
schedule_outcome run_once(const models::gpu_model& model, const launch_file& f, run_settings settings, std::optional<uint64_t> seed,
                          scheduler* sched, const schedule_runner& runner, launch_stats* totals) {
    schedule_outcome o;
    o.seed = seed;
    settings.options.schedule = sched;
    settings.final_buffers = &o.buffers;
    settings.totals = totals;
    settings.stats = false;
    device dev(model);
    std::ostringstream out, err;
    o.status = runner ? runner(dev, f, settings, out, err) : run_launch_file(dev, f, settings, out, err);
    o.messages = err.str();
    return o;
}

} // namespace

std::string name_of(const schedule_outcome& o) { return o.seed ? fmt::format("seed {}", *o.seed) : std::string("the default order"); }

std::string compare_outcomes(const launch_file& f, const schedule_outcome& a, const schedule_outcome& b) {
    // What the buffers hold first: a run that ends in a mismatch differs by its elements.
    for (size_t i = 0; i < a.buffers.size() && i < b.buffers.size(); ++i) {
        const auto& x = a.buffers[i].second;
        const auto& y = b.buffers[i].second;
        if (x == y) continue;
        const buffer_spec& spec = f.buffers[i];
        for (size_t e = 0; e + spec.elem_bytes <= x.size(); e += spec.elem_bytes) {
            if (std::memcmp(x.data() + e, y.data() + e, spec.elem_bytes) == 0) continue;
            return fmt::format("buffer '{}' element {} is {} under {} and {} under {}", a.buffers[i].first, e / spec.elem_bytes,
                               element_text(spec.type, spec.elem_bytes, x.data() + e), name_of(a),
                               element_text(spec.type, spec.elem_bytes, y.data() + e), name_of(b));
        }
    }
    if (a.status != b.status)
        return fmt::format("the run exits with status {} under {} ({}) and {} under {} ({})", a.status, name_of(a), first_line(a.messages),
                           b.status, name_of(b), first_line(b.messages));
    if (a.buffers.empty() != b.buffers.empty() || (a.buffers.empty() && a.messages != b.messages))
        return fmt::format("the run stops with \"{}\" under {} and \"{}\" under {}", first_line(a.messages), name_of(a),
                           first_line(b.messages), name_of(b));
    return {};
}

explore_result explore_schedules(const models::gpu_model& model, const launch_file& f, const explore_settings& s, std::ostream& out,
                                 std::ostream& err) {
    explore_result r;
    launch_stats measured;
    schedule_outcome reference = run_once(model, f, s.run, std::nullopt, nullptr, s.runner, &measured);
    if (s.on_outcome) s.on_outcome(reference);
    if (reference.status == 2) {
        err << reference.messages;
        r.status = 2;
        return r;
    }
    schedule_params params;
    params.quantum = s.run.options.quantum;
    params.expected_instructions = std::max<uint64_t>(1, measured.warp_instructions);
    std::optional<schedule_outcome> first;
    for (uint32_t i = 0; i < s.schedules; ++i) {
        const uint64_t seed = derive_seed(s.seed, i);
        auto sched = make_scheduler(seed, params);
        schedule_outcome o = run_once(model, f, s.run, seed, sched.get(), s.runner, nullptr);
        ++r.schedules;
        if (s.on_outcome) s.on_outcome(o);
        if (o.status == 2) { // cannot happen after the default run read the same file; say so if it does
            err << o.messages;
            r.status = 2;
            return r;
        }
        if (!first) {
            first = std::move(o);
            continue;
        }
        std::string d = compare_outcomes(f, *first, o);
        if (d.empty()) continue;
        ++r.differing;
        if (!r.pair) {
            r.difference = d;
            r.pair.emplace(*first, std::move(o));
        }
    }
    // Every seeded schedule agrees: the default order may still differ.
    if (!r.pair && first) {
        if (std::string d = compare_outcomes(f, reference, *first); !d.empty()) {
            r.difference = d;
            r.differing = r.schedules;
            r.pair.emplace(reference, *first);
        }
    }
    if (!r.pair) {
        out << fmt::format("schedules: {} run (seeds derived from {}); every buffer and exit status is the same as in the default order\n",
                           r.schedules, s.seed);
        // The same fault or mismatch under every schedule is still one.
        err << reference.messages;
        r.status = reference.status;
        return r;
    }
    r.status = 1;
    out << fmt::format("schedules: {} run (seeds derived from {}); {} differ from the first\n", r.schedules, s.seed, r.differing);
    err << fmt::format("ptxsim: output depends on schedule: {}\n", r.difference);
    for (const schedule_outcome* o : {&r.pair->first, &r.pair->second})
        if (o->seed) err << fmt::format("  seed {}: {}\n", *o->seed, describe_schedule(*o->seed, params));
    const schedule_outcome& replay = r.pair->second.seed ? r.pair->second : r.pair->first;
    err << fmt::format("  replay it with: ptxsim run --replay {} {}\n", *replay.seed, f.path);
    return r;
}

int run_schedule(const models::gpu_model& model, const launch_file& f, const run_settings& s, uint64_t seed, std::ostream& out,
                 std::ostream& err, const schedule_runner& runner) {
    launch_stats measured;
    schedule_outcome reference = run_once(model, f, s, std::nullopt, nullptr, runner, &measured);
    if (reference.status == 2) {
        err << reference.messages;
        return 2;
    }
    schedule_params params;
    params.quantum = s.options.quantum;
    params.expected_instructions = std::max<uint64_t>(1, measured.warp_instructions);
    auto sched = make_scheduler(seed, params);
    run_settings settings = s;
    settings.options.schedule = sched.get();
    device dev(model);
    out << fmt::format("schedule: seed {}, {}\n", seed, describe_schedule(seed, params));
    return runner ? runner(dev, f, settings, out, err) : run_launch_file(dev, f, settings, out, err);
}

} // namespace ptxsim::sim
