// ldu: a load of read-only data at an address the PTX ISA requires to be the
// same in every thread of the warp. Values come from the stores in the
// kernel body; a warp whose lanes disagree is undefined behaviour, which
// ptxsim reports.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/kernel_body.hpp"

namespace ptxsim::test {
namespace {

TEST(semantics_ldu, loads_what_every_lane_shares) {
    auto out = run_body(R"(
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 st.global.v4.u32 [%rd1], {7, 8, 9, 10};
    bar.sync 0;
    ldu.global.v2.u32 {%r2, %r3}, [%rd1+8];   // 9, 10
    ldu.u32 %r4, [%rd1];                      // generic address of global memory: 7
    add.u32 %r2, %r2, %r3; add.u32 %r2, %r2, %r4;
    mul.wide.u32 %rd2, %r1, 4; add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3+16], %r2;
    )", 36, 32);
    for (int t = 0; t < 32; ++t) EXPECT_EQ(out[4 + t], 26u) << "thread " << t;
}

TEST(semantics_ldu, lanes_with_different_addresses_are_reported) {
    auto r = run_kernel_body(R"(
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4; add.u64 %rd3, %rd1, %rd2;
    ldu.global.u32 %r2, [%rd3];
    )", 32, 32);
    EXPECT_NE(r.fault.find("ldu with an address that differs across the warp"), std::string::npos) << r.fault;
}

} // namespace
} // namespace ptxsim::test
