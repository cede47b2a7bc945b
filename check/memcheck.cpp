#include "check/memcheck.hpp"

#include <fmt/format.h>

namespace ptxsim::check {
namespace {

const char* op_name(sim::access_op op) {
    switch (op) {
    case sim::access_op::load: return "read";
    case sim::access_op::store: return "write";
    case sim::access_op::atomic: return "atomic";
    }
    return "";
}

const char* fault_name(isa::fault_kind k) {
    switch (k) {
    case isa::fault_kind::out_of_bounds: return "out-of-bounds";
    case isa::fault_kind::misaligned: return "misaligned";
    case isa::fault_kind::use_after_free: return "use-after-free";
    default: return "invalid-address";
    }
}

const char* headline_name(isa::fault_kind k) {
    switch (k) {
    case isa::fault_kind::out_of_bounds: return "Out-of-bounds";
    case isa::fault_kind::misaligned: return "Misaligned";
    case isa::fault_kind::use_after_free: return "Use-after-free";
    default: return "Invalid";
    }
}

// "trap", "assertion failed" -> "trap", "assertion-failed".
std::string dashed(std::string s) {
    for (char& c : s)
        if (c == ' ') c = '-';
    return s;
}

bool same(const sim::dim3& a, const sim::dim3& b) { return a.x == b.x && a.y == b.y && a.z == b.z; }

} // namespace

finding memcheck::at_site(const sim::event_site& s) const { return finding_at("memcheck", kernel_, locate_, s); }

void memcheck::launch_begin(const sim::launch_event& e) {
    std::lock_guard lock(mutex_);
    kernel_ = e.kernel;
    locate_ = e.locate;
    faulted_.clear();
    bad_free_.reset();
}

void memcheck::access(const sim::access_event& e) {
    std::lock_guard lock(mutex_);
    ++accesses_;
    if (e.fault != isa::fault_kind::none) {
        faulted_.push_back(e);
        return;
    }
    // An access through a .shared variable that leaves it (into the next
    // variable, say): the engine sees a valid shared address and goes on.
    if (e.outside_variable) {
        const isa::shared_region& v = *e.outside_variable;
        finding f = at_site(e.site);
        f.kind = "out-of-bounds";
        f.space = "shared";
        f.size = e.size;
        f.address = e.address;
        f.has_address = true;
        f.headline = fmt::format("Out-of-bounds __shared__ {} of size {} byte{}", op_name(e.op), e.size, e.size == 1 ? "" : "s");
        const int64_t from = static_cast<int64_t>(e.offset) - v.offset;
        f.details.push_back(fmt::format("shared offset {} is {} of .shared variable '{}' ({} bytes at offset {}), which the address was computed from",
                                        e.offset,
                                        from < 0 ? fmt::format("{} bytes before the start", -from)
                                                 : fmt::format("{} bytes past the end", from - static_cast<int64_t>(v.size)),
                                        v.name, v.size, v.offset));
        report_.add(std::move(f));
    }
    // atom/red act on global and shared memory; through a generic address
    // that lands in local (or param) memory PTX leaves the result undefined.
    // The engine does it anyway, so this one does not stop the launch.
    if (e.op == sim::access_op::atomic && e.space != isa::space::global && e.space != isa::space::shared) {
        finding f = at_site(e.site);
        f.kind = "invalid-atomic";
        f.space = space_name(e.space);
        f.size = e.size;
        f.address = e.address;
        f.has_address = true;
        f.headline = fmt::format("Invalid atomic of size {} byte{} on __{}__ memory (atomics act on global and shared memory only)", e.size,
                                 e.size == 1 ? "" : "s", f.space);
        report_.add(std::move(f));
    }
}

void memcheck::device_malloc(const sim::malloc_event& e) {
    std::lock_guard lock(mutex_);
    if (e.address) {
        live_[e.address] = {e.size, at_site(e.site)};
        return;
    }
    if (e.size == 0) return; // malloc(0) may return NULL
    finding f = at_site(e.site);
    f.severity = "warning";
    f.kind = "malloc-failed";
    f.space = "global";
    f.size = static_cast<uint32_t>(std::min<uint64_t>(e.size, UINT32_MAX));
    f.headline = fmt::format("Device malloc of {} bytes returned NULL (the heap, cudaLimitMallocHeapSize, is exhausted)", e.size);
    report_.add(std::move(f));
}

void memcheck::device_free(const sim::free_event& e) {
    std::lock_guard lock(mutex_);
    if (!e.error.empty()) {
        if (!bad_free_) bad_free_ = e;
        return;
    }
    live_.erase(e.address);
}

void memcheck::launch_end(const sim::launch_event& e, const sim::launch_result& r) {
    std::lock_guard lock(mutex_);
    if (!r.fault) return;
    stopped_ = true;
    const sim::fault_report& fr = *r.fault;
    // Another checker ended the launch (synccheck at a bad barrier, or at a
    // deadlock it reports where each warp waits) and reported why itself.
    if (!fr.raised_by.empty()) return;
    finding f;
    // The failed access (or free) this fault reports: same thread and block.
    const sim::access_event* acc = nullptr;
    for (const auto& a : faulted_)
        if (same(a.site.block, fr.block) && same(a.site.thread, fr.thread)) acc = &a;
    if (acc) {
        f = at_site(acc->site);
        f.kind = fault_name(acc->fault); // the read/write/atomic is in the headline
        f.space = space_name(acc->space);
        f.size = acc->size;
        f.address = acc->address;
        f.has_address = true;
        f.headline = fmt::format("{} __{}__ {} of size {} byte{}{}", headline_name(acc->fault), f.space, op_name(acc->op), acc->size,
                                 acc->size == 1 ? "" : "s", acc->generic ? " (through a generic address)" : "");
    } else if (bad_free_ && same(bad_free_->site.block, fr.block) && same(bad_free_->site.thread, fr.thread)) {
        f = at_site(bad_free_->site);
        f.kind = bad_free_->error.find("double free") != std::string::npos ? "double-free" : "malloc-error";
        f.space = "global";
        f.address = bad_free_->address;
        f.has_address = true;
        f.headline = fmt::format("{} of device malloc memory", f.kind == "double-free" ? "Double free" : "Invalid free");
    } else {
        // Not a memory access: stack overflow, trap, assertion, deadlock, an
        // instruction the simulator lacks ... The launch stopped; say why.
        f.tool = "memcheck";
        f.kernel = fr.kernel.empty() ? e.kernel : fr.kernel;
        f.block = fr.block;
        f.thread = fr.thread;
        set_location(f, fr);
        f.kind = dashed(fr.kind);
        f.address = fr.address;
        f.has_address = fr.has_address;
        if (f.kind == "stack-overflow") {
            f.space = "local";
            f.has_address = false;
            f.headline = "Stack overflow";
        } else {
            f.headline = fmt::format("Kernel stopped: {}", fr.kind);
        }
    }
    if (!fr.message.empty()) f.details.push_back(fr.message);
    if (!fr.allocation.empty()) f.details.push_back(fr.allocation);
    report_.add(std::move(f));
}

void memcheck::finish() {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    for (const auto& [address, b] : live_) {
        finding f = b.where;
        f.kind = "leak";
        f.space = "global";
        f.address = address;
        f.has_address = true;
        f.size = static_cast<uint32_t>(std::min<uint64_t>(b.size, UINT32_MAX));
        f.headline = fmt::format("Leaked {} bytes at 0x{:x}: device malloc'd here and never freed", b.size, address);
        report_.add(std::move(f));
    }
    live_.clear();
}

} // namespace ptxsim::check
