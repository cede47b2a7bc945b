#pragma once
// Runs a few PTX instructions as the body of a one-block kernel on an H800
// model: the body sees %rd1 = an output buffer of `n` u32 (zeroed) and has
// %r<40>, %rd<16>, %p<8>, %h<8> and %f<8> declared. For semantics tests.
#include <cstdint>
#include <string>
#include <vector>

namespace ptxsim::test {

struct body_result {
    std::vector<uint32_t> out;
    std::string fault; // the fault's message, empty when the launch succeeded
};

// Runs `body` with `threads` threads in one block, in a module for `target`.
body_result run_kernel_body(const std::string& body, size_t n, uint32_t threads = 1, const std::string& target = "sm_90a");

// The same, expecting no fault; returns the buffer.
std::vector<uint32_t> run_body(const std::string& body, size_t n, uint32_t threads = 1, const std::string& target = "sm_90a");

} // namespace ptxsim::test
