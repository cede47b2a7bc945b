#pragma once
// Entry points into the X3 grammar, one per statement kind. Each parses from
// `it`, and on success leaves `it` just past what it read. On failure it
// fills `fail` with the furthest position reached and what was expected
// there. The X3 rules themselves live in the grammar_*.cpp files, split so
// that no single translation unit takes long to compile.
#include <string>

#include "parser/detail/raw.hpp"

namespace ptxsim::parser::detail {

struct parse_failure {
    const char* where = nullptr;
    std::string expected;
};

// grammar_instruction.cpp
bool parse_instruction(const char*& it, const char* end, raw_instruction& out, parse_failure& fail);

// grammar_decl.cpp
bool parse_declaration(const char*& it, const char* end, raw_decl& out, parse_failure& fail);
bool parse_function_head(const char*& it, const char* end, raw_function_head& out, parse_failure& fail);
bool parse_prototype(const char*& it, const char* end, raw_prototype& out, parse_failure& fail);
bool parse_section_entry(const char*& it, const char* end, raw_section_entry& out, parse_failure& fail);

// grammar_directive.cpp
bool parse_loc(const char*& it, const char* end, raw_loc& out, parse_failure& fail);
bool parse_file(const char*& it, const char* end, raw_file& out, parse_failure& fail);
bool parse_pragma(const char*& it, const char* end, std::vector<std::string_view>& out, parse_failure& fail);
bool parse_version(const char*& it, const char* end, uint64_t& major, uint64_t& minor, parse_failure& fail);
bool parse_target(const char*& it, const char* end, std::vector<std::string_view>& out, parse_failure& fail);
bool parse_address_size(const char*& it, const char* end, uint64_t& bits, parse_failure& fail);
bool parse_name_list(const char*& it, const char* end, std::string_view directive,
                     std::vector<std::string_view>& out, parse_failure& fail);
bool parse_section_open(const char*& it, const char* end, std::string_view& name, parse_failure& fail);

// Literal conversion shared by the grammar files (literals.cpp).
// Integer literal text (with optional '-' and 'U'): false when it does not fit in 64 bits.
bool convert_integer(std::string_view text, int64_t& value, bool& is_unsigned);
// 0fXXXXXXXX / 0dXXXXXXXXXXXXXXXX / decimal: kind f32 or f64 and the bits.
bool convert_float(std::string_view text, operand_kind& kind, int64_t& bits);

} // namespace ptxsim::parser::detail
