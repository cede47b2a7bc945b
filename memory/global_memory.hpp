#pragma once
// The sparse 64-bit global address space and its exact allocation table.
//
// Addresses are handed out upwards from a high base (like CUDA's
// 0x7f...-style device pointers, never 0) and are never reused within one
// global_memory, so a dangling pointer always lands in a dead allocation,
// never in a newer live one. Every allocation is followed by an unmapped
// guard gap, so an overflow reads as "past the end of A" rather than
// silently inside B. Bounds are exact: the bytes requested, no padding.
//
// Each allocation owns one zero-filled host buffer (see
// detail/host_buffer.hpp): a checked access is one binary search plus a
// bounds test, and a translated pointer covers the whole allocation, so the
// engine's vector and bulk accesses never have to split at page edges.
// Sparseness comes from the host's lazy pages, not from bookkeeping here.
//
// Threads: allocate() and free() are called from one host thread while no
// access is in flight, or (device malloc, sim/device_heap.hpp) under a lock
// that keeps every reader of the table out; free(address, true) then keeps
// the host buffer until release_kept_storage(), so a pointer another thread
// translated before the free stays a valid host address. read/write/translate/check may run concurrently from
// many threads: they only read the table, so accesses to distinct bytes are
// safe (accesses to the same bytes are the kernel's own race).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memory/detail/host_buffer.hpp"
#include "memory/fault.hpp"

namespace ptxsim::memory {

struct global_memory_options {
    uint64_t base = 0x7f00'0000'0000;     // first address handed out
    uint64_t limit = 0x7fff'ffff'0000;    // no allocation reaches past this
    uint64_t guard_bytes = 64 * 1024;     // unmapped gap after every allocation
    uint64_t capacity_bytes = 0;          // cap on live bytes (the model's DRAM); 0: none
    // The window [base, limit) is host address space the owner reserved
    // (PROT_NONE) for this memory: allocate_host_visible() may then place
    // an allocation's storage at its own device address.
    bool window_reserved = false;
};

enum class free_status : uint8_t {
    ok,
    double_free,          // the allocation at this base was already freed
    not_allocation_base,  // inside an allocation (or its guard), but not its base
    unmapped,             // no allocation anywhere near
};

struct free_result {
    free_status status = free_status::ok;
    std::optional<allocation_info> allocation;  // freed, already dead, or the nearest one

    bool ok() const { return status == free_status::ok; }
};

std::string_view to_string(free_status s);
// e.g. "free of 0x7f0000000010: not the base of allocation #0 (256 bytes at 0x7f0000000000)"
std::string describe(const free_result& r, uint64_t address);

class global_memory {
public:
    explicit global_memory(global_memory_options options = {});

    // A new allocation of exactly `size` bytes at a multiple of `align` (a
    // power of two). Returns 0 when `align` is not a power of two, the
    // capacity or the address window is exhausted, or the host has no
    // memory. A zero-size allocation still gets its own address (and a
    // table row) but no byte of it is accessible.
    uint64_t allocate(uint64_t size, uint64_t align = 256, std::string label = {});
    // The same, with the host storage at the device address itself, so that
    // host code can use the pointer directly (CUDA's managed and mapped
    // memory). Needs options().window_reserved; 0 otherwise.
    uint64_t allocate_host_visible(uint64_t size, uint64_t align = 4096, std::string label = {});
    // An allocation at exactly `address` (a launch file replaying a
    // recorded program keeps its device addresses, so pointers stored in
    // its data stay valid). Addresses still only grow: 0 unless `address`
    // is at or above where the next allocation may go (past the previous
    // one's guard gap) and inside the window.
    uint64_t allocate_at(uint64_t address, uint64_t size, std::string label = {});
    // Moves the start of an empty memory's window down (or up) to `base`;
    // false once anything has been allocated.
    bool start_at(uint64_t base);
    // Frees the allocation whose base is `address`; 0 is a no-op, as
    // cudaFree(nullptr). The row stays (marked dead) for use-after-free.
    free_result free(uint64_t address, bool keep_storage = false);
    // Makes the dead allocation whose base is `address` live again, at the
    // same address with zeroed storage (a CUDA graph's allocation node
    // allocates its fixed address anew at each launch). False when no dead
    // allocation has that base, or the host has no memory.
    bool revive(uint64_t address);
    // Gives back the host buffers that free(…, true) kept.
    void release_kept_storage();

