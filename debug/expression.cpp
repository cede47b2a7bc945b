#include "debug/expression.hpp"

#include <fmt/format.h>

#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>

namespace ptxsim::debug {

using parser::data_type;

scalar_type scalar_type::of(data_type t) {
    scalar_type s;
    switch (t) {
    case data_type::pred: s = {1, false, false, true}; break;
    case data_type::b8: case data_type::s8: s = {1, true, false, false}; break;
    case data_type::u8: s = {1, false, false, false}; break;
    case data_type::b16: case data_type::s16: s = {2, true, false, false}; break;
    case data_type::u16: s = {2, false, false, false}; break;
    case data_type::f16: case data_type::bf16: s = {2, false, true, false}; break;
    case data_type::b32: case data_type::s32: s = {4, true, false, false}; break;
    case data_type::u32: s = {4, false, false, false}; break;
    case data_type::f32: s = {4, false, true, false}; break;
    case data_type::b64: case data_type::s64: s = {8, true, false, false}; break;
    case data_type::u64: s = {8, false, false, false}; break;
    case data_type::f64: s = {8, false, true, false}; break;
    default: s = {8, false, false, false}; break;
    }
    return s;
}

double value::as_real() const {
    if (k == kind::real) return real;
    return type.is_signed ? static_cast<double>(static_cast<int64_t>(bits)) : static_cast<double>(bits);
}

namespace {

double half_to_double(uint16_t h) {
    const int exp = h >> 10 & 0x1F, man = h & 0x3FF;
    const double sign = h & 0x8000 ? -1 : 1;
    if (exp == 0) return sign * std::ldexp(man, -24);
    if (exp == 31) return man ? NAN : sign * INFINITY;
    return sign * std::ldexp(1024 + man, exp - 25);
}

} // namespace

value value_of_bits(uint64_t bits, const scalar_type& t) {
    value v;
    v.type = t;
    if (t.size < 8) bits &= (uint64_t(1) << (8 * t.size)) - 1;
    if (t.is_float) {
        v.k = value::kind::real;
        if (t.size == 4) v.real = std::bit_cast<float>(static_cast<uint32_t>(bits));
        else if (t.size == 8) v.real = std::bit_cast<double>(bits);
        else v.real = half_to_double(static_cast<uint16_t>(bits));
        v.bits = bits;
        return v;
    }
    if (t.is_pred) bits = bits ? 1 : 0;
    if (t.is_signed && t.size < 8 && (bits >> (8 * t.size - 1) & 1)) bits |= ~uint64_t(0) << (8 * t.size);
    v.bits = bits;
    return v;
}

bool type_named(const std::string& n, scalar_type& t) {
    struct entry {
        const char* name;
        scalar_type t;
    };
    static const entry types[] = {
        {"char", {1, true, false, false}},          {"signed char", {1, true, false, false}},
        {"unsigned char", {1, false, false, false}}, {"int8_t", {1, true, false, false}},
        {"uint8_t", {1, false, false, false}},       {"short", {2, true, false, false}},
        {"unsigned short", {2, false, false, false}}, {"int16_t", {2, true, false, false}},
        {"uint16_t", {2, false, false, false}},      {"int", {4, true, false, false}},
        {"signed", {4, true, false, false}},         {"unsigned", {4, false, false, false}},
        {"unsigned int", {4, false, false, false}},  {"int32_t", {4, true, false, false}},
        {"uint32_t", {4, false, false, false}},      {"long", {8, true, false, false}},
        {"long long", {8, true, false, false}},      {"unsigned long", {8, false, false, false}},
        {"unsigned long long", {8, false, false, false}}, {"int64_t", {8, true, false, false}},
        {"uint64_t", {8, false, false, false}},      {"size_t", {8, false, false, false}},
        {"float", {4, false, true, false}},          {"double", {8, false, true, false}},
        {"half", {2, false, true, false}},           {"__half", {2, false, true, false}},
        {"u8", {1, false, false, false}},  {"s8", {1, true, false, false}},  {"b8", {1, false, false, false}},
        {"u16", {2, false, false, false}}, {"s16", {2, true, false, false}}, {"b16", {2, false, false, false}},
        {"u32", {4, false, false, false}}, {"s32", {4, true, false, false}}, {"b32", {4, false, false, false}},
        {"u64", {8, false, false, false}}, {"s64", {8, true, false, false}}, {"b64", {8, false, false, false}},
        {"f16", {2, false, true, false}},  {"f32", {4, false, true, false}}, {"f64", {8, false, true, false}},
    };
    for (const auto& e : types)
        if (n == e.name) {
            t = e.t;
            return true;
        }
    return false;
}

bool space_named(const std::string& n, isa::space& sp) {
    if (n == "global") sp = isa::space::global;
    else if (n == "shared") sp = isa::space::shared;
    else if (n == "local") sp = isa::space::local;
    else if (n == "const") sp = isa::space::const_;
    else if (n == "param") sp = isa::space::param;
    else if (n == "generic") sp = isa::space::generic;
    else return false;
    return true;
}

const char* space_name(isa::space sp) {
    switch (sp) {
    case isa::space::global: return "global";
    case isa::space::shared: return "shared";
    case isa::space::local: return "local";
    case isa::space::const_: return "const";
    case isa::space::param: return "param";
    case isa::space::generic: return "generic";
    }
    return "?";
}

static std::string type_text(const scalar_type& t) {
    if (t.is_float) return t.size == 4 ? "float" : t.size == 8 ? "double" : "half";
    static const char* s[] = {"char", "short", "?", "int", "?", "?", "?", "long"};
    static const char* u[] = {"unsigned char", "unsigned short", "?", "unsigned int", "?", "?", "?", "unsigned long"};
    return (t.is_signed ? s : u)[(t.size - 1) & 7];
}

std::string type_of(const value& v) {
    if (v.k != value::kind::pointer) return v.type.is_pred ? "pred" : type_text(v.type);
    return fmt::format("{}{} *", v.space == isa::space::generic ? "" : fmt::format("@{} ", space_name(v.space)), type_text(v.pointee));
}

std::string format_value(const value& v, char format) {
    const uint64_t mask = v.type.size >= 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * v.type.size)) - 1;
    if (v.k == value::kind::pointer) {
        std::string sp = v.space == isa::space::generic ? "" : fmt::format("@{} ", space_name(v.space));
        return fmt::format("({}{} *) {:#x}", sp, type_text(v.pointee), v.bits);
    }
    auto real_text = [&](double d) {
        if (std::isnan(d)) return std::string(std::signbit(d) ? "-nan" : "nan");
        if (std::isinf(d)) return std::string(d < 0 ? "-inf" : "inf");
        if (v.type.is_float && v.type.size == 4) return fmt::format("{}", static_cast<float>(d));
        return fmt::format("{}", d);
    };
    switch (format) {
    case 'x': return fmt::format("{:#x}", v.bits & mask);
    case 'd': return fmt::format("{}", v.k == value::kind::real ? static_cast<int64_t>(v.real) : value_of_bits(v.bits, {v.type.size, true, false, false}).as_int());
    case 'u': return fmt::format("{}", v.bits & mask);
    case 't': return fmt::format("{:b}", v.bits & mask);
    case 'f':
        if (v.k == value::kind::real) return real_text(v.real);
        if (v.type.size == 4) return real_text(std::bit_cast<float>(static_cast<uint32_t>(v.bits)));
        if (v.type.size == 8) return real_text(std::bit_cast<double>(v.bits));
        return real_text(v.as_real());
    default: break;
    }
    if (v.k == value::kind::real) return real_text(v.real);
    if (v.type.is_pred) return v.bits ? "1" : "0";
    if (v.type.is_signed) return fmt::format("{}", static_cast<int64_t>(v.bits));
    return fmt::format("{}", v.bits & mask);
}

