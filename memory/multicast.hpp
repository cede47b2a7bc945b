#pragma once
// Multicast objects (cuMulticastCreate + cuMulticastBindMem): a range of
// multicast addresses that stands for one copy per member of a multicast
// group. On a real system the members are allocations on different GPUs;
// ptxsim simulates one device, so the members are N global allocations of
// that device, standing in for the N GPUs' copies. multimem.* instructions
// address a multicast range; the engine asks this table for the member
// addresses and accesses each one as ordinary global memory.
//
// Multicast addresses come from their own window below the global one
// (0x7e0000000000 up), aligned to 2 MiB (CUDA's multicast granularity) and
// followed by an unmapped gap, so they can never alias an allocation and an
// ordinary ld/st to one faults as unmapped.
//
// Threads: create() runs on the host between launches; find() only reads.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ptxsim::memory {

struct multicast_object {
    uint64_t base = 0;
    uint64_t size = 0;
    std::vector<uint64_t> members; // global address bound at offset 0 of each member
    std::string label;
};

class multicast_table {
public:
    static constexpr uint64_t window_base = 0x7e00'0000'0000;
    static constexpr uint64_t window_limit = 0x7f00'0000'0000;
    static constexpr uint64_t granularity = 2ull << 20;
    static constexpr size_t max_members = 64;

    // A new multicast range of `size` bytes bound to `members` (1 to
    // max_members addresses, each with at least `size` bytes behind it: the
    // caller checks that). Returns its base, or 0 when the arguments are
    // out of range or the window is full.
    uint64_t create(uint64_t size, std::vector<uint64_t> members, std::string label = {});

    struct hit {
        const multicast_object* object;
        uint64_t offset; // of the access within the object
    };
    // The object that holds all of [address, address + bytes), if any.
    std::optional<hit> find(uint64_t address, uint64_t bytes) const;

    const std::vector<multicast_object>& objects() const { return objects_; }

private:
    std::vector<multicast_object> objects_; // sorted by base (bases only grow)
    uint64_t next_ = window_base;
};

} // namespace ptxsim::memory
