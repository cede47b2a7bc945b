#pragma once
// Findings of the checkers and how `ptxsim check` reports them: folded
// (identical findings once, with a count), as compute-sanitizer-style text
// on stderr and as the JSON of docs/check.md.
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "isa/exec.hpp"
#include "sim/launch_types.hpp"

namespace ptxsim::check {

struct finding {
    std::string tool;               // "memcheck"
    std::string severity = "error"; // "error" or "warning"
    std::string kind;               // "out-of-bounds-write", "leak", ... (docs/check.md)
    std::string space;              // "global", "shared", "local", "param", "const", "generic", or "" (not an access)
    std::string kernel;
    uint64_t address = 0;
    bool has_address = false;
    uint32_t size = 0;              // bytes of the access (or of the leaked block)
    std::string ptx_file, source_file;
    uint32_t ptx_line = 0, source_line = 0;
    // Code inlined into the kernel (a header's, or the same file's
    // __forceinline__ helpers): source_file/line is where the inlined_at
    // chain ends, inlined_file/line the innermost .loc (empty: not inlined).
    std::string inlined_file;
    uint32_t inlined_line = 0;
    sim::dim3 block{0, 0, 0}, thread{0, 0, 0};
    // Races: the other access of the pair (the earlier one in the run).
    bool has_other = false;
    std::string other_ptx_file, other_source_file, other_inlined_file;
    uint32_t other_ptx_line = 0, other_source_line = 0, other_inlined_line = 0;
    uint32_t other_size = 0;
    sim::dim3 other_block{0, 0, 0}, other_thread{0, 0, 0};
    // An error the program's host code met (api-error): no device location,
    // block or thread to print.
    bool host = false;
    std::string headline;           // the first text line, e.g. "Invalid __global__ write of size 4 bytes"
    std::vector<std::string> details; // further text lines (nearest allocation, engine message)
    uint64_t count = 1;             // identical findings folded into this one
    // With schedules (--schedules, --replay): the schedule that first showed
    // it, a seed, or none for the default order. JSON "seed" only when set.
    bool scheduled = false;
    std::optional<uint64_t> seed;
};

// Identical findings, which the report folds: same tool, severity, kind,
// space, kernel, size, PTX location and, for races, the other access's PTX
// location; host errors (api-error), the same text.
bool same_finding(const finding& a, const finding& b);

// One finding as print_text shows it (without its folded count).
void print_finding(std::ostream& out, const finding& f);

class report {
public:
    // Adds a finding, or counts it on an identical one already there
    // (same_finding; the first occurrence keeps its address, block and thread).
    void add(finding f);
    const std::vector<finding>& findings() const { return findings_; }
    // Appends a detail line to the findings from index `first` on (those a
    // program's launch added: `ptxsim check PROGRAM` names the launch).
    void annotate(size_t first, const std::string& line);
    uint64_t errors() const;   // occurrences, folded ones included
    uint64_t warnings() const;

    // At most `limit` findings (0: all), then "ERROR SUMMARY".
    void print_text(std::ostream& out, uint64_t limit) const;
    std::string json(const std::vector<std::string>& tools) const;

private:
    std::vector<finding> findings_;
};

// "global", "shared", ... for an access's state space.
std::string space_name(isa::space sp);

} // namespace ptxsim::check
