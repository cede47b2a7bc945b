#pragma once
// How a checker's JSON report is compared with a checker-suite case's
// expected.json (tests/check/README.md, "Comparing a report with
// expected.json"): each finding projected onto severity, kind, space,
// kernel, size and the file name and line of its location and of the other
// access's, pairs unordered.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>

namespace ptxsim::test::suite_compare {

using json = nlohmann::json;

// severity, kind, space, kernel, size, file, line, other file, other line
using projected = std::tuple<std::string, std::string, std::string, std::string, int64_t, std::string, int64_t, std::string, int64_t>;

inline std::string text(const json& v) { return v.is_string() ? v.get<std::string>() : std::string(); }

inline std::pair<std::string, int64_t> where(const json& f) {
    if (!f.is_object() || !f.contains("location")) return {"", -1};
    const json& loc = f["location"];
    return {std::filesystem::path(text(loc.value("source_file", json()))).filename().string(),
            loc.contains("source_line") && loc["source_line"].is_number() ? loc["source_line"].get<int64_t>() : -1};
}

// Pairs are unordered: RAW (location R, other W) and WAR (location W,
// other R) are one finding, kept as RAW; WAW, race and intra-warp pairs in
// a fixed order. The size is that of the access kept at `location` (a
// report gives the other access's as other.size).
inline projected project(const json& f) {
    auto size_of = [](const json& j) { return j.is_object() && j.contains("size") && j["size"].is_number() ? j["size"].get<int64_t>() : -1; };
    std::string kind = text(f.value("kind", json()));
    auto at = where(f), other = where(f.value("other", json()));
    int64_t size = size_of(f);
    const bool swap = kind == "WAR" || ((kind == "WAW" || kind == "race" || kind == "intra-warp-hazard") && other.second >= 0 && other < at);
    if (kind == "WAR") kind = "RAW";
    if (swap) { // the other access's size where the report gives it (expected.json lists one size)
        std::swap(at, other);
        if (const int64_t o = size_of(f.value("other", json())); o >= 0) size = o;
    }
    return {text(f.value("severity", json())), kind, text(f.value("space", json())), text(f.value("kernel", json())), size,
            at.first, at.second, other.first, other.second};
}

// Only findings whose kind is in `kinds`, when it is not empty.
inline std::set<projected> projected_set(const json& findings, const std::set<std::string>& kinds = {}) {
    std::set<projected> out;
    for (const auto& f : findings)
        if (kinds.empty() || kinds.count(text(f.value("kind", json())))) out.insert(project(f));
    return out;
}

inline std::string show(const projected& p) {
    std::ostringstream o;
    o << std::get<0>(p) << ' ' << std::get<1>(p) << ' ' << std::get<2>(p) << " size " << std::get<4>(p) << " at " << std::get<5>(p) << ':'
      << std::get<6>(p);
    if (std::get<8>(p) >= 0) o << " other " << std::get<7>(p) << ':' << std::get<8>(p);
    return o.str();
}

} // namespace ptxsim::test::suite_compare
