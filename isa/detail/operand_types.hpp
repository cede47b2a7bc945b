#pragma once
// The PTX ISA's type-checking rules for instruction operands, as ptxas 13
// applies them (each rule was tried on ptxas -arch=sm_90a; docs/lint.md,
// "Operand checks", has the examples):
//
// - A register must have the instruction type's width. A bit-type register
//   (.b32) stands for any type of its width; a signed or unsigned register
//   for any integer or bit type of its width; a float or half register only
//   for its own type or a bit type. Predicates only where predicates go.
// - ld, ldu, st and cvt accept data registers wider than the instruction
//   type ("operand size exceeding instruction-type size"), but only of the
//   kinds above: ld.f32 into a .b64 register is fine, into a .u64 is not.
// - An integer constant is no float operand and a float constant no integer
//   operand; for a bit type a 0f constant is 32 bits and a 0d constant (or a
//   decimal one such as 1.0) is 64 bits.
//
// Which operand takes which type is a per-instruction role string (the
// table's operand shapes say what kind of operand, not of what type).
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "parser/ast.hpp"

namespace ptxsim::isa::detail {

enum class type_kind : uint8_t { unknown, bit, integer, floating, half, pred };

struct type_info {
    type_kind kind = type_kind::unknown;
    uint32_t bits = 0;
};

// The kind and width of a declared register type; unknown for the ones the
// rules do not cover (8-bit registers, fp8 scalars, texture handles).
type_info info_of(parser::data_type t);

// The role of one operand position (a character of a role string):
enum class role : char {
    none = '-',        // not checked
    type = 't',        // the instruction's (first) type, same width
    type_wide = 'T',   // the instruction's type, register may be wider; the operand is the data of ld/st (a vector with .vN)
    second = 'u',      // the second type (set, slct, cvt sources)
    second_wide = 'U', // the second type, register may be wider (cvt)
    doubled = 'w',     // twice the type's width (mul.wide / mad.wide results)
    pred = 'p',        // a predicate
    int32 = 'i',       // a 32-bit integer (shift amounts, bit positions)
    any32 = 'x',       // any 32-bit register (shfl lanes, member masks)
    int64 = 'l',       // a 64-bit integer (an mbarrier state)
    address = 'm',     // a memory operand: its base register must be an integer or bit type
    move = 'M',        // mov: the type, or a vector that packs it ({%r1,%r2} for .b64)
};

// The roles of the `count` operands of an instruction whose table key is
// `key`; empty when the instruction's operand types are not checked.
// `words` are the dotted words after the key (mul.wide changes roles).
std::string_view roles_for(std::string_view key, std::span<const std::string_view> words, size_t count);

// Whether a register declared `reg` may stand where type `want` is expected.
bool register_fits(parser::data_type want, parser::data_type reg, bool wide);
// Whether a constant of kind `k` (integer, f32, f64) fits type `want`.
bool constant_fits(parser::data_type want, parser::operand_kind k);
// "a 32-bit integer register (.b32, .s32 or .u32)", for messages.
std::string describe(parser::data_type want, bool wide);

// cvt's rounding rule for destination `d` and source `a` (rounding is
// the rounding modifier without its dot, empty when there is none): the
// problem as a message, empty when there is none.
std::string cvt_rounding_problem(parser::data_type d, parser::data_type a, std::string_view rounding,
                                 std::string_view instr);

// Whether cvt converts between `d` and `a` at all, as far as the packed and
// reduced-precision types of sm_80..sm_90a go (tf32, f16x2, bf16x2, e4m3x2,
// e5m2x2): cvt.f32.f16x2 and cvt.tf32.f64 do not exist.
bool cvt_pair_exists(parser::data_type d, parser::data_type a);

// The comparisons setp and set take for operands of type `t`, as
// ".eq, .ne"; empty for a type this file does not judge.
std::string_view comparisons_for(parser::data_type t);

// The types atom/red accept for operation `op` in their scalar form, as
// ".b32, .b64"; empty for an operation this file does not know.
std::string_view atom_types_for(std::string_view op, bool is_red);

} // namespace ptxsim::isa::detail
