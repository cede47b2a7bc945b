#pragma once
// Predefined identifiers: special registers (%tid, %clock64, %envreg3 …)
// and the constant WARP_SZ.
#include <string_view>

namespace ptxsim::isa {

// `name` without a vector component (%tid, not %tid.x).
bool is_predefined(std::string_view name);

} // namespace ptxsim::isa
