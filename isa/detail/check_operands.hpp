#pragma once
// Checks beyond the table's operand kinds, run on an instruction once it
// fits a row: operand types and widths against the instruction's type
// (check_operands.cpp, rules in operand_types.hpp), and the combinations
// the table's modifier groups cannot say (check_combinations.cpp).
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "isa/detail/check_instruction.hpp"
#include "isa/op_table.hpp"
#include "parser/ast.hpp"

namespace ptxsim::isa::detail {

struct located_problem {
    parser::pos_t pos;
    std::string message;
};

// One instruction as the checks see it.
// An operand and its elements, counted in pre-order: the length of its run
// in instruction_view::types and ::flags.
size_t node_count(const parser::operand& op);

struct instruction_view {
    const parser::module& m;
    const module_facts& facts;
    const parser::instruction& ins;
    const op_info& row;
    std::span<const std::string_view> words; // opcode word, then every modifier
    std::span<const parser::pos_t> word_pos; // where each word starts (at its dot)
    std::span<const parser::data_type> types; // declared type of each operand node, pre-order; none when not a register
    std::span<const uint8_t> flags;           // node_flags of each operand node, alike
};

// Register and constant operands against the instruction's type, vector
// operands against .vN, address registers, guards are not here (validate.cpp).
void check_operand_types(const instruction_view& v, std::vector<located_problem>& out);

// cvt rounding, atom/red operation and type, .noftz, mandatory .sync.
void check_combinations(const instruction_view& v, std::vector<located_problem>& out);

// The words of a matrix instruction (mma, wmma.*): fragment (a b c d), shape
// (m16n8k16, split into m, n, k; 0 when absent) and up to four type words
// in order (s4, u4, b1 included). Defined in check_combinations.cpp.
struct matrix_words {
    std::string_view frag, shape;
    std::string_view types[4];
    size_t ntypes = 0;
    uint32_t m = 0, n = 0, k = 0;
};
matrix_words matrix_words_of(std::span<const std::string_view> words);

// Operand counts, vectors, special registers, selectors, modifiers that need
// one another and constant ranges (check_operand_rules.cpp).
void check_operand_rules(const instruction_view& v, std::vector<located_problem>& out);

// Modifiers legal only with some types or other modifiers where the
// table's rules cannot say it (div, rcp, ex2, slct, set, createpolicy,
// packed-integer constants; check_modifier_types.cpp).
void check_modifier_types(const instruction_view& v, std::vector<located_problem>& out);

// Operand counts and constants of cp.async(.bulk)(.tensor), cp.reduce.async
// .bulk, mbarrier.arrive, tensormap.replace, the wait_group counts and
// barrier thread counts (check_async_operands.cpp).
void check_async_operands(const instruction_view& v, std::vector<located_problem>& out);

// multimem operations, types and vectors (check_multimem.cpp).
void check_multimem(const instruction_view& v, std::vector<located_problem>& out);

// tex/tld4/suld/sust/sured result and coordinate vectors, out-of-range
// modes (check_texture.cpp).
void check_texture(const instruction_view& v, std::vector<located_problem>& out);

} // namespace ptxsim::isa::detail
