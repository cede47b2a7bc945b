#include "cuda/driver/jit_options.hpp"

#include "cuda/driver/cu.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace ptxsim::cuda::driver {
namespace {

unsigned as_unsigned(void* v) { return static_cast<unsigned>(reinterpret_cast<uintptr_t>(v)); }

void write_log(char* buffer, unsigned capacity, void** size_slot, const std::string& text) {
    size_t used = 0;
    if (buffer && capacity) {
        used = std::min<size_t>(text.size(), capacity - 1);
        std::memcpy(buffer, text.data(), used);
        buffer[used] = '\0';
    }
    if (size_slot) *size_slot = reinterpret_cast<void*>(static_cast<uintptr_t>(used));
}

} // namespace

jit_options read_jit_options(unsigned n, const void* options, void** values) {
    jit_options o;
    if (!options || !values) return o;
    const int* opt = static_cast<const int*>(options);
    for (unsigned i = 0; i < n; ++i) {
        switch (opt[i]) {
        case CU_JIT_WALL_TIME: o.wall_time = &values[i]; break;
        case CU_JIT_INFO_LOG_BUFFER: o.info_log = static_cast<char*>(values[i]); break;
        case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
            o.info_capacity = as_unsigned(values[i]);
            o.info_size = &values[i];
            break;
        case CU_JIT_ERROR_LOG_BUFFER: o.error_log = static_cast<char*>(values[i]); break;
        case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
            o.error_capacity = as_unsigned(values[i]);
            o.error_size = &values[i];
            break;
        default: break; // compiler settings: nothing to do for interpreted PTX
        }
    }
    return o;
}

void write_jit_results(const jit_options& o, const std::string& info, const std::string& error, double milliseconds) {
    write_log(o.info_log, o.info_capacity, o.info_size, info);
    write_log(o.error_log, o.error_capacity, o.error_size, error);
    if (o.wall_time) {
        const float ms = static_cast<float>(milliseconds);
        std::memcpy(o.wall_time, &ms, sizeof ms);
    }
}

} // namespace ptxsim::cuda::driver