// ---- parsing

struct expr_node {
    enum class op : uint8_t { number, name, unary, binary, cast, deref, address_of, index } k = op::number;
    value literal;
    std::string text;                     // name, or the operator
    std::shared_ptr<const expr_node> a, b;
    scalar_type type;                     // cast
    bool to_pointer = false;
    isa::space space = isa::space::generic;
};

namespace {

using node_ptr = std::shared_ptr<const expr_node>;

class expr_parser {
public:
    explicit expr_parser(const std::string& s) : s_(s) {}

    node_ptr parse() {
        node_ptr n = binary(0);
        skip();
        if (i_ != s_.size()) fail(fmt::format("unexpected '{}'", s_.substr(i_, 1)));
        return n;
    }

private:
    [[noreturn]] void fail(const std::string& why) const {
        throw expr_error(fmt::format("{} at column {} of '{}'", why, i_ + 1, s_));
    }
    void skip() {
        while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
    }
    bool eat(const char* t) {
        skip();
        size_t n = std::strlen(t);
        if (s_.compare(i_, n, t) != 0) return false;
        // "<" must not take the first character of "<<" or "<=", and so on.
        if (n == 1 && i_ + 1 < s_.size()) {
            char c = t[0], d = s_[i_ + 1];
            if ((c == '<' || c == '>') && (d == c || d == '=')) return false;
            if ((c == '&' || c == '|') && d == c) return false;
            if ((c == '=' || c == '!') && d == '=') return false;
        }
        i_ += n;
        return true;
    }
    static bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '%' || c == '$'; }
    static bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.'; }
    std::string peek_ident(size_t& end) const {
        size_t j = i_;
        while (j < s_.size() && std::isspace(static_cast<unsigned char>(s_[j]))) ++j;
        if (j >= s_.size() || !ident_start(s_[j])) {
            end = j;
            return {};
        }
        size_t k = j + 1;
        while (k < s_.size() && ident_char(s_[k])) ++k;
        end = k;
        return s_.substr(j, k - j);
    }

