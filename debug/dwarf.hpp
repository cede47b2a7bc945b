#pragma once
// CUDA source variables from the DWARF that nvcc -G writes into PTX
// (.section .debug_info / .debug_abbrev / .debug_loc as .b8/.b32/.b64
// data whose addresses are labels and symbols): each function's parameters
// and local variables, the instructions where each is in scope, and where
// it lives there — a PTX register (DW_OP_regx with the register's name
// packed in the number, as NVIDIA's PTX DWARF writes it: 0x257231 is
// "%r1"), an address in a state space (DW_OP_addr of a .param, .local,
// .shared or .global symbol, plus DW_OP_plus_uconst), or a location list
// over instruction ranges. Read once per PTX file.
//
// Positions are the PTX file's byte offsets (parser::pos_t), the same the
// decoded instructions carry (isa::exec_instruction::pos), so a range
// [from, to) holds the instructions whose position is in it.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "debug/expression.hpp"

namespace ptxsim::debug {

// Where a variable is at one instruction.
struct dwarf_location {
    enum class kind : uint8_t { none, reg, symbol, unknown } k = kind::none;
    std::string name;     // the register (%r5) or symbol (k_param_0, __local_depot0)
    int64_t offset = 0;   // added to the symbol's address
    std::string why;      // kind::unknown: what ptxsim does not read
};

// A variable's C type, as far as print needs it.
struct dwarf_type {
    std::string name = "?";          // "int", "const float *", "int [16]"
    uint64_t size = 0;               // bytes
    bool scalar = false;             // a base type or a pointer: `as` says how its bits read
    scalar_type as;
    bool pointer = false;
    scalar_type pointee;             // pointers and arrays: the element
    uint64_t pointee_size = 0;
    isa::space pointee_space = isa::space::generic;
    bool array = false;
    uint64_t count = 0;              // arrays: elements (the first dimension's product)
};

struct dwarf_variable {
    std::string name;
    bool parameter = false;
    dwarf_type type;
    uint32_t from = 0, to = UINT32_MAX;  // source positions where it is in scope
    uint32_t depth = 0;                  // lexical nesting: 0 the module's, 1 a function's, more its blocks
    // One location for the whole scope, or a list by position range.
    dwarf_location single;
    struct piece {
        uint32_t from = 0, to = 0;
        dwarf_location where;
    };
    std::vector<piece> pieces;
    bool listed = false;
    // Where it is at an instruction at `pos`; kind::none when it has no home there.
    dwarf_location at(uint32_t pos) const;
};

class dwarf_info {
public:
    // Reads the debug sections of a PTX file. A file without them gives
    // an empty table; one whose DWARF ptxsim cannot follow gives the
    // variables it read before the problem and `problem()` says what.
    static dwarf_info read(const std::string& ptx_path);
    // The variables of a function (PTX name) in scope at an instruction's
    // position, outermost first (a later one of a name shadows an earlier):
    // the module's (__device__, __constant__, extern __shared__), then the
    // function's.
    std::vector<const dwarf_variable*> in_scope(const std::string& function, uint32_t pos) const;
    bool empty() const { return functions_.empty() && module_.empty(); }
    bool has_function(const std::string& function) const { return functions_.count(function) != 0; }
    const std::string& problem() const { return problem_; }

private:
    friend class dwarf_reader;
    std::map<std::string, std::vector<dwarf_variable>> functions_;
    std::vector<dwarf_variable> module_;  // compilation-unit variables, in scope everywhere
    std::string problem_;
};

} // namespace ptxsim::debug
