#include "check/report.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <ostream>

namespace ptxsim::check {

std::string space_name(isa::space sp) {
    switch (sp) {
    case isa::space::generic: return "generic";
    case isa::space::global: return "global";
    case isa::space::shared: return "shared";
    case isa::space::local: return "local";
    case isa::space::param: return "param";
    case isa::space::const_: return "const";
    }
    return "";
}

bool same_finding(const finding& a, const finding& b) {
    return a.tool == b.tool && a.severity == b.severity && a.kind == b.kind && a.space == b.space && a.kernel == b.kernel &&
           a.size == b.size && a.ptx_file == b.ptx_file && a.ptx_line == b.ptx_line && a.has_other == b.has_other &&
           a.other_ptx_file == b.other_ptx_file && a.other_ptx_line == b.other_ptx_line &&
           // Host errors have no device location: their text tells them apart.
           a.host == b.host && (!a.host || a.headline == b.headline);
}

void report::add(finding f) {
    for (finding& g : findings_) {
        if (same_finding(g, f)) {
            g.count += f.count;
            return;
        }
    }
    findings_.push_back(std::move(f));
}

void report::annotate(size_t first, const std::string& line) {
    for (size_t i = first; i < findings_.size(); ++i) findings_[i].details.push_back(line);
}

uint64_t report::errors() const {
    uint64_t n = 0;
    for (const auto& f : findings_)
        if (f.severity == "error") n += f.count;
    return n;
}

uint64_t report::warnings() const {
    uint64_t n = 0;
    for (const auto& f : findings_)
        if (f.severity != "error") n += f.count;
    return n;
}

// " (file:line)", or " (file:line, inlined from file:line)" as `ptxsim run`
// writes a fault's location.
static std::string source_text(const std::string& file, uint32_t line, const std::string& inlined_file, uint32_t inlined_line) {
    if (inlined_file.empty()) return fmt::format(" ({}:{})", file, line);
    return fmt::format(" ({}:{}, inlined from {}:{})", file, line, inlined_file, inlined_line);
}

void print_finding(std::ostream& out, const finding& f) {
    constexpr const char* bar = "========= ";
    out << bar << (f.severity == "error" ? "" : "Warning: ") << f.headline << '\n';
    if (!f.host) {
        std::string at = bar + std::string("    at");
        if (!f.ptx_file.empty()) at += fmt::format(" {}:{}", f.ptx_file, f.ptx_line);
        if (!f.source_file.empty()) at += source_text(f.source_file, f.source_line, f.inlined_file, f.inlined_line);
        out << at << fmt::format(" in kernel '{}'\n", f.kernel);
        out << fmt::format("{}    by thread ({},{},{}) in block ({},{},{})\n", bar, f.thread.x, f.thread.y, f.thread.z, f.block.x,
                           f.block.y, f.block.z);
    }
    if (f.has_address) out << fmt::format("{}    Address 0x{:x}\n", bar, f.address);
    if (f.has_other) {
        std::string other = bar + std::string("    and the access at");
        if (!f.other_ptx_file.empty()) other += fmt::format(" {}:{}", f.other_ptx_file, f.other_ptx_line);
        if (!f.other_source_file.empty())
            other += source_text(f.other_source_file, f.other_source_line, f.other_inlined_file, f.other_inlined_line);
        out << other
            << fmt::format(" by thread ({},{},{}) in block ({},{},{})\n", f.other_thread.x, f.other_thread.y, f.other_thread.z,
                           f.other_block.x, f.other_block.y, f.other_block.z);
    }
    for (const auto& d : f.details) out << bar << "    " << d << '\n';
}

void report::print_text(std::ostream& out, uint64_t limit) const {
    constexpr const char* bar = "========= ";
    uint64_t shown = 0;
    for (const auto& f : findings_) {
        if (limit && shown == limit) {
            uint64_t left = findings_.size() - shown;
            out << fmt::format("{}(--print-limit {}: {} more finding{} not shown)\n", bar, limit, left, left == 1 ? "" : "s");
            break;
        }
        ++shown;
        print_finding(out, f);
        if (f.count > 1) out << fmt::format("{}    (and {} more like it, folded)\n", bar, f.count - 1);
        out << "=========\n";
    }
    out << fmt::format("{}ERROR SUMMARY: {} error{}", bar, errors(), errors() == 1 ? "" : "s");
    if (warnings()) out << fmt::format(", {} warning{}", warnings(), warnings() == 1 ? "" : "s");
    out << '\n';
}

std::string report::json(const std::vector<std::string>& tools) const {
    using json = nlohmann::ordered_json;
    json list = json::array();
    for (const auto& f : findings_) {
        json j;
        j["tool"] = f.tool;
        j["severity"] = f.severity;
        j["kind"] = f.kind;
        j["space"] = f.space;
        j["kernel"] = f.kernel;
        j["address"] = f.has_address ? json(f.address) : json(nullptr);
        j["size"] = f.size ? json(f.size) : json(nullptr); // null: a kind with no access (a bad free, a stack overflow)
        j["location"] = {{"ptx_file", f.ptx_file},
                         {"ptx_line", f.ptx_line},
                         {"source_file", f.source_file.empty() ? json(nullptr) : json(f.source_file)},
                         {"source_line", f.source_file.empty() ? json(nullptr) : json(f.source_line)}};
        if (!f.inlined_file.empty()) {
            j["location"]["inlined_file"] = f.inlined_file;
            j["location"]["inlined_line"] = f.inlined_line;
        }
        j["block"] = {f.block.x, f.block.y, f.block.z};
        j["thread"] = {f.thread.x, f.thread.y, f.thread.z};
        if (f.has_other)
            j["other"] = {{"location",
                           {{"ptx_file", f.other_ptx_file},
                            {"ptx_line", f.other_ptx_line},
                            {"source_file", f.other_source_file.empty() ? json(nullptr) : json(f.other_source_file)},
                            {"source_line", f.other_source_file.empty() ? json(nullptr) : json(f.other_source_line)}}},
                          {"size", f.other_size ? json(f.other_size) : json(nullptr)},
                          {"block", {f.other_block.x, f.other_block.y, f.other_block.z}},
                          {"thread", {f.other_thread.x, f.other_thread.y, f.other_thread.z}}};
        if (f.has_other && !f.other_inlined_file.empty()) {
            j["other"]["location"]["inlined_file"] = f.other_inlined_file;
            j["other"]["location"]["inlined_line"] = f.other_inlined_line;
        }
        j["count"] = f.count;
        j["message"] = [&] {
            std::string m = f.headline;
            for (const auto& d : f.details) m += "; " + d;
            return m;
        }();
        if (f.scheduled) j["seed"] = f.seed ? json(*f.seed) : json(nullptr); // null: the default order
        list.push_back(std::move(j));
    }
    json out;
    out["findings"] = std::move(list);
    out["summary"] = {{"tools", tools}, {"errors", errors()}, {"warnings", warnings()}, {"distinct", findings_.size()}};
    return out.dump(2) + "\n";
}

} // namespace ptxsim::check
