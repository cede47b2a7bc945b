// Arena blocks come straight from mmap so that they can be hinted as
// transparent huge pages: the kernel then faults in 2 MiB at a time instead
// of 4 KiB. Without mmap (non-POSIX hosts) plain operator new is used.
#include "parser/arena.hpp"

#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace ptxsim::parser {

std::byte* arena::allocate_block(size_t bytes) {
#if defined(__linux__)
    // Over-allocate by one huge page so the block can start on a 2 MiB
    // boundary (THP only backs aligned ranges), then return the slack.
    size_t span = bytes + block_size;
    void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) throw std::bad_alloc();
    auto base = reinterpret_cast<uintptr_t>(raw);
    uintptr_t aligned = (base + block_size - 1) & ~(uintptr_t(block_size) - 1);
    if (aligned > base) munmap(raw, aligned - base);
    uintptr_t end = base + span, used_end = aligned + bytes;
    if (end > used_end) munmap(reinterpret_cast<void*>(used_end), end - used_end);
    madvise(reinterpret_cast<void*>(aligned), bytes, MADV_HUGEPAGE); // a hint; failure is harmless
    return reinterpret_cast<std::byte*>(aligned);
#else
    return static_cast<std::byte*>(::operator new(bytes, std::align_val_t(4096)));
#endif
}

void arena::free_block(std::byte* p, size_t bytes) {
#if defined(__linux__)
    munmap(p, bytes);
#else
    (void)bytes;
    ::operator delete(p, std::align_val_t(4096));
#endif
}

} // namespace ptxsim::parser
