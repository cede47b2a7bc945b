#pragma once
// The one table of model-file fields. The loader's walk, its unknown-key
// suggestions, its required-key and range checks and the README's format
// section all follow this table; a new figure is one line here plus a
// member in gpu_model.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "models/model.hpp"

namespace ptxsim::models::detail {

// Where a field's converted value goes in gpu_model.
using slot = std::variant<uint32_t*, uint64_t*, double*, std::string*, std::vector<uint64_t>*>;

enum class field_kind : uint8_t {
    figure,  // {"value": v, "source": "...", "unconfirmed": bool?, "note": "..."?}
    plain,   // the value itself (format, name, description, arch)
};

struct field {
    std::string_view path;  // dotted, as in the file
    field_kind kind;
    double min, max;        // inclusive, in file units; for text, min is the minimum length
    uint64_t scale;         // file unit → gpu_model unit (KiB → bytes: 1024)
    slot (*target)(gpu_model&);
};

std::span<const field> model_fields();

// The members of a figure object, in the order the README lists them.
inline constexpr std::string_view figure_keys[] = {"value", "source", "unconfirmed", "note"};

// The closest candidate by edit distance when it is close enough to be a
// plausible typo, else empty.
std::string_view closest_name(std::string_view name, std::span<const std::string_view> candidates);

} // namespace ptxsim::models::detail
