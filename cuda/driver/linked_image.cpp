#include "cuda/driver/linked_image.hpp"

#include <cstdint>
#include <cstring>

namespace ptxsim::cuda::driver {
namespace {

// NUL-terminated, so telling it from PTX text stops at the text's own end.
constexpr char tag[] = "ptxsim-linked-ptx";

} // namespace

std::string make_linked_image(const std::vector<std::string>& ptx) {
    std::string out(tag, sizeof tag);
    const auto count = static_cast<uint32_t>(ptx.size());
    out.append(reinterpret_cast<const char*>(&count), sizeof count);
    for (const auto& p : ptx) {
        const auto n = static_cast<uint64_t>(p.size());
        out.append(reinterpret_cast<const char*>(&n), sizeof n);
        out += p;
    }
    return out;
}

bool read_linked_image(const void* image, std::vector<std::string>& ptx) {
    const char* at = static_cast<const char*>(image);
    if (std::strncmp(at, tag, sizeof tag) != 0) return false;
    at += sizeof tag;
    uint32_t count;
    std::memcpy(&count, at, sizeof count);
    at += sizeof count;
    ptx.clear();
    for (uint32_t i = 0; i < count; ++i) {
        uint64_t n;
        std::memcpy(&n, at, sizeof n);
        at += sizeof n;
        ptx.emplace_back(at, n);
        at += n;
    }
    return true;
}

} // namespace ptxsim::cuda::driver
