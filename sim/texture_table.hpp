#pragma once
// The device's texture and surface objects (cuTexObjectCreate,
// cuSurfObjectCreate): each is a description of texels in one global-memory
// allocation, named by an opaque 64-bit handle that kernels receive as a
// parameter. Objects are created and destroyed between launches only; a
// launch reads the table without locking.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "isa/sem/texture_object.hpp"

namespace ptxsim::memory {
class global_memory;
}

namespace ptxsim::sim {

class texture_table {
public:
    // Checks the description against the memory it covers and the rules CUDA
    // enforces at creation; returns the handle, or 0 with `error` saying why.
    uint64_t create(const isa::texture_object& object, const memory::global_memory& memory, std::string& error);
    // False when `handle` names no live object.
    bool destroy(uint64_t handle);
    // nullptr when `handle` names no live object.
    const isa::texture_object* find(uint64_t handle) const;

private:
    std::vector<std::optional<isa::texture_object>> objects_; // by handle index
};

// Why a description is not a valid object, leaving its memory aside (empty
// when it is); `bytes` is then how many bytes from its base its texels span.
std::string check_texture_layout(const isa::texture_object& object, uint64_t& bytes);
// check_texture_layout, and that the texels lie in one live allocation.
std::string check_texture_object(const isa::texture_object& object, const memory::global_memory& memory);

} // namespace ptxsim::sim
