#include "models/detail/json_positions.hpp"

#include <cstring>

namespace ptxsim::models::detail {

std::string member_path(std::string_view parent, std::string_view key) {
    std::string out(parent);
    if (!out.empty()) out += '.';
    out += key;
    return out;
}

std::string element_path(std::string_view parent, size_t index) {
    return std::string(parent) + '[' + std::to_string(index) + ']';
}

namespace {

// A model file is four levels deep; anything deeper is an error the schema
// reports, so there is nothing to locate inside it.
constexpr size_t max_depth = 8;

void append_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xC0 | (cp >> 6));
        out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += char(0xE0 | (cp >> 12));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    } else {
        out += char(0xF0 | (cp >> 18));
        out += char(0x80 | ((cp >> 12) & 0x3F));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    }
}

class scanner {
public:
    explicit scanner(std::string_view t) : t_(t) {}

    size_t pos() const { return p_; }
    bool done() const { return p_ >= t_.size(); }
    char peek() const { return done() ? '\0' : t_[p_]; }
    void advance() { ++p_; }

    void skip_ws() {
        while (!done()) {
            char c = t_[p_];
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                ++p_;
            } else if (c == '/' && p_ + 1 < t_.size() && t_[p_ + 1] == '/') {
                while (!done() && t_[p_] != '\n') ++p_;
            } else if (c == '/' && p_ + 1 < t_.size() && t_[p_ + 1] == '*') {
                size_t e = t_.find("*/", p_ + 2);
                p_ = e == std::string_view::npos ? t_.size() : e + 2;
            } else {
                return;
            }
        }
    }

    // At an opening quote; returns the unescaped text.
    std::string read_string() {
        std::string out;
        ++p_;
        while (!done() && t_[p_] != '"') {
            if (t_[p_] != '\\') {
                out += t_[p_++];
                continue;
            }
            ++p_;
            if (done()) break;
            char c = t_[p_++];
            switch (c) {
            case 'n': out += '\n'; break;
            case 't': out += '\t'; break;
            case 'r': out += '\r'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'u': {
                uint32_t cp = hex4();
                if (cp >= 0xD800 && cp < 0xDC00 && t_.substr(p_, 2) == "\\u") {
                    p_ += 2;
                    uint32_t lo = hex4();
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                }
                append_utf8(out, cp);
                break;
            }
            default: out += c; break;  // \" \\ \/
            }
        }
        ++p_;
        return out;
    }

    // Numbers and the literals true/false/null.
    void skip_scalar() {
        while (!done() && !std::strchr(",}] \t\r\n/", t_[p_])) ++p_;
    }

    // Skips one nested object or array without indexing it.
    void skip_nested() {
        int depth = 0;
        do {
            skip_ws();
            char c = peek();
            if (c == '"') {
                read_string();
            } else {
                if (c == '{' || c == '[') ++depth;
                if (c == '}' || c == ']') --depth;
                ++p_;
            }
        } while (depth > 0 && !done());
    }

private:
    uint32_t hex4() {
        uint32_t v = 0;
        for (int i = 0; i < 4 && !done(); ++i) {
            char c = t_[p_++];
            v = v * 16 + uint32_t(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
        }
        return v;
    }

    std::string_view t_;
    size_t p_ = 0;
};

struct frame {
    bool object;
    std::string path;
    size_t index = 0;
};

} // namespace

json_positions::json_positions(std::string_view text) {
    scanner s(text);
    std::vector<frame> stack;

    // Records a value starting at the scanner's position and enters it when
    // it is an object or array.
    auto begin_value = [&](std::string path, uint32_t key) {
        s.skip_ws();
        auto at = uint32_t(s.pos());
        map_[path] = {key, at};
        char c = s.peek();
        if (c == '{' || c == '[') {
            if (stack.size() >= max_depth) {
                s.skip_nested();
            } else {
                stack.push_back({c == '{', std::move(path)});
                s.advance();
            }
        } else if (c == '"') {
            s.read_string();
        } else {
            s.skip_scalar();
        }
    };

    s.skip_ws();
    begin_value("", uint32_t(s.pos()));
    while (!stack.empty()) {
        s.skip_ws();
        if (s.done()) break;
        char c = s.peek();
        if (c == ',') {
            s.advance();
            continue;
        }
        if (c == '}' || c == ']') {
            s.advance();
            stack.pop_back();
            continue;
        }
        frame& f = stack.back();
        if (f.object) {
            auto key_at = uint32_t(s.pos());
            std::string path = member_path(f.path, s.read_string());
            s.skip_ws();
            if (s.peek() == ':') s.advance();
            if (auto it = map_.find(path); it != map_.end())
                duplicates_.push_back({path, it->second.key, key_at});
            begin_value(std::move(path), key_at);
        } else {
            std::string path = element_path(f.path, f.index++);
            s.skip_ws();
            begin_value(std::move(path), uint32_t(s.pos()));
        }
    }
}

const json_location* json_positions::find(const std::string& path) const {
    auto it = map_.find(path);
    return it == map_.end() ? nullptr : &it->second;
}

} // namespace ptxsim::models::detail
