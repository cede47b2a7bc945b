#pragma once
// What a kernel launch can reach, for `ptxsim exec --record`: the
// allocations its arguments point into, its module's variables, and the
// allocations their contents point into, followed until nothing new turns
// up. A value counts as a pointer when it is an address inside a live
// allocation, or one past its end (an `end` pointer); in memory, only
// 8-byte-aligned words are looked at. Each allocation is taken once, with
// its bytes as they are before the launch.
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ptxsim::sim {
class device;
}

namespace ptxsim::cuda::driver {

class state;

class reachable_memory {
public:
    struct region {
        std::string name;       // buffer "a7" (allocation #7), or the module variable's name
        bool symbol = false;    // one of the kernel's module variables
        uint64_t address = 0;
        std::vector<uint8_t> bytes;  // before the launch
    };
    struct target {
        bool symbol = false;
        std::string name;
        uint64_t offset = 0;    // from the region's start
    };

    // Takes the module's variables (global and constant) at once.
    reachable_memory(state& st, size_t module);

    // The region `value` points into, taken now if it was not yet; nullopt
    // when it points into none.
    std::optional<target> refer(uint64_t value);
    // Takes what the words of the regions taken so far point into, until
    // nothing new turns up.
    void follow();

    const std::vector<region>& regions() const { return regions_; }
    // The regions, moved out (their bytes can be large); the object is done.
    std::vector<region> take_regions() { return std::move(regions_); }

private:
    state& st_;
    sim::device& dev_;
    std::map<uint64_t, std::string> variables_;  // address -> name, of the kernel's module
    std::map<uint32_t, size_t> by_id_;           // allocation id -> index in regions_
    std::vector<region> regions_;
    std::deque<size_t> unscanned_;
};

} // namespace ptxsim::cuda::driver
