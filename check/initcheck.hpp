#pragma once
// initcheck: reads of memory that nothing wrote, byte by byte (docs/check.md).
//
// Shadow state, one bit per byte ("written"):
// - global: the launch file's buffers, announced by the runner
//   (host_allocate: exists, unwritten, as cudaMalloc leaves it; host_write:
//   the bytes an init, a struct or a symbol value filled), and device-malloc
//   blocks, unwritten when malloc returns them. Global memory that nobody
//   announced (module variables, which their module initialises; the
//   device's own allocations) counts as written. Buffers keep their bits
//   across the launches of a launch file, as device memory keeps its bytes.
// - shared: per CTA, nothing written when the CTA starts (loads judged
//   where their values are used, as for local memory).
// - local: per thread and call depth (access_event::offset carries the
//   depth), nothing written when the thread starts (a load's finding waits
//   in its registers until the value is used: undefined_registers.hpp); a call makes the
//   callee's frame, and the alloca'd stack above the caller's top, unwritten
//   again (a frame reused by a later call at the same depth holds nothing
//   the new call wrote).
// - param and const: initialised by definition.
//
// What writes: stores, atomics, and the landing of asynchronous copies
// (cp.async, bulk and tensor copies write their destination when they
// complete). What reads: loads (a copy's source is read when it is issued)
// and atomics, whose old value is the read half of a read-modify-write: an
// atomicAdd on a counter the host never cleared is reported, as
// compute-sanitizer does.
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>

#include "check/checker.hpp"
#include "check/undefined_registers.hpp"
#include "check/written_bytes.hpp"

namespace ptxsim::check {

class initcheck final : public checker {
public:
    explicit initcheck(report& r) : report_(r) {}

    void launch_begin(const sim::launch_event& e) override;
    void access(const sim::access_event& e) override;
    void device_malloc(const sim::malloc_event& e) override;
    void device_free(const sim::free_event& e) override;
    void call(const sim::call_event& e) override;
    void host_allocate(const sim::host_memory_event& e) override;
    void host_write(const sim::host_memory_event& e) override;
    // Loads from local memory are judged where their values are used
    // (undefined_registers.hpp), which needs every instruction.
    bool wants_instructions() const override { return true; }
    void instruction(const sim::instruction_event& e) override;
    void launch_end(const sim::launch_event& e, const sim::launch_result& r) override;

private:
    // Global memory whose bytes are tracked: a launch-file buffer or a
    // device-malloc block.
    struct region {
        uint64_t size = 0;
        std::string what; // "launch-file buffer 'x'" or "device-malloc block"
        written_bytes bits;
    };
    finding at_site(const sim::event_site& s) const;
    void global_write(uint64_t address, uint64_t size);
    void global_read(const sim::access_event& e);
    finding read_finding(const sim::access_event& e, const std::vector<std::pair<uint64_t, uint64_t>>& runs, uint64_t base,
                         const std::string& where) const;
    void report_read(const sim::access_event& e, const std::vector<std::pair<uint64_t, uint64_t>>& runs, uint64_t base,
                     const std::string& where);
    written_bytes& local_bits(uint64_t thread, uint64_t offset, uint64_t& index);
    void read_or_defer(const sim::access_event& e, const std::vector<std::pair<uint64_t, uint64_t>>& runs, uint64_t base,
                       const std::string& where);
    void write_shadow(const sim::access_event& e, written_bytes& bits, uint64_t at);

    report& report_;
    std::mutex mutex_;
    undefined_registers undefined_;
    std::string kernel_;
    const locator* locate_ = nullptr;
    std::map<uint64_t, region> global_;                  // by base address
    std::unordered_map<uint64_t, written_bytes> shared_; // by CTA (linear index in the grid)
    // By thread (linear index in the grid), then segment: offset >> 31
    // (alloca'd bytes: 1; the frame at call depth d: 2 (d + 1)).
    std::unordered_map<uint64_t, std::unordered_map<uint64_t, written_bytes>> local_;
    // The last CTA's shared bits and thread segment's local bits: accesses
    // come in runs from one warp (elements of unordered maps stay put).
    uint64_t cached_cta_ = 0, cached_thread_ = 0, cached_segment_ = 0;
    written_bytes* cached_shared_ = nullptr;
    written_bytes* cached_local_bits_ = nullptr;
};

} // namespace ptxsim::check
