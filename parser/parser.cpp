// The statement driver. X3 rules (detail/grammar_*.cpp) parse one statement
// at a time; this loop decides which rule applies from the next token,
// keeps track of blocks, and recovers after an error at the next ';' or '}'.
// Recovery is why the top level is a loop and not a single X3 rule.
#include "parser/parser.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "parser/detail/build.hpp"
#include "parser/detail/grammar.hpp"

namespace ptxsim::parser {
namespace {

using namespace detail;

bool is_follow(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}
bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c == '%'; }

class driver {
public:
    driver(module& m, diagnostics& d)
        : m_(m), d_(d), b_(m, d), begin_(m.source->text().data()), it_(begin_),
          end_(begin_ + m.source->text().size()) {}

    void run() {
        std::vector<toplevel> items;
        while (true) {
            skip_ws();
            if (it_ == end_) break;
            toplevel_item(items);
        }
        m_.items = m_.nodes.copy(items);
    }

private:
    // ---------------------------------------------------------------- lexing helpers
    void skip_ws() {
        it_ = skip_ws_from(it_);
        if (it_ == end_ && !comment_checked_) { // report a /* that never closes, once
            comment_checked_ = true;
            if (const char* open = unterminated_comment())
                error(open, "'/*' comment is not closed before the end of the file");
        }
    }
    // The start of a block comment that runs to the end of the file, if any.
    const char* unterminated_comment() const {
        const char* p = begin_;
        while (p < end_) {
            if (*p == '"') { // strings may contain "/*"
                ++p;
                while (p < end_ && *p != '"' && *p != '\n') ++p;
                if (p == end_) return nullptr;
            } else if (*p == '/' && p + 1 < end_ && p[1] == '/') {
                while (p < end_ && *p != '\n') ++p;
            } else if (*p == '/' && p + 1 < end_ && p[1] == '*') {
                const char* open = p;
                p += 2;
                while (p + 1 < end_ && !(p[0] == '*' && p[1] == '/')) ++p;
                if (p + 1 >= end_) return open;
                p += 2;
                continue;
            }
            ++p;
        }
        return nullptr;
    }

    const char* skip_ws_from(const char* p) const {
        while (p < end_) {
            char c = *p;
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
                ++p;
            } else if (c == '/' && p + 1 < end_ && p[1] == '/') {
                while (p < end_ && *p != '\n') ++p;
            } else if (c == '/' && p + 1 < end_ && p[1] == '*') {
                const char* close = p + 2;
                while (close + 1 < end_ && !(close[0] == '*' && close[1] == '/')) ++close;
                if (close + 1 >= end_) return end_; // unterminated comment: reported by the caller at EOF
                p = close + 2;
            } else {
                break;
            }
        }
        return p;
    }
    // The word after a '.' at p (p points at '.'): ".reg" -> "reg"
    std::string_view dot_word(const char* p) const {
        const char* q = p + 1;
        while (q < end_ && (is_follow(*q) || *q == ':')) ++q;
        return std::string_view(p + 1, static_cast<size_t>(q - p - 1));
    }
    std::string_view ident_at(const char* p) const {
        const char* q = p;
        if (q < end_ && is_ident_start(*q)) ++q;
        while (q < end_ && is_follow(*q)) ++q;
        return std::string_view(p, static_cast<size_t>(q - p));
    }

    void error(const char* p, std::string msg) { d_.error(*m_.source, b_.pos(p), std::move(msg)); }

    void report(const parse_failure& f, std::string_view context) {
        const char* where = f.where ? f.where : it_;
        const char* next = skip_ws_from(where);
        std::string found = next >= end_ ? "end of file" : describe_token(next);
        // A missing ';' is shown where it belongs, right after the last token.
        const char* at = next;
        if (f.expected == "';'") {
            at = where;
            while (at > begin_ && (at[-1] == ' ' || at[-1] == '\t' || at[-1] == '\n' || at[-1] == '\r')) --at;
        }
        error(at, fmt::format("expected {} in {}, found {}", f.expected, context, found));
    }
    std::string describe_token(const char* p) const {
        std::string_view w = ident_at(p);
        if (*p == '.') return fmt::format("'.{}'", dot_word(p));
        if (!w.empty()) return fmt::format("'{}'", w);
        if (*p >= '0' && *p <= '9') {
            const char* q = p;
            while (q < end_ && (is_follow(*q) || *q == '.')) ++q;
            return fmt::format("'{}'", std::string_view(p, static_cast<size_t>(q - p)));
        }
        unsigned char c = static_cast<unsigned char>(*p);
        if (c < 32 || c >= 127) return fmt::format("byte 0x{:02x}", c);
        return fmt::format("'{}'", *p);
    }

