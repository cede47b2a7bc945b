#pragma once
// PTX constant expressions: integer literals combined with C's operators
// and precedence (unary - + ~ !, * / %, + -, << >>, comparisons, & ^ |,
// && ||, ?:, parentheses), evaluated in 64 bits, unsigned when any operand
// is (a literal with the U suffix), as the PTX ISA defines them.
#include <cstdint>

namespace ptxsim::parser::detail {

struct const_value {
    int64_t value = 0;
    bool is_unsigned = false;
    bool bad = false;          // a literal that does not fit, or division by zero
    bool compound = false;     // more than a single literal (for messages)
};

// Parses the longest constant expression at `it` (after whitespace). An
// operator whose right side is not constant (the `|` of `5|%p`) ends the
// expression before it. False, with `it` unchanged, when no expression starts here.
bool parse_const_expr(const char*& it, const char* end, const_value& out);

} // namespace ptxsim::parser::detail
