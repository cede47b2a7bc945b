#pragma once
// Runs a PTX kernel body in one warp (32 threads, one block) for the
// tensor-core tests. The body sees %rd1 = an output buffer of `n_out` u32
// (zeroed), %rd2 = an input buffer holding `in`, %rd3 = %rd1 + lane *
// `out_stride` words, %rd4 = %rd2 + lane * `in_stride` words, %r190 =
// %laneid, and a 4 KiB `.shared .align 16 .b8 smem[]`.
#include <cstdint>
#include <string>
#include <vector>

namespace ptxsim::test {

struct warp_result {
    std::vector<uint32_t> out;
    std::string fault; // the fault's message, empty when the launch succeeded
};

warp_result run_warp(const std::string& body, const std::vector<uint32_t>& in, size_t n_out, uint32_t in_stride,
                     uint32_t out_stride, uint32_t threads = 32);

} // namespace ptxsim::test
