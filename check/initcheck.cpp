#include "check/initcheck.hpp"

#include <fmt/format.h>

namespace ptxsim::check {
namespace {

// "byte 3", "bytes 1-3", "bytes 0-1 and 4-7", of the access (offsets from its first byte).
std::string describe_runs(const std::vector<std::pair<uint64_t, uint64_t>>& runs, uint64_t first) {
    std::string s;
    uint64_t total = 0;
    for (const auto& [at, n] : runs) total += n;
    s = total == 1 ? "byte " : "bytes ";
    const size_t shown = std::min<size_t>(runs.size(), 4);
    for (size_t i = 0; i < shown; ++i) {
        if (i) s += i + 1 == shown && shown == runs.size() ? " and " : ", ";
        const uint64_t lo = runs[i].first - first, hi = lo + runs[i].second - 1;
        s += lo == hi ? fmt::format("{}", lo) : fmt::format("{}-{}", lo, hi);
    }
    if (shown < runs.size()) s += fmt::format(" and {} more runs", runs.size() - shown);
    return s;
}

} // namespace

finding initcheck::at_site(const sim::event_site& s) const { return finding_at("initcheck", kernel_, locate_, s); }

void initcheck::launch_begin(const sim::launch_event& e) {
    std::lock_guard lock(mutex_);
    kernel_ = e.kernel;
    locate_ = e.locate;
    // Shared and local memory live as long as their CTA or thread: a new
    // launch starts with none written. Global memory keeps its bits.
    shared_.clear();
    local_.clear();
    cached_shared_ = cached_local_bits_ = nullptr;
    undefined_.clear();
}

void initcheck::instruction(const sim::instruction_event& e) {
    std::lock_guard lock(mutex_);
    // Named only when a value is used: locating every instruction would cost more than running it.
    auto where = [&] {
        if (!e.ins || !locate_ || !*locate_) return std::string("a later instruction");
        sim::fault_report r;
        (*locate_)(e.site.function_id, e.ins->pos, r);
        return r.source_file.empty() ? fmt::format("the instruction at {}:{}", r.ptx_file, r.ptx_line)
                                     : fmt::format("the instruction at {}:{} ({}:{})", r.ptx_file, r.ptx_line, r.source_file, r.source_line);
    };
    std::vector<finding> used;
    undefined_.instruction(e, used, where);
    for (auto& f : used) report_.add(std::move(f));
}

void initcheck::launch_end(const sim::launch_event&, const sim::launch_result&) {
    std::lock_guard lock(mutex_);
    undefined_.clear(); // values never used are never reported
}

void initcheck::host_allocate(const sim::host_memory_event& e) {
    std::lock_guard lock(mutex_);
    // Buffers are made before a launch file's first launch: device-malloc
    // blocks still tracked are a previous run's (schedule exploration runs
    // the launch file again), and so is anything where the new buffer lies.
    for (auto m = global_.begin(); m != global_.end();)
        m = m->second.what == "device-malloc block" ? global_.erase(m) : std::next(m);
    auto it = global_.lower_bound(e.address);
    if (it != global_.begin() && std::prev(it)->first + std::prev(it)->second.size > e.address) --it;
    while (it != global_.end() && it->first < e.address + e.size) it = global_.erase(it);
    region& r = global_[e.address];
    r.size = e.size;
    r.what = fmt::format("launch-file buffer '{}'", e.name);
}

void initcheck::host_write(const sim::host_memory_event& e) {
    std::lock_guard lock(mutex_);
    global_write(e.address, e.size);
}

void initcheck::device_malloc(const sim::malloc_event& e) {
    if (!e.address || !e.size) return;
    std::lock_guard lock(mutex_);
    region& r = global_[e.address];
    r = region{};
    r.size = e.size;
    r.what = "device-malloc block";
}

void initcheck::device_free(const sim::free_event& e) {
    if (!e.error.empty()) return; // memcheck's
    std::lock_guard lock(mutex_);
    auto it = global_.find(e.address);
    if (it != global_.end() && it->second.what == "device-malloc block") global_.erase(it);
}

void initcheck::call(const sim::call_event& e) {
    std::lock_guard lock(mutex_);
    auto t = local_.find(e.thread);
    if (t == local_.end()) return;
    t->second.erase(2 * (uint64_t{e.depth} + 1)); // the callee's frame (local_bits' segments)
    cached_local_bits_ = nullptr;
    if (auto s = t->second.find(1); s != t->second.end()) s->second.forget_from(e.stack_top);
}

void initcheck::global_write(uint64_t address, uint64_t size) {
    const uint64_t end = address + size;
    auto it = global_.upper_bound(address);
    if (it != global_.begin()) --it;
    for (; it != global_.end() && it->first < end; ++it) {
        const uint64_t lo = std::max(address, it->first), hi = std::min(end, it->first + it->second.size);
        if (lo < hi) it->second.bits.mark(lo - it->first, hi - lo);
    }
}

void initcheck::global_read(const sim::access_event& e) {
    const uint64_t address = e.offset, end = address + e.size;
    auto it = global_.upper_bound(address);
    if (it != global_.begin()) --it;
    for (; it != global_.end() && it->first < end; ++it) {
        const uint64_t lo = std::max(address, it->first), hi = std::min(end, it->first + it->second.size);
        if (lo >= hi) continue;
        auto runs = it->second.bits.unwritten(lo - it->first, hi - lo);
        if (runs.empty()) continue;
        for (auto& r : runs) r.first += it->first; // to addresses
        report_read(e, runs, address,
                    fmt::format("in the {} of {} bytes at 0x{:x}{}", it->second.what, it->second.size, it->first,
                                it->second.what == "device-malloc block" ? " (malloc does not initialise memory)"
                                                                         : " (without \"init\", a buffer is uninitialised, as after cudaMalloc)"));
        return; // one finding per access
    }
}

void initcheck::report_read(const sim::access_event& e, const std::vector<std::pair<uint64_t, uint64_t>>& runs, uint64_t base,
                            const std::string& where) {
    report_.add(read_finding(e, runs, base, where));
}

finding initcheck::read_finding(const sim::access_event& e, const std::vector<std::pair<uint64_t, uint64_t>>& runs, uint64_t base,
                                const std::string& where) const {
    finding f = at_site(e.site);
    f.kind = "uninitialized-read";
    f.space = space_name(e.space);
    f.size = e.size;
    f.address = e.address;
    f.has_address = true;
    const char* what = e.op == sim::access_op::atomic ? "atomic" : "read";
    f.headline = fmt::format("Uninitialized __{}__ memory {} of size {} byte{}{}", f.space, what, e.size, e.size == 1 ? "" : "s",
                             e.generic ? " (through a generic address)" : "");
    uint64_t missing = 0;
    for (const auto& r : runs) missing += r.second;
    f.details.push_back(missing == e.size ? fmt::format("none of the {} bytes was ever written", e.size)
                                          : fmt::format("{} of the {} bytes were never written: {}", missing, e.size,
                                                        describe_runs(runs, base)));
    f.details.push_back(where);
    return f;
}

// A load's value waits in its registers until something uses it
// (undefined_registers.hpp); other reads (atomics) are reported now.
void initcheck::read_or_defer(const sim::access_event& e, const std::vector<std::pair<uint64_t, uint64_t>>& runs, uint64_t base,
                              const std::string& where) {
    finding f = read_finding(e, runs, base, where);
    if (e.op == sim::access_op::load && undefined_.defers(e.site)) undefined_.loaded(e.site, std::move(f), base, runs);
    else report_.add(std::move(f));
}

// A write marks its bytes, except those of a stored value that was itself
// never written.
void initcheck::write_shadow(const sim::access_event& e, written_bytes& bits, uint64_t at) {
    bits.mark(at, e.size);
    if (e.op == sim::access_op::store)
        for (const auto& [from, n] : undefined_.undefined_bytes(e.site, e.size)) bits.unmark(at + from, n);
}

written_bytes& initcheck::local_bits(uint64_t thread, uint64_t offset, uint64_t& index) {
    constexpr uint64_t segment_bits = 31; // below: a frame (alloca'd bytes from 2^31); above: the call depth
    index = offset & ((1ull << segment_bits) - 1);
    const uint64_t segment = offset >> segment_bits;
    if (!cached_local_bits_ || cached_thread_ != thread || cached_segment_ != segment) {
        cached_local_bits_ = &local_[thread][segment];
        cached_thread_ = thread;
        cached_segment_ = segment;
    }
    return *cached_local_bits_;
}

void initcheck::access(const sim::access_event& e) {
    // memcheck reports faults; a probe reads no value; an asynchronous
    // copy's issue writes nothing yet (its landing does).
    if (e.fault != isa::fault_kind::none || !e.size || e.probe || e.async_issue) return;
    const bool reads = e.op != sim::access_op::store, writes = e.op != sim::access_op::load;
    std::lock_guard lock(mutex_);
    switch (e.space) {
    case isa::space::global:
        if (reads) global_read(e);
        if (writes) global_write(e.offset, e.size);
        break;
    case isa::space::shared: {
        if (!cached_shared_ || cached_cta_ != e.owner) {
            cached_shared_ = &shared_[e.owner];
            cached_cta_ = e.owner;
        }
        written_bytes& bits = *cached_shared_;
        if (reads) {
            auto runs = bits.unwritten(e.offset, e.size);
            if (!runs.empty())
                read_or_defer(e, runs, e.offset,
                              fmt::format("at offset {} of the shared memory of block ({},{},{}), which starts uninitialised",
                                          e.offset, e.site.block.x, e.site.block.y, e.site.block.z));
        }
        if (writes) write_shadow(e, bits, e.offset);
        break;
    }
    case isa::space::local: {
        uint64_t index = 0;
        written_bytes& bits = local_bits(e.owner, e.offset, index);
        if (reads) {
            auto runs = bits.unwritten(index, e.size);
            if (!runs.empty())
                read_or_defer(e, runs, index,
                              e.offset >> 31 == 1
                                  ? fmt::format("at offset {} of the thread's alloca'd stack, which starts uninitialised", index)
                                  : fmt::format("at offset {} of the thread's local frame (call depth {}), which starts uninitialised",
                                                index, (e.offset >> 32) - 1));
        }
        if (writes) write_shadow(e, bits, index);
        break;
    }
    default: break; // param and const memory are initialised by definition
    }
}

} // namespace ptxsim::check
