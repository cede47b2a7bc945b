#include "memory/global_memory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>

namespace ptxsim::memory {

namespace {

bool is_power_of_two(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// PTX accesses are naturally aligned to their width.
uint64_t effective_align(uint64_t align, uint64_t size) {
    if (align) return align;
    return is_power_of_two(size) ? size : 1;
}

} // namespace

std::string_view to_string(free_status s) {
    switch (s) {
    case free_status::ok: return "ok";
    case free_status::double_free: return "double free";
    case free_status::not_allocation_base: return "invalid free";
    case free_status::unmapped: return "invalid free";
    }
    return "";
}

std::string describe(const free_result& r, uint64_t address) {
    std::string head = fmt::format("free of {:#x}", address);
    switch (r.status) {
    case free_status::ok:
        return r.allocation ? fmt::format("{}: freed {}", head, describe(*r.allocation)) : head + ": ok (null)";
    case free_status::double_free:
        return fmt::format("{}: double free of {}", head, describe(*r.allocation));
    case free_status::not_allocation_base:
        if (r.allocation && address > r.allocation->base && address < r.allocation->end())
            return fmt::format("{}: not the base of {}", head, describe(*r.allocation));
        return fmt::format("{}: not the base of any allocation; nearest is {}", head,
                           r.allocation ? describe(*r.allocation) : "none");
    case free_status::unmapped:
        return head + ": not an allocated address";
    }
    return head;
}

global_memory::global_memory(global_memory_options options) : options_(options), next_(options.base) {}

uint64_t global_memory::allocate(uint64_t size, uint64_t align, std::string label) {
    return place(size, align, std::move(label), false);
}

uint64_t global_memory::allocate_host_visible(uint64_t size, uint64_t align, std::string label) {
    if (!options_.window_reserved || !is_power_of_two(align)) return 0;
    return place(size, std::max<uint64_t>(align, 4096), std::move(label), true);
}

uint64_t global_memory::allocate_at(uint64_t address, uint64_t size, std::string label) {
    if (address < next_ || address == 0) return 0;
    return place(size, 1, std::move(label), false, address);
}

bool global_memory::start_at(uint64_t base) {
    if (!ranges_.empty() || base == 0 || base >= options_.limit) return false;
    options_.base = next_ = base;
    return true;
}

uint64_t global_memory::place(uint64_t size, uint64_t align, std::string label, bool host_visible, uint64_t at) {
    if (!is_power_of_two(align)) return 0;
    if (ranges_.size() >= std::numeric_limits<uint32_t>::max()) return 0;
    if (options_.capacity_bytes && size > options_.capacity_bytes - std::min(live_bytes_, options_.capacity_bytes))
        return 0;
    uint64_t base = at ? at : (next_ + (align - 1)) & ~(align - 1);
    if (base < next_ || base == 0) return 0;  // wrapped
    // A zero-size allocation still occupies one address, so bases are unique.
    uint64_t span = std::max<uint64_t>(size, 1);
    if (host_visible) span = (span + 4095) / 4096 * 4096;  // the pages the storage covers
    if (base > options_.limit || span > options_.limit - base) return 0;
    auto storage = host_visible ? detail::host_buffer::placed(reinterpret_cast<void*>(base), size)
                                : detail::host_buffer::zeroed(size);
    if (!storage) return 0;

    ranges_.push_back({base, size, storage->data(), true});
    records_.push_back({std::move(label), std::move(*storage)});
    uint64_t end = base + span;
    next_ = options_.guard_bytes > options_.limit - end ? options_.limit : end + options_.guard_bytes;
    live_bytes_ += size;
    return base;
}

free_result global_memory::free(uint64_t address, bool keep_storage) {
    if (address == 0) return {};
    ptrdiff_t i = index_at_or_below(address);
    if (i >= 0 && ranges_[size_t(i)].base == address) {
        range& r = ranges_[size_t(i)];
        if (!r.alive) return {free_status::double_free, info_at(size_t(i))};
        r.alive = false;
        r.host = nullptr;
        if (keep_storage) kept_.push_back(size_t(i));
        else records_[size_t(i)].storage = {};  // give the host memory back; the row stays
        live_bytes_ -= r.size;
        return {free_status::ok, info_at(size_t(i))};
    }
    if (ranges_.empty() || address < options_.base || address >= next_) return {free_status::unmapped, {}};
    return {free_status::not_allocation_base, nearest_to(address)};
}

bool global_memory::revive(uint64_t address) {
    ptrdiff_t i = index_at_or_below(address);
    if (i < 0 || ranges_[size_t(i)].base != address || ranges_[size_t(i)].alive) return false;
    range& r = ranges_[size_t(i)];
    auto storage = detail::host_buffer::zeroed(r.size);
    if (!storage) return false;
    kept_.erase(std::remove(kept_.begin(), kept_.end(), size_t(i)), kept_.end());
    r.host = storage->data();
    r.alive = true;
    records_[size_t(i)].storage = std::move(*storage);
    live_bytes_ += r.size;
    return true;
}

void global_memory::release_kept_storage() {
    for (size_t i : kept_) records_[i].storage = {};
    kept_.clear();
}

ptrdiff_t global_memory::index_at_or_below(uint64_t address) const noexcept {
    auto it = std::upper_bound(ranges_.begin(), ranges_.end(), address,
                               [](uint64_t a, const range& r) { return a < r.base; });
    return (it - ranges_.begin()) - 1;
}

allocation_info global_memory::info_at(size_t i) const {
    const range& r = ranges_[i];
    return {uint32_t(i), r.base, r.size, r.alive, records_[i].label};
}

std::optional<allocation_info> global_memory::find(uint64_t address) const {
    ptrdiff_t i = index_at_or_below(address);
    if (i < 0) return std::nullopt;
    const range& r = ranges_[size_t(i)];
    if (address - r.base >= r.size) return std::nullopt;
    return info_at(size_t(i));
}

std::optional<allocation_info> global_memory::nearest(uint64_t address) const {
    if (auto hit = find(address)) return hit;
    return nearest_to(address);
}

std::optional<allocation_info> global_memory::nearest_to(uint64_t address) const {
    if (ranges_.empty()) return std::nullopt;
    ptrdiff_t i = index_at_or_below(address);
    if (i < 0) return info_at(0);
    size_t below = size_t(i);
    if (below + 1 == ranges_.size()) return info_at(below);
    const range& lo = ranges_[below];
    const range& hi = ranges_[below + 1];
    uint64_t past_lo = address >= lo.base + lo.size ? address - (lo.base + lo.size) : 0;
    uint64_t before_hi = hi.base - address;
    return info_at(before_hi < past_lo ? below + 1 : below);
}

std::optional<allocation_info> global_memory::info(uint32_t id) const {
    if (id >= ranges_.size()) return std::nullopt;
    return info_at(id);
}

std::vector<allocation_info> global_memory::live_allocations() const {
    std::vector<allocation_info> out;
    for (size_t i = 0; i < ranges_.size(); ++i)
        if (ranges_[i].alive) out.push_back(info_at(i));
    return out;
}

access_result global_memory::check(uint64_t address, uint64_t size, uint64_t align, access_kind kind) const {
    access_result r{fault_kind::none, kind, address, size, effective_align(align, size), std::nullopt};
    if (size == 0) return r;
    ptrdiff_t i = index_at_or_below(address);
    if (i >= 0) {
        const range& g = ranges_[size_t(i)];
        uint64_t offset = address - g.base;
        if (offset < g.size) {
            r.allocation = info_at(size_t(i));
            if (!g.alive)
                r.fault = fault_kind::use_after_free;
            else if (size > g.size - offset)
                r.fault = fault_kind::out_of_bounds;
            else if (address & (r.align - 1))
                r.fault = fault_kind::misaligned;
            return r;
        }
    }
    if (ranges_.empty() || address < options_.base || address >= next_) {
        r.fault = fault_kind::unmapped;
        return r;
    }
    // In a guard or alignment gap: close enough to name the allocation.
    r.fault = fault_kind::out_of_bounds;
    r.allocation = nearest_to(address);
    return r;
}

const global_memory::range* global_memory::live_range(uint64_t address, uint64_t size,
                                                      uint64_t align) const noexcept {
    ptrdiff_t i = index_at_or_below(address);
    if (i < 0) return nullptr;
    const range& g = ranges_[size_t(i)];
    uint64_t offset = address - g.base;
    if (!g.host || offset >= g.size || size > g.size - offset) return nullptr;
    if (address & (effective_align(align, size) - 1)) return nullptr;
    return &g;
}

std::byte* global_memory::translate(uint64_t address, uint64_t size, uint64_t align) const noexcept {
    if (size == 0) return nullptr;
    const range* g = live_range(address, size, align);
    return g ? g->host + (address - g->base) : nullptr;
}

std::optional<global_memory::location> global_memory::resolve(uint64_t address, uint64_t size) const noexcept {
    if (size == 0) return std::nullopt;
    const range* g = live_range(address, size, 1);
    if (!g) return std::nullopt;
    return location{uint32_t(g - ranges_.data()), address - g->base};
}

access_result global_memory::read(uint64_t address, void* dst, uint64_t size, uint64_t align) const {
    if (std::byte* p = translate(address, size, effective_align(align, size))) {
        std::memcpy(dst, p, size_t(size));
        return {fault_kind::none, access_kind::read, address, size, effective_align(align, size), std::nullopt};
    }
    return check(address, size, align, access_kind::read);
}

access_result global_memory::write(uint64_t address, const void* src, uint64_t size, uint64_t align) {
    if (std::byte* p = translate(address, size, effective_align(align, size))) {
        std::memcpy(p, src, size_t(size));
        return {fault_kind::none, access_kind::write, address, size, effective_align(align, size), std::nullopt};
    }
    return check(address, size, align, access_kind::write);
}

access_result global_memory::copy_to_device(uint64_t dst, const void* src, uint64_t size) {
    return write(dst, src, size, 1);
}

access_result global_memory::copy_from_device(void* dst, uint64_t src, uint64_t size) const {
    return read(src, dst, size, 1);
}

access_result global_memory::copy_device(uint64_t dst, uint64_t src, uint64_t size) {
    if (size == 0) return check(dst, 0, 1, access_kind::write);
    const std::byte* from = translate(src, size, 1);
    if (!from) return check(src, size, 1, access_kind::read);
    std::byte* to = translate(dst, size, 1);
    if (!to) return check(dst, size, 1, access_kind::write);
    std::memmove(to, from, size_t(size));  // both may lie in one allocation
    return check(dst, size, 1, access_kind::write);
}

access_result global_memory::fill(uint64_t dst, uint8_t value, uint64_t size) {
    if (std::byte* p = translate(dst, size, 1)) std::memset(p, value, size_t(size));
    return check(dst, size, 1, access_kind::write);
}

} // namespace ptxsim::memory
