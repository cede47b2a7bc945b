#pragma once
// Turns raw grammar output into arena AST nodes: interns strings, converts
// literals, interprets declaration qualifiers, and reports what the lenient
// grammar let through (unknown qualifiers, literals that do not fit).
#include <array>
#include <span>
#include <unordered_map>
#include <vector>

#include "parser/ast.hpp"
#include "parser/detail/raw.hpp"
#include "parser/diagnostics.hpp"

namespace ptxsim::parser::detail {

class builder {
public:
    builder(module& m, diagnostics& d) : m_(m), d_(d) {}

    pos_t pos(const char* p) const { return static_cast<pos_t>(p - m_.source->text().data()); }
    void error(const char* p, std::string message) { d_.error(*m_.source, pos(p), std::move(message)); }
    symbol intern(std::string_view s) { return m_.symbols.intern(s); }

    instruction make_instruction(const raw_instruction& raw);
    // One var_decl per declarator; `in_params` allows the parameter-only forms.
    void make_decls(const raw_decl& raw, std::vector<var_decl>& out);
    // A parameter: exactly one declarator.
    var_decl make_param(const raw_decl& raw);
    // Fills everything but the body.
    function make_function_head(const raw_function_head& raw);
    prototype_decl make_prototype(const raw_prototype& raw, symbol label, pos_t label_pos);
    loc_directive make_loc(const raw_loc& raw);
    file_directive make_file(const raw_file& raw);
    section_entry make_section_entry(const raw_section_entry& raw);
    pragma_directive make_pragma(const char* p, const std::vector<std::string_view>& strings);
    list<symbol> intern_all(const std::vector<std::string_view>& names);

private:
    // Converts each raw element with `f` into arena storage; short lists
    // (most operand lists) go through a stack buffer, not the heap.
    template <class Out, class In, class F>
    list<Out> convert_all(const std::vector<In>& in, F&& f) {
        if (in.empty()) return {};
        if (in.size() <= 8) {
            std::array<Out, 8> buf;
            for (size_t i = 0; i < in.size(); ++i) buf[i] = f(in[i]);
            return m_.nodes.copy(std::span<const Out>(buf.data(), in.size()));
        }
        std::vector<Out> out;
        out.reserve(in.size());
        for (const auto& e : in) out.push_back(f(e));
        return m_.nodes.copy(out);
    }

    operand make_operand(const raw_operand& raw);
    initializer make_initializer(const std::vector<raw_init>& items, bool braced, const char* where);
    init_item make_init_item(const raw_init& raw);
    list<var_decl> make_params(const std::vector<raw_decl>& raw);

    module& m_;
    diagnostics& d_;
    // Dotted opcode text ("ld.global.nc.v4.u32") to its split form; the
    // modifier lists are immutable arena data, so equal opcodes share one.
    struct split_opcode {
        symbol opcode;
        list<symbol> modifiers;
    };
    std::unordered_map<std::string_view, split_opcode> opcodes_;
};

} // namespace ptxsim::parser::detail
