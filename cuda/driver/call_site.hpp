#pragma once
// Where in the program's host code a launch was made, for `ptxsim check
// PROGRAM` reports ("called from main at vector_add.cu:42"), as
// compute-sanitizer prints a host frame.
//
// The stack is taken at each checked launch (cheap: return addresses and
// the object each lies in); it is turned into names only for launches
// with findings, by addr2line (binutils) from the objects' symbol tables
// and, when the program was built with -g, its line tables. Frames of
// this driver, of the CUDA runtime (libcudart, or its static copy inside
// the program: cuda*/cudart names) and nvcc's launch stubs are skipped:
// the first frame left is the program's own call.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ptxsim::cuda::driver {

struct host_frame {
    std::string object;   // the ELF file holding the return address
    uint64_t address = 0; // as addr2line reads it in that file
};

std::vector<host_frame> capture_host_stack();

class call_sites {
public:
    // "main at vector_add.cu:42", "main (vector_add+0x1a2b)", or "" when no
    // frame of the program's own is found. `kernel` is the launched
    // kernel's PTX name (nvcc's host stub for it has the same name).
    std::string describe(const std::vector<host_frame>& stack, const std::string& kernel);

private:
    struct symbol {
        std::string function, location;  // location "file:line", or "" without line tables
    };
    symbol lookup(const host_frame& f);
    std::map<std::pair<std::string, uint64_t>, symbol> cache_;
};

} // namespace ptxsim::cuda::driver
