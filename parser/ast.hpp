#pragma once
// The typed PTX syntax tree. Nodes live in the module's arena and refer to
// strings through symbol ids. Every node has `pos`, the byte offset of its
// first character in the module's source; `module::where(pos)` turns that
// into file, line and column. Equality (ast_equal.hpp) ignores positions.
#include <cstdint>
#include <memory>
#include <variant>

#include "parser/arena.hpp"
#include "parser/code_origin.hpp"
#include "parser/source.hpp"
#include "parser/symbols.hpp"

namespace ptxsim::parser {

using pos_t = uint32_t;

// ---------------------------------------------------------------- operands
enum class operand_kind : uint8_t {
    name,      // register, special register (%tid.x), variable, label, function; `value` = +offset
    integer,   // value holds the bits (two's complement)
    f32,       // value holds the IEEE binary32 bits (0fXXXXXXXX)
    f64,       // value holds the IEEE binary64 bits (0dXXXXXXXXXXXXXXXX or decimal literal)
    vector,    // {a, b, ...}; elems
    address,   // [base+offset, extra...]; name = base (0 when absolute), value = offset, elems = extra parts
    list,      // (a, b, ...) in call; elems
    pipe,      // a|b; elems = {a, b}
    sink,      // _
};

enum operand_flags : uint8_t {
    op_negated = 1,      // !%p
    op_unsigned = 2,     // integer literal with U suffix
    op_has_offset = 4,   // name+offset / [name+offset] written with an offset (even +0)
    op_minus = 8,        // -%r1 (negated source of vmad)
    op_bad_literal = 16, // a number that did not read (reported by the parser; its kind is a guess)
};

struct operand {
    operand_kind kind = operand_kind::name;
    uint8_t flags = 0;
    symbol name = no_symbol;
    int64_t value = 0;
    list<operand> elems;
    pos_t pos = 0;
};

// ---------------------------------------------------------------- declarations
enum class linkage : uint8_t { none, visible, extern_, weak, common };

enum class state_space : uint8_t { reg, sreg, const_, global, local, param, shared, tex };

// Data types that declarations use. The instruction types stay modifiers.
enum class data_type : uint8_t {
    none, b8, b16, b32, b64, b128, u8, u16, u32, u64, s8, s16, s32, s64,
    f16, f16x2, bf16, bf16x2, tf32, f32, f64, pred,
    e4m3, e5m2, e4m3x2, e5m2x2, texref, samplerref, surfref,
};

enum class init_kind : uint8_t {
    integer,        // value
    f32, f64,       // value holds the bits
    symbol,         // sym (+ value as offset)
    generic,        // generic(sym) (+ value)
    difference,     // sym - sym2 (+ value)
    nested,         // { elems }
};

struct init_item {
    init_kind kind = init_kind::integer;
    symbol sym = no_symbol;
    symbol sym2 = no_symbol;
    int64_t value = 0;
    list<init_item> elems;
};

// An initialiser is either a dense list of integers (byte arrays, debug
// sections: 8 bytes a value) or general items.
struct initializer {
    bool present = false;
    bool braced = false;      // written as { ... }
    list<int64_t> ints;       // used when every element is a plain integer
    list<init_item> items;    // otherwise
};

struct var_decl {
    pos_t pos = 0;
    linkage link = linkage::none;
    state_space space = state_space::reg;
    symbol space_suffix = no_symbol;  // "cta" of .shared::cta, "entry" of .param::entry
    data_type type = data_type::none;
    uint8_t vec = 0;                  // .v2/.v4/.v8, 0 when scalar
    uint32_t align = 0;               // .align N, 0 when absent
    symbol name = no_symbol;
    uint32_t range = 0;               // %r<100>: 100; 0 when not a range
    bool is_range = false;
    list<uint64_t> dims;              // [N][M]; 0 for an unsized []
    list<symbol> attributes;          // .attribute(.managed) -> "managed" (raw text inside)
    state_space ptr_space = state_space::reg; // .ptr.global: global
    bool is_ptr = false;
    bool ptr_has_space = false;
    uint32_t ptr_align = 0;
    initializer init;
};

// ---------------------------------------------------------------- statements
struct instruction {
    pos_t pos = 0;
    symbol guard = no_symbol;   // predicate register of @p / @!p
    bool guard_negated = false;
    symbol opcode = no_symbol;  // first dotted word: "ld"
    list<symbol> modifiers;     // remaining words without the dot: "global", "nc", "v4", "u32"
    list<operand> operands;
    pos_t opcode_end = 0;       // offset just past the dotted opcode (for diagnostics)
};

struct loc_directive {
    pos_t pos = 0;
    uint32_t file = 0, line = 0, col = 0;
    symbol function_name = no_symbol;  // function_name label
    int64_t function_offset = 0;
    bool has_function = false;
    bool has_inlined_at = false;
    uint32_t inlined_file = 0, inlined_line = 0, inlined_col = 0;
};

struct pragma_directive {
    pos_t pos = 0;
    list<symbol> strings;  // contents of each "..." without quotes
};

struct label_stmt {
    pos_t pos = 0;
    symbol name = no_symbol;
};

struct block_stmt;
struct prototype_decl;
struct targets_decl;

struct decl_stmt { const var_decl* decl = nullptr; };

struct statement {
    std::variant<instruction, label_stmt, decl_stmt, const block_stmt*, loc_directive,
                 pragma_directive, const prototype_decl*, const targets_decl*>
        node;
};

struct block_stmt {
    pos_t pos = 0;
    list<statement> body;
};

// name: .callprototype (.param .b32 _) _ (.param .b32 _);
struct prototype_decl {
    pos_t pos = 0;
    symbol label = no_symbol;
    bool has_return = false;
    list<var_decl> ret;
    list<var_decl> params;
    bool noreturn = false;
};

// name: .branchtargets L1, L2;  /  name: .calltargets f, g;
struct targets_decl {
    pos_t pos = 0;
    symbol label = no_symbol;
    bool calls = false;
    list<symbol> targets;
};

// ---------------------------------------------------------------- module level
struct perf_directive {
    pos_t pos = 0;
    symbol name = no_symbol;    // "maxntid", "noreturn", "explicitcluster", "pragma" ...
    list<uint64_t> values;
    list<symbol> strings;       // for .pragma "..."
};

struct function {
    pos_t pos = 0;
    linkage link = linkage::none;
    bool is_entry = false;
    list<symbol> attributes;    // .attribute(...) raw text
    symbol name = no_symbol;
    bool has_ret = false;       // (.param ...) before the name, even when empty
    list<var_decl> ret;
    bool has_params = false;    // (...) after the name, even when empty
    list<var_decl> params;
    list<perf_directive> directives;
    bool has_body = false;      // false: declaration ending in ';'
    list<statement> body;
};

struct file_directive {
    pos_t pos = 0;
    uint32_t index = 0;
    symbol path = no_symbol;
    bool has_stamp = false;
    uint64_t timestamp = 0, size = 0;
};

// .section .debug_info { label: .b8 1, 2; .b32 sym; }
struct section_entry {
    pos_t pos = 0;
    symbol label = no_symbol;       // set for a label line
    data_type type = data_type::none;
    initializer values;             // for a data line
};

struct section_directive {
    pos_t pos = 0;
    symbol name = no_symbol;        // ".debug_info" without the dot
    list<section_entry> entries;
};

struct alias_directive {
    pos_t pos = 0;
    symbol alias = no_symbol, target = no_symbol;
};

struct toplevel {
    std::variant<const function*, const var_decl*, file_directive, const section_directive*,
                 pragma_directive, alias_directive, loc_directive>
        node;
};

struct version_info {
    uint32_t major = 0, minor = 0;
    uint32_t as_int() const { return major * 10 + minor; }
};

struct module {
    std::unique_ptr<source_file> source;
    symbol_table symbols;
    arena nodes;

