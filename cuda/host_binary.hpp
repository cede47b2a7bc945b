#pragma once
// What `ptxsim exec` needs to know about a program before it starts it:
// whether it is an ELF executable for this host, whether it is dynamically
// linked (the replacement driver is found through the dynamic loader), which
// CUDA runtime it uses, and what its fatbinary holds.
#include <string>
#include <vector>

#include "cuda/fatbin.hpp"

namespace ptxsim::cuda {

struct host_binary {
    bool dynamic = false;              // has a program interpreter (PT_INTERP)
    std::vector<std::string> needed;   // DT_NEEDED libraries
    bool has_fatbin = false;           // a .nv_fatbin section
    std::vector<fatbin_entry> fatbin;  // its entries
    std::string fatbin_error;          // why it did not parse, if it did not
    // nvcc -rdc=true: .nv_fatbin holds the device-linked SASS, and
    // __nv_relfatbin each translation unit's own fatbinary, PTX included
    // (with libcudadevrt's, which has SASS only).
    std::vector<std::vector<fatbin_entry>> relocatable;
    std::string relocatable_error;
    // The PTX of each translation unit for a GPU of compute capability `sm`
    // (choose_ptx per container); empty when there is none.
    std::vector<const fatbin_entry*> relocatable_ptx(uint32_t sm) const;
    bool shared_runtime() const;       // needs libcudart.so.*
    bool driver_linked() const;        // needs libcuda.so.1 directly (driver API programs)
};

// False with `error` when `path` cannot be read or is not a 64-bit
// little-endian x86-64 ELF file.
bool read_host_binary(const std::string& path, host_binary& out, std::string& error);

} // namespace ptxsim::cuda
