// check::report: which findings fold, the counts, and the JSON's nulls.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "check/report.hpp"

namespace ptxsim::check {
namespace {

finding make(uint32_t line, uint64_t address, uint32_t thread, const char* severity = "error") {
    finding f;
    f.tool = "memcheck";
    f.severity = severity;
    f.kind = "out-of-bounds";
    f.space = "global";
    f.kernel = "k";
    f.size = 4;
    f.ptx_file = "k.ptx";
    f.ptx_line = line;
    f.address = address;
    f.has_address = true;
    f.thread = {thread, 0, 0};
    f.headline = "Out-of-bounds __global__ read of size 4 bytes";
    return f;
}

TEST(check_report, identical_findings_fold_and_keep_the_first_occurrence) {
    report r;
    r.add(make(10, 0x100, 1));
    r.add(make(10, 0x200, 2));
    r.add(make(11, 0x300, 3));             // another line
    r.add(make(10, 0x400, 4, "warning"));  // another severity
    finding other_size = make(10, 0x500, 5);
    other_size.size = 8;
    r.add(other_size);
    ASSERT_EQ(r.findings().size(), 4u);
    EXPECT_EQ(r.findings()[0].count, 2u);
    EXPECT_EQ(r.findings()[0].address, 0x100u);
    EXPECT_EQ(r.findings()[0].thread.x, 1u);
    EXPECT_EQ(r.errors(), 4u);
    EXPECT_EQ(r.warnings(), 1u);
}

TEST(check_report, json_uses_null_for_missing_source_and_address) {
    report r;
    finding f = make(10, 0, 0);
    f.has_address = false;
    r.add(f);
    auto j = nlohmann::json::parse(r.json({"memcheck"}));
    const auto& x = j["findings"][0];
    EXPECT_TRUE(x["address"].is_null());
    EXPECT_TRUE(x["location"]["source_file"].is_null());
    EXPECT_TRUE(x["location"]["source_line"].is_null());
    EXPECT_FALSE(x.contains("other"));
    EXPECT_EQ(j["summary"]["errors"], 1);
}

// Code inlined into a kernel (a __device__ body the kernel calls, or a CUDA
// header) names both ends of its .loc chain, as ptxsim run's faults do, for
// the access and for a race's other access; plain code names its line.
TEST(check_report, inlined_code_names_the_call_site_and_the_inlined_line) {
    report r;
    finding f = make(10, 0x100, 1);
    f.source_file = "k.cu";
    f.source_line = 90;
    f.inlined_file = "k.cu";
    f.inlined_line = 12;
    f.has_other = true;
    f.other_ptx_file = "k.ptx";
    f.other_ptx_line = 8;
    f.other_source_file = "k.cu";
    f.other_source_line = 90;
    f.other_inlined_file = "k.cu";
    f.other_inlined_line = 11;
    r.add(f);
    finding plain = make(20, 0x200, 2);
    plain.source_file = "k.cu";
    plain.source_line = 30;
    r.add(plain);
    std::ostringstream out;
    r.print_text(out, 0);
    EXPECT_NE(out.str().find("at k.ptx:10 (k.cu:90, inlined from k.cu:12) in kernel 'k'"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("and the access at k.ptx:8 (k.cu:90, inlined from k.cu:11) by thread"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("at k.ptx:20 (k.cu:30) in kernel 'k'"), std::string::npos) << out.str();
}

TEST(check_report, print_limit_zero_prints_everything) {
    report r;
    for (uint32_t line = 1; line <= 3; ++line) r.add(make(line, 0x100, 0));
    std::ostringstream all, two;
    r.print_text(all, 0);
    r.print_text(two, 2);
    EXPECT_EQ(all.str().find("--print-limit"), std::string::npos);
    EXPECT_NE(all.str().find("k.ptx:3 "), std::string::npos) << all.str();
    EXPECT_EQ(two.str().find("k.ptx:3 "), std::string::npos) << two.str();
    EXPECT_NE(two.str().find("========= (--print-limit 2: 1 more finding not shown)\n"), std::string::npos) << two.str();
    EXPECT_NE(two.str().find("========= ERROR SUMMARY: 3 errors\n"), std::string::npos);
}

} // namespace
} // namespace ptxsim::check
