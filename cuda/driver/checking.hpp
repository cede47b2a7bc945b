#pragma once
// `ptxsim check PROGRAM`: the checkers, attached to every launch the
// program makes. tools/cmd_check.cpp asks for them through the
// environment (PTXSIM_CHECK_TOOLS, _OPTIONS, _PRINT_LIMIT, _REPORT); the
// findings of the whole run are printed on stderr in compute-sanitizer's
// style when the program exits, and written as JSON for cmd_check, which
// sets the exit status from them.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "check/checker.hpp"
#include "check/report.hpp"
#include "cuda/driver/call_site.hpp"
#include "models/model.hpp"

namespace ptxsim::cuda::driver {

class launch_recording;

class program_checking {
public:
    // The checkers the environment asks for, made once; null when the
    // program is not being checked.
    static program_checking* get();

    sim::observer* observer() { return &all_; }
    bool memcheck() const { return memcheck_; }
    // initcheck: device memory the program allocated (uninitialised until
    // written) and bytes the host wrote into it.
    void allocated(uint64_t address, uint64_t bytes, const std::string& name);
    void written(uint64_t address, uint64_t bytes);
    // Findings so far, and naming the launch on those it added.
    size_t findings() const { return report_.findings().size(); }
    void name_launch(size_t first, const std::string& launch);
    // Under memcheck, as compute-sanitizer reports API errors: a launch the
    // driver refused, with the error it returned and why.
    void api_error(const std::string& error_name, int code, const std::string& why, const std::string& kernel,
                   const std::string& launch);
    // The program's call that made a launch (host frames named on demand).
    call_sites& sites() { return sites_; }
    // At exit: the checkers' last word (leaks), the report, the JSON.
    void finish();

    // --schedules N / --replay S (PTXSIM_CHECK_SCHEDULES, _SEED, _REPLAY):
    // each launch runs in the program as usual, with the checkers, and is
    // also recorded (cuda/driver/recording.hpp) so that its replay can be
    // explored under N seeded schedules (or run under seed S) with fresh
    // checkers; the findings that only a schedule shows, and outputs that
    // depend on the schedule, join the program's report.
    launch_recording* explorer();  // null when neither option is given
    // `recorded_module`: the file name the recording gave the kernel's
    // module, named back to `module_name` in the findings.
    void explore(const models::gpu_model& model, const std::string& launch_file, const std::string& module_name,
                 const std::string& recorded_module, const std::string& launch);

private:
    program_checking() = default;
    check::report report_;
    std::vector<std::string> tools_;
    std::vector<std::unique_ptr<check::checker>> checkers_;
    check::fanout all_;
    bool memcheck_ = false;
    uint64_t print_limit_ = 100;
    std::string json_path_;
    bool finished_ = false;
    check::checker_options options_;
    call_sites sites_;
    uint32_t schedules_ = 0;
    uint64_t seed_ = 0;
    std::optional<uint64_t> replay_;
    uint64_t max_instructions_ = 2'000'000'000;
    std::unique_ptr<launch_recording> explorer_;
    std::string explore_dir_;
};

} // namespace ptxsim::cuda::driver
