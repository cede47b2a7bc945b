#pragma once
// MD2 (RFC 1319) and HMAC-MD2 (RFC 2104 with MD2's 16-byte block). The
// CUDA runtime checks its driver with an HMAC-MD2 of the process's details
// (integrity_check.cpp); nothing else here uses it.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace ptxsim::cuda::driver {

class md2 {
public:
    void update(std::span<const uint8_t> bytes);
    std::array<uint8_t, 16> finish();  // the digest; the object is spent

private:
    void compress();
    std::array<uint8_t, 48> x_{};        // state, block, state ^ block
    std::array<uint8_t, 16> checksum_{};
    uint8_t last_ = 0;                   // the last checksum byte written
    size_t count_ = 0;                   // bytes of the current block
};

std::array<uint8_t, 16> hmac_md2(std::span<const uint8_t, 16> key, std::span<const uint8_t> message);

} // namespace ptxsim::cuda::driver