    // Binary operators by precedence, lowest first.
    node_ptr binary(int level) {
        static const std::vector<std::vector<const char*>> levels = {
            {"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<=", ">=", "<", ">"}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"}};
        if (level == static_cast<int>(levels.size())) return unary();
        node_ptr left = binary(level + 1);
        for (;;) {
            const char* matched = nullptr;
            for (const char* op : levels[size_t(level)])
                if (eat(op)) {
                    matched = op;
                    break;
                }
            if (!matched) return left;
            auto n = std::make_shared<expr_node>();
            n->k = expr_node::op::binary;
            n->text = matched;
            n->a = left;
            n->b = binary(level + 1);
            left = n;
        }
    }

    // A cast's type after '(' : [@space] words ['*'] ')'. False (nothing
    // consumed) when the parenthesis holds an expression.
    bool cast_type(scalar_type& t, bool& pointer, isa::space& sp) {
        const size_t start = i_;
        skip();
        sp = isa::space::generic;
        bool named_space = false;
        if (i_ < s_.size() && s_[i_] == '@') {
            ++i_;
            size_t end;
            std::string w = peek_ident(end);
            if (!space_named(w, sp)) fail(fmt::format("unknown state space '@{}' (global, shared, local, const, param, generic)", w));
            i_ = end;
            named_space = true;
        }
        std::string words;
        for (;;) {
            size_t end;
            std::string w = peek_ident(end);
            if (w.empty()) break;
            std::string next = words.empty() ? w : words + " " + w;
            scalar_type probe;
            bool prefix = next == "unsigned" || next == "signed" || next == "long" || next == "unsigned long" || next == "long long" ||
                          next == "unsigned long long" || next == "unsigned short" || next == "unsigned char" ||
                          next == "unsigned int" || type_named(next, probe);
            if (!prefix) break;
            words = next;
            i_ = end;
        }
        if (words.empty() || !type_named(words, t)) {
            if (named_space) fail("expected a type after the state space");
            i_ = start;
            return false;
        }
        pointer = eat("*");
        if (!eat(")")) {
            if (named_space) fail("expected ')' after the cast's type");
            i_ = start;
            return false;
        }
        return true;
    }

    node_ptr unary() {
        skip();
        for (const char* op : {"-", "!", "~"}) {
            if (s_.compare(i_, 1, op) == 0 && !(op[0] == '!' && s_.compare(i_, 2, "!=") == 0)) {
                ++i_;
                auto n = std::make_shared<expr_node>();
                n->k = expr_node::op::unary;
                n->text = op;
                n->a = unary();
                return n;
            }
        }
        if (eat("*")) {
            auto n = std::make_shared<expr_node>();
            n->k = expr_node::op::deref;
            n->a = unary();
            return n;
        }
        if (eat("&")) { // &variable, &a[i], &*p
            const size_t at = i_;
            auto n = std::make_shared<expr_node>();
            n->k = expr_node::op::address_of;
            n->a = unary();
            if (n->a->k == expr_node::op::name) n->text = n->a->text;
            else if (n->a->k != expr_node::op::index && n->a->k != expr_node::op::deref) {
                i_ = at;
                fail("expected a variable or memory (a[i], *p) after '&'");
            }
            return n;
        }
        if (eat("(")) {
            scalar_type t;
            bool pointer = false;
            isa::space sp;
            if (cast_type(t, pointer, sp)) {
                auto n = std::make_shared<expr_node>();
                n->k = expr_node::op::cast;
                n->type = t;
                n->to_pointer = pointer;
                n->space = sp;
                n->a = unary();
                return n;
            }
            node_ptr inner = binary(0);
            if (!eat(")")) fail("expected ')'");
            return postfix(inner);
        }
        return postfix(primary());
    }

    node_ptr postfix(node_ptr n) {
        while (eat("[")) {
            auto x = std::make_shared<expr_node>();
            x->k = expr_node::op::index;
            x->a = n;
            x->b = binary(0);
            if (!eat("]")) fail("expected ']'");
            n = x;
        }
        return n;
    }

    node_ptr primary() {
        skip();
        if (i_ >= s_.size()) fail("expected a value");
        auto n = std::make_shared<expr_node>();
        const char c = s_[i_];
        if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && i_ + 1 < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_ + 1])))) {
            auto digit = [&](size_t k) { return k < s_.size() && std::isdigit(static_cast<unsigned char>(s_[k])); };
            size_t j = i_;
            const bool hex = s_.compare(i_, 2, "0x") == 0 || s_.compare(i_, 2, "0X") == 0;
            bool real = false;
            if (hex) {
                j += 2;
                while (j < s_.size() && std::isxdigit(static_cast<unsigned char>(s_[j]))) ++j;
            } else {
                while (digit(j)) ++j;
                if (j < s_.size() && s_[j] == '.') {
                    real = true;
                    for (++j; digit(j);) ++j;
                }
                if (j < s_.size() && (s_[j] == 'e' || s_[j] == 'E')) {
                    size_t k = j + 1;
                    if (k < s_.size() && (s_[k] == '+' || s_[k] == '-')) ++k;
                    if (digit(k)) {
                        real = true;
                        for (j = k; digit(j);) ++j;
                    }
                }
            }
            std::string t = s_.substr(i_, j - i_);
            try {
                if (real) {
                    n->literal.k = value::kind::real;
                    n->literal.real = std::stod(t);
                    n->literal.type = {8, false, true, false};
                } else {
                    n->literal.bits = std::stoull(t, nullptr, hex ? 16 : 10);
                    n->literal.type = {8, true, false, false};
                }
            } catch (const std::exception&) {
                fail(fmt::format("bad number '{}'", t));
            }
            i_ = j;
            if (i_ < s_.size() && (s_[i_] == 'u' || s_[i_] == 'U' || s_[i_] == 'f')) ++i_;
            return n;
        }
        size_t end;
        std::string w = peek_ident(end);
        if (w.empty()) fail(fmt::format("unexpected '{}'", s_.substr(i_, 1)));
        i_ = end;
        n->k = expr_node::op::name;
        n->text = w;
        return n;
    }

    const std::string& s_;
    size_t i_ = 0;
};

