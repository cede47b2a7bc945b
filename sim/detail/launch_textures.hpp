#pragma once
// The "textures" and "surfaces" sections of a launch file
// (docs/launch-file.md), read into texture_specs of sim/launch_file.hpp.
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/launch_file.hpp"

namespace ptxsim::sim::detail {

// Reports a problem at the first occurrence of `key` in the file.
using report = std::function<void(const std::string& key, const std::string& message)>;

// Reads j (the section's object) for `kind`, checking every field, the
// layout rules and that the texels fit in the named buffer of f.buffers.
void read_texture_specs(const nlohmann::json& j, isa::object_kind kind, launch_file& f, const report& error);

} // namespace ptxsim::sim::detail
