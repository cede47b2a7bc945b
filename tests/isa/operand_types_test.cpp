// Operand type checks (isa/detail/operand_types.hpp): odd-but-legal lines
// that lint must leave alone, and illegal ones it must refuse, each decided
// by ptxas 13 (-arch=sm_90a). With ptxas installed, the last test asks it
// again, so that the lists cannot drift from what ptxas does. The located
// messages are in tests/malformed/cases/op_*.ptx.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

std::string kernel(const std::string& line) {
    return std::string(header) +
           ".visible .entry k(.param .u64 k_param_0)\n{\n"
           ".reg .b16 %h<8>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n.reg .pred %p<4>;\n.reg .f32 %f<8>;\n"
           ".reg .f64 %fd<8>;\n.reg .u64 %ud<8>;\n.reg .u32 %u<8>;\n.reg .s32 %s<8>;\n.reg .u16 %uh<8>;\n.reg .f16 %hf<8>;\n"
           ".reg .f16x2 %hx<8>;\n.reg .b128 %q<4>;\n.shared .align 8 .b8 sm[1024];\n" +
           line + "\n$L__end:\nret;\n}\n";
}

// Each legal for ptxas although a stricter reading of the ISA might refuse it.
const std::vector<std::string> legal = {
    "add.s32 %u5, %s1, %r4;",                 // signed and unsigned registers mix
    // st.async without .vN takes a vector for a non-.bN type (.b32 refuses one)
    "st.async.shared::cluster.mbarrier::complete_tx::bytes.f32 [sm], {%f1, %f2}, [sm+512];",
    "atom.global.xor.b32 %r1, [%rd1], %r2, %r3;", // a stray fourth operand on the .b32 bitwise atoms
    "multimem.st.global.bf16x2 [%rd1], 1;",     // an integer constant for .bf16x2 (not .f16x2)
    // an .f32 register in the .tf32 A fragment of wmma.mma (B refuses one)
    "wmma.mma.sync.aligned.row.col.m16n16k8.f32.tf32.tf32.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f0}, {%r1, %r2, %f3, "
    "%r4}, {%r1, %r2, %r3, %r4}, {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f0};",
    "mov.u32 %r1, sm;",                         // a .shared address is 32 bits
    "wmma.mma.sync.aligned.row.col.m16n16k16.s32.s8.s8.u32 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r0}, {%r1, %r2}, "
    "{%r1, %r2}, {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r0};", // .u32 for the 8-bit forms' accumulator
    "st.shared.v2.u32 [sm], {%f1, %r1};",     // ld/st vectors: one fitting register is enough
    "st.shared.v4.u32 [sm], {%f1, %f2, %f3, %r1};",
    "ld.shared.v2.u32 {%f1, %r1}, [sm];",
    "add.f32 %r1, %f1, %r2;",                 // a bit-type register stands for f32
    "add.f32 %f1, 0d3FF0000000000000, %f2;",  // a 0d constant for f32
    "add.f64 %fd1, 0f3F800000, %fd2;",        // a 0f constant for f64
    "add.s32 %r1, 1U, %r2;",
    "add.u16 %h1, 70000, %h2;",               // integer constants are not range-checked
    "and.b32 %f1, %s1, %u2;",                 // a bit type takes any register of its width
    "and.b16 %h1, %hf1, %uh1;",
    "and.b32 %r1, 0f3F800000, %r2;",          // 0f is 32 bits
    "mov.b64 %rd1, 1.0;",                     // a decimal float is 64 bits
    "mov.f32 %r1, %f1;",
    "mov.b64 %rd1, {%r1, %r2};",
    "mov.b64 {%r1, %r2}, %rd1;",
    "mov.b32 %r1, {%h1, %h2};",
    "mov.b64 %rd1, {%h1, %h2, %h3, %h4};",
    "mov.b64 %rd1, {%f1, %f2};",
    "mov.b32 %r1, {%hf1, %hf2};",
    "mov.b128 %q1, {%rd1, %rd2};",
    "mov.v2.u32 {%r1, %r2}, {%r3, %r4};",
    "mov.u32 %r1, %tid.x;",
    "mov.u64 %rd1, sm;",
    "shl.b64 %rd1, %rd2, %s1;",               // the shift amount is 32 bits, any integer kind
    "shl.b16 %h1, %h1, %r1;",
    "bfe.u64 %rd1, %rd2, %r3, %r4;",
    "popc.b64 %r1, %rd1;",
    "mul.wide.u16 %r1, %h1, %h2;",
    "mad.wide.s32 %rd1, %r1, %r2, %rd2;",
    "setp.eq.s32 %p1|%p2, %r1, %r2;",
    "setp.eq.and.s32 %p1, %r1, %r2, !%p3;",
    "setp.lt.f16 %p1, %hf1, %h1;",
    "selp.f32 %f1, 0f00000000, %f2, %p1;",
    "set.eq.u32.f32 %r1, %r2, %f3;",
    "slct.f32.s32 %f1, %f2, %f3, %r4;",
    "ld.global.u32 %rd1, [%rd1];",            // ld, st and cvt take wider registers
    "ld.global.u8 %h1, [%rd1];",
    "ld.global.f32 %rd1, [%rd1];",            // ... of bit type for a float
    "ld.global.b32 %fd1, [%rd1];",
    "ld.global.b16 %f1, [%rd1];",
    "ld.global.f32 {%f1}, [%rd1];",           // a vector of one is a scalar
    "ld.global.v2.u32 {%r1, _}, [%rd1];",
    "ld.global.v2.f32 {%f1, %r2}, [%rd1];",   // elements of one width, different kinds
    "ld.global.v2.u32 {%r1, %s2}, [%rd1];",
    "ld.shared.u32 %r1, [sm];",
    "ld.shared.u32 %r1, [%r2];",
    "st.global.u8 [%rd1], %r1;",
    "st.global.f32 [%rd1], %rd1;",
    "st.global.f32 [%rd1], 1.0;",
    "st.global.v2.u32 [%rd1], {%r1, 1};",
    "st.global.b16 [%rd1], %r1;",
    "cvt.f32.f16 %f1, %r1;",
    "cvt.rn.f16.f32 %r1, %f1;",
    "cvt.u8.u32 %rd1, %r1;",
    "cvt.u64.u32 %rd1, %rd1;",
    "cvt.rn.f32.s32 %f1, %rd1;",
    "cvt.rzi.s32.f32 %r1, %r1;",
    "cvt.rn.f16x2.f32 %rd1, %f1, %f2;",
    "cvt.f64.f16 %fd1, %h1;",                 // widening needs no rounding
    "cvt.f64.f32 %fd1, %f1;",
    "cvt.rni.f32.f32 %f1, %f1;",
    "cvt.f32.f32 %f1, %f1;",
    "cvt.sat.f32.f32 %f1, %f1;",
    "cvt.bf16.f16 %h1, %hf1;",                // same width: rounding optional
    "cvt.rn.bf16.f16 %h1, %hf1;",
    "cvt.rn.f32.bf16 %f1, %h1;",              // from bf16, ptxas takes a rounding it ignores
    "cvt.rna.tf32.f32 %r1, %f1;",
    "cvt.u32.u64 %r1, %rd1;",
    "atom.global.add.f32 %r1, [%rd1], %f2;",
    "atom.global.exch.b32 %r1, [%rd1], %f2;",
    "atom.global.cas.b16 %h1, [%rd1], %h2, %h3;",
    "atom.global.cas.b128 %q1, [%rd1], %q2, %q3;",
    "atom.global.add.noftz.bf16x2 %r1, [%rd1], %r2;",
    "atom.global.add.u32 %r1, [%rd1], 1;",
    "atom.global.max.s64 %rd1, [%rd1], %rd2;",
    "red.global.add.noftz.f16 [%rd1], %h2;",
    "red.global.max.s64 [%rd1], %rd2;",
    "shfl.sync.bfly.b32 %f1, %f2, 1, 31, -1;",
    "shfl.sync.bfly.b32 %r1, %r2, %f1, 31, -1;", // lane operands: any 32-bit register
    "shfl.sync.bfly.b32 %r1|%p1, %r2, 1, 31, -1;",
    "vote.sync.ballot.b32 %r1, %p1, -1;",
    "@!%p1 add.s32 %r1, %r1, %r2;",
    "setp.lo.u32 %p1, %r1, %r2;",             // unsigned comparisons on unsigned types
    "setp.nan.f16 %p1, %hf1, %hf2;",
    "set.lt.u32.s32 %r1, %r2, %r3;",
    "ld.shared.u32 %r1, [%h2];",              // shared, local, const and param take narrow addresses
    "st.global.u32 [%h1], %r1;",              // a 16-bit global address: only a ptxas warning
    "ld.local.u32 %r1, [%r2];",
    "atom.shared.add.u32 %r1, [%r2], 1;",
    "ld.global.u32 %r1, [%ud2];",
    "match.any.sync.b64 %r1, %rd1, -1;",      // the result is a 32-bit mask
    "match.any.sync.b32 %r1, %f1, -1;",
    "fns.b32 %r1, %f2, %r3, %r4;",
    "bar.sync %s1, %u1;",
    "bar.red.popc.u32 %s1, 0, %p1;",
    "bar.red.and.pred %p2, 0, !%p1;",
    "mbarrier.init.shared.b64 [sm], %u1;",
    "mbarrier.try_wait.parity.shared::cta.b64 %p1, [sm], %s1;",
    "mbarrier.try_wait.shared::cta.b64 %p1, [sm], %rd1, %r1;",
    "mbarrier.test_wait.shared::cta.b64 %p1, [sm], %ud1;",
    "ld.global.v2.u32 {%r1, %p1}, [%rd1];",   // a predicate element beside 32-bit ones: ptxas takes it
    "mov.b16 %h1, 1;",
    "slct.u32.s32 %r1, %r2, %r3, %r4;",
    "slct.b32.f32 %r1, %r2, %r3, %f4;",
    "set.eq.f16.s32 %h1, %r2, %r3;",          // f16 and bf16 results for any comparison
    "set.eq.u16.f16 %h1, %h2, %h3;",
    "set.eq.u32.f16x2 %r1, %r2, %r3;",
    "cvt.rn.satfinite.e5m2x2.f16x2 %h1, %r1;",
    "cvt.rn.f16x2.e5m2x2 %r1, %h1;",
    "cvt.rn.satfinite.e4m3x2.f32 %h1, %f1, %f2;",
    "mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32 {%r1, %r2, %r3, %r4}, {%r1, %r2, %r3, %r4}, {%r1, %r2}, {%r1, %r2, %r3, %r4};", // s8 and u8 mix
    "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r1, %r2}, {%f1, %f2, %f3, %f4};",
    "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16 {%r1, %r2}, {%r1, %r2, %r3, %r4}, {%r1, %r2}, {%r1, %r2};",
    "mma.sync.aligned.m8n8k4.col.row.f16.f16.f16.f16 {%r1, %r2, %r3, %r4}, {%r1, %r2}, {%r1, %r2}, {%r1, %r2, %r3, %r4};", // m8n8k4 .f16: any layout
    "mma.sync.aligned.m8n8k4.row.row.f32.f16.f16.f16 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f1}, {%r1, %r2}, {%r1, %r2}, {%r1, %r2, %r3, %r4};",
    "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd1, %fd2}, {%fd1}, {%fd2}, {%fd1, %fd2};",
    // Operand rules (check_operand_rules.cpp), the forms ptxas takes:
    "mov.u16 %h1, %tid.x;",                   // a 32-bit special register into 16 bits
    "cvt.u64.u32 %rd1, %clock64;",            // cvt reads any width
    "mov.v4.u32 {%r1, %r2, %r3, %r4}, %ntid;", // a .v4 special register whole
    "st.global.v2.u32 [%rd1], {%r1, %tid.x};", // a component as a vector element
    "vadd.u32.u32.u32 %r1, %r2.b0, %r3.h1;",
    "vmax2.s32.s32.s32 %r1, %r2.h10, %r3.h01, %r4;",
    "atom.relaxed.global.add.u32 %r1, [%rd1], 1;", // no scope needed on atom
    "ld.weak.ca.global.u32 %r1, [%rd1];",
    "ld.global.L2::cache_hint.u32 %r1, [%rd1], %rd2;",
    "setp.eq.or.s32 %p1, %r1, %r2, !%p2;",
    "mad.lo.s32 %r1, %r2, %r3, %r4;",
    "fma.rn.f32 %f1, %f2, %f3, %f4;",
    "bar.sync 15;",
    "cvt.rn.f16x2.f32 %r1, %f1, %f2;",
    "createpolicy.fractional.L2::evict_last.b64 %rd1, 0.5;",
    "add.u32 %r1, %hx1, %r2;",                // an .f16x2 register stands for a 32-bit integer
    "atom.global.exch.b32 %r1, [%rd1], 0, %r2;", // a fourth operand without a hint, .b32 only
    "barrier.sync 4294967296;",               // ptxas keeps the low 32 bits: barrier 0
    "bfe.u32 %r1, %r2, 255, 255;",
};

