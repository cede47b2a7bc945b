#include "check/written_bytes.hpp"

namespace ptxsim::check {

void written_bytes::mark(uint64_t offset, uint64_t size) {
    if (!size) return;
    const uint64_t end = offset + size;
    if ((end + 63) / 64 > words_.size()) words_.resize((end + 63) / 64, 0);
    for (uint64_t at = offset; at < end;) {
        const uint64_t bit = at % 64, n = std::min<uint64_t>(64 - bit, end - at);
        words_[at / 64] |= (n == 64 ? ~0ull : ((1ull << n) - 1)) << bit;
        at += n;
    }
}

void written_bytes::unmark(uint64_t offset, uint64_t size) {
    for (uint64_t at = offset; at < offset + size && at / 64 < words_.size(); ++at) words_[at / 64] &= ~(1ull << (at % 64));
}

void written_bytes::forget_from(uint64_t offset) {
    if (offset / 64 >= words_.size()) return;
    words_.resize((offset + 63) / 64);
    if (offset % 64) words_.back() &= (1ull << (offset % 64)) - 1;
}

std::vector<std::pair<uint64_t, uint64_t>> written_bytes::unwritten(uint64_t offset, uint64_t size) const {
    std::vector<std::pair<uint64_t, uint64_t>> runs;
    const uint64_t end = offset + size;
    for (uint64_t at = offset; at < end; ++at) {
        // Whole words at once when the access is large (bulk copies, TMA).
        if (at % 64 == 0 && end - at >= 64 && at / 64 < words_.size() && words_[at / 64] == ~0ull) {
            at += 63;
            continue;
        }
        if (written(at)) continue;
        if (!runs.empty() && runs.back().first + runs.back().second == at) ++runs.back().second;
        else runs.emplace_back(at, 1);
    }
    return runs;
}

} // namespace ptxsim::check
