#include "debug/source_map.hpp"

#include <filesystem>

namespace ptxsim::debug {

bool same_file(const std::string& given, const std::string& path) {
    if (given.empty() || path.empty()) return false;
    if (given == path) return true;
    namespace fs = std::filesystem;
    // The trailing components both have must agree (an editor's absolute
    // path against a module's relative one, or a bare file name).
    const fs::path g = fs::path(given).lexically_normal(), p = fs::path(path).lexically_normal();
    auto gi = g.end(), pi = p.end();
    bool any = false;
    while (gi != g.begin() && pi != p.begin()) {
        --gi, --pi;
        if (*gi != *pi) return false;
        any = true;
    }
    return any;
}

std::string base_name(const std::string& n) {
    if (n.size() < 3 || n[0] != '_' || n[1] != 'Z') return n;
    size_t i = 2;
    if (i < n.size() && n[i] == 'N') ++i; // a nested name: its first component
    size_t len = 0, start = i;
    while (i < n.size() && n[i] >= '0' && n[i] <= '9') len = len * 10 + static_cast<size_t>(n[i++] - '0');
    if (i == start || i + len > n.size()) return n;
    return n.substr(i, len);
}

void source_map::build(int32_t fn) const {
    auto& v = lines_[size_t(fn)];
    if (!v.empty() || !functions_[size_t(fn)]) return;
    const auto& code = functions_[size_t(fn)]->code;
    v.resize(code.size());
    for (size_t i = 0; i < code.size(); ++i) {
        sim::fault_report r;
        if (locate_) locate_(fn, code[i].pos, r);
        v[i] = {r.ptx_file, r.ptx_line, r.source_file, r.source_line};
    }
}

const source_line& source_map::at(uint32_t pc) const {
    static const source_line none;
    const int32_t fn = function_of(pc);
    if (!function(fn)) return none;
    build(fn);
    const auto& v = lines_[size_t(fn)];
    return index_of(pc) < v.size() ? v[index_of(pc)] : none;
}

bool source_map::has_cuda_lines(int32_t fn) const {
    if (!function(fn)) return false;
    build(fn);
    for (const auto& l : lines_[size_t(fn)])
        if (l.cuda_line) return true;
    return false;
}

std::pair<std::string, uint32_t> source_map::step_line(uint32_t pc) const {
    const source_line& l = at(pc);
    if (has_cuda_lines(function_of(pc))) return {l.cuda_file, l.cuda_line};
    return {l.ptx_file, l.ptx_line};
}

std::vector<uint32_t> source_map::pcs_at(const std::string& file, uint32_t line, uint32_t& moved_to) const {
    // The nearest line at or below `line` with code, over every function.
    uint32_t best = UINT32_MAX;
    for (size_t f = 0; f < functions_.size(); ++f) {
        if (!functions_[f]) continue;
        build(static_cast<int32_t>(f));
        for (const auto& l : lines_[f]) {
            if (l.ptx_line >= line && l.ptx_line < best && same_file(file, l.ptx_file)) best = l.ptx_line;
            if (l.cuda_line >= line && l.cuda_line < best && same_file(file, l.cuda_file)) best = l.cuda_line;
        }
    }
    std::vector<uint32_t> out;
    moved_to = best;
    if (best == UINT32_MAX) return out;
    for (size_t f = 0; f < functions_.size(); ++f) {
        if (!functions_[f]) continue;
        const auto& v = lines_[f];
        bool prev = false;
        for (size_t i = 0; i < v.size(); ++i) {
            const bool on = (v[i].ptx_line == best && same_file(file, v[i].ptx_file)) ||
                            (v[i].cuda_line == best && same_file(file, v[i].cuda_file));
            if (on && !prev) out.push_back(make_pc(static_cast<int32_t>(f), static_cast<uint32_t>(i)));
            prev = on;
        }
    }
    return out;
}

std::vector<uint32_t> source_map::pcs_of_function(const std::string& name) const {
    std::vector<uint32_t> out;
    for (size_t f = 0; f < functions_.size(); ++f)
        if (functions_[f] && (functions_[f]->name == name || base_name(functions_[f]->name) == name))
            out.push_back(make_pc(static_cast<int32_t>(f), 0));
    return out;
}

bool source_map::knows_file(const std::string& file) const {
    for (size_t f = 0; f < functions_.size(); ++f) {
        if (!functions_[f]) continue;
        build(static_cast<int32_t>(f));
        for (const auto& l : lines_[f])
            if (same_file(file, l.ptx_file) || same_file(file, l.cuda_file)) return true;
    }
    return false;
}

const dwarf_info& source_map::dwarf(int32_t fn) const {
    static const dwarf_info none;
    const isa::exec_function* f = function(fn);
    if (!f || f->code.empty()) return none;
    const std::string& file = at(make_pc(fn, 0)).ptx_file;
    if (file.empty()) return none;
    auto& slot = dwarf_[file];
    if (!slot) slot = std::make_unique<dwarf_info>(dwarf_info::read(file));
    return *slot;
}

} // namespace ptxsim::debug
