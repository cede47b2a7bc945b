#include "cuda/driver/checking.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "check/explore_check.hpp"
#include "cuda/driver/recording.hpp"
#include "sim/events.hpp"
#include "sim/launch_file.hpp"

namespace ptxsim::cuda::driver {
namespace {

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

// "volatile=cuda,warp_sync=1,..." as cmd_check writes it.
check::checker_options options_from(const std::string& text) {
    check::checker_options o;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');) {
        const auto eq = item.find('=');
        if (eq == std::string::npos) continue;
        const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
        if (key == "volatile")
            o.volatile_reading = value == "cuda"    ? check::volatile_model::cuda
                                 : value == "ptx"   ? check::volatile_model::ptx
                                 : value == "plain" ? check::volatile_model::plain
                                                    : check::volatile_model::auto_;
        else if (key == "warp_sync") o.warp_synchronous = value == "1";
        else if (key == "only_intra_warp") o.only_intra_warp = value == "1";
        else if (key == "cuda_barrier_rule") o.cuda_barrier_rule = value == "1";
    }
    return o;
}

// The program and its arguments, as the user would type them again.
std::string command_line() {
    std::ifstream in("/proc/self/cmdline", std::ios::binary);
    std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()), out;
    for (size_t at = 0; at < all.size();) {
        const size_t end = all.find('\0', at);
        std::string word = all.substr(at, end - at);
        const bool plain = !word.empty() && word.find_first_of(" \t'\"$\\") == std::string::npos;
        out += (out.empty() ? "" : " ") + (plain ? word : "'" + word + "'");
        at = end == std::string::npos ? all.size() : end + 1;
    }
    return out;
}

} // namespace

program_checking* program_checking::get() {
    static program_checking* made = []() -> program_checking* {
        const std::string tools = env("PTXSIM_CHECK_TOOLS");
        if (tools.empty()) return nullptr;
        auto* c = new program_checking();  // lives to the end of the process
        const check::checker_options o = options_from(env("PTXSIM_CHECK_OPTIONS"));
        c->options_ = o;
        std::stringstream in(tools);
        for (std::string name; std::getline(in, name, ',');) {
            auto checker = check::make_checker(name, c->report_, o);
            if (!checker) {
                std::cerr << fmt::format("ptxsim: unknown checker '{}' asked of the CUDA driver\n", name);
                continue;
            }
            c->tools_.push_back(name);
            c->memcheck_ |= name == "memcheck";
            c->all_.add(checker.get());
            c->checkers_.push_back(std::move(checker));
        }
        if (const std::string limit = env("PTXSIM_CHECK_PRINT_LIMIT"); !limit.empty())
            c->print_limit_ = std::strtoull(limit.c_str(), nullptr, 10);
        c->json_path_ = env("PTXSIM_CHECK_REPORT");
        if (const std::string n = env("PTXSIM_CHECK_SCHEDULES"); !n.empty()) c->schedules_ = uint32_t(std::strtoul(n.c_str(), nullptr, 10));
        if (const std::string n = env("PTXSIM_CHECK_SEED"); !n.empty()) c->seed_ = std::strtoull(n.c_str(), nullptr, 10);
        if (const std::string n = env("PTXSIM_CHECK_REPLAY"); !n.empty()) c->replay_ = std::strtoull(n.c_str(), nullptr, 10);
        if (const std::string n = env("PTXSIM_MAX_INSTRUCTIONS"); !n.empty()) c->max_instructions_ = std::strtoull(n.c_str(), nullptr, 10);
        return c;
    }();
    return made;
}

void program_checking::allocated(uint64_t address, uint64_t bytes, const std::string& name) {
    all_.host_allocate({address, bytes, name});
}

void program_checking::written(uint64_t address, uint64_t bytes) { all_.host_write({address, bytes, ""}); }

void program_checking::name_launch(size_t first, const std::string& launch) { report_.annotate(first, launch); }

