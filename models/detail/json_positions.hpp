#pragma once
// Byte offsets of keys and values in a JSON text, by dotted path. nlohmann's
// DOM keeps no positions, so the loader indexes the (already validated) text
// once to be able to point every model-file diagnostic at its key.
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ptxsim::models::detail {

struct json_location {
    uint32_t key = 0;    // offset of the key's opening quote (== value for array elements and the root)
    uint32_t value = 0;  // offset of the value's first character
};

struct duplicate_key {
    std::string path;
    uint32_t first = 0, second = 0;  // key offsets
};

// Paths: "" is the root, "sm.warp_size" an object member, "a.value[2]" an
// array element. A member name is used as written (after unescaping).
class json_positions {
public:
    // `text` must be JSON that nlohmann accepted (comments allowed). Nesting
    // deeper than a model file needs is skipped, not indexed.
    explicit json_positions(std::string_view text);

    const json_location* find(const std::string& path) const;
    const std::vector<duplicate_key>& duplicates() const { return duplicates_; }

private:
    std::unordered_map<std::string, json_location> map_;
    std::vector<duplicate_key> duplicates_;
};

std::string member_path(std::string_view parent, std::string_view key);
std::string element_path(std::string_view parent, size_t index);

} // namespace ptxsim::models::detail
