#include "cuda/driver/md2.hpp"

#include <vector>

namespace ptxsim::cuda::driver {
namespace {

// RFC 1319's permutation of 0..255 (built from the digits of pi).
constexpr uint8_t pi_subst[256] = {
    41,  46,  67,  201, 162, 216, 124, 1,   61,  54,  84,  161, 236, 240, 6,   19,  98,  167, 5,   243, 192, 199,
    115, 140, 152, 147, 43,  217, 188, 76,  130, 202, 30,  155, 87,  60,  253, 212, 224, 22,  103, 66,  111, 24,
    138, 23,  229, 18,  190, 78,  196, 214, 218, 158, 222, 73,  160, 251, 245, 142, 187, 47,  238, 122, 169, 104,
    121, 145, 21,  178, 7,   63,  148, 194, 16,  137, 11,  34,  95,  33,  128, 127, 93,  154, 90,  144, 50,  39,
    53,  62,  204, 231, 191, 247, 151, 3,   255, 25,  48,  179, 72,  165, 181, 209, 215, 94,  146, 42,  172, 86,
    170, 198, 79,  184, 56,  210, 150, 164, 125, 182, 118, 252, 107, 226, 156, 116, 4,   241, 69,  157, 112, 89,
    100, 113, 135, 32,  134, 91,  207, 101, 230, 45,  168, 2,   27,  96,  37,  173, 174, 176, 185, 246, 28,  70,
    97,  105, 52,  64,  126, 15,  85,  71,  163, 35,  221, 81,  175, 58,  195, 92,  249, 206, 186, 197, 234, 38,
    44,  83,  13,  110, 133, 40,  132, 9,   211, 223, 205, 244, 65,  129, 77,  82,  106, 220, 55,  200, 108, 193,
    171, 250, 36,  225, 123, 8,   12,  189, 177, 74,  120, 136, 149, 139, 227, 99,  232, 109, 233, 203, 213, 254,
    59,  0,   29,  57,  242, 239, 183, 14,  102, 88,  208, 228, 166, 119, 114, 248, 235, 117, 75,  10,  49,  68,
    80,  180, 143, 237, 31,  26,  219, 153, 141, 51,  159, 17,  131, 20};

} // namespace

void md2::compress() {
    uint8_t t = 0;
    for (int round = 0; round < 18; ++round) {
        for (uint8_t& b : x_) t = b ^= pi_subst[t];
        t = uint8_t(t + round);
    }
}

void md2::update(std::span<const uint8_t> bytes) {
    for (uint8_t b : bytes) {
        x_[16 + count_] = b;
        x_[32 + count_] = x_[count_] ^ b;
        last_ = checksum_[count_] ^= pi_subst[b ^ last_];
        if (++count_ == 16) {
            compress();
            count_ = 0;
        }
    }
}

std::array<uint8_t, 16> md2::finish() {
    const uint8_t pad = uint8_t(16 - count_);
    std::vector<uint8_t> padding(pad, pad);
    update(padding);
    const std::array<uint8_t, 16> c = checksum_;
    update(c);
    std::array<uint8_t, 16> digest;
    for (int i = 0; i < 16; ++i) digest[i] = x_[i];
    return digest;
}

std::array<uint8_t, 16> hmac_md2(std::span<const uint8_t, 16> key, std::span<const uint8_t> message) {
    std::array<uint8_t, 16> pad;
    md2 inner;
    for (int i = 0; i < 16; ++i) pad[i] = key[i] ^ 0x36;
    inner.update(pad);
    inner.update(message);
    const auto inner_digest = inner.finish();
    md2 outer;
    for (int i = 0; i < 16; ++i) pad[i] = key[i] ^ 0x5c;
    outer.update(pad);
    outer.update(inner_digest);
    return outer.finish();
}

} // namespace ptxsim::cuda::driver
