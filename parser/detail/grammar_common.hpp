#pragma once
// X3 building blocks shared by the grammar translation units: the skipper,
// identifiers, literals and position capture. Included only by grammar_*.cpp.
#include <boost/spirit/home/x3.hpp>

#include "parser/detail/const_expr.hpp"
#include "parser/detail/grammar.hpp"

namespace ptxsim::parser::detail::g {

namespace x3 = boost::spirit::x3;
using x3::char_;
using x3::lexeme;
using x3::lit;
using x3::raw;

// Character classes as bit sets: X3's alnum/alpha/space call the C
// library's locale-aware functions once per character, which dominated the
// parse profile.
const auto alpha_c = char_("a-zA-Z");
const auto digit_c = char_("0-9");
const auto alnum_c = char_("a-zA-Z0-9");
const auto xdigit_c = char_("0-9a-fA-F");

// Whitespace, // line comments and /* block comments */, skipped in one call
// with plain character tests (the skipper runs before every token).
struct ws_skipper : x3::parser<ws_skipper> {
    using attribute_type = x3::unused_type;
    static bool const has_attribute = false;
    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, It const& last, Ctx const&, RCtx&, Attr&) const {
        It start = first;
        while (first != last) {
            char c = *first;
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
                ++first;
            } else if (c == '/' && first + 1 != last && first[1] == '/') {
                while (first != last && *first != '\n') ++first;
            } else if (c == '/' && first + 1 != last && first[1] == '*') {
                It p = first + 2;
                while (p != last && !(*p == '*' && p + 1 != last && p[1] == '/')) ++p;
                first = p == last ? last : p + 2;
            } else {
                break;
            }
        }
        return first != start;
    }
};
const ws_skipper skipper{};

const auto followsym = char_("a-zA-Z0-9_$");
// PTX identifier: [a-zA-Z]{followsym}* | [_$%]{followsym}+
const auto identifier = lexeme[(alpha_c >> *followsym) | (char_("_$%") >> +followsym)];
// Operand names may carry a vector component (%tid.x, %ntid.y) or, in video
// instructions, a byte or half-word selector (%r1.b0, %r2.h1, %r1.b3210, %r1.h10;
// SIMD half-word selectors pick among four: %r2.h32).
const auto component_name =
    lexeme[identifier >> -('.' >> ((char_('b') >> +char_("0-7")) | (char_('h') >> +char_("0-3")) | char_("xyzwrgba")) >>
                           !followsym)];

inline std::string_view view(const auto& range) {
    return std::string_view(&*range.begin(), static_cast<size_t>(range.end() - range.begin()));
}

const auto int_text = lexeme[-char_('-') >>
                             ((lit('0') >> char_("xX") >> +xdigit_c) | (lit('0') >> char_("bB") >> +char_("01")) |
                              +digit_c) >>
                             -char_('U') >> !followsym];
const auto hexfloat_text =
    lexeme[-char_('-') >> lit('0') >> ((char_("fF") >> x3::repeat(8)[xdigit_c]) | (char_("dD") >> x3::repeat(16)[xdigit_c])) >>
           !followsym];
const auto decfloat_text =
    lexeme[-char_('-') >> ((+digit_c >> '.' >> *digit_c) | ('.' >> +digit_c) | &(+digit_c >> char_("eE"))) >>
           *digit_c >> -(char_("eE") >> -char_("+-") >> +digit_c) >> !followsym];

const auto uint64 = x3::uint_parser<uint64_t>{};
const auto quoted = lexeme['"' >> raw[*(char_ - '"' - x3::eol)] >> '"'];

// Records the current position (after skipping) into the rule value's `pos`.
struct position_parser : x3::parser<position_parser> {
    using attribute_type = x3::unused_type;
    static bool const has_attribute = false;
    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, It const& last, Ctx const& ctx, RCtx& rule_value, Attr&) const {
        x3::skip_over(first, last, ctx);
        // X3 hands the enclosing rule's value to parsers as the RContext.
        if constexpr (!std::is_same_v<std::decay_t<RCtx>, x3::unused_type>) rule_value.pos = first;
        return true;
    }
};
const position_parser here{};

// An integer constant expression (const_expr.hpp) as an X3 parser whose
// attribute is its const_value.
struct const_expr_parser : x3::parser<const_expr_parser> {
    using attribute_type = const_value;
    static bool const has_attribute = true;
    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
        x3::skip_over(first, last, ctx);
        const_value v;
        if (!parse_const_expr(first, last, v)) return false;
        if constexpr (!std::is_same_v<std::decay_t<Attr>, x3::unused_type>) attr = v;
        return true;
    }
};
const const_expr_parser const_expr{};

// must(p, "a line number"): like `> p`, but a failure names what was
// expected in words instead of X3's type name for p.
template <class Subject>
struct must_parser : x3::unary_parser<Subject, must_parser<Subject>> {
    using base = x3::unary_parser<Subject, must_parser<Subject>>;
    static bool const is_pass_through_unary = true;
    must_parser(Subject const& s, const char* what) : base(s), what(what) {}
    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, It const& last, Ctx const& ctx, RCtx& rctx, Attr& attr) const {
        if (this->subject.parse(first, last, ctx, rctx, attr)) return true;
        It where = first;
        x3::skip_over(where, last, ctx);
        boost::throw_exception(x3::expectation_failure<It>(where, what));
    }
    const char* what;
};
template <class P>
auto must(P const& p, const char* what) {
    return must_parser<typename x3::extension::as_parser<P>::value_type>(x3::as_parser(p), what);
}

// Runs `rule` with the skipper and turns a failure (plain or expectation)
// into a parse_failure with the furthest position seen.
template <class Rule, class Attr>
bool run(const char*& it, const char* end, const Rule& rule, Attr& attr, parse_failure& fail, const char* what) {
    // On failure `it` goes back to the statement's start, where the
    // driver's recovery begins.
    const char* start = it;
    try {
        if (x3::phrase_parse(it, end, rule, skipper, attr)) return true;
        fail.where = it;
        fail.expected = what;
    } catch (const x3::expectation_failure<const char*>& e) {
        fail.where = e.where();
        fail.expected = e.which();
    }
    it = start;
    return false;
}

} // namespace ptxsim::parser::detail::g
