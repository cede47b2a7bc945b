#include "models/model.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

#include "models/detail/json_positions.hpp"
#include "models/detail/schema.hpp"
#include "parser/source.hpp"

namespace ptxsim::models {

using json = nlohmann::ordered_json;
using detail::field;
using detail::field_kind;

const figure_source* gpu_model::source_of(std::string_view path) const {
    for (const auto& s : sources)
        if (s.path == path) return &s;
    return nullptr;
}

namespace {

std::string describe(const json& v) {
    switch (v.type()) {
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::null: return "null";
    case json::value_t::number_float: return v.dump();
    default: return "an integer";
    }
}

std::string number_text(double v) { return fmt::format("{}", v); }

// The next path component below `prefix` for every field under it, in table
// order, with the field itself when the component is a leaf.
struct child {
    std::string_view name;
    const field* leaf;  // null for a section
};

std::vector<child> children_of(std::string_view prefix) {
    std::vector<child> out;
    for (const field& f : detail::model_fields()) {
        std::string_view p = f.path;
        if (!prefix.empty()) {
            if (p.size() <= prefix.size() || !p.starts_with(prefix) || p[prefix.size()] != '.') continue;
            p.remove_prefix(prefix.size() + 1);
        }
        size_t dot = p.find('.');
        std::string_view name = p.substr(0, dot);
        if (std::none_of(out.begin(), out.end(), [&](const child& c) { return c.name == name; }))
            out.push_back({name, dot == std::string_view::npos ? &f : nullptr});
    }
    return out;
}

class loader {
public:
    loader(const parser::source_file& src, const detail::json_positions& pos, parser::diagnostics& d)
        : src_(src), pos_(pos), d_(d) {}

    std::optional<gpu_model> run(const json& root) {
        for (const auto& dup : pos_.duplicates())
            error(dup.second, fmt::format("{}: duplicate key (first given at line {})", dup.path,
                                          src_.locate(dup.first).line));
        walk(root, "");
        if (!failed_) check_consistency();
        if (failed_) return std::nullopt;
        return std::move(m_);
    }

private:
    void error(uint32_t offset, std::string message) {
        d_.error(src_, offset, std::move(message));
        failed_ = true;
    }
    uint32_t key_at(const std::string& path) const {
        auto* l = pos_.find(path);
        return l ? l->key : 0;
    }
    uint32_t value_at(const std::string& path) const {
        auto* l = pos_.find(path);
        return l ? l->value : 0;
    }

    void walk(const json& obj, const std::string& path) {
        if (!obj.is_object()) {
            error(value_at(path), fmt::format("{}: expected an object, found {}",
                                              path.empty() ? "model file" : path, describe(obj)));
            return;
        }
        auto known = children_of(path);
        for (const auto& [key, value] : obj.items()) {
            std::string p = detail::member_path(path, key);
            auto it = std::find_if(known.begin(), known.end(), [&](const child& c) { return c.name == key; });
            if (it == known.end()) {
                std::vector<std::string_view> names;
                for (const auto& c : known) names.push_back(c.name);
                unknown_key(p, key, names);
            } else if (it->leaf) {
                leaf(*it->leaf, value, p);
            } else {
                walk(value, p);
            }
        }
        for (const auto& c : known)
            if (!obj.contains(std::string(c.name)))
                error(value_at(path), fmt::format("{}: missing required key", detail::member_path(path, c.name)));
    }

    void unknown_key(const std::string& path, const std::string& key, std::span<const std::string_view> names) {
        std::string msg = path + ": unknown key";
        if (auto s = detail::closest_name(key, names); !s.empty()) msg += fmt::format("; did you mean {}?", s);
        error(key_at(path), std::move(msg));
    }

    void leaf(const field& f, const json& v, const std::string& path) {
        if (f.kind == field_kind::plain) {
            store(f, v, path, path);
            return;
        }
        if (!v.is_object()) {
            error(value_at(path), fmt::format("{}: a figure needs its source: expected "
                                              "{{\"value\": ..., \"source\": \"...\"}}, found {}",
                                              path, describe(v)));
            return;
        }
        figure_source fs{path, {}, {}, false};
        for (const auto& [key, member] : v.items()) {
            std::string p = detail::member_path(path, key);
            if (key == "value") {
                store(f, member, p, path);
            } else if (key == "source") {
                if (!member.is_string())
                    error(value_at(p), fmt::format("{}: expected a string, found {}", p, describe(member)));
                else if (member.get<std::string>().empty())
                    error(value_at(p), p + ": must not be empty");
                else
                    fs.source = member.get<std::string>();
            } else if (key == "note") {
                if (!member.is_string())
                    error(value_at(p), fmt::format("{}: expected a string, found {}", p, describe(member)));
                else
                    fs.note = member.get<std::string>();
            } else if (key == "unconfirmed") {
                if (!member.is_boolean())
                    error(value_at(p), fmt::format("{}: expected a boolean, found {}", p, describe(member)));
                else
                    fs.unconfirmed = member.get<bool>();
            } else {
                unknown_key(p, key, detail::figure_keys);
            }
        }
        for (std::string_view k : {"value", "source"})
            if (!v.contains(std::string(k)))
                error(value_at(path), fmt::format("{}.{}: missing required key", path, k));
        m_.sources.push_back(std::move(fs));
    }