bool is_special(const std::string& n) {
    static const char* names[] = {"%tid.x", "%tid.y", "%tid.z", "%ntid.x", "%ntid.y", "%ntid.z", "%ctaid.x", "%ctaid.y", "%ctaid.z",
                                  "%nctaid.x", "%nctaid.y", "%nctaid.z", "%laneid", "%warpid", "%nwarpid", "threadIdx.x",
                                  "threadIdx.y", "threadIdx.z", "blockIdx.x", "blockIdx.y", "blockIdx.z", "blockDim.x",
                                  "blockDim.y", "blockDim.z", "gridDim.x", "gridDim.y", "gridDim.z", "warpSize",
                                  "%lanemask_eq", "%lanemask_lt", "%lanemask_le", "%lanemask_gt", "%lanemask_ge", "%smid", "%nsmid",
                                  "%cluster_ctarank", "%cluster_nctarank"};
    for (const char* s : names)
        if (n == s) return true;
    return false;
}

value convert(const value& v, const scalar_type& t) {
    if (t.is_float) {
        value r;
        r.k = value::kind::real;
        r.type = t;
        r.real = t.size == 4 ? static_cast<double>(static_cast<float>(v.as_real())) : v.as_real();
        return r;
    }
    uint64_t bits = v.k == value::kind::real ? static_cast<uint64_t>(static_cast<int64_t>(v.real)) : v.bits;
    return value_of_bits(bits, t);
}

