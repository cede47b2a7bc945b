#pragma once
// What the X3 grammar produces: a light, string_view-based image of one
// statement. The builder (build.cpp) checks it, interns its strings and
// turns it into arena nodes. Raw objects are reused between statements, so
// their vectors keep their capacity and parsing allocates little.
#include <cstdint>
#include <string_view>
#include <vector>

#include "parser/ast.hpp"

namespace ptxsim::parser::detail {

enum raw_flags : uint8_t {
    raw_bad_number = 0x80,  // a literal that does not fit (reported by the builder)
    raw_bad_expr = 0x40,    // with raw_bad_number: in a constant expression (or a division by zero)
};

struct raw_operand {
    operand_kind kind = operand_kind::name;
    uint8_t flags = 0;      // operand_flags | raw_flags
    std::string_view name;
    int64_t value = 0;
    std::vector<raw_operand> elems;
    const char* pos = nullptr;
};

struct raw_instruction {
    const char* pos = nullptr;
    std::string_view guard;
    bool guard_negated = false;
    std::string_view opcode;          // the whole dotted word: "ld.global.nc.v4.u32"
    const char* opcode_pos = nullptr;
    std::vector<raw_operand> operands;
};

// A dotted word of a declaration or function head: .visible .align 8 .attribute(.managed)
struct raw_word {
    const char* pos = nullptr;
    std::string_view word;            // without the dot
    std::string_view paren;           // text inside .attribute( )
    bool has_int = false;
    uint64_t int_value = 0;
};

struct raw_init {
    init_kind kind = init_kind::integer;
    uint8_t flags = 0;                // raw_bad_number
    std::string_view sym, sym2;
    int64_t value = 0;
    std::vector<raw_init> elems;
    const char* pos = nullptr;
};

struct raw_dim {
    bool sized = false;
    uint64_t size = 0;
    const char* pos = nullptr;
};

struct raw_declarator {
    const char* pos = nullptr;
    std::string_view name;
    bool is_range = false;
    uint64_t range = 0;
    std::vector<raw_dim> dims;
    bool has_init = false;
    bool braced = false;
    std::vector<raw_init> init;
    const char* init_pos = nullptr;
};

struct raw_decl {
    const char* pos = nullptr;
    std::vector<raw_word> head;
    std::vector<raw_declarator> names;
};

struct raw_perf {
    const char* pos = nullptr;
    std::string_view name;
    std::vector<uint64_t> values;
    std::vector<std::string_view> strings;
};

struct raw_function_head {
    const char* pos = nullptr;
    std::vector<raw_word> words;      // linkage, entry/func, attribute
    bool has_ret = false;
    std::vector<raw_decl> ret;
    std::string_view name;
    const char* name_pos = nullptr;
    bool has_params = false;
    std::vector<raw_decl> params;
    std::vector<raw_perf> perf;
};

struct raw_prototype {
    const char* pos = nullptr;
    bool has_ret = false;
    std::vector<raw_decl> ret;
    std::vector<raw_decl> params;
    bool noreturn = false;
};

struct raw_loc {
    const char* pos = nullptr;
    uint64_t file = 0, line = 0, col = 0;
    bool has_function = false;
    std::string_view function_name;
    int64_t function_offset = 0;
    bool has_inlined_at = false;
    uint64_t ifile = 0, iline = 0, icol = 0;
};

struct raw_file {
    const char* pos = nullptr;
    uint64_t index = 0;
    std::string_view path;
    bool has_stamp = false;
    uint64_t timestamp = 0, size = 0;
};

// One line inside a .section { }: a label, or .bN values.
struct raw_section_entry {
    const char* pos = nullptr;
    std::string_view label;
    std::string_view type;
    std::vector<raw_init> values;
};

} // namespace ptxsim::parser::detail