    // Converts, range-checks and stores one value. `name` is the figure's
    // path for messages ("sm.warp_size", not "sm.warp_size.value").
    void store(const field& f, const json& v, const std::string& path, const std::string& name) {
        auto integer = [&](const json& x, const std::string& p) -> std::optional<uint64_t> {
            if (!x.is_number_integer()) {
                error(value_at(p), fmt::format("{}: expected an integer, found {}", name, describe(x)));
                return std::nullopt;
            }
            bool negative = x.is_number_integer() && !x.is_number_unsigned() && x.get<int64_t>() < 0;
            double d = negative ? double(x.get<int64_t>()) : double(x.get<uint64_t>());
            if (!in_range(f, d, x.dump(), p, name)) return std::nullopt;
            return x.get<uint64_t>() * f.scale;
        };
        slot_visit(f, [&](auto* target) {
            using T = std::remove_pointer_t<decltype(target)>;
            if constexpr (std::is_same_v<T, std::string>) {
                if (!v.is_string()) {
                    error(value_at(path), fmt::format("{}: expected a string, found {}", name, describe(v)));
                    return;
                }
                auto s = v.get<std::string>();
                if (s.size() < f.min) {
                    error(value_at(path), name + ": must not be empty");
                    return;
                }
                if (s.size() > f.max) {
                    error(value_at(path), fmt::format("{}: longer than {} characters", name, f.max));
                    return;
                }
                *target = std::move(s);
            } else if constexpr (std::is_same_v<T, double>) {
                if (!v.is_number()) {
                    error(value_at(path), fmt::format("{}: expected a number, found {}", name, describe(v)));
                    return;
                }
                double d = v.get<double>();
                if (in_range(f, d, number_text(d), path, name)) *target = d * double(f.scale);
            } else if constexpr (std::is_same_v<T, std::vector<uint64_t>>) {
                if (!v.is_array() || v.empty()) {
                    error(value_at(path), fmt::format("{}: expected a non-empty array of integers, found {}",
                                                      name, v.is_array() ? "an empty array" : describe(v)));
                    return;
                }
                target->clear();
                for (size_t i = 0; i < v.size(); ++i)
                    if (auto x = integer(v[i], detail::element_path(path, i))) target->push_back(*x);
            } else {
                if (auto x = integer(v, path)) *target = T(*x);
            }
        });
    }

    template <class F>
    void slot_visit(const field& f, F&& fn) {
        std::visit(fn, f.target(m_));
    }

    bool in_range(const field& f, double d, const std::string& text, const std::string& path,
                  const std::string& name) {
        if (d >= f.min && d <= f.max) return true;
        std::string bound = f.min == f.max ? fmt::format("must be {}", number_text(f.min))
                                           : fmt::format("must be between {} and {}", number_text(f.min),
                                                         number_text(f.max));
        error(value_at(path), fmt::format("{}: {} is out of range ({})", name, text, bound));
        return false;
    }

