#pragma once
// A 64-bit hash of machine state, for the engine's livelock test (a warp
// back in a state it was in, with global memory unchanged): the engine
// hashes warps and CTAs, the global port the live allocations' bytes.
// Collisions only matter as a false "same state"; the mixing is a
// multiply-xorshift over eight bytes at a time, FNV-1a for the tail.
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ptxsim::sim {

inline constexpr uint64_t state_hash_seed = 1469598103934665603ull;

inline uint64_t hash_bytes(uint64_t h, const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        std::memcpy(&w, b + i, 8);
        h = (h ^ w) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 29;
    }
    for (; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

} // namespace ptxsim::sim
