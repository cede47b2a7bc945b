#pragma once
// Launch-file values (docs/launch-file.md) for what `ptxsim exec --record`
// finds at a launch: a scalar argument in its PTX type, a texture or
// surface object over the buffer holding its texels.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "isa/sem/texture_object.hpp"
#include "parser/ast.hpp"

namespace ptxsim::cuda::driver {

// {"f32": 0.5}, {"u32": 1000}, {"s32": -5}: the argument's value in its
// declared type; {"b32": bits} where a number would not round-trip (NaN,
// infinities) or the type is not a launch-file one. `decl` may be null.
nlohmann::ordered_json scalar_arg(const parser::var_decl* decl, uint32_t size, uint64_t bits);

// A "textures"/"surfaces" entry: the object's geometry, pitches, format
// and sampling over `buffer`, its texel (0, 0, 0) at byte `offset`.
nlohmann::ordered_json object_spec(const isa::texture_object& t, const std::string& buffer, uint64_t offset);

} // namespace ptxsim::cuda::driver