    // Relations between figures that no single range can express. Each is
    // reported at the figure that a reader would most likely have mistyped.
    void check_consistency() {
        const auto& sm = m_.sm;
        const auto& sh = m_.shared_memory;
        auto at = [&](const char* figure) { return value_at(std::string(figure) + ".value"); };

        static const std::regex arch_re("sm_[0-9]+[a-z]?");
        if (!std::regex_match(m_.arch, arch_re))
            error(value_at("arch"), fmt::format("arch: \"{}\" is not a target name like sm_90", m_.arch));
        if (sm.max_threads != sm.max_warps * sm.warp_size)
            error(at("sm.max_threads"), fmt::format("sm.max_threads: {} must equal sm.max_warps * sm.warp_size = {}",
                                                    sm.max_threads, sm.max_warps * sm.warp_size));
        if (sm.max_threads_per_cta > sm.max_threads)
            error(at("sm.max_threads_per_cta"), fmt::format("sm.max_threads_per_cta: {} exceeds sm.max_threads ({})",
                                                            sm.max_threads_per_cta, sm.max_threads));
        if (sm.registers_per_sm % sm.register_alloc_unit != 0)
            error(at("sm.register_alloc_unit"),
                  fmt::format("sm.register_alloc_unit: {} does not divide sm.registers_per_sm ({})",
                              sm.register_alloc_unit, sm.registers_per_sm));
        if (sm.registers_per_cta > sm.registers_per_sm)
            error(at("sm.registers_per_cta"), fmt::format("sm.registers_per_cta: {} exceeds sm.registers_per_sm ({})",
                                                          sm.registers_per_cta, sm.registers_per_sm));
        if (sh.default_per_cta_bytes > sh.max_per_cta_bytes)
            error(at("shared_memory.default_per_cta_kib"),
                  fmt::format("shared_memory.default_per_cta_kib: {} KiB exceeds shared_memory.max_per_cta_kib ({} KiB)",
                              sh.default_per_cta_bytes / 1024, sh.max_per_cta_bytes / 1024));
        if (sm.setmaxnreg_min > sm.setmaxnreg_max ||
            (sm.setmaxnreg_max - sm.setmaxnreg_min) % sm.setmaxnreg_step != 0)
            error(at("sm.setmaxnreg_max"),
                  fmt::format("sm.setmaxnreg_max: {} is not sm.setmaxnreg_min ({}) plus a multiple of "
                              "sm.setmaxnreg_step ({})",
                              sm.setmaxnreg_max, sm.setmaxnreg_min, sm.setmaxnreg_step));
        if (sh.max_per_cta_bytes + sh.reserved_per_cta_bytes > sh.per_sm_bytes)
            error(at("shared_memory.max_per_cta_kib"),
                  fmt::format("shared_memory.max_per_cta_kib: {} KiB plus {} reserved bytes exceeds "
                              "shared_memory.per_sm_kib ({} KiB)",
                              sh.max_per_cta_bytes / 1024, sh.reserved_per_cta_bytes, sh.per_sm_bytes / 1024));
        for (size_t i = 1; i < sh.carveouts_bytes.size(); ++i)
            if (sh.carveouts_bytes[i] <= sh.carveouts_bytes[i - 1]) {
                error(value_at(detail::element_path("shared_memory.carveouts_kib.value", i)),
                      "shared_memory.carveouts_kib: must be in ascending order");
                return;
            }
        if (sh.carveouts_bytes.back() != sh.per_sm_bytes)
            error(at("shared_memory.carveouts_kib"),
                  fmt::format("shared_memory.carveouts_kib: the largest carve-out ({} KiB) must equal "
                              "shared_memory.per_sm_kib ({} KiB)",
                              sh.carveouts_bytes.back() / 1024, sh.per_sm_bytes / 1024));
        if (sh.per_sm_bytes > sh.l1_and_shared_bytes)
            error(at("shared_memory.per_sm_kib"),
                  fmt::format("shared_memory.per_sm_kib: {} KiB exceeds shared_memory.l1_and_shared_kib ({} KiB)",
                              sh.per_sm_bytes / 1024, sh.l1_and_shared_bytes / 1024));
        if (m_.cluster.max_ctas_portable > m_.cluster.max_ctas_nonportable)
            error(at("cluster.max_ctas_portable"),
                  fmt::format("cluster.max_ctas_portable: {} exceeds cluster.max_ctas_nonportable ({})",
                              m_.cluster.max_ctas_portable, m_.cluster.max_ctas_nonportable));
    }

    const parser::source_file& src_;
    const detail::json_positions& pos_;
    parser::diagnostics& d_;
    gpu_model m_;
    bool failed_ = false;
};

// nlohmann's what() is "[json.exception.parse_error.101] parse error at line
// L, column C: <reason>"; the location is ours to print, the reason is kept.
std::string parse_reason(const std::string& what) {
    size_t col = what.find("column ");
    size_t colon = col == std::string::npos ? std::string::npos : what.find(": ", col);
    if (colon != std::string::npos) return what.substr(colon + 2);
    size_t bracket = what.find("] ");
    return bracket == std::string::npos ? what : what.substr(bracket + 2);
}

} // namespace

std::optional<gpu_model> load_model_text(const std::string& name, std::string_view text, parser::diagnostics& d) {
    parser::source_file src(name, std::string(text));
    json root;
    try {
        root = json::parse(src.text(), nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/true);
    } catch (const json::parse_error& e) {
        // `byte` counts the characters read, so the offending one is the last.
        size_t at = e.byte == 0 ? 0 : std::min<size_t>(e.byte - 1, text.size());
        d.error(src, uint32_t(at), "invalid JSON: " + parse_reason(e.what()));
        return std::nullopt;
    }
    detail::json_positions pos(src.text());
    return loader(src, pos, d).run(root);
}

std::optional<gpu_model> load_model(const std::string& path, parser::diagnostics& d) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        d.report_unlocated(parser::severity::error, path, "cannot open model file: Is a directory");
        return std::nullopt;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        d.report_unlocated(parser::severity::error, path,
                           fmt::format("cannot open model file: {}", std::strerror(errno)));
        return std::nullopt;
    }
    std::ostringstream buf;
    buf << in.rdbuf();
    return load_model_text(path, buf.str(), d);
}

std::optional<std::filesystem::path> find_model(std::string_view name, const std::filesystem::path& models_dir) {
    // Only plain names, so "../x" cannot reach outside the directory.
    if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                   c == '-';
        }))
        return std::nullopt;
    std::filesystem::path p = models_dir / (std::string(name) + ".json");
    std::error_code ec;
    if (!std::filesystem::is_regular_file(p, ec)) return std::nullopt;
    return p;
}

std::vector<std::string> list_models(const std::filesystem::path& models_dir) {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(models_dir, ec))
        if (e.is_regular_file(ec) && e.path().extension() == ".json") out.push_back(e.path().stem().string());
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace ptxsim::models