    // From the start of a failed statement: skips past its ';', or up to (not
    // past) a '}' that closes the enclosing block, or to end of file. Braces
    // opened inside the statement ({%r1, %r2}) are skipped with it.
    void recover() {
        const char* start = it_;
        int depth = 0;
        while (it_ < end_) {
            char c = *it_;
            if (c == ';') {
                ++it_;
                return;
            }
            if (c == '{') ++depth;
            if (c == '}' && depth-- == 0) break;
            if (c == '"') { // a string may hold ';' or '}'
                ++it_;
                while (it_ < end_ && *it_ != '"' && *it_ != '\n') ++it_;
                if (it_ == end_) break; // unterminated at the end of the file
            }
            ++it_;
        }
        if (it_ == start && it_ < end_ && *it_ == '}' && depth_ == 0) ++it_; // never stall at top level
    }

    // Grammar rules recurse on nested initialiser braces and parentheses;
    // a statement nested deeper than any real PTX is rejected before it
    // reaches them, so no input can exhaust the stack.
    static constexpr int max_nesting = 64;
    static constexpr int max_block_depth = 256;
    enum class scan_until { semicolon, body, line };
    bool nesting_ok(scan_until until) {
        int depth = 0;
        const char* too_deep = nullptr;
        const char* p = it_;
        for (; p < end_; ++p) {
            char c = *p;
            if (c == ';' && depth <= 0) break;
            if (c == '{' && until == scan_until::body && depth <= 0) break;
            if (c == '\n' && until == scan_until::line) break;
            if (c == '{' || c == '(') {
                if (++depth > max_nesting && !too_deep) too_deep = p;
            } else if (c == '}' || c == ')') {
                --depth;
            }
        }
        if (!too_deep) return true;
        error(too_deep, fmt::format("nested more than {} levels deep", max_nesting));
        it_ = p < end_ && *p == ';' ? p + 1 : p; // skip the whole statement
        return false;
    }

    // Skips a balanced { ... } starting at '{'.
    void skip_braces() {
        int depth = 0;
        while (it_ < end_) {
            char c = *it_++;
            if (c == '{') ++depth;
            else if (c == '}' && --depth == 0) return;
        }
    }

