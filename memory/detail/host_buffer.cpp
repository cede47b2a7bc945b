#include "memory/detail/host_buffer.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <limits>
#include <utility>

namespace ptxsim::memory::detail {

namespace {
// Below this a mapping's page rounding and system call cost more than the
// pages it saves; calloc is zeroed and cheap.
constexpr uint64_t map_threshold = 64 * 1024;
} // namespace

std::optional<host_buffer> host_buffer::zeroed(uint64_t size) {
    host_buffer b;
    if (size == 0) return b;
    if (size > std::numeric_limits<size_t>::max() / 2) return std::nullopt;
    if (size < map_threshold) {
        b.data_ = static_cast<std::byte*>(std::calloc(1, size_t(size)));
    } else {
        void* p = ::mmap(nullptr, size_t(size), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                         -1, 0);
        b.data_ = p == MAP_FAILED ? nullptr : static_cast<std::byte*>(p);
        b.mapped_ = true;
    }
    if (!b.data_) return std::nullopt;
    b.size_ = size;
    return b;
}

std::optional<host_buffer> host_buffer::placed(void* at, uint64_t size) {
    host_buffer b;
    if (size == 0) return b;
    const uint64_t page = 4096;
    const uint64_t span = (size + page - 1) / page * page;
    if (reinterpret_cast<uintptr_t>(at) % page || span < size) return std::nullopt;
    void* p = ::mmap(at, size_t(span), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
                     -1, 0);
    if (p != at) return std::nullopt;
    b.data_ = static_cast<std::byte*>(p);
    b.size_ = span;
    b.mapped_ = b.placed_ = true;
    return b;
}

host_buffer::~host_buffer() {
    if (!data_) return;
    if (placed_)
        ::mmap(data_, size_t(size_), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    else if (mapped_)
        ::munmap(data_, size_t(size_));
    else
        std::free(data_);
}

void host_buffer::swap(host_buffer& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(mapped_, o.mapped_);
    std::swap(placed_, o.placed_);
}

} // namespace ptxsim::memory::detail
