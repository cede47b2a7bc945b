#pragma once
// What isa/sem/cvt_mx.cpp and cvt_rs.cpp share: the sm_100a narrow cvt
// types, which the parser's data_type does not name (they only appear as
// cvt modifiers), and the instruction fields they use.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "isa/fp/format.hpp"

namespace ptxsim::isa::sem {

// Stored in exec_instruction::vec by these decoders.
enum class narrow_type : uint8_t { e2m1, e2m3, e3m2, ue8m0, e4m3, e5m2 };

// exec_instruction::flags bits.
inline constexpr uint8_t narrow_relu = 1, narrow_satfinite = 2;

// The element type of a packed cvt type word ("e2m1x2", "e4m3x4" ...).
inline std::optional<narrow_type> narrow_type_of(std::string_view t) {
    if (t.size() < 3) return std::nullopt;
    std::string_view base = t.substr(0, t.size() - 2);
    if (base == "e2m1") return narrow_type::e2m1;
    if (base == "e2m3") return narrow_type::e2m3;
    if (base == "e3m2") return narrow_type::e3m2;
    if (base == "ue8m0") return narrow_type::ue8m0;
    if (base == "e4m3") return narrow_type::e4m3;
    if (base == "e5m2") return narrow_type::e5m2;
    return std::nullopt;
}

inline const fp::format& format_of(narrow_type t) {
    switch (t) {
    case narrow_type::e2m1: return fp::e2m1_format;
    case narrow_type::e2m3: return fp::e2m3_format;
    case narrow_type::e3m2: return fp::e3m2_format;
    case narrow_type::e4m3: return fp::e4m3_format;
    default: return fp::e5m2_format;
    }
}

// Bits of one value, and of the field it sits in (fp6 values are padded to a byte).
inline uint32_t code_bits(narrow_type t) {
    return t == narrow_type::e2m1 ? 4 : (t == narrow_type::e2m3 || t == narrow_type::e3m2) ? 6 : 8;
}
inline uint32_t field_bits(narrow_type t) { return t == narrow_type::e2m1 ? 4 : 8; }

inline std::string fmt_unsupported(std::string_view dst, std::string_view src) {
    return "cvt." + std::string(dst) + "." + std::string(src) + " does not exist";
}

} // namespace ptxsim::isa::sem