// Each refused by ptxas; lint must give at least one error.
const std::vector<std::string> illegal = {
    "st.shared.v2.u32 [sm], {%f1, %f2};",     // ... but not when none fits
    "ld.shared.v2.u32 {%f1, %f2}, [sm];",
    "add.s32 %r5, %rd1, %r4;",
    "add.s32 %f1, %r1, %r2;",
    "add.f32 %u1, %f1, %s2;",
    "add.s32 %r1, %p1, %r2;",
    "add.s64 %rd1, %r1, %rd2;",
    "add.s32 %r1, 1.0, %r2;",
    "add.s32 %r1, 0f3F800000, %r2;",
    "add.f32 %f1, 1, %f2;",
    "add.f32 %f1, %f2, %fd1;",
    "add.f16 %hf1, %uh1, %hf2;",
    "add.f16x2 %r1, %u2, %hx1;",
    "add.s16 %h1, %hf1, %h2;",
    "add.s32 %r1, !%r2, %r3;",
    "and.b32 %r1, 0d3FF0000000000000, %r2;",
    "and.pred %p1, %p2, %r1;",
    "not.b32 %r1, %p2;",
    "mov.u32 %r1, %rd1;",
    "mov.s32 %f1, %r1;",
    "mov.f32 %f1, %fd1;",
    "mov.b64 %rd1, 0f3F800000;",
    "mov.b16 %h1, 0f3F800000;",
    "mov.f64 %fd1, 1;",
    "mov.b64 %rd1, {%r1, %r2, %r3};",
    "mov.u64 %rd1, {%r1, %r2};",
    "mov.b64 %rd1, {%h1, %h2};",
    "mov.b64 {%r1, %rd2}, %rd1;",
    "mov.pred %p1, %r1;",
    "shl.b32 %r1, %r2, %rd1;",
    "shl.b32 %r1, %r2, 1.0;",
    "shl.b64 %rd1, %rd2, %f1;",
    "bfe.u64 %rd1, %rd2, %rd3, %r4;",
    "popc.b64 %rd1, %rd1;",
    "mul.wide.s32 %r1, %r1, %r2;",
    "mul.wide.s32 %rd1, %rd1, %r2;",
    "mad.wide.s32 %rd1, %r1, %r2, %r2;",
    "setp.eq.s32 %r1, %r1, %r2;",
    "setp.eq.s32 %p1|%r1, %r1, %r2;",
    "setp.eq.and.s32 %p1, %r1, %r2, %r3;",
    "setp.eq.f32 %p1, %f1, 0;",
    "selp.b32 %r1, %r2, %r3, %r1;",
    "set.eq.u32.f32 %rd1, %f2, %f3;",
    "ld.global.u32 %h1, [%rd1];",
    "ld.global.s8 %f1, [%rd1];",
    "ld.global.f32 %fd1, [%rd1];",
    "ld.global.f32 %u1, [%rd1];",
    "ld.global.u32 %p1, [%rd1];",
    "ld.global.b128 %rd1, [%rd1];",
    "ld.global.v2.f32 {%f1, %f2, %f3}, [%rd1];",
    "ld.global.v4.f32 {%f1, %f2}, [%rd1];",
    "ld.global.v2.f32 {%f1, %fd2}, [%rd1];",
    "ld.global.v2.u32 {%r1, %rd2}, [%rd1];",
    "ld.global.v2.f32 %rd1, [%rd1];",
    "ld.global.b64 {%r1, %r2}, [%rd1];",
    "ld.global.u32 %r1, [%f1];",
    "st.global.f32 [%rd1], %fd1;",
    "st.global.u32 [%rd1], %f1;",
    "st.global.u32 [%rd1], 1.0;",
    "st.global.f32 [%rd1], 1;",
    "st.global.v2.u32 [%rd1], {%r1, %r2, %r3};",
    "cvt.f32.s32 %f1, %r1;",
    "cvt.s32.f32 %r1, %f1;",
    "cvt.f32.f64 %f1, %fd1;",
    "cvt.f16.f32 %h1, %f1;",
    "cvt.bf16.f32 %h1, %f1;",
    "cvt.f64.s32 %fd1, %r1;",
    "cvt.f16x2.f32 %r1, %f1, %f2;",
    "cvt.tf32.f32 %r1, %f1;",
    "cvt.rn.f32.f32 %f1, %f1;",
    "cvt.rn.f64.f32 %fd1, %f1;",
    "cvt.rn.f32.f16 %f1, %h1;",
    "cvt.rz.s32.f32 %r1, %f1;",
    "cvt.rni.f32.s32 %f1, %r1;",
    "cvt.rn.u32.u64 %r1, %rd1;",
    "cvt.rni.f32.bf16 %f1, %h1;",
    "cvt.u32.u64 %r1, %r1;",
    "cvt.rn.f32.s32 %f1, %f1;",
    "cvt.rn.f16.f32 %f1, %f1;",
    "cvt.rn.bf16x2.f32 %hx1, %f1, %f2;",
    "atom.global.and.f32 %f1, [%rd1], %f2;",
    "atom.global.add.s64 %rd1, [%rd1], %rd2;",
    "atom.global.exch.u32 %r1, [%rd1], %r2;",
    "atom.global.inc.u64 %rd1, [%rd1], %rd2;",
    "atom.global.min.f32 %f1, [%rd1], %f2;",
    "atom.global.add.f16 %h1, [%rd1], %h2;",
    "atom.global.add.noftz.f32 %f1, [%rd1], %f2;",
    "atom.global.add.u32 %rd1, [%rd1], %r2;",
    "atom.global.add.f32 %f1, [%rd1], 1;",
    "red.global.and.u32 [%rd1], %r2;",
    "red.global.add.b32 [%rd1], %r2;",
    "red.global.add.u32 [%rd1], %rd2;",
    "shfl.sync.bfly.b32 %r1|%r2, %r2, 1, 31, -1;",
    "shfl.sync.bfly.b32 %r1, %r2, %h1, 31, -1;",
    "shfl.sync.bfly.b32 %r1, %r2, 1, 31, %rd1;",
    "shfl.bfly.b32 %r1, %r2, 1, 31;",
    "vote.sync.ballot.b32 %r1, %r1, -1;",
    "vote.ballot.b32 %r1, %p1;",
    "@%r1 bra $L__end;",
    "@%f1 add.s32 %r1, %r1, %r2;",
    "setp.lt.b32 %p1, %r1, %r2;",
    "setp.lo.s32 %p1, %r1, %r2;",
    "setp.equ.s32 %p1, %r1, %r2;",
    "setp.hi.f32 %p1, %f1, %f2;",
    "set.lt.u32.b32 %r1, %r2, %r3;",
    "ld.u32 %r1, [%r2];",
    "ld.global.u32 %r1, [%u2];",
    "atom.global.add.u32 %r1, [%r2], 1;",
    "red.global.add.u32 [%r2], 1;",
    "match.any.sync.b64 %rd1, %rd1, -1;",
    "redux.sync.add.u32 %r1, %f2, -1;",
    "redux.sync.and.b32 %f1, %r2, -1;",
    "redux.sync.add.u32 %r1, %r2, %rd1;",
    "bar.sync %rd1;",
    "barrier.sync.aligned %h1;",
    "bar.red.popc.u32 %f1, 0, %p1;",
    "bar.red.or.pred %p2, 0, %r1;",
    "mbarrier.init.shared.b64 [sm], %rd1;",
    "mbarrier.try_wait.shared::cta.b64 %p1, [sm], %r1;",
    "mbarrier.try_wait.parity.shared::cta.b64 %p1, [sm], %rd1;",
    "mbarrier.test_wait.shared::cta.b64 %p1, [sm], %fd1;",
    "add.f16 %h1, %h1, 1;",                   // half types take no constant
    "add.f16x2 %r1, %r1, 1;",
    "cvt.f32.f16 %f1, 0f3F800000;",
    "setp.eq.f16 %p1, %h1, 1;",
    "slct.u32.u32 %r1, %r2, %r3, %r4;",
    "slct.s32.b32 %r1, %r2, %r3, %r4;",
    "set.eq.b32.s32 %r1, %r2, %r3;",
    "set.eq.u64.s32 %rd1, %r2, %r3;",
    "set.eq.s16.s32 %h1, %r2, %r3;",
    "cvt.rn.bf16x2.e4m3x2 %r1, %h1;",
    "cvt.rn.satfinite.e4m3x2.bf16x2 %h1, %r1;",
    "cvt.rn.f16x2.f16 %r1, %h1;",
    "cvt.rn.tf32.f64 %r1, %fd1;",
    "cvt.f32.f16x2 %f1, %r1;",
    "set.eq.f32.f16 %f1, %h1, %h2;",
    "set.eq.f16x2.bf16x2 %r1, %r2, %r3;",
    "set.eq.f16.f16x2 %h1, %r2, %r3;",
    "mma.sync.aligned.m16n8k16.row.col.f32.f16.bf16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r1, %r2}, {%f1, %f2, %f3, %f4};",
    "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f32 {%r1, %r2}, {%r1, %r2, %r3, %r4}, {%r1, %r2}, {%f1, %f2, %f3, %f4};",
    "mma.sync.aligned.m16n8k16.row.col.f16.bf16.bf16.f16 {%r1, %r2}, {%r1, %r2, %r3, %r4}, {%r1, %r2}, {%r1, %r2};",
    "mma.sync.aligned.m16n8k16.row.col.f32.s8.s8.s32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r1}, {%r1, %r2, %r3, %r4};",
    "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f16 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r1, %r2}, {%r1, %r2};",
    "mma.sync.aligned.m8n8k4.row.col.f32.f64.f64.f64 {%fd1, %fd2}, {%fd1}, {%fd2}, {%fd1, %fd2};",
    "mma.sync.aligned.m8n8k4.col.col.f64.f64.f64.f64 {%fd1, %fd2}, {%fd1}, {%fd2}, {%fd1, %fd2};",
    "mma.sync.aligned.m16n8k16.col.row.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r1, %r2}, {%f1, %f2, %f3, %f4};",
    // Operand rules (check_operand_rules.cpp):
    "setp.ge.s32 %p1, %r1, %tid.x;",
    "mov.u32 %laneid, %r1;",
    "mov.u32 %r1, %ctaid;",
    "mov.u32 %r1, %clock64;",
    "mov.u32 %r1, %r2.y;",
    "ld.global.u32 %r1, [%rd1], %rd2;",
    "red.global.L2::cache_hint.add.u32 [%rd1], 1;",
    "st.cta.global.u32 [%rd1], %r1;",
    "ld.volatile.cg.global.u32 %r1, [%rd1];",
    "mad.f32 %f1, %f2, %f3, %f4;",
    "mul.hi.f32 %f1, %f2, %f3;",
    "mul.rn.u32 %r1, %r2, %r3;",
    "setp.eq.s32 %p1, %r1, %r2, %p2;",
    "atom.global.min.v4.s32 %r1, [%rd1], %r2;",
    "bar.arrive 16, 64;",
    "wgmma.wait_group.sync.aligned 1.0;",
    "cvt.u32.u16 %r1, %h1, %h2;",
    "mov.f64 %fd1, sm;",
    "atom.global.exch.b64 %rd1, [%rd1], 0, %rd2;",
    "bfi.b64 %rd1, %rd2, %rd3, 32, 256;",
    "bfe.u32 %r1, %r2, -1, 8;",
    "mad.ftz.lo.s32 %r1, %r2, %r3, %r4;",
    "cvt.rzi.tf32.f32 %r1, %f1;",
    "add.f32 %f1, %hx1, %f2;",
};

