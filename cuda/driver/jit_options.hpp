#pragma once
// The JIT options a program gives cuModuleLoadDataEx, cuLibraryLoadData and
// cuLinkCreate (CUjit_option): ptxsim interprets PTX, so the compiler's
// settings change nothing, but the outputs are the program's to read: the
// info and error logs (NUL-terminated, capped at the buffer's size, the size
// option overwritten with the bytes used), the wall time (a float written
// over its option value) and the threads per block targeted.
#include <string>

namespace ptxsim::cuda::driver {

struct jit_options {
    char* info_log = nullptr;
    unsigned info_capacity = 0;
    void** info_size = nullptr;  // the option value that receives the bytes used
    char* error_log = nullptr;
    unsigned error_capacity = 0;
    void** error_size = nullptr;
    void** wall_time = nullptr;  // receives a float, milliseconds
};

// Reads `n` options (a null `options` or `values` array with n > 0 reads none).
jit_options read_jit_options(unsigned n, const void* options, void** values);

// Writes the logs and the time where the options asked for them; a log is cut
// to its buffer, NUL included.
void write_jit_results(const jit_options& o, const std::string& info, const std::string& error, double milliseconds);

} // namespace ptxsim::cuda::driver
