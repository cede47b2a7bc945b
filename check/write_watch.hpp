#pragma once
// Watches one byte of a launch-file buffer and keeps the last instruction
// that wrote it (store, atomic or an asynchronous copy landing), located.
// Schedule exploration reruns the two schedules whose outputs differ with
// it, to name the instruction that left the first differing byte.
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "check/checker.hpp"

namespace ptxsim::check {

class write_watch final : public checker {
public:
    struct write {
        std::string kernel;
        sim::event_site site;
        sim::fault_report where; // ptx_file/line, source_file/line of the instruction
        uint64_t address = 0;    // the global address of the access
        uint32_t size = 0;
        sim::access_op op = sim::access_op::store;
    };

    // `addresses` is filled by the run (run_settings::buffer_addresses)
    // before the first launch; the byte is `buffer`'s byte `offset`.
    write_watch(const std::vector<uint64_t>& addresses, size_t buffer, uint64_t offset)
        : addresses_(addresses), buffer_(buffer), offset_(offset) {}

    void launch_begin(const sim::launch_event& e) override {
        std::lock_guard lock(mutex_);
        kernel_ = e.kernel;
        locate_ = e.locate;
        target_ = buffer_ < addresses_.size() ? std::optional<uint64_t>(addresses_[buffer_] + offset_) : std::nullopt;
    }

    void access(const sim::access_event& e) override {
        if (!target_ || e.fault != isa::fault_kind::none || e.op == sim::access_op::load || e.space != isa::space::global) return;
        // Global accesses resolve to their address (owner 0, offset = address).
        if (*target_ < e.offset || *target_ - e.offset >= e.size) return;
        std::lock_guard lock(mutex_);
        write w;
        w.kernel = kernel_;
        w.site = e.site;
        w.address = e.offset;
        w.size = e.size;
        w.op = e.op;
        if (locate_ && *locate_) (*locate_)(e.site.function_id, e.site.pos, w.where);
        last_ = std::move(w);
    }

    // Forgets the last write (before a new run).
    void reset() {
        std::lock_guard lock(mutex_);
        last_.reset();
        target_.reset();
    }

    // The last write of the byte in the run, if any instruction wrote it.
    const std::optional<write>& last() const { return last_; }

private:
    const std::vector<uint64_t>& addresses_;
    size_t buffer_;
    uint64_t offset_;
    std::mutex mutex_;
    std::string kernel_;
    const std::function<void(int32_t, uint32_t, sim::fault_report&)>* locate_ = nullptr;
    std::optional<uint64_t> target_;
    std::optional<write> last_;
};

} // namespace ptxsim::check
