#pragma once
// Matching a (validated) instruction to its table row and naming the group
// of each modifier: the decoder reads ".rn" as group "rnd", ".u32" as
// "type", so semantics come from the same table the validator uses.
#include <optional>
#include <string_view>
#include <vector>

#include "isa/op_table.hpp"
#include "parser/ast.hpp"

namespace ptxsim::isa {

struct matched_instruction {
    const op_info* row = nullptr;
    struct modifier {
        std::string_view group;
        std::string_view text;
    };
    std::vector<modifier> mods; // in source order, key words excluded
    // The instruction itself, for the rare decoder that needs an operand
    // past the eight an exec_instruction holds (wgmma.mma_async.sp's
    // imm-trans-a/b are its ninth and tenth).
    const parser::instruction* source = nullptr;

    bool has(std::string_view group) const;
    bool has_mod(std::string_view text) const;
    // The n-th modifier of `group` ("" when absent).
    std::string_view get(std::string_view group, size_t n = 0) const;
};

std::optional<matched_instruction> match(const parser::module& m, const parser::instruction& ins);

} // namespace ptxsim::isa
