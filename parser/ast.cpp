#include "parser/ast.hpp"

#include <array>
#include <utility>

namespace ptxsim::parser {

namespace {
struct type_name {
    data_type type;
    std::string_view name;
    uint32_t size;
};
constexpr std::array<type_name, 28> type_names{{
    {data_type::b8, "b8", 1},       {data_type::b16, "b16", 2},       {data_type::b32, "b32", 4},
    {data_type::b64, "b64", 8},     {data_type::b128, "b128", 16},    {data_type::u8, "u8", 1},
    {data_type::u16, "u16", 2},     {data_type::u32, "u32", 4},       {data_type::u64, "u64", 8},
    {data_type::s8, "s8", 1},       {data_type::s16, "s16", 2},       {data_type::s32, "s32", 4},
    {data_type::s64, "s64", 8},     {data_type::f16, "f16", 2},       {data_type::f16x2, "f16x2", 4},
    {data_type::bf16, "bf16", 2},   {data_type::bf16x2, "bf16x2", 4}, {data_type::tf32, "tf32", 4},
    {data_type::f32, "f32", 4},     {data_type::f64, "f64", 8},       {data_type::pred, "pred", 1},
    {data_type::e4m3, "e4m3", 1},   {data_type::e5m2, "e5m2", 1},     {data_type::e4m3x2, "e4m3x2", 2},
    {data_type::e5m2x2, "e5m2x2", 2}, {data_type::texref, "texref", 0},
    {data_type::samplerref, "samplerref", 0}, {data_type::surfref, "surfref", 0},
}};
// The table is in enum order (after `none`), so a type's entry is found by
// index: size_of runs per lane in the emulator's handlers.
constexpr bool in_enum_order() {
    for (size_t i = 0; i < type_names.size(); ++i)
        if (static_cast<size_t>(type_names[i].type) != i + 1) return false;
    return true;
}
static_assert(in_enum_order(), "type_names must list data_type in declaration order");
constexpr bool sizes_agree() {
    if (sizeof data_type_sizes != type_names.size() + 1 || data_type_sizes[0] != 0) return false;
    for (size_t i = 0; i < type_names.size(); ++i)
        if (data_type_sizes[i + 1] != type_names[i].size) return false;
    return true;
}
static_assert(sizes_agree(), "data_type_sizes (ast.hpp) must give each type_names entry's size");

const type_name* entry(data_type t) {
    auto i = static_cast<size_t>(t);
    return i >= 1 && i <= type_names.size() ? &type_names[i - 1] : nullptr;
}

} // namespace

std::string_view to_string(data_type t) {
    const type_name* n = entry(t);
    return n ? n->name : "";
}

data_type data_type_from(std::string_view s) {
    for (const auto& n : type_names)
        if (n.name == s) return n.type;
    return data_type::none;
}

std::string_view to_string(state_space s) {
    switch (s) {
    case state_space::reg: return "reg";
    case state_space::sreg: return "sreg";
    case state_space::const_: return "const";
    case state_space::global: return "global";
    case state_space::local: return "local";
    case state_space::param: return "param";
    case state_space::shared: return "shared";
    case state_space::tex: return "tex";
    }
    return "";
}

std::string_view to_string(linkage l) {
    switch (l) {
    case linkage::none: return "";
    case linkage::visible: return "visible";
    case linkage::extern_: return "extern";
    case linkage::weak: return "weak";
    case linkage::common: return "common";
    }
    return "";
}

} // namespace ptxsim::parser