void program_checking::api_error(const std::string& error_name, int code, const std::string& why, const std::string& kernel,
                                 const std::string& launch) {
    if (!memcheck_) return;
    check::finding f;
    f.tool = "memcheck";
    f.kind = "api-error";
    f.kernel = kernel;
    f.host = true;
    f.headline = fmt::format("Program hit {} (error {}) due to \"{}\" on the launch of kernel '{}'", error_name, code, why, kernel);
    f.details.push_back(launch);
    report_.add(std::move(f));
}

launch_recording* program_checking::explorer() {
    if (!schedules_ && !replay_) return nullptr;
    if (!explorer_) {
        explore_dir_ = (std::filesystem::temp_directory_path() / fmt::format("ptxsim-check-launches-{}", getpid())).string();
        explorer_ = std::make_unique<launch_recording>(explore_dir_);
    }
    return explorer_.get();
}

void program_checking::explore(const models::gpu_model& model, const std::string& path, const std::string& module_name,
                               const std::string& recorded_module, const std::string& launch) {
    parser::diagnostics d;
    auto file = sim::read_launch_file(path, d);
    if (!file) {
        std::cerr << fmt::format("ptxsim: check: {}: its recording does not read back, so it is not explored\n", launch);
        return;
    }
    check::schedule_check_settings s;
    s.tools = tools_;
    s.options = options_;
    s.run.options.max_warp_instructions = max_instructions_;
    s.seed = seed_;
    s.schedules = schedules_;
    check::report found;
    std::ostringstream out, err;
    if (replay_) check::check_replay(model, *file, s, *replay_, found, out, err);
    else check::check_schedules(model, *file, s, found, out, err);
    // Findings the program's own run did not have: under a schedule only.
    const size_t first = report_.findings().size();
    // The recording is temporary: findings name the program's module and
    // say how to replay the schedule on the program.
    const std::string recorded_path =
        (std::filesystem::path(path).parent_path().parent_path() / "modules" / recorded_module).string();
    auto rename = [&](std::string& text) {
        for (size_t at = text.find(recorded_path); at != std::string::npos; at = text.find(recorded_path, at + module_name.size()))
            text.replace(at, recorded_path.size(), module_name);
    };
    for (check::finding f : found.findings()) {
        for (std::string* file_name : {&f.ptx_file, &f.other_ptx_file})
            if (std::filesystem::path(*file_name).filename() == recorded_module) *file_name = module_name;
        for (std::string& line : f.details) {
            rename(line);
            if (line.rfind("replay it with: ptxsim check --replay ", 0) == 0) {
                const std::string seed = line.substr(38, line.find(' ', 38) - 38);
                line = fmt::format("replay it with: ptxsim check --tool {} --replay {} {}", fmt::join(tools_, ","), seed,
                                   command_line());
            }
        }
        bool known = false;
        for (const auto& g : report_.findings()) known = known || check::same_finding(g, f);
        if (!known) report_.add(std::move(f));
    }
    name_launch(first, launch);
    if (!replay_) {
        std::string summary = out.str();
        while (!summary.empty() && summary.back() == '\n') summary.pop_back();
        if (!summary.empty()) std::cerr << fmt::format("ptxsim: check: {}: {}\n", launch, summary);
    }
    std::error_code ec;
    std::filesystem::remove_all(std::filesystem::path(path).parent_path(), ec);
}

void program_checking::finish() {
    if (finished_) return;
    finished_ = true;
    all_.finish();
    std::cerr.flush();
    std::ostringstream text;
    report_.print_text(text, print_limit_);
    std::cerr << "========= ptxsim check\n" << text.str();
    if (!json_path_.empty()) std::ofstream(json_path_) << report_.json(tools_);
    if (!explore_dir_.empty()) {
        std::error_code ec;
        std::filesystem::remove_all(explore_dir_, ec);
    }
}

} // namespace ptxsim::cuda::driver
