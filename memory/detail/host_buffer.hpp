#pragma once
// Zero-filled host storage for one allocation. Large buffers are anonymous
// mappings reserved without commit, so the kernel's address space costs
// only the pages actually touched and untouched bytes read as zero for free.
#include <cstddef>
#include <cstdint>
#include <optional>

namespace ptxsim::memory::detail {

class host_buffer {
public:
    host_buffer() = default;
    // Empty when the host cannot provide `size` bytes of address space.
    static std::optional<host_buffer> zeroed(uint64_t size);
    // Zero-filled storage at exactly `at` (page-aligned), which must lie in
    // address space the caller reserved with PROT_NONE: the pages are made
    // accessible, and given back to the reservation (PROT_NONE again, not
    // unmapped) when the buffer goes.
    static std::optional<host_buffer> placed(void* at, uint64_t size);

    host_buffer(host_buffer&& o) noexcept { swap(o); }
    host_buffer& operator=(host_buffer&& o) noexcept {
        host_buffer tmp(std::move(o));
        swap(tmp);
        return *this;
    }
    host_buffer(const host_buffer&) = delete;
    host_buffer& operator=(const host_buffer&) = delete;
    ~host_buffer();

    std::byte* data() const { return data_; }
    uint64_t size() const { return size_; }

private:
    void swap(host_buffer& o) noexcept;

    std::byte* data_ = nullptr;
    uint64_t size_ = 0;
    bool mapped_ = false;
    bool placed_ = false;
};

} // namespace ptxsim::memory::detail
