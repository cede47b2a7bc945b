#pragma once
// Modifier words ptxas 13 takes on any instruction and ignores: a testp
// class (sqrt.approx.finite.f32) or a tensor-map field name
// (add.box_dim.u32, mbarrier.arrive.rank...), one of each kind at most.
// Found by the lint mutation differential (docs/lint-differential.md).
// lint warns about them (isa/detail/check_instruction.cpp) and the
// decoder's matcher skips them (isa/match.cpp), so such an instruction
// runs as ptxas compiles it: as if the word were not there.
#include <string_view>

namespace ptxsim::isa {

enum class ignored_word { none, testp_class, tensormap_field };

inline ignored_word ignored_kind(std::string_view w, std::string_view key) {
    if (key != "testp" && (w == "finite" || w == "infinite" || w == "number" || w == "notanumber" || w == "normal" ||
                           w == "subnormal"))
        return ignored_word::testp_class;
    if (key != "tensormap.replace" &&
        (w == "global_address" || w == "rank" || w == "box_dim" || w == "global_dim" || w == "global_stride" ||
         w == "element_stride" || w == "elemtype" || w == "interleave_layout" || w == "swizzle_mode" ||
         w == "swizzle_atomicity" || w == "fill_mode"))
        return ignored_word::tensormap_field;
    return ignored_word::none;
}

} // namespace ptxsim::isa
