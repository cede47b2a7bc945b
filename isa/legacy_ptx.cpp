#include "isa/legacy_ptx.hpp"

#include "isa/op_table.hpp"

namespace ptxsim::isa {

namespace {

bool is_64_bit(std::string_view type) { return type == "f64" || type == "s64" || type == "u64" || type == "b64"; }

bool row_takes(const op_info& row, std::string_view group, std::string_view text) {
    for (const auto& g : row.groups)
        if (g.name == group)
            for (const auto& m : g.mods)
                if (m.matches(text)) return true;
    return false;
}

} // namespace

void add_implied_modifiers(bool sm1x, matched_instruction& out) {
    const op_info& row = *out.row;
    const bool f32 = out.get("type", 0) == "f32" || out.get("type", 1) == "f32";
    if (!f32) return;
    if ((row.key == "mad" || row.key == "fma") && !out.has("rnd") && row_takes(row, "rnd", "rn"))
        out.mods.push_back({"rnd", "rn"});
    if (!sm1x || out.has("ftz") || !row_takes(row, "ftz", "ftz")) return;
    if (row.key == "cvt" && is_64_bit(out.get("type", 0))) return;
    out.mods.push_back({"ftz", "ftz"});
}

} // namespace ptxsim::isa
