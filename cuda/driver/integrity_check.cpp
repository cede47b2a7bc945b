#include "cuda/driver/integrity_check.hpp"

#include <pthread.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "cuda/driver/api.hpp"
#include "cuda/driver/md2.hpp"

extern "C" {
int cuDeviceGetCount(int* count);
int cuDeviceGetUuid_v2(ptxsim::cuda::driver::CUuuid* uuid, int dev);
int cuDeviceGetAttribute(int* value, int attribute, int dev);
}

namespace ptxsim::cuda::driver {
namespace {

constexpr uint8_t key[16] = {0x14, 0x6A, 0xDD, 0xAE, 0x53, 0xA9, 0xA7, 0x52,
                             0xAA, 0x08, 0x41, 0x36, 0x0B, 0xF5, 0x5A, 0x9F};

// The fields in the order (and with the padding) of the C struct hashed.
struct process_fields {
    uint32_t driver_version;
    uint32_t version;
    uint32_t process;
    uint32_t thread;
    const void* cudart_table;
    const void* integrity_table;
    const void* function;
    uint64_t unix_seconds;
};

struct device_fields {
    CUuuid uuid;
    int32_t pci_domain, pci_bus, pci_device;
};

template <class T>
void append(std::vector<uint8_t>& out, const T& value) {
    const auto* p = reinterpret_cast<const uint8_t*>(&value);
    out.insert(out.end(), p, p + sizeof value);
}

} // namespace

int integrity_check(uint32_t version, uint64_t unix_seconds, uint64_t (*result)[2], const void* cudart_table,
                    const void* integrity_table, const void* function) {
    if (!result) return CUDA_ERROR_INVALID_VALUE;
    // Two old versions of the check expect constants.
    if (version % 10 == 0 || version % 10 == 1) {
        (*result)[0] = version % 10 == 0 ? 0x3341181C03CB675Cull : 0x1841181C03CB675Cull;
        (*result)[1] = 0x8ED383AA1F4CD1E8ull;
        return CUDA_SUCCESS;
    }
    std::vector<uint8_t> message;
    process_fields p{};
    p.driver_version = uint32_t(driver_version);
    p.version = version;
    p.process = uint32_t(getpid());
    p.thread = uint32_t(pthread_self());
    p.cudart_table = cudart_table;
    p.integrity_table = integrity_table;
    p.function = function;
    p.unix_seconds = unix_seconds;
    append(message, p);
    int count = 0;
    if (int r = cuDeviceGetCount(&count)) return r;
    for (int dev = 0; dev < count; ++dev) {
        device_fields d{};
        if (int r = cuDeviceGetUuid_v2(&d.uuid, dev)) return r;
        if (int r = cuDeviceGetAttribute(&d.pci_domain, 50, dev)) return r;  // PCI_DOMAIN_ID
        if (int r = cuDeviceGetAttribute(&d.pci_bus, 33, dev)) return r;     // PCI_BUS_ID
        if (int r = cuDeviceGetAttribute(&d.pci_device, 34, dev)) return r;  // PCI_DEVICE_ID
        append(message, d);
    }
    const auto digest = hmac_md2(std::span<const uint8_t, 16>(key), message);
    std::memcpy(*result, digest.data(), 16);
    return CUDA_SUCCESS;
}

} // namespace ptxsim::cuda::driver
