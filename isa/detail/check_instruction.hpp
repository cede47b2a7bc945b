#pragma once
// Checking one instruction against its rows in the instruction table.
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "isa/op_table.hpp"
#include "parser/ast.hpp"
#include "parser/diagnostics.hpp"

namespace ptxsim::isa::detail {

struct module_facts {
    uint32_t ptx_version = 0;     // x10; 0 when the module has no .version
    std::string target;           // "sm_90a"; empty when none
    bool sm1x = false;            // .target sm_10 ... sm_13 (isa/legacy_ptx.hpp)
};

// What an operand node's name is, besides its register type (validate.cpp
// works it out; check_operand_rules.cpp judges it): the low bits hold the
// element count of a vector register (.reg .v4 .f32 %v), then flags.
enum node_flags : uint8_t {
    node_vec_mask = 0x0F,
    node_special = 0x10,  // a special register (%tid, %tid.x, %clock64); not WARP_SZ
    node_selector = 0x20, // a register with a component (%r1.b0, %r1.x)
};

// Instruction shapes (opcode, modifiers, operand kinds and register types)
// already found clean in this module. Real PTX repeats a few hundred shapes
// thousands of times, so the table is consulted once per shape, not once
// per instruction.
class instruction_cache {
public:
    // `types` as for check_instruction; also prepares add().
    bool contains(const parser::instruction& ins, std::span<const parser::data_type> types,
                  std::span<const uint8_t> flags);
    void add() { clean_.insert(key_); }

private:
    std::string key_;
    std::unordered_set<std::string> clean_;
};

// Reports problems with `ins` to `d`; returns false when there were any.
// `types` holds the declared type of each operand node of `ins` in
// pre-order (an operand, then its elements), data_type::none where the node
// is not a declared register; `flags` the node_flags of each node, alike.
bool check_instruction(const parser::module& m, const module_facts& facts, const parser::instruction& ins,
                       std::span<const parser::data_type> types, std::span<const uint8_t> flags, parser::diagnostics& d,
                       instruction_cache& cache);

} // namespace ptxsim::isa::detail
