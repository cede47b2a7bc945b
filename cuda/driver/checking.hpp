#pragma once
// `ptxsim check PROGRAM`: the checkers, attached to every launch the
// program makes. tools/cmd_check.cpp asks for them through the
// environment (PTXSIM_CHECK_TOOLS, _OPTIONS, _PRINT_LIMIT, _REPORT); the
// findings of the whole run are printed on stderr in compute-sanitizer's
// style when the program exits, and written as JSON for cmd_check, which
// sets the exit status from them.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "check/checker.hpp"
#include "check/report.hpp"

namespace ptxsim::cuda::driver {

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
    // At exit: the checkers' last word (leaks), the report, the JSON.
    void finish();

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
};

} // namespace ptxsim::cuda::driver