    // The allocation whose bytes contain `address`, alive or dead.
    std::optional<allocation_info> find(uint64_t address) const;
    // find(), or else the allocation closest to `address` (for reports).
    std::optional<allocation_info> nearest(uint64_t address) const;
    std::optional<allocation_info> info(uint32_t id) const;
    std::vector<allocation_info> live_allocations() const;
    size_t allocation_count() const { return ranges_.size(); }  // dead ones included
    uint64_t live_bytes() const { return live_bytes_; }
    const global_memory_options& options() const { return options_; }

    // One instruction's access of `size` bytes. `align` 0 means natural
    // alignment: `size` when it is a power of two, else 1. A zero-size
    // access always succeeds and touches nothing. On a fault nothing is
    // copied. Precedence: unmapped, use_after_free, out_of_bounds, misaligned.
    access_result read(uint64_t address, void* dst, uint64_t size, uint64_t align = 0) const;
    access_result write(uint64_t address, const void* src, uint64_t size, uint64_t align = 0);
    // The same verdict without copying.
    access_result check(uint64_t address, uint64_t size, uint64_t align, access_kind kind) const;

    // Bulk copies (cudaMemcpy, cudaMemset): no alignment, but the whole
    // range must lie in one live allocation.
    access_result copy_to_device(uint64_t dst, const void* src, uint64_t size);
    access_result copy_from_device(void* dst, uint64_t src, uint64_t size) const;
    access_result copy_device(uint64_t dst, uint64_t src, uint64_t size);
    access_result fill(uint64_t dst, uint8_t value, uint64_t size);

    // The hot path: the host address of [address, address + size) after the
    // same checks as check() (align 1 = none), or null when they fail (call
    // check() for the reason) and for size 0. The pointer stays valid until
    // the next allocate() or free(); this implementation keeps buffers in
    // place, but callers must not rely on more than the contract.
    std::byte* translate(uint64_t address, uint64_t size, uint64_t align = 1) const noexcept;

    // A place for per-byte shadow state kept outside this class (initcheck's
    // "written" bits, racecheck's last accessor): ids are dense and never
    // reused, so a checker indexes its shadows by id and sizes them from
    // allocation_info::size. Same checks as translate().
    struct location {
        uint32_t id;
        uint64_t offset;
    };
    std::optional<location> resolve(uint64_t address, uint64_t size) const noexcept;

private:
    // Hot, compact, sorted by base because bases only grow.
    struct range {
        uint64_t base;
        uint64_t size;
        std::byte* host;  // null when dead or empty
        bool alive;
    };
    // Cold, same index as ranges_.
    struct record {
        std::string label;
        detail::host_buffer storage;
    };

    uint64_t place(uint64_t size, uint64_t align, std::string label, bool host_visible, uint64_t at = 0);
    // Index of the last range with base <= address, or -1.
    ptrdiff_t index_at_or_below(uint64_t address) const noexcept;
    const range* live_range(uint64_t address, uint64_t size, uint64_t align) const noexcept;
    allocation_info info_at(size_t index) const;
    std::optional<allocation_info> nearest_to(uint64_t address) const;

    global_memory_options options_;
    std::vector<range> ranges_;
    std::vector<record> records_;
    uint64_t next_;        // lowest address the next allocation may use
    uint64_t live_bytes_ = 0;
    std::vector<size_t> kept_;  // dead rows whose storage free(…, true) kept
};

} // namespace ptxsim::memory
