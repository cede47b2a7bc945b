#pragma once
// Where each instruction of a launch's program comes from: PTX file:line
// and, from .loc, CUDA file:line; and the reverse, the instructions a
// breakpoint at a file:line or a function name stands for. Built per
// function on first use from the device's locate (launch_event::locate).
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "debug/dwarf.hpp"
#include "isa/exec.hpp"
#include "sim/launch_types.hpp"

namespace ptxsim::debug {

struct source_line {
    std::string ptx_file;
    uint32_t ptx_line = 0;
    std::string cuda_file; // empty without .loc
    uint32_t cuda_line = 0;
};

// PC of the engine: function id << 20 | instruction index.
inline int32_t function_of(uint32_t pc) { return static_cast<int32_t>(pc >> 20); }
inline uint32_t index_of(uint32_t pc) { return pc & 0xFFFFFu; }
inline uint32_t make_pc(int32_t fn, uint32_t index) { return static_cast<uint32_t>(fn) << 20 | index; }

// Whether a file named in a command means `path`: the same path, or the
// same last component.
bool same_file(const std::string& given, const std::string& path);
// `_Z5saxpyifPKfPf` -> `saxpy`; other names unchanged.
std::string base_name(const std::string& ptx_name);

class source_map {
public:
    using locator = std::function<void(int32_t function_id, uint32_t pos, sim::fault_report&)>;
    source_map(const std::vector<const isa::exec_function*>& functions, locator locate)
        : functions_(functions), locate_(std::move(locate)), lines_(functions.size()) {}

    const std::vector<const isa::exec_function*>& functions() const { return functions_; }
    const isa::exec_function* function(int32_t id) const {
        return id >= 0 && size_t(id) < functions_.size() ? functions_[size_t(id)] : nullptr;
    }
    // The instruction at `pc`; a default source_line when unknown.
    const source_line& at(uint32_t pc) const;
    // Whether the function has CUDA lines (.loc).
    bool has_cuda_lines(int32_t fn) const;
    // The line a user steps by: CUDA file:line when the function has .loc, else PTX.
    std::pair<std::string, uint32_t> step_line(uint32_t pc) const;

    // A breakpoint at file:line: the first instruction of each run of
    // instructions on that line (of the file as PTX or CUDA source), or,
    // when no instruction is on it, of the next line below that has one
    // (`moved_to` says which). Empty when the file has no code from `line` on.
    std::vector<uint32_t> pcs_at(const std::string& file, uint32_t line, uint32_t& moved_to) const;
    // Function entries named `name` (PTX name or its base name).
    std::vector<uint32_t> pcs_of_function(const std::string& name) const;
    // Whether any instruction comes from a file of that name.
    bool knows_file(const std::string& file) const;
    // The CUDA variables (nvcc -G DWARF) of the PTX file a function is in;
    // read on first use, an empty table when it has none.
    const dwarf_info& dwarf(int32_t fn) const;

private:
    void build(int32_t fn) const;

    std::vector<const isa::exec_function*> functions_;
    locator locate_;
    mutable std::vector<std::vector<source_line>> lines_; // by function, by instruction index
    mutable std::map<std::string, std::unique_ptr<dwarf_info>> dwarf_; // by PTX file
};

} // namespace ptxsim::debug
