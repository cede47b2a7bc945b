// Literal conversion for the grammar. PTX integer literals are decimal,
// 0x hex, 0b binary or 0-prefixed octal, with an optional U suffix; they are
// 64-bit. Float literals are 0f (binary32 bits), 0d (binary64 bits) or
// decimal (read as binary64, rounded to nearest by from_chars, which does
// not depend on the host rounding mode).
#include <charconv>
#include <cstring>

#include "parser/detail/grammar.hpp"

namespace ptxsim::parser::detail {

bool convert_integer(std::string_view text, int64_t& value, bool& is_unsigned) {
    bool negative = !text.empty() && text.front() == '-';
    if (negative) text.remove_prefix(1);
    is_unsigned = !text.empty() && text.back() == 'U';
    if (is_unsigned) text.remove_suffix(1);
    int base = 10;
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        base = 16;
        text.remove_prefix(2);
    } else if (text.size() > 2 && text[0] == '0' && (text[1] == 'b' || text[1] == 'B')) {
        base = 2;
        text.remove_prefix(2);
    } else if (text.size() > 1 && text[0] == '0') {
        base = 8;
        text.remove_prefix(1);
    }
    uint64_t magnitude = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), magnitude, base);
    if (ec != std::errc() || p != text.data() + text.size()) return false;
    value = static_cast<int64_t>(negative ? 0 - magnitude : magnitude);
    return true;
}

bool convert_float(std::string_view text, operand_kind& kind, int64_t& bits) {
    bool negative = !text.empty() && text.front() == '-';
    if (negative) text.remove_prefix(1);
    if (text.size() >= 2 && text[0] == '0' && (text[1] == 'f' || text[1] == 'F' || text[1] == 'd' || text[1] == 'D')) {
        if (negative) return false; // ptxas: "Parsing error near '0f3F800000'" after a '-': the sign is in the bits
        bool single = text[1] == 'f' || text[1] == 'F';
        uint64_t v = 0;
        auto [p, ec] = std::from_chars(text.data() + 2, text.data() + text.size(), v, 16);
        if (ec != std::errc() || p != text.data() + text.size()) return false;
        kind = single ? operand_kind::f32 : operand_kind::f64;
        bits = static_cast<int64_t>(v);
        return true;
    }
    double d = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
    if (p != text.data() + text.size()) return false;
    if (ec == std::errc::result_out_of_range) return false;
    if (negative) d = -d;
    uint64_t v;
    std::memcpy(&v, &d, sizeof v);
    kind = operand_kind::f64;
    bits = static_cast<int64_t>(v);
    return true;
}

} // namespace ptxsim::parser::detail
