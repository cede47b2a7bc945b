#pragma once
// Bump allocator for AST nodes. Every node type stored here is trivially
// destructible (spans of other arena nodes, integers, symbol ids), so the
// arena frees whole blocks and never runs destructors. This keeps the AST of
// a multi-megabyte PTX file within a few bytes per source byte.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

namespace ptxsim::parser {

// A read-only array that lives in an arena. 12 bytes of payload, no owner.
template <class T>
struct list {
    const T* data_ = nullptr;
    uint32_t size_ = 0;

    const T* begin() const { return data_; }
    const T* end() const { return data_ + size_; }
    uint32_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    const T& operator[](uint32_t i) const { return data_[i]; }
    const T& front() const { return data_[0]; }
    const T& back() const { return data_[size_ - 1]; }
};

class arena {
public:
    arena() = default;
    arena(const arena&) = delete;
    arena& operator=(const arena&) = delete;
    arena(arena&&) = default;
    arena& operator=(arena&&) = default;

    void* allocate(size_t bytes, size_t align) {
        size_t p = (used_ + align - 1) & ~(align - 1);
        if (blocks_.empty() || p + bytes > capacity_) {
            size_t cap = (bytes + align + block_size - 1) / block_size * block_size;
            blocks_.push_back(block(allocate_block(cap), cap));
            capacity_ = cap;
            p = 0;
            // Blocks are page-aligned; that is enough for AST nodes.
        }
        used_ = p + bytes;
        total_ += bytes;
        return blocks_.back().get() + p;
    }

    template <class T>
    list<T> copy(std::span<const T> items) {
        static_assert(std::is_trivially_destructible_v<T>, "arena nodes must be trivially destructible");
        if (items.empty()) return {};
        T* out = static_cast<T*>(allocate(sizeof(T) * items.size(), alignof(T)));
        std::uninitialized_copy(items.begin(), items.end(), out);
        return {out, static_cast<uint32_t>(items.size())};
    }
    template <class T>
    list<T> copy(const std::vector<T>& v) { return copy(std::span<const T>(v)); }

    template <class T>
    const T* make(const T& value) {
        static_assert(std::is_trivially_destructible_v<T>, "arena nodes must be trivially destructible");
        return new (allocate(sizeof(T), alignof(T))) T(value);
    }

    // Bytes handed out (for memory benchmarks).
    size_t bytes_used() const { return total_; }

private:
    // 2 MiB: one transparent huge page. A 10 MB file's AST is about 60 MB;
    // in 4 KiB pages that is 15,000 first-touch page faults, which cost a
    // quarter of the parse time on a virtual machine (perf, issue 14).
    static constexpr size_t block_size = 2 << 20;

    // Whole-page blocks, hinted as huge pages where the OS supports it.
    static std::byte* allocate_block(size_t bytes);
    static void free_block(std::byte* p, size_t bytes);
    struct block_deleter {
        size_t bytes;
        void operator()(std::byte* p) const { free_block(p, bytes); }
    };
    using block_ptr = std::unique_ptr<std::byte[], block_deleter>;
    static block_ptr block(std::byte* p, size_t bytes) { return block_ptr(p, block_deleter{bytes}); }
    std::vector<block_ptr> blocks_;
    size_t used_ = 0, capacity_ = 0, total_ = 0;
};

} // namespace ptxsim::parser