    // ---------------------------------------------------------------- module level
    void toplevel_item(std::vector<toplevel>& items) {
        const char* start = it_;
        char c = *it_;
        if (c == '}') {
            error(it_, "'}' without a matching '{'");
            ++it_;
            return;
        }
        if (c != '.') {
            error(it_, fmt::format("expected a directive (.version, .target, .entry, .func, a variable ...), found {}",
                                   describe_token(it_)));
            if (c == '{') skip_braces();
            else recover();
            return;
        }
        std::string_view w = dot_word(it_);
        parse_failure f;
        if (w == "version") {
            uint64_t major = 0, minor = 0;
            if (!parse_version(it_, end_, major, minor, f)) {
                m_.has_version = true; // present but unreadable: version 0.0 means "unknown" to the validator
                return fail_line(f, ".version directive");
            }
            if (m_.has_version) error(start, "duplicate .version directive");
            m_.has_version = true;
            m_.version = {static_cast<uint32_t>(major), static_cast<uint32_t>(minor)};
            m_.version_pos = b_.pos(start);
        } else if (w == "target") {
            std::vector<std::string_view> names;
            if (!parse_target(it_, end_, names, f)) return fail_line(f, ".target directive");
            if (!m_.target.empty()) { // ptxas takes a repeated .target; the first one counts
                d_.report(severity::warning, *m_.source, b_.pos(start), "a second .target directive is ignored");
                return;
            }
            m_.target = b_.intern_all(names);
            m_.target_pos = b_.pos(start);
        } else if (w == "address_size") {
            uint64_t bits = 0;
            if (!parse_address_size(it_, end_, bits, f)) return fail_line(f, ".address_size directive");
            if (bits != 32 && bits != 64) error(start, fmt::format(".address_size must be 32 or 64, not {}", bits));
            m_.address_size = static_cast<uint32_t>(bits);
            m_.address_size_pos = b_.pos(start);
        } else if (w == "file") {
            raw_file rf;
            if (!parse_file(it_, end_, rf, f)) return fail_line(f, ".file directive");
            items.push_back({b_.make_file(rf)});
        } else if (w == "loc") {
            raw_loc rl;
            if (!parse_loc(it_, end_, rl, f)) return fail_line(f, ".loc directive");
            items.push_back({b_.make_loc(rl)});
        } else if (w == "pragma") {
            std::vector<std::string_view> strings;
            if (!parse_pragma(it_, end_, strings, f)) return fail(f, ".pragma directive");
            items.push_back({b_.make_pragma(start, strings)});
        } else if (w == "alias") {
            std::vector<std::string_view> names;
            if (!parse_name_list(it_, end_, ".alias", names, f)) return fail(f, ".alias directive");
            if (names.size() != 2) error(start, ".alias takes two names: .alias alias, aliasee;");
            alias_directive a;
            a.pos = b_.pos(start);
            a.alias = b_.intern(names[0]);
            a.target = names.size() > 1 ? b_.intern(names[1]) : no_symbol;
            items.push_back({a});
        } else if (w == "section") {
            section(items);
        } else if (starts_function()) {
            function_def(items);
        } else if (!is_decl_word(w)) {
            error(it_, fmt::format("unknown directive '.{}'", w));
            recover();
        } else {
            if (!nesting_ok(scan_until::semicolon)) return;
            if (!parse_declaration(it_, end_, raw_decl_, f)) return fail(f, "declaration");
            decls_.clear();
            b_.make_decls(raw_decl_, decls_);
            for (const auto& d : decls_) items.push_back({m_.nodes.make(d)});
        }
    }

    void fail(const parse_failure& f, std::string_view context) {
        report(f, context);
        recover();
    }
    // Directives without a terminating ';' (.version, .target, .loc, .file)
    // recover at the end of their line.
    void fail_line(const parse_failure& f, std::string_view context) {
        report(f, context);
        while (it_ < end_ && *it_ != '\n') ++it_;
    }

    // Looks over the leading dotted words for .entry or .func.
    bool starts_function() const {
        const char* p = it_;
        while (true) {
            p = skip_ws_from(p);
            if (p >= end_ || *p != '.') return false;
            std::string_view w = dot_word(p);
            if (w == "entry" || w == "func") return true;
            if (w.empty()) return false;
            p += 1 + w.size();
            if (w == "attribute") { // skip the parenthesised text
                p = skip_ws_from(p);
                int depth = 0;
                while (p < end_) {
                    char c = *p++;
                    if (c == '(') ++depth;
                    else if (c == ')' && --depth <= 0) break;
                }
            }
        }
    }

    void function_def(std::vector<toplevel>& items) {
        parse_failure f;
        raw_function_head head;
        bool nested_ok = nesting_ok(scan_until::body);
        if (!nested_ok || !parse_function_head(it_, end_, head, f)) {
            if (nested_ok) report(f, "function declaration");
            // Skip the rest of the declaration, including a body.
            while (it_ < end_ && *it_ != ';' && *it_ != '{') ++it_;
            if (it_ < end_ && *it_ == '{') skip_braces();
            else if (it_ < end_) ++it_;
            return;
        }
        function fn = b_.make_function_head(head);
        skip_ws();
        if (it_ < end_ && *it_ == ';') {
            ++it_;
        } else if (it_ < end_ && *it_ == '{') {
            const char* open = it_++;
            fn.has_body = true;
            fn.body = block(open);
        } else {
            error(it_ < end_ ? it_ : end_ - 1,
                  fmt::format("expected '{{' or ';' after the declaration of '{}', found {}", head.name,
                              it_ < end_ ? describe_token(it_) : "end of file"));
            recover();
        }
        items.push_back({m_.nodes.make(fn)});
    }

