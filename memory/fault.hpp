#pragma once
// What a checked memory access reports instead of touching host memory out
// of range. Plain data: the engine turns it into a located kernel-fault
// report (kernel, PTX line, thread) that this layer knows nothing about.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ptxsim::memory {

enum class access_kind : uint8_t { read, write };

enum class fault_kind : uint8_t {
    none,
    out_of_bounds,   // outside every allocation but near one, or running past an allocation's end
    use_after_free,  // inside an allocation that has been freed
    unmapped,        // nowhere near any allocation (null, below the window, past the last one)
    misaligned,      // address not a multiple of the access's alignment
};

// One row of the allocation table, copied out for reports.
struct allocation_info {
    uint32_t id = 0;     // dense, in allocation order, never reused
    uint64_t base = 0;
    uint64_t size = 0;   // exactly what was requested
    bool alive = false;
    std::string label;   // the caller's name for it ("buffer out"); may be empty

    uint64_t end() const { return base + size; }
};

struct access_result {
    fault_kind fault = fault_kind::none;
    access_kind kind = access_kind::read;
    uint64_t address = 0;
    uint64_t size = 0;
    uint64_t align = 1;  // the alignment the access needed
    // The allocation the access hit or, for out_of_bounds, the nearest one.
    std::optional<allocation_info> allocation;

    bool ok() const { return fault == fault_kind::none; }
};

std::string_view to_string(fault_kind k);
std::string_view to_string(access_kind k);
// "allocation #3 'out' (256 bytes at 0x7f0000010000)"
std::string describe(const allocation_info& a);
// One line, e.g. "write of 1 byte at 0x7f0000000100: 0 bytes past the end of
// allocation #0 (256 bytes at 0x7f0000000000)".
std::string describe(const access_result& r);

} // namespace ptxsim::memory
