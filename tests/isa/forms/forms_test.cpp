// Every generated instruction form that ptxas accepts for sm_80 ... sm_90a
// (legal_forms.txt, scripts/forms/gen_forms.py) must load, decode and run
// one thread without stopping as "not implemented", except the forms listed
// in known_gaps.txt; a listed form that now runs fails too, so the list can
// only shrink. The data is committed: ptxas is not needed here.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "models/model.hpp"
#include "sim/device.hpp"
#include "tests/isa/forms/form_kernel.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test::forms {
namespace {

struct outcome {
    std::string status = "runs"; // runs | faults | not implemented | rejected
    std::string detail;          // the reason or the fault
};

const models::gpu_model& model() {
    static const models::gpu_model m = [] {
        parser::diagnostics d;
        auto mm = models::load_model(source_dir() + "/models/h800.json", d);
        if (!mm) throw std::runtime_error("cannot load models/h800.json");
        return *mm;
    }();
    return m;
}

std::string first_error(const parser::diagnostics& d) {
    for (const auto& x : d.all())
        if (x.level == parser::severity::error) return fmt::format("{}:{}: {}", x.line, x.col, x.message);
    return "failed without a diagnostic";
}

// Loads a module of forms at `target` and, with `run`, launches each kernel
// with one thread; results go to out[index[i]].
void check_module(const std::string& target, const std::vector<const form*>& fs, const std::vector<size_t>& index,
                  bool run, std::vector<outcome>& out) {
    std::vector<std::string> ins;
    for (const form* f : fs) ins.push_back(f->instruction);
    sim::device dev(model());
    parser::diagnostics d;
    if (!dev.load_module_text("forms.ptx", module_text(target, ins), d)) {
        if (fs.size() == 1) {
            out[index[0]] = {"rejected", target + ": " + first_error(d)};
            return;
        }
        // One form spoils the module: find which, each on its own.
        for (size_t i = 0; i < fs.size(); ++i) check_module(target, {fs[i]}, {index[i]}, run, out);
        return;
    }
    uint64_t zero_params[64] = {};
    std::vector<uint8_t> params(reinterpret_cast<uint8_t*>(zero_params), reinterpret_cast<uint8_t*>(zero_params) + 512);
    for (size_t i = 0; i < fs.size(); ++i) {
        outcome& o = out[index[i]];
        if (o.status == "rejected" || o.status == "not implemented") continue;
        std::string why;
        auto k = dev.find_kernel(fmt::format("k{}", i), why);
        if (!k) {
            o = {"rejected", target + ": " + why};
            continue;
        }
        parser::diagnostics kd;
        const isa::exec_function* code = dev.kernel_code(*k, kd);
        if (!code) {
            o = {"rejected", target + ": " + first_error(kd)};
            continue;
        }
        if (!code->unsupported.empty()) {
            o = {"not implemented", code->unsupported.front()};
            continue;
        }
        if (!run) continue;
        sim::launch_options opt;
        opt.max_warp_instructions = 10'000;
        // One thread, except where the instruction needs a whole warp or warpgroup.
        const std::string& fam = fs[i]->family;
        uint32_t threads = fam.starts_with("wgmma.") ? 128 : fam.ends_with("matrix") ? 32 : 1;
        auto r = dev.launch(*k, {1}, {threads}, 0, params, opt, kd);
        if (r.fault && r.fault->kind == "unsupported instruction") o = {"not implemented", r.fault->message};
        else if (r.fault) o = {"faults", r.fault->kind + ": " + r.fault->message};
        else if (!r.ok) o = {"faults", first_error(kd)};
    }
}

std::map<std::string, std::string> read_gaps(const std::string& path) {
    std::map<std::string, std::string> gaps;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        auto t = line.find('\t');
        gaps[line.substr(0, t)] = t == std::string::npos ? "" : line.substr(t + 1);
    }
    return gaps;
}

// gen_forms.py wrote kernel_example.ptx with forms_kernel.py: the C++
// builder must give the same text, or ptxas checked other kernels than these.
TEST(instruction_forms, the_kernel_builder_agrees_with_the_generator) {
    std::vector<std::string> example = {"ld.global.v2.b32 {%b32_0, %b32_1}, [gbuf]", "setp.lt.and.f32 %p_0, %b32_0, %b32_1, !%p_1",
                                        "mbarrier.arrive.b64 %b64_0, [%sa]", "atom.add.u32 %b32_0, [%ga], 1", "bra $Lend"};
    EXPECT_EQ(module_text("sm_90a", example), read_file(source_dir() + "/tests/isa/forms/kernel_example.ptx"));
}