value integer(int64_t x, bool is_signed = true) {
    value v;
    v.bits = static_cast<uint64_t>(x);
    v.type = {8, is_signed, false, false};
    return v;
}

value eval(const expr_node& n, const eval_context& c);

value read_through(const value& p, const eval_context& c) {
    if (p.k != value::kind::pointer) throw expr_error("only a pointer can be read through: cast the address, as in *(int*)ADDR");
    return value_of_bits(c.read(p.space, p.bits, p.pointee.size), p.pointee);
}

// A pointer as an address of one element (an array's length dropped).
value element_address(value p) {
    if (p.k != value::kind::pointer) throw expr_error("only a pointer can be read through: cast the address, as in *(int*)ADDR");
    p.elements = 0;
    return p;
}

value eval_binary(const std::string& op, const value& a, const value& b) {
    if (op == "&&") return integer(a.truthy() && b.truthy());
    if (op == "||") return integer(a.truthy() || b.truthy());
    if ((op == "+" || op == "-") && a.k == value::kind::pointer && b.k != value::kind::pointer) {
        value r = element_address(a);
        int64_t d = b.as_int() * static_cast<int64_t>(a.pointee.size);
        r.bits = op == "+" ? a.bits + static_cast<uint64_t>(d) : a.bits - static_cast<uint64_t>(d);
        return r;
    }
    const bool real = a.k == value::kind::real || b.k == value::kind::real;
    if (real) {
        double x = a.as_real(), y = b.as_real();
        value r;
        r.k = value::kind::real;
        r.type = {8, false, true, false};
        if (op == "+") r.real = x + y;
        else if (op == "-") r.real = x - y;
        else if (op == "*") r.real = x * y;
        else if (op == "/") r.real = x / y;
        else if (op == "==") return integer(x == y);
        else if (op == "!=") return integer(x != y);
        else if (op == "<") return integer(x < y);
        else if (op == "<=") return integer(x <= y);
        else if (op == ">") return integer(x > y);
        else if (op == ">=") return integer(x >= y);
        else throw expr_error(fmt::format("'{}' needs integers", op));
        return r;
    }
    const bool sig = a.type.is_signed || b.type.is_signed;
    const uint64_t x = a.bits, y = b.bits;
    const int64_t sx = static_cast<int64_t>(x), sy = static_cast<int64_t>(y);
    if (op == "+") return integer(static_cast<int64_t>(x + y), sig);
    if (op == "-") return integer(static_cast<int64_t>(x - y), sig);
    if (op == "*") return integer(static_cast<int64_t>(x * y), sig);
    if (op == "/" || op == "%") {
        if (y == 0) throw expr_error("division by zero");
        if (sig) return integer(op == "/" ? sx / sy : sx % sy);
        return integer(static_cast<int64_t>(op == "/" ? x / y : x % y), false);
    }
    if (op == "&") return integer(static_cast<int64_t>(x & y), sig);
    if (op == "|") return integer(static_cast<int64_t>(x | y), sig);
    if (op == "^") return integer(static_cast<int64_t>(x ^ y), sig);
    if (op == "<<") return integer(static_cast<int64_t>(y >= 64 ? 0 : x << y), sig);
    if (op == ">>") return integer(sig ? (y >= 64 ? (sx < 0 ? -1 : 0) : sx >> y) : static_cast<int64_t>(y >= 64 ? 0 : x >> y), sig);
    if (op == "==") return integer(x == y);
    if (op == "!=") return integer(x != y);
    if (op == "<") return integer(sig ? sx < sy : x < y);
    if (op == "<=") return integer(sig ? sx <= sy : x <= y);
    if (op == ">") return integer(sig ? sx > sy : x > y);
    if (op == ">=") return integer(sig ? sx >= sy : x >= y);
    throw expr_error(fmt::format("unknown operator '{}'", op));
}

