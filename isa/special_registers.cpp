#include "isa/special_registers.hpp"

#include <array>

namespace ptxsim::isa {
namespace {

constexpr std::array<std::string_view, 37> fixed{
    "%tid", "%ntid", "%laneid", "%warpid", "%nwarpid", "%ctaid", "%nctaid", "%smid", "%nsmid", "%gridid",
    "%lanemask_eq", "%lanemask_le", "%lanemask_lt", "%lanemask_ge", "%lanemask_gt", "%clock", "%clock_hi",
    "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi", "%total_smem_size", "%aggr_smem_size",
    "%dynamic_smem_size", "%reserved_smem_offset_begin", "%reserved_smem_offset_end", "%reserved_smem_offset_cap",
    "%clusterid", "%nclusterid", "%cluster_ctaid", "%cluster_nctaid", "%cluster_ctarank", "%cluster_nctarank",
    "%is_explicit_cluster", "%current_graph_exec", "WARP_SZ", "%reserved_smem_offset",
};

// name == prefix followed by a decimal number below `count`
bool numbered(std::string_view name, std::string_view prefix, unsigned count, std::string_view tail = {}) {
    if (name.substr(0, prefix.size()) != prefix) return false;
    name.remove_prefix(prefix.size());
    if (!tail.empty()) {
        if (name.size() <= tail.size() || name.substr(name.size() - tail.size()) != tail) return false;
        name.remove_suffix(tail.size());
    }
    if (name.empty() || name.size() > 2) return false;
    unsigned v = 0;
    for (char c : name) {
        if (c < '0' || c > '9') return false;
        v = v * 10 + static_cast<unsigned>(c - '0');
    }
    return v < count && !(name.size() == 2 && name[0] == '0');
}

} // namespace

bool is_predefined(std::string_view name) {
    for (auto f : fixed)
        if (name == f) return true;
    return numbered(name, "%envreg", 32) || numbered(name, "%pm", 8) || numbered(name, "%pm", 8, "_64") ||
           numbered(name, "%reserved_smem_offset_", 2);
}

} // namespace ptxsim::isa