TEST(instruction_forms, every_legal_sm80_to_sm90a_form_runs_or_is_a_listed_gap) {
    const std::string dir = source_dir() + "/tests/isa/forms/";
    auto forms = read_forms(dir + "legal_forms.txt");
    auto gaps = read_gaps(dir + "known_gaps.txt");
    ASSERT_GT(forms.size(), 1000u) << "legal_forms.txt looks truncated";
    std::vector<outcome> out(forms.size());

    // Load at every target ptxas accepts the form for (lint must accept it
    // there too); run once, at the lowest. Modules of up to 256 forms.
    for (const char* target : {"sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"}) {
        std::vector<const form*> batch;
        std::vector<size_t> index;
        auto flush = [&] {
            if (batch.empty()) return;
            // Forms run at their lowest target; the others only load here.
            std::vector<const form*> run_b, load_b;
            std::vector<size_t> run_i, load_i;
            for (size_t i = 0; i < batch.size(); ++i) {
                bool lowest = batch[i]->targets.front() == target;
                (lowest ? run_b : load_b).push_back(batch[i]);
                (lowest ? run_i : load_i).push_back(index[i]);
            }
            if (!run_b.empty()) check_module(target, run_b, run_i, true, out);
            if (!load_b.empty()) check_module(target, load_b, load_i, false, out);
            batch.clear();
            index.clear();
        };
        for (size_t i = 0; i < forms.size(); ++i) {
            const auto& ts = forms[i].targets;
            if (std::find(ts.begin(), ts.end(), target) == ts.end()) continue;
            batch.push_back(&forms[i]);
            index.push_back(i);
            if (batch.size() == 256) flush();
        }
        flush();
    }

    // Report, and the status of every form for docs/instruction-coverage.md.
    std::map<std::string, size_t> counts;
    std::set<std::string> legal;
    std::ofstream status;
    if (const char* p = std::getenv("PTXSIM_FORMS_STATUS")) status.open(p);
    std::vector<std::string> new_gaps, closed_gaps;
    for (size_t i = 0; i < forms.size(); ++i) {
        const auto& f = forms[i];
        const auto& o = out[i];
        legal.insert(f.instruction);
        ++counts[o.status];
        if (status) status << f.family << '\t' << f.targets.front() << '\t' << o.status << '\t' << f.instruction << '\t' << o.detail << '\n';
        bool stops = o.status == "not implemented" || o.status == "rejected";
        bool listed = gaps.count(f.instruction) > 0;
        if (stops && !listed) new_gaps.push_back(fmt::format("{} ({}: {})", f.instruction, o.status, o.detail));
        if (!stops && listed) closed_gaps.push_back(f.instruction);
    }
    std::vector<std::string> stale;
    for (const auto& [ins, why] : gaps)
        if (!legal.count(ins)) stale.push_back(ins);
    std::printf("instruction forms: %zu legal for sm_80..sm_90a; %zu run, %zu run into another fault (one thread, zero operands), "
                "%zu stop as not implemented, %zu are rejected by ptxsim; %zu known gaps listed in known_gaps.txt\n",
                forms.size(), counts["runs"], counts["faults"], counts["not implemented"], counts["rejected"], gaps.size());
    EXPECT_TRUE(new_gaps.empty()) << new_gaps.size() << " legal forms stop and are not in known_gaps.txt:\n  "
                                  << fmt::format("{}", fmt::join(new_gaps, "\n  "));
    EXPECT_TRUE(closed_gaps.empty()) << closed_gaps.size() << " forms in known_gaps.txt run now; remove them from the list:\n  "
                                     << fmt::format("{}", fmt::join(closed_gaps, "\n  "));
    EXPECT_TRUE(stale.empty()) << stale.size() << " lines of known_gaps.txt name no legal form:\n  "
                               << fmt::format("{}", fmt::join(stale, "\n  "));
}

} // namespace
} // namespace ptxsim::test::forms