    void section(std::vector<toplevel>& items) {
        const char* start = it_;
        parse_failure f;
        std::string_view name;
        if (!parse_section_open(it_, end_, name, f)) return fail(f, ".section directive");
        section_directive s;
        s.pos = b_.pos(start);
        s.name = b_.intern(name);
        std::vector<section_entry> entries;
        raw_section_entry raw;
        while (true) {
            skip_ws();
            if (it_ >= end_) {
                error(start, fmt::format("section '.{}' is not closed with '}}'", name));
                break;
            }
            if (*it_ == '}') {
                ++it_;
                break;
            }
            if (!nesting_ok(scan_until::line)) continue;
            if (!parse_section_entry(it_, end_, raw, f)) {
                report(f, "section");
                recover();
                continue;
            }
            entries.push_back(b_.make_section_entry(raw));
        }
        s.entries = m_.nodes.copy(entries);
        items.push_back({m_.nodes.make(s)});
    }

    // ---------------------------------------------------------------- function bodies
    // From `p` up to ';' on one statement: only type, vector and alignment
    // words and numbers, no name (".b32 ;", ".v2 .u64;", ".align 4 .b8 ;").
    bool names_nothing(const char* p) const {
        bool typed = false, after_align = false;
        while (p < end_ && *p != ';') {
            if (*p == ' ' || *p == '\t') { ++p; continue; }
            if (*p >= '0' && *p <= '9' && after_align) {
                while (p < end_ && *p >= '0' && *p <= '9') ++p;
                after_align = false;
                continue;
            }
            if (*p != '.' || after_align) return false;
            std::string_view w = dot_word(p);
            bool type = (w.size() >= 2 && (w[0] == 'b' || w[0] == 'u' || w[0] == 's' || w[0] == 'f') &&
                         w.find_first_not_of("0123456789", 1) == std::string_view::npos) ||
                        w == "pred" || w == "f16x2" || w == "e4m3" || w == "e5m2"; // (ptxas refuses .bf16 ;)
            if (!type && w != "v2" && w != "v4" && w != "v8" && w != "align") return false;
            typed = typed || type;
            after_align = w == "align";
            p += 1 + w.size();
        }
        return typed && p < end_;
    }

    static bool is_decl_word(std::string_view w) {
        std::string_view base = w.substr(0, w.find("::"));
        return base == "reg" || base == "sreg" || base == "local" || base == "shared" || base == "param" ||
               base == "const" || base == "global" || base == "tex" || base == "extern" || base == "visible" ||
               base == "weak" || base == "common";
    }

    // Parses statements after '{' up to the matching '}'.
    list<statement> block(const char* open) {
        ++depth_;
        std::vector<statement> stmts;
        while (true) {
            skip_ws();
            if (it_ >= end_) {
                error(open, "'{' is not closed: end of file inside this block");
                break;
            }
            char c = *it_;
            if (c == '}') {
                ++it_;
                break;
            }
            statement_at(stmts);
        }
        --depth_;
        return m_.nodes.copy(stmts);
    }

    void statement_at(std::vector<statement>& stmts) {
        const char* start = it_;
        char c = *it_;
        parse_failure f;
        if (c == '{') {
            if (depth_ >= max_block_depth) {
                error(it_, fmt::format("blocks nested more than {} levels deep", max_block_depth));
                skip_braces();
                return;
            }
            ++it_;
            block_stmt blk;
            blk.pos = b_.pos(start);
            blk.body = block(start);
            stmts.push_back({m_.nodes.make(blk)});
            return;
        }
        if (c == '.') {
            std::string_view w = dot_word(it_);
            if (w == "loc") {
                raw_loc rl;
                if (!parse_loc(it_, end_, rl, f)) return fail_line(f, ".loc directive");
                stmts.push_back({b_.make_loc(rl)});
            } else if (w == "pragma") {
                std::vector<std::string_view> strings;
                if (!parse_pragma(it_, end_, strings, f)) return fail(f, ".pragma directive");
                stmts.push_back({b_.make_pragma(start, strings)});
            } else if (is_decl_word(w)) {
                if (!nesting_ok(scan_until::semicolon)) return;
                if (!parse_declaration(it_, end_, raw_decl_, f)) return fail(f, "declaration");
                decls_.clear();
                b_.make_decls(raw_decl_, decls_);
                for (const auto& d : decls_) stmts.push_back({decl_stmt{m_.nodes.make(d)}});
            } else if (names_nothing(it_)) {
                // ".b32 ;" (a type, vector or alignment and no name): ptxas takes it and declares nothing
                d_.report(severity::warning, *m_.source, b_.pos(it_),
                          fmt::format("'.{} ...;' names no state space and no variable: it declares nothing (ptxas "
                                      "ignores it)", w));
                while (it_ < end_ && *it_ != ';') ++it_;
                if (it_ < end_) ++it_;
            } else {
                error(it_, fmt::format("unknown directive '.{}' in a function body", w));
                recover();
            }
            return;
        }
        if (c == '@') return instruction_at(stmts);
        if (is_ident_start(c)) {
            std::string_view name = ident_at(it_);
            const char* after = skip_ws_from(it_ + name.size());
            if (after < end_ && *after == ':' && !(after + 1 < end_ && after[1] == ':')) {
                it_ = after + 1;
                label_at(stmts, start, name);
                return;
            }
            return instruction_at(stmts);
        }
        error(it_, fmt::format("expected an instruction, label or directive, found {}", describe_token(it_)));
        recover();
    }

