// X3 grammar for declarations and everything built from them: variable
// declarations with initialisers, function heads with parameter lists and
// performance directives, call prototypes and debug-section entries.
// The grammar is lenient about which dotted words appear in a head; the
// builder decides what each word means and reports the ones it rejects.
#include "parser/detail/grammar_common.hpp"

namespace ptxsim::parser::detail {
namespace {
using namespace g;

x3::rule<class balanced_tag> const balanced = "balanced parentheses";
x3::rule<class word_tag, raw_word> const word = "directive";
x3::rule<class init_item_tag, raw_init> const init_item = "initializer";
x3::rule<class dim_tag, raw_dim> const dim = "array dimension";
x3::rule<class declarator_tag, raw_declarator> const declarator = "declarator";
x3::rule<class decl_tag, raw_decl> const decl = "declaration";
x3::rule<class param_tag, raw_decl> const param = "parameter";
x3::rule<class perf_tag, raw_perf> const perf = "performance directive";
x3::rule<class head_tag, raw_function_head> const head = "function";
x3::rule<class proto_tag, raw_prototype> const proto = "call prototype";
x3::rule<class entry_tag, raw_section_entry> const section_entry = "section entry";

const auto balanced_def = '(' >> *(balanced | (char_ - char_("()"))) >> ')';

const auto modifier_word = +(alnum_c | char_('_') | lit("::"));
const auto set_word = [](auto& ctx) { x3::_val(ctx).word = view(x3::_attr(ctx)); };
const auto set_paren = [](auto& ctx) { x3::_val(ctx).paren = view(x3::_attr(ctx)); };
const auto set_word_int = [](auto& ctx) {
    x3::_val(ctx).has_int = true;
    x3::_val(ctx).int_value = x3::_attr(ctx);
};
const auto word_def =
    here >> ((lexeme['.' >> raw[lit("attribute")][set_word] >> !followsym] >> raw[balanced][set_paren]) |
             (lexeme['.' >> raw[lit("align")][set_word] >> !followsym] >> uint64[set_word_int]) |
             lexeme['.' >> raw[modifier_word][set_word]]);

// ---- initialisers
const auto set_kind = [](init_kind k) { return [k](auto& ctx) { x3::_val(ctx).kind = k; }; };
const auto set_int = [](auto& ctx) {
    auto& v = x3::_val(ctx);
    const const_value& c = x3::_attr(ctx);
    v.kind = init_kind::integer;
    v.value = c.value;
    if (c.bad) v.flags |= raw_bad_number | (c.compound ? raw_bad_expr : 0);
};
const auto set_float = [](auto& ctx) {
    auto& v = x3::_val(ctx);
    operand_kind k;
    if (!convert_float(view(x3::_attr(ctx)), k, v.value)) v.flags |= raw_bad_number;
    v.kind = k == operand_kind::f32 ? init_kind::f32 : init_kind::f64;
};
const auto set_sym = [](auto& ctx) { x3::_val(ctx).sym = view(x3::_attr(ctx)); };
const auto set_sym2 = [](auto& ctx) {
    x3::_val(ctx).sym2 = view(x3::_attr(ctx));
    x3::_val(ctx).kind = init_kind::difference;
};
const auto add_offset = [](auto& ctx) {
    auto& v = x3::_val(ctx);
    const const_value& c = x3::_attr(ctx);
    if (c.bad) v.flags |= raw_bad_number | (c.compound ? raw_bad_expr : 0);
    v.value = static_cast<int64_t>(static_cast<uint64_t>(v.value) + static_cast<uint64_t>(c.value));
};
const auto push_elem = [](auto& ctx) { x3::_val(ctx).elems.push_back(std::move(x3::_attr(ctx))); };

// sym+4, sym-4, sym + 2*8 (one constant expression with its sign), or sym-sym2
const auto sym_tail = -((&char_("+-") >> const_expr[add_offset]) | ('-' >> raw[identifier][set_sym2] >>
                                                                     -(&char_("+-") >> const_expr[add_offset])));

const auto init_item_def =
    here >> ((lit('{')[set_kind(init_kind::nested)] >> -(init_item[push_elem] % ',') > '}')
             | raw[hexfloat_text][set_float]
             | raw[decfloat_text][set_float]
             | const_expr[set_int]
             | (lit("generic")[set_kind(init_kind::generic)] >> '(' >> must(raw[identifier][set_sym], "a variable name") > ')' >> sym_tail)
             | (raw[identifier][set_sym][set_kind(init_kind::symbol)] >> sym_tail)
             // debug sections refer to other sections by name: .b32 .debug_abbrev
             | (raw[lexeme['.' >> +(alnum_c | char_("_."))]][set_sym][set_kind(init_kind::symbol)] >> sym_tail));

// ---- declarators:  name[<N>][[N]]...[= init]
const auto set_dname = [](auto& ctx) { x3::_val(ctx).name = view(x3::_attr(ctx)); };
const auto set_range = [](auto& ctx) {
    x3::_val(ctx).is_range = true;
    x3::_val(ctx).range = x3::_attr(ctx);
};
const auto set_size = [](auto& ctx) {
    x3::_val(ctx).sized = true;
    x3::_val(ctx).size = x3::_attr(ctx);
};
const auto push_dim = [](auto& ctx) { x3::_val(ctx).dims.push_back(x3::_attr(ctx)); };
const auto begin_init = [](auto& ctx) { x3::_val(ctx).has_init = true; };
const auto set_braced = [](auto& ctx) { x3::_val(ctx).braced = true; };
const auto push_init = [](auto& ctx) { x3::_val(ctx).init.push_back(std::move(x3::_attr(ctx))); };
const auto set_init_pos = [](auto& ctx) { x3::_val(ctx).init_pos = &*x3::_attr(ctx).begin(); };

const auto dim_def = here >> '[' >> -(uint64[set_size]) > ']';
const auto decl_name = identifier | (char_('_') >> !followsym);
const auto init_block = (lit('{')[set_braced] >> -(init_item[push_init] % ',') > '}') |
                        must(init_item[push_init], "an initial value");
const auto declarator_def = here >> raw[decl_name][set_dname] >> -('<' >> must(uint64[set_range], "a register count") > '>') >>
                            *(dim[push_dim]) >> -(lit('=')[begin_init] > raw[&char_][set_init_pos] >> init_block);

const auto push_word = [](auto& ctx) { x3::_val(ctx).head.push_back(std::move(x3::_attr(ctx))); };
const auto push_name = [](auto& ctx) { x3::_val(ctx).names.push_back(std::move(x3::_attr(ctx))); };
// ptxas takes a declaration that names nothing (`.reg .b32 ;`) and declares nothing.
const auto decl_def = here >> +(word[push_word]) >> -(declarator[push_name] % ',') > ';';
const auto param_def = here >> +(word[push_word]) >> declarator[push_name];

// ---- function heads
const auto set_perf_name = [](auto& ctx) { x3::_val(ctx).name = view(x3::_attr(ctx)); };
const auto push_value = [](auto& ctx) { x3::_val(ctx).values.push_back(x3::_attr(ctx)); };
const auto push_string = [](auto& ctx) { x3::_val(ctx).strings.push_back(view(x3::_attr(ctx))); };
// .maxntid 256, 1, 1  /  .noreturn  /  .pragma "nounroll";  (ptxas takes a
// .pragma, with its ';', between an entry's parameters and its body)
const auto perf_def = here >> lexeme['.' >> raw[modifier_word][set_perf_name]] >>
                      -((uint64[push_value] % ',') | ((quoted[push_string] % ',') >> -lit(';')));

const auto head_push_word = [](auto& ctx) { x3::_val(ctx).words.push_back(std::move(x3::_attr(ctx))); };
const auto head_has_ret = [](auto& ctx) { x3::_val(ctx).has_ret = true; };
const auto head_push_ret = [](auto& ctx) { x3::_val(ctx).ret.push_back(std::move(x3::_attr(ctx))); };
const auto head_has_params = [](auto& ctx) { x3::_val(ctx).has_params = true; };
const auto head_push_param = [](auto& ctx) { x3::_val(ctx).params.push_back(std::move(x3::_attr(ctx))); };
const auto head_set_name = [](auto& ctx) {
    x3::_val(ctx).name = view(x3::_attr(ctx));
    x3::_val(ctx).name_pos = &*x3::_attr(ctx).begin();
};
const auto head_push_perf = [](auto& ctx) { x3::_val(ctx).perf.push_back(std::move(x3::_attr(ctx))); };

const auto head_def = here >> +(word[head_push_word]) >>
                      -(lit('(')[head_has_ret] >> -(param[head_push_ret] % ',') > ')') >>
                      must(raw[identifier][head_set_name], "a function name") >>
                      -(lit('(')[head_has_params] >> -(param[head_push_param] % ',') > ')') >> *(perf[head_push_perf]);

// ---- call prototypes:  .callprototype [(ret)] _ (params) [.noreturn];
const auto proto_noreturn = [](auto& ctx) { x3::_val(ctx).noreturn = true; };
const auto proto_def = here >> lit(".callprototype") >>
                       -(lit('(')[head_has_ret] >> -(param[head_push_ret] % ',') > ')') >
                       lit('_') > '(' >> -(param[head_push_param] % ',') > ')' >>
                       -(lit(".noreturn")[proto_noreturn]) > ';';

// ---- section entries: label:  |  .b8 1, 2, sym
const auto set_label = [](auto& ctx) { x3::_val(ctx).label = view(x3::_attr(ctx)); };
const auto set_type = [](auto& ctx) { x3::_val(ctx).type = view(x3::_attr(ctx)); };
const auto push_section_value = [](auto& ctx) { x3::_val(ctx).values.push_back(std::move(x3::_attr(ctx))); };
const auto section_entry_def = here >> ((raw[identifier][set_label] >> ':') |
                                        (lexeme['.' >> raw[modifier_word][set_type]] >>
                                         must(init_item[push_section_value], "a value") >>
                                         *(',' >> must(init_item[push_section_value], "a value")) >> -lit(';')));

BOOST_SPIRIT_DEFINE(balanced, word, init_item, dim, declarator, decl, param, perf, head, proto, section_entry)

} // namespace

bool parse_declaration(const char*& it, const char* end, raw_decl& out, parse_failure& fail) {
    out = raw_decl{};
    return g::run(it, end, decl, out, fail, "declaration");
}

bool parse_function_head(const char*& it, const char* end, raw_function_head& out, parse_failure& fail) {
    out = raw_function_head{};
    return g::run(it, end, head, out, fail, "function declaration");
}

bool parse_prototype(const char*& it, const char* end, raw_prototype& out, parse_failure& fail) {
    out = raw_prototype{};
    return g::run(it, end, proto, out, fail, ".callprototype");
}

bool parse_section_entry(const char*& it, const char* end, raw_section_entry& out, parse_failure& fail) {
    out.label = {};
    out.type = {};
    out.values.clear();
    return g::run(it, end, section_entry, out, fail, "section entry");
}

} // namespace ptxsim::parser::detail
