#pragma once
// Starting a CUDA program with ptxsim's driver in place (ptxsim exec,
// ptxsim check PROGRAM): the checks made before it starts, the environment
// it gets, and its exit status.
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ptxsim::tools {

struct program_launch {
    std::string model_name = "h800";  // a model's name or a model file's path
    std::vector<std::string> argv;    // PROGRAM and its arguments
    std::vector<std::pair<std::string, std::string>> env;  // for the driver (PTXSIM_CHECK_*)
    const char* who = "ptxsim exec";  // the prefix of messages
};

// The program's exit status (128 + N when signal N ended it), or 2 with a
// message on stderr when it cannot be started.
int run_program(const program_launch& p);

// `ptxsim check|prof [options] PROGRAM [ARGS...]`: the index of PROGRAM, the
// first argument that is neither an option nor the value of one of
// `with_value` and names an ELF file (everything after it is the
// program's); args.size() when there is none (a launch file instead).
size_t program_position(const std::vector<std::string>& args, const std::set<std::string>& with_value);

} // namespace ptxsim::tools
