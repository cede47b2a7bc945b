// The instruction table: every row parses, every instruction family of the
// checklist is present, and key lookups pick the longest key.
#include <gtest/gtest.h>

#include <set>

#include "isa/op_table.hpp"

namespace ptxsim::isa {
namespace {

TEST(op_table, loads_every_row) {
    const auto& t = op_table::get();
    EXPECT_GT(t.rows().size(), 150u);
    for (const auto& r : t.rows()) {
        EXPECT_FALSE(r.key.empty());
        EXPECT_FALSE(r.shapes.empty()) << r.key;
    }
}

TEST(op_table, covers_the_checklist) {
    std::set<std::string> keys;
    for (const auto& r : op_table::get().rows()) keys.insert(r.key);
    for (const char* k : {"add", "sub", "addc", "subc", "mul", "mad", "madc", "mul24", "mad24", "sad", "div", "rem", "abs",
                          "neg", "min", "max", "popc", "clz", "bfind", "brev", "dp4a", "dp2a", "fma", "rcp", "sqrt",
                          "rsqrt", "sin", "cos", "lg2", "ex2", "tanh", "copysign", "testp", "cvt", "cvt.pack", "setp",
                          "set", "selp", "slct", "and", "or", "xor", "not", "cnot", "lop3", "shl", "shr", "shf", "bfe",
                          "bfi", "prmt", "fns", "bmsk", "szext", "mov", "ld", "ldu", "st", "prefetch", "prefetchu",
                          "applypriority", "discard", "createpolicy", "cvta", "isspacep", "istypep", "mapa",
                          "getctarank", "st.async", "red.async", "alloca", "stacksave", "stackrestore", "cp.async",
                          "cp.async.commit_group", "cp.async.wait_group", "cp.async.wait_all",
                          "cp.async.mbarrier.arrive", "cp.async.bulk", "cp.reduce.async.bulk",
                          "cp.async.bulk.prefetch", "cp.async.bulk.tensor", "cp.reduce.async.bulk.tensor",
                          "cp.async.bulk.commit_group", "cp.async.bulk.wait_group", "tensormap.replace",
                          "mbarrier.init", "mbarrier.inval", "mbarrier.arrive", "mbarrier.arrive_drop",
                          "mbarrier.expect_tx", "mbarrier.complete_tx", "mbarrier.test_wait", "mbarrier.try_wait",
                          "mbarrier.pending_count", "wmma.load", "wmma.store", "wmma.mma", "mma", "ldmatrix",
                          "stmatrix", "movmatrix", "wgmma.mma_async", "wgmma.fence", "wgmma.commit_group",
                          "wgmma.wait_group", "atom", "red", "multimem.ld_reduce", "multimem.st", "multimem.red",
                          "bra", "brx.idx", "call", "ret", "exit", "trap", "brkpt", "pmevent", "bar", "barrier",
                          "bar.warp.sync", "barrier.cluster.arrive", "barrier.cluster.wait", "membar", "fence",
                          "shfl.sync", "vote.sync", "match", "redux.sync", "activemask", "elect.sync", "nanosleep",
                          "setmaxnreg", "tex", "tld4", "txq", "suld", "sust", "sured", "suq", "vadd", "vset", "vadd2",
                          "vadd4"})
        EXPECT_TRUE(keys.count(k)) << "missing row for " << k;
}

TEST(op_table, candidates_are_longest_key_first) {
    auto c = op_table::get().candidates("cp");
    ASSERT_FALSE(c.empty());
    for (size_t i = 1; i < c.size(); ++i) EXPECT_GE(c[i - 1]->key_words.size(), c[i]->key_words.size());
    EXPECT_TRUE(op_table::get().candidates("nosuchop").empty());
}

TEST(target_req, minimum_and_arch_specific) {
    auto min80 = target_req::parse("sm_80");
    EXPECT_TRUE(min80.satisfied_by("sm_90a"));
    EXPECT_TRUE(min80.satisfied_by("sm_80"));
    EXPECT_FALSE(min80.satisfied_by("sm_75"));
    auto a90 = target_req::parse("sm_90a");
    EXPECT_TRUE(a90.satisfied_by("sm_90a"));
    EXPECT_FALSE(a90.satisfied_by("sm_90"));
    EXPECT_FALSE(a90.satisfied_by("sm_100a"));
    auto f100 = target_req::parse("sm_100f");
    EXPECT_TRUE(f100.satisfied_by("sm_103a"));
    EXPECT_FALSE(f100.satisfied_by("sm_120a"));
}

TEST(modifier_spec, digit_wildcard) {
    modifier_spec m{"m64n#k16"};
    EXPECT_TRUE(m.matches("m64n256k16"));
    EXPECT_TRUE(m.matches("m64n8k16"));
    EXPECT_FALSE(m.matches("m64nk16"));
    EXPECT_FALSE(m.matches("m64n8k32"));
}

} // namespace
} // namespace ptxsim::isa
