#pragma once
// Expressions of the debugger's print, x, watch, last-write and `break ...
// if` (docs/debug.md, Expressions): integers and floats, PTX registers
// (%r5 or $r5, %p1, %fd2), special registers (%tid.x, threadIdx.x,
// blockIdx.x, blockDim.x, gridDim.x, %laneid, %warpid), kernel parameters
// and module and .shared variables by name, C operators, casts to C and
// PTX types with an optional state space (`(@shared int*)16`), `*` to read
// memory and `&` for a variable's address. Parsed once, evaluated per lane.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "isa/exec.hpp"

namespace ptxsim::debug {

struct expr_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A scalar type: bytes, and how its bits read.
struct scalar_type {
    uint32_t size = 8;
    bool is_signed = false;
    bool is_float = false;
    bool is_pred = false;
    static scalar_type of(parser::data_type t);
};

struct value {
    enum class kind : uint8_t { integer, real, pointer } k = kind::integer;
    uint64_t bits = 0; // integer (sign-extended when signed) or pointer
    double real = 0;
    scalar_type type;
    // A pointer: what it points to and in which state space.
    scalar_type pointee;
    isa::space space = isa::space::generic;
    // A pointer that stands for an array variable (it decays to its first
    // element, as in C): how many elements it has, so print shows them.
    uint64_t elements = 0;
    bool truthy() const { return k == kind::real ? real != 0 : bits != 0; }
    int64_t as_int() const { return k == kind::real ? static_cast<int64_t>(real) : static_cast<int64_t>(bits); }
    double as_real() const;
};

// What an evaluation may look at: one lane of the focused warp.
class eval_context {
public:
    virtual ~eval_context() = default;
    // A register or predicate (%r5, %p1); throws expr_error when unknown.
    virtual value reg(const std::string& name) const = 0;
    // %tid.x, threadIdx.x, %laneid, ...; throws when unknown.
    virtual value special(const std::string& name) const = 0;
    // A kernel parameter, module variable or .shared variable: its value,
    // or with address_of its address (a pointer to it); throws when unknown.
    virtual value variable(const std::string& name, bool address_of) const = 0;
    // Reads `size` bytes at an address in a space; throws with the reason.
    virtual uint64_t read(isa::space sp, uint64_t addr, uint32_t size) const = 0;
};

// No kernel runs: constants evaluate, anything that needs a lane says so.
class idle_context final : public eval_context {
public:
    value reg(const std::string& name) const override;
    value special(const std::string& name) const override;
    value variable(const std::string& name, bool address_of) const override;
    uint64_t read(isa::space sp, uint64_t addr, uint32_t size) const override;
};

struct expr_node;

class expression {
public:
    // Throws expr_error with the column of the problem.
    static expression parse(const std::string& text);
    value evaluate(const eval_context& c) const;
    // For watch and last-write: the expression is `*(T*)ADDR` (or a
    // variable): the memory it names. False when it names no memory.
    bool memory_operand(const eval_context& c, isa::space& sp, uint64_t& addr, uint32_t& size, scalar_type& t) const;
    const std::string& text() const { return text_; }

private:
    std::shared_ptr<const expr_node> root_;
    std::string text_;
};

// A scalar type by C or PTX name (int, unsigned, float, u32, f64 ...).
bool type_named(const std::string& name, scalar_type& t);
// A state space by the name after `@` (global, shared, local, const, param, generic).
bool space_named(const std::string& name, isa::space& sp);
const char* space_name(isa::space sp);

// A value as print shows it: format 0 (natural), 'x', 'd', 'u', 'f', 't'.
std::string format_value(const value& v, char format);
// The C type of a value: "int", "@shared float *".
std::string type_of(const value& v);
// A value from `size` bytes of memory read as `t`.
value value_of_bits(uint64_t bits, const scalar_type& t);

} // namespace ptxsim::debug
