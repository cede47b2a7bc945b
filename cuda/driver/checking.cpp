#include "cuda/driver/checking.hpp"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "sim/events.hpp"

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

} // namespace

program_checking* program_checking::get() {
    static program_checking* made = []() -> program_checking* {
        const std::string tools = env("PTXSIM_CHECK_TOOLS");
        if (tools.empty()) return nullptr;
        auto* c = new program_checking();  // lives to the end of the process
        const check::checker_options o = options_from(env("PTXSIM_CHECK_OPTIONS"));
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
        return c;
    }();
    return made;
}

void program_checking::allocated(uint64_t address, uint64_t bytes, const std::string& name) {
    all_.host_allocate({address, bytes, name});
}

void program_checking::written(uint64_t address, uint64_t bytes) { all_.host_write({address, bytes, ""}); }

void program_checking::name_launch(size_t first, const std::string& launch) { report_.annotate(first, launch); }

void program_checking::finish() {
    if (finished_) return;
    finished_ = true;
    all_.finish();
    std::cerr.flush();
    std::ostringstream text;
    report_.print_text(text, print_limit_);
    std::cerr << "========= ptxsim check\n" << text.str();
    if (!json_path_.empty()) std::ofstream(json_path_) << report_.json(tools_);
}

} // namespace ptxsim::cuda::driver
