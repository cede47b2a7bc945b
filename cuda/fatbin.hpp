#pragma once
// NVIDIA fatbinaries as nvcc writes them into a program (the .nv_fatbin
// section, pointed at by each translation unit's __fatBinC_Wrapper_t):
// one or more containers, each a header followed by entries (PTX text or a
// cubin ELF for one architecture), an entry's payload possibly compressed
// with LZ4 or Zstandard (nvcc 13 compresses PTX with Zstandard by default).
// Layouts are documented in docs/exec.md.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ptxsim::cuda {

struct fatbin_entry {
    enum class kind_t { ptx, elf, other } kind = kind_t::other;
    uint32_t sm = 0;              // 90 for sm_90 / compute_90 (and 90a)
    bool arch_specific = false;   // the "a" variants (sm_90a), flag 0x100000 seen in nvcc 13 output
    std::string compression;      // "", "lz4" or "zstd"
    std::vector<uint8_t> payload; // decompressed; PTX without its trailing NULs
    std::string text() const { return std::string(payload.begin(), payload.end()); }
    std::string arch_name() const; // "compute_90a", "sm_80", ...
    bool has_kernels() const;      // PTX with an .entry, or a cubin with a kernel's code section
};

// The wrapper nvcc's host code passes to __cudaRegisterFatBinary.
inline constexpr uint32_t fatbinc_wrapper_magic = 0x466243B1u;
inline constexpr uint32_t fatbin_magic = 0xBA55ED50u;

// Parses the containers found in [data, data+size): containers follow one
// another (8-byte aligned, possibly padded). Returns false with `error` on a
// malformed container or a payload that does not decompress; entries parsed
// before the problem are kept.
bool parse_fatbin(const uint8_t* data, size_t size, std::vector<fatbin_entry>& entries, std::string& error);

// The same, each container's entries apart: __nv_relfatbin (nvcc -rdc=true)
// holds one container per translation unit, whose PTX are linked together.
bool parse_fatbin_containers(const uint8_t* data, size_t size, std::vector<std::vector<fatbin_entry>>& containers,
                             std::string& error);

// One container read from memory whose size is only known from its header
// (a __fatBinC_Wrapper_t's data pointer, or cuModuleLoadData's image).
bool parse_fatbin_at(const void* header, std::vector<fatbin_entry>& entries, std::string& error);

// The PTX to run on a GPU of compute capability `sm` (90 for sm_90a):
// the entry for exactly that architecture (an arch-specific one preferred
// when `arch_specific`), else the newest PTX older than it (PTX is
// forward-compatible; an arch-specific PTX only runs on its own
// architecture). nullopt when none fits.
std::optional<size_t> choose_ptx(const std::vector<fatbin_entry>& entries, uint32_t sm, bool arch_specific);

// A one-line listing of what a fatbinary holds ("sm_90a ELF, compute_90a PTX").
std::string describe(const std::vector<fatbin_entry>& entries);

} // namespace ptxsim::cuda