    bool has_version = false;
    version_info version;
    pos_t version_pos = 0;
    list<symbol> target;          // "sm_90a", "debug", ...
    pos_t target_pos = 0;
    uint32_t address_size = 0;    // 0 when absent
    pos_t address_size_pos = 0;
    list<toplevel> items;
    // Compiled code, inline asm or hand-written PTX, by byte offset.
    code_origins origins;

    std::string_view str(symbol s) const { return symbols.str(s); }
    line_col where(pos_t p) const { return source->locate(p); }
};

// Names of enum values as PTX spells them (without the leading dot).
std::string_view to_string(data_type t);
std::string_view to_string(state_space s);
std::string_view to_string(linkage l);
// Parses a type name without the dot ("u32"); data_type::none when unknown.
data_type data_type_from(std::string_view s);
// Byte size of a scalar declaration type (pred: 1 for layout purposes); 0 for
// handle types. Inline, indexed by the enum: the emulator's handlers ask it
// per instruction (ast.cpp checks the table against the type names).
inline constexpr uint8_t data_type_sizes[] = {0, 1, 2, 4, 8, 16, 1, 2, 4, 8, 1, 2, 4, 8, 2,
                                              4, 2, 4, 4, 4, 8, 1, 1, 1, 2, 2, 0, 0, 0};
inline uint32_t size_of(data_type t) {
    const auto i = static_cast<size_t>(t);
    return i < sizeof data_type_sizes ? data_type_sizes[i] : 0;
}

} // namespace ptxsim::parser
