#pragma once
// memcheck: memory errors of a launch file's kernels as findings.
//
// The engine already stops a launch at the first invalid access (outside
// every live allocation, in a guard gap, freed, misaligned, past the end of
// shared, local, param or alloca memory, a generic address in no window)
// and at a bad device free or stack overflow, with a located report. memcheck
// turns that fault into a finding, naming the access (load/store/atomic,
// size, space) from the engine's access events. What the plain run does not
// stop for is new here: device-malloc blocks never freed when the launch
// file ends (leaks), device malloc returning NULL (a warning) and atomics
// whose generic address lands in local memory (undefined in PTX).
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include "check/checker.hpp"

namespace ptxsim::check {

class memcheck final : public checker {
public:
    explicit memcheck(report& r) : report_(r) {}

    void launch_begin(const sim::launch_event& e) override;
    void launch_end(const sim::launch_event& e, const sim::launch_result& r) override;
    void access(const sim::access_event& e) override;
    void device_malloc(const sim::malloc_event& e) override;
    void device_free(const sim::free_event& e) override;

    // After the launch file's last launch: every device-malloc block still
    // live is a leak, reported at the malloc that made it. Not after a
    // launch stopped at a fault: blocks that later launches would have
    // freed are not leaks.
    void finish() override;
    bool stopped() const { return stopped_; }

    // How many access events this checker has seen (tests).
    uint64_t accesses_seen() const { return accesses_; }

private:
    struct live_block {
        uint64_t size;
        finding where; // kernel, location, block and thread of the malloc
    };
    finding at_site(const sim::event_site& s) const;

    report& report_;
    std::mutex mutex_;
    std::string kernel_;
    const locator* locate_ = nullptr;
    std::vector<sim::access_event> faulted_;    // accesses that failed in this launch
    std::optional<sim::free_event> bad_free_;   // a free that failed in this launch
    std::map<uint64_t, live_block> live_;       // device-malloc blocks by address
    uint64_t accesses_ = 0;
    bool stopped_ = false; // a launch ended at a fault
};

} // namespace ptxsim::check
