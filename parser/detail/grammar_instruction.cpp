// X3 grammar for instructions and their operands:
//   [@[!]pred] opcode{.modifier} [operand {, operand}] ;
// operand: name[+off] | !name | literal | {…} | [addr] | (…) | a|b | _
#include "parser/detail/grammar_common.hpp"

namespace ptxsim::parser::detail {
namespace {
using namespace g;

x3::rule<class operand_tag, raw_operand> const operand = "operand";
x3::rule<class simple_tag, raw_operand> const simple = "operand";
x3::rule<class element_tag, raw_operand> const element = "operand";
x3::rule<class addr_part_tag, raw_operand> const addr_part = "address element";
x3::rule<class instruction_tag, raw_instruction> const instruction = "instruction";

const auto set_name = [](auto& ctx) {
    auto& v = x3::_val(ctx);
    v.kind = operand_kind::name;
    v.name = view(x3::_attr(ctx));
};
const auto set_offset = [](auto& ctx) {
    auto& v = x3::_val(ctx);
    const const_value& c = x3::_attr(ctx);
    v.value = c.value;
    if (c.bad) v.flags |= raw_bad_number | (c.compound ? raw_bad_expr : 0);
    v.flags |= op_has_offset;
};
const auto set_int = [](auto& ctx) {
    auto& v = x3::_val(ctx);
    const const_value& c = x3::_attr(ctx);
    v.kind = operand_kind::integer;
    v.value = c.value;
    if (c.bad) v.flags |= raw_bad_number | (c.compound ? raw_bad_expr : 0);
    if (c.is_unsigned) v.flags |= op_unsigned;
};
const auto set_float = [](auto& ctx) {
    auto& v = x3::_val(ctx);
    if (!convert_float(view(x3::_attr(ctx)), v.kind, v.value)) {
        v.kind = operand_kind::f64;
        v.flags |= raw_bad_number;
    }
};
const auto set_bad_number = [](auto& ctx) {
    auto& v = x3::_val(ctx);
    v.kind = operand_kind::integer;
    v.name = view(x3::_attr(ctx));
    v.flags |= raw_bad_number;
};
const auto wrap = [](auto& ctx) { x3::_val(ctx) = std::move(x3::_attr(ctx)); };
const auto set_kind = [](operand_kind k) { return [k](auto& ctx) { x3::_val(ctx).kind = k; }; };
const auto set_negated = [](auto& ctx) { x3::_val(ctx).flags |= op_negated; };
const auto set_minus = [](auto& ctx) { x3::_val(ctx).flags |= op_minus; };
const auto push = [](auto& ctx) { x3::_val(ctx).elems.push_back(std::move(x3::_attr(ctx))); };
const auto set_base = [](auto& ctx) { x3::_val(ctx).name = view(x3::_attr(ctx)); };

// An offset after a name: +4, -4, +-4, + 4*2 (a constant expression whose
// leading sign is its unary operator, so [%rd1 - 1 + 2] is %rd1 + 1).
const auto offset = &char_("+-") >> const_expr[set_offset];

// The first element of an address: name[+off] or an absolute constant.
const auto address_base = (raw[component_name][set_base] >> -offset) | const_expr[set_offset];

// Vector, call-list and address elements are scalars, never nested
// groups: that keeps the recursion depth fixed whatever the input.
const auto vector_body = lit('{')[set_kind(operand_kind::vector)] >>
                         -(element[push] >> *(',' >> must(element[push], "a vector element"))) > '}';

const auto addr_part_def = here >> ((raw[component_name][set_name] >> -offset) | vector_body);

// Names come first: they are most operands, and every alternative tried
// before the one that matches costs a skip and a failed match.
const auto element_def =
    here >> ((raw[component_name][set_name] >> -offset)
             | ('!' >> raw[component_name][set_name][set_negated])
             | raw[hexfloat_text][set_float]
             | raw[decfloat_text][set_float]
             | const_expr[set_int]
             | ('-' >> raw[component_name][set_name][set_minus])
             | (lit('_') >> !followsym)[set_kind(operand_kind::sink)]
             // A malformed number (0f3F80000, 12abc): reported by the builder with its text.
             | raw[lexeme[digit_c >> *(followsym | char_('.'))]][set_bad_number]);

const auto simple_def =
    element[wrap] | (here >> (vector_body
             | (lit('[')[set_kind(operand_kind::address)] >> address_base >> *(',' >> addr_part[push]) > ']')
             | (lit('(')[set_kind(operand_kind::list)] >> -(element[push] >> *(',' >> must(element[push], "an argument"))) > ')')));

// a|b pairs (setp/shfl destinations): a two-element pipe operand.
const auto make_pipe = [](auto& ctx) {
    auto& v = x3::_val(ctx);
    raw_operand first = std::move(v);
    v = raw_operand{};
    v.kind = operand_kind::pipe;
    v.pos = first.pos;
    v.elems.push_back(std::move(first));
    v.elems.push_back(std::move(x3::_attr(ctx)));
};
const auto operand_def = simple[wrap] >> -('|' >> simple[make_pipe]);

const auto set_guard = [](auto& ctx) { x3::_val(ctx).guard = view(x3::_attr(ctx)); };
const auto set_guard_neg = [](auto& ctx) { x3::_val(ctx).guard_negated = true; };
const auto set_opcode = [](auto& ctx) {
    auto& v = x3::_val(ctx);
    v.opcode = view(x3::_attr(ctx));
    v.opcode_pos = &*x3::_attr(ctx).begin();
};
const auto push_operand = [](auto& ctx) { x3::_val(ctx).operands.push_back(std::move(x3::_attr(ctx))); };

const auto modifier_word = +(alnum_c | char_('_') | lit("::"));
const auto opcode_text = lexeme[alpha_c >> *(alnum_c | char_('_')) >> *('.' >> modifier_word)];

const auto instruction_def =
    here >> -('@' >> -lit('!')[set_guard_neg] >> must(raw[identifier][set_guard], "a predicate register after '@'")) >>
    raw[opcode_text][set_opcode] >>
    -(operand[push_operand] >> *(',' >> must(operand[push_operand], "an operand"))) > ';';

BOOST_SPIRIT_DEFINE(operand, simple, element, addr_part, instruction)

} // namespace

bool parse_instruction(const char*& it, const char* end, raw_instruction& out, parse_failure& fail) {
    out.guard = {};
    out.guard_negated = false;
    out.operands.clear();
    return g::run(it, end, instruction, out, fail, "instruction");
}

} // namespace ptxsim::parser::detail