value eval(const expr_node& n, const eval_context& c) {
    switch (n.k) {
    case expr_node::op::number: return n.literal;
    case expr_node::op::name: {
        std::string name = n.text;
        if (name[0] == '$') name[0] = '%';
        if (is_special(name)) return c.special(name);
        if (name[0] == '%') return c.reg(name);
        return c.variable(name, false);
    }
    case expr_node::op::address_of: {
        if (n.a->k == expr_node::op::deref) return element_address(eval(*n.a->a, c));
        if (n.a->k == expr_node::op::index) return eval_binary("+", eval(*n.a->a, c), eval(*n.a->b, c));
        if (n.text[0] == '%' || n.text[0] == '$' || is_special(n.text)) throw expr_error(fmt::format("{} is a register: it has no address", n.text));
        return c.variable(n.text, true);
    }
    case expr_node::op::unary: {
        value v = eval(*n.a, c);
        if (n.text == "!") return integer(!v.truthy());
        if (n.text == "~") {
            if (v.k == value::kind::real) throw expr_error("'~' needs an integer");
            v.bits = ~v.bits;
            return value_of_bits(v.bits, v.type);
        }
        if (v.k == value::kind::real) v.real = -v.real;
        else v = integer(-static_cast<int64_t>(v.bits), true);
        return v;
    }
    case expr_node::op::binary: return eval_binary(n.text, eval(*n.a, c), eval(*n.b, c));
    case expr_node::op::cast: {
        value v = eval(*n.a, c);
        if (!n.to_pointer) return convert(v, n.type);
        if (v.k == value::kind::real) throw expr_error("a floating-point value is not an address");
        value p;
        p.k = value::kind::pointer;
        p.bits = v.bits;
        p.type = {8, false, false, false};
        p.pointee = n.type;
        p.space = n.space == isa::space::generic && v.k == value::kind::pointer ? v.space : n.space;
        return p;
    }
    case expr_node::op::deref: return read_through(eval(*n.a, c), c);
    case expr_node::op::index: {
        value p = eval(*n.a, c);
        if (p.k != value::kind::pointer) throw expr_error("only a pointer can be indexed: cast it, as in ((int*)ADDR)[i]");
        return read_through(eval_binary("+", p, eval(*n.b, c)), c);
    }
    }
    return {};
}

} // namespace

value idle_context::reg(const std::string& n) const { throw expr_error(fmt::format("The kernel is not running: no register {}.", n)); }
value idle_context::special(const std::string& n) const { throw expr_error(fmt::format("The kernel is not running: no {}.", n)); }
value idle_context::variable(const std::string& n, bool) const {
    throw expr_error(fmt::format("No symbol \"{}\": the kernel is not running.", n));
}
uint64_t idle_context::read(isa::space, uint64_t addr, uint32_t) const {
    throw expr_error(fmt::format("The kernel is not running: cannot read memory at {:#x}.", addr));
}

expression expression::parse(const std::string& text) {
    expression e;
    e.text_ = text;
    if (text.find_first_not_of(" \t") == std::string::npos) throw expr_error("an expression is needed");
    e.root_ = expr_parser(text).parse();
    return e;
}

value expression::evaluate(const eval_context& c) const { return eval(*root_, c); }

bool expression::memory_operand(const eval_context& c, isa::space& sp, uint64_t& addr, uint32_t& size, scalar_type& t) const {
    value p;
    if (root_->k == expr_node::op::deref) p = eval(*root_->a, c);
    else if (root_->k == expr_node::op::index) p = eval_binary("+", eval(*root_->a, c), eval(*root_->b, c));
    else if (root_->k == expr_node::op::name && root_->text[0] != '%' && root_->text[0] != '$' && !is_special(root_->text))
        p = c.variable(root_->text, true);
    else return false;
    if (p.k != value::kind::pointer) return false;
    sp = p.space;
    addr = p.bits;
    size = p.pointee.size;
    t = p.pointee;
    return true;
}

} // namespace ptxsim::debug
