#include "parser/detail/const_expr.hpp"

#include <cstring>
#include <string_view>

#include "parser/detail/grammar.hpp"

namespace ptxsim::parser::detail {
namespace {

bool is_follow(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

// -?(0[xX]hex+ | 0[bB][01]+ | digit+) U?
bool looks_integer(std::string_view t) {
    if (!t.empty() && t.back() == 'U') t.remove_suffix(1);
    auto all = [](std::string_view s, auto pred) {
        if (s.empty()) return false;
        for (char c : s)
            if (!pred(c)) return false;
        return true;
    };
    auto dec = [](char c) { return c >= '0' && c <= '9'; };
    auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); };
    auto bin = [](char c) { return c == '0' || c == '1'; };
    if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) return all(t.substr(2), hex);
    if (t.size() > 2 && t[0] == '0' && (t[1] == 'b' || t[1] == 'B')) return all(t.substr(2), bin);
    return all(t, dec);
}

class expr_parser {
public:
    expr_parser(const char* it, const char* end) : p_(it), end_(end) {}
    const char* pos() const { return p_; }

    // A lone literal (the common case) ends at a character that cannot
    // continue an expression; only then is the precedence climb needed.
    bool lone_literal(const_value& v) {
        const char* save = p_;
        if (!unary(v)) return false;
        skip();
        if (p_ >= end_ || !std::strchr("+-*/%<>=!&|^?", *p_)) return true;
        p_ = save;
        v = const_value{};
        return false;
    }

    bool ternary(const_value& v) {
        if (!binary(v, 0)) return false;
        const char* save = p_;
        if (!eat("?")) return true;
        const_value a, b;
        if (ternary(a) && eat(":") && ternary(b)) {
            bool take_a = v.value != 0;
            v = take_a ? a : b;
            v.is_unsigned = a.is_unsigned || b.is_unsigned;
            v.bad = v.bad || a.bad || b.bad;
            v.compound = true;
            return true;
        }
        p_ = save;
        return true;
    }

private:
    // Binary operators by C precedence, loosest first.
    static constexpr std::string_view levels[][4] = {
        {"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<=", ">=", "<", ">"}, {"<<", ">>"}, {"+", "-"},
        {"*", "/", "%"},
    };
    static constexpr int n_levels = 10;

    bool binary(const_value& v, int level) {
        if (level == n_levels) return unary(v);
        if (!binary(v, level + 1)) return false;
        while (true) {
            const char* save = p_;
            std::string_view op = match_op(level);
            if (op.empty()) return true;
            const_value rhs;
            if (!binary(rhs, level + 1)) { // not an expression after all: 5|%p1
                p_ = save;
                return true;
            }
            apply(op, v, rhs);
        }
    }

    std::string_view match_op(int level) {
        skip();
        for (std::string_view op : levels[level]) {
            if (op.empty() || static_cast<size_t>(end_ - p_) < op.size() || std::string_view(p_, op.size()) != op) continue;
            // "|" must not be the start of "||", "<" not of "<<" or "<=", "&" not of "&&".
            if (op.size() == 1 && p_ + 1 < end_ &&
                ((op[0] == '|' && p_[1] == '|') || (op[0] == '&' && p_[1] == '&') ||
                 ((op[0] == '<' || op[0] == '>') && (p_[1] == op[0] || p_[1] == '='))))
                continue;
            p_ += op.size();
            return op;
        }
        return {};
    }

    static void apply(std::string_view op, const_value& a, const const_value& b) {
        bool u = a.is_unsigned || b.is_unsigned;
        uint64_t x = static_cast<uint64_t>(a.value), y = static_cast<uint64_t>(b.value);
        int64_t sx = a.value, sy = b.value;
        uint64_t r = 0;
        bool bad = a.bad || b.bad;
        if (op == "+") r = x + y;
        else if (op == "-") r = x - y;
        else if (op == "*") r = x * y;
        else if (op == "/" || op == "%") {
            if (y == 0 || (!u && sx == INT64_MIN && sy == -1)) bad = true;
            else if (u) r = op == "/" ? x / y : x % y;
            else r = static_cast<uint64_t>(op == "/" ? sx / sy : sx % sy);
        } else if (op == "<<") r = y >= 64 ? 0 : x << y;
        else if (op == ">>") r = y >= 64 ? (u || sx >= 0 ? 0 : ~0ull) : u ? x >> y : static_cast<uint64_t>(sx >> y);
        else if (op == "&") r = x & y;
        else if (op == "|") r = x | y;
        else if (op == "^") r = x ^ y;
        else if (op == "&&") r = (x != 0) && (y != 0);
        else if (op == "||") r = (x != 0) || (y != 0);
        else if (op == "==") r = x == y;
        else if (op == "!=") r = x != y;
        else if (op == "<") r = u ? x < y : sx < sy;
        else if (op == ">") r = u ? x > y : sx > sy;
        else if (op == "<=") r = u ? x <= y : sx <= sy;
        else if (op == ">=") r = u ? x >= y : sx >= sy;
        bool comparison = op == "&&" || op == "||" || op == "==" || op == "!=" || op == "<" || op == ">" ||
                          op == "<=" || op == ">=";
        a.value = static_cast<int64_t>(r);
        a.is_unsigned = comparison ? false : u;
        a.bad = bad;
        a.compound = true;
    }

    bool unary(const_value& v) {
        skip();
        if (p_ < end_ && (*p_ == '-' || *p_ == '+' || *p_ == '~' || *p_ == '!')) {
            char op = *p_;
            const char* save = p_++;
            if (!unary(v)) {
                p_ = save;
                return false;
            }
            uint64_t x = static_cast<uint64_t>(v.value);
            if (op == '-') x = 0 - x;
            else if (op == '~') x = ~x;
            else if (op == '!') x = x == 0, v.is_unsigned = false;
            v.value = static_cast<int64_t>(x);
            v.compound = v.compound || op != '-'; // "-5" is still a plain literal
            return true;
        }
        if (p_ < end_ && *p_ == '(') {
            const char* save = p_++;
            if (ternary(v) && eat(")")) {
                v.compound = true;
                return true;
            }
            p_ = save;
            return false;
        }
        return literal(v);
    }

    bool literal(const_value& v) {
        const char* b = p_;
        if (p_ >= end_ || *p_ < '0' || *p_ > '9') return false;
        while (p_ < end_ && is_follow(*p_)) ++p_;
        // 0f/0d bit patterns and decimal points are floats, not integers.
        if (p_ < end_ && *p_ == '.') {
            p_ = b;
            return false;
        }
        bool u = false;
        std::string_view t(b, static_cast<size_t>(p_ - b));
        if (!looks_integer(t)) { // 0f3F800000, 12abc: not an integer literal
            p_ = b;
            return false;
        }
        if (!convert_integer(t, v.value, u)) v.bad = true; // too large
        v.is_unsigned = u;
        return true;
    }

    bool eat(std::string_view s) {
        skip();
        if (static_cast<size_t>(end_ - p_) >= s.size() && std::string_view(p_, s.size()) == s) {
            p_ += s.size();
            return true;
        }
        return false;
    }
    void skip() {
        while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
    }

    const char* p_;
    const char* end_;
};

} // namespace

bool parse_const_expr(const char*& it, const char* end, const_value& out) {
    expr_parser p(it, end);
    out = const_value{};
    if (!p.lone_literal(out) && !p.ternary(out)) return false;
    it = p.pos();
    return true;
}

} // namespace ptxsim::parser::detail
