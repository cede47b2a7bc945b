#pragma once
// initcheck's shadow of one piece of memory: a bit per byte saying whether
// anything wrote it. Offsets start at 0; the bitmap grows to the highest
// byte marked, so a CTA's shared memory or a thread's frame costs only what
// it touched.
#include <cstdint>
#include <utility>
#include <vector>

namespace ptxsim::check {

class written_bytes {
public:
    void mark(uint64_t offset, uint64_t size);
    bool written(uint64_t offset) const {
        return offset / 64 < words_.size() && (words_[offset / 64] >> (offset % 64) & 1);
    }
    // The runs [first, first + count) of bytes in [offset, offset + size)
    // that were never marked, in order; empty when all were.
    std::vector<std::pair<uint64_t, uint64_t>> unwritten(uint64_t offset, uint64_t size) const;
    void clear() { words_.clear(); }
    // The bytes hold no written value again (a store of a value that was
    // itself never written: undefined_registers.hpp).
    void unmark(uint64_t offset, uint64_t size);
    // Every byte from `offset` up is unwritten again.
    void forget_from(uint64_t offset);

private:
    std::vector<uint64_t> words_;
};

} // namespace ptxsim::check