    void label_at(std::vector<statement>& stmts, const char* start, std::string_view name) {
        symbol label = b_.intern(name);
        skip_ws();
        parse_failure f;
        if (it_ < end_ && *it_ == '.') {
            std::string_view w = dot_word(it_);
            if (w == "callprototype") {
                raw_prototype rp;
                if (!nesting_ok(scan_until::semicolon)) return;
                if (!parse_prototype(it_, end_, rp, f)) return fail(f, ".callprototype");
                stmts.push_back({m_.nodes.make(b_.make_prototype(rp, label, b_.pos(start)))});
                return;
            }
            if (w == "branchtargets" || w == "calltargets") {
                std::vector<std::string_view> names;
                std::string directive = "." + std::string(w);
                if (!parse_name_list(it_, end_, directive, names, f)) return fail(f, directive);
                targets_decl t;
                t.pos = b_.pos(start);
                t.label = label;
                t.calls = w == "calltargets";
                t.targets = b_.intern_all(names);
                stmts.push_back({m_.nodes.make(t)});
                return;
            }
        }
        stmts.push_back({label_stmt{b_.pos(start), label}});
    }

    void instruction_at(std::vector<statement>& stmts) {
        parse_failure f;
        if (!parse_instruction(it_, end_, raw_ins_, f)) return fail(f, "instruction");
        stmts.push_back({b_.make_instruction(raw_ins_)});
    }

    module& m_;
    diagnostics& d_;
    builder b_;
    const char* begin_;
    const char* it_;
    const char* end_;
    int depth_ = 0;
    bool comment_checked_ = false;
    raw_instruction raw_ins_;
    raw_decl raw_decl_;
    std::vector<var_decl> decls_;
};

} // namespace

module parse(std::string name, std::string text, diagnostics& diags) {
    module m;
    if (text.size() >= 0xFFFFFFF0u) {
        m.source = std::make_unique<source_file>(std::move(name), std::string());
        diags.report_unlocated(severity::error, m.source->name(), "file is larger than 4 GiB; ptxsim reads PTX modules up to 4 GiB");
        return m;
    }
    m.source = std::make_unique<source_file>(std::move(name), std::move(text));
    driver(m, diags).run();
    m.origins = code_origins::scan(m.source->text());
    return m;
}

module parse_file(const std::string& path, diagnostics& diags) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        diags.report_unlocated(severity::error, path, "cannot open file");
        module m;
        m.source = std::make_unique<source_file>(path, std::string());
        return m;
    }
    // One read into a string of the file's size: streaming through an
    // ostringstream grew and copied the buffer, a tenth of `lint`'s time on
    // a 10 MB file. Pipes and other unsized inputs fall back to streaming.
    std::string text;
    in.seekg(0, std::ios::end);
    std::streamoff size = in.tellg();
    if (size > 0) {
        text.resize(static_cast<size_t>(size));
        in.seekg(0);
        in.read(text.data(), size);
        text.resize(static_cast<size_t>(in.gcount()));
    } else { // a pipe (tellg fails, nothing read yet) or a file that reports size 0
        in.clear();
        if (size == 0) in.seekg(0);
        std::ostringstream ss;
        ss << in.rdbuf();
        text = std::move(ss).str();
    }
    return parse(path, std::move(text), diags);
}

} // namespace ptxsim::parser