std::string lint_messages(const std::string& line) {
    auto p = parse_text(kernel(line), /*validate=*/true);
    auto msgs = messages(p.diags);
    return fmt::format("{}", fmt::join(msgs, "\n"));
}

TEST(operand_types, odd_but_legal_lines_lint_clean) {
    for (const auto& line : legal) EXPECT_EQ(lint_messages(line), "") << line;
}

TEST(operand_types, illegal_lines_are_refused) {
    for (const auto& line : illegal) EXPECT_NE(lint_messages(line).find("error:"), std::string::npos) << line;
}

// Validation checks each instruction shape once per module; the registers'
// types are part of the shape, so the second line is still refused.
TEST(operand_types, a_checked_shape_with_other_register_types_is_checked_again) {
    EXPECT_EQ(lint_messages("add.s32 %r1, %r2, %r3;\nadd.s32 %r1, %rd2, %r3;"),
              "21:14: error: operand 2 of 'add.s32' must be a 32-bit integer register (.b32, .s32 or .u32), but '%rd2' is .b64");
    EXPECT_EQ(lint_messages("ld.global.v2.f32 {%f1, %f2}, [%rd1];\nld.global.v2.f32 {%f1, %f2, %f3}, [%rd1];"),
              "21:18: error: operand 1 of 'ld.v2.f32' has 3 elements, but .v2 needs 2");
}

// The lists above against ptxas itself.
TEST(operand_types, ptxas_agrees_with_both_lists) {
    std::string ptxas = find_tool("ptxas");
    if (ptxas.empty()) GTEST_SKIP() << "ptxas not installed (CUDA toolkit absent): cross-check skipped";
    std::string file = (std::filesystem::temp_directory_path() / fmt::format("ptxsim_optypes_{}.ptx", getpid())).string();
    auto accepts = [&](const std::string& line) {
        std::ofstream(file) << kernel(line);
        int rc = std::system(fmt::format("'{}' -arch=sm_90a '{}' -o /dev/null >/dev/null 2>&1", ptxas, file).c_str());
        return WIFEXITED(rc) && WEXITSTATUS(rc) == 0;
    };
    for (const auto& line : legal) EXPECT_TRUE(accepts(line)) << "ptxas refuses " << line;
    for (const auto& line : illegal) EXPECT_FALSE(accepts(line)) << "ptxas accepts " << line;
    std::remove(file.c_str());
}

} // namespace
} // namespace ptxsim::test
