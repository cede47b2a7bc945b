#include "isa/sem/registry.hpp"

#include <fmt/format.h>

#include "isa/sem/context.hpp"

namespace ptxsim::isa::sem {

decoder find_decoder(std::string_view key) {
    for (auto table : {int_entries(), float_entries(), mem_entries(), ldu_entries(), atomic_entries(), mem_misc_entries(), control_entries(),
                       cvt_entries(), cvt_pack_entries(), warp_entries(), bits_entries(), approx_entries(), float_misc_entries(), carry_entries(),
                       video_entries(), mbarrier_entries(), async_copy_entries(),
                       tma_entries(), tma_reduce_entries(), tensormap_entries(), multimem_entries(), texture_entries(), surface_entries(),
                       mma_entries(), mma_sparse_entries(), matrix_entries(), wmma_entries(), cluster_entries(), wgmma_entries(),
                       wgmma_sparse_entries()})
        for (const auto& e : table)
            if (key == e.key) return e.fn;
    return nullptr;
}

void not_implemented(exec_context& ctx, const exec_instruction& ins, uint32_t mask) {
    // `target` indexes the function's list of reasons; the simulator words the report.
    ctx.fault(fault_kind::unsupported, static_cast<uint32_t>(__builtin_ctz(mask)), ins.target, "");
}

parser::data_type type_of(std::string_view text) { return parser::data_type_from(text); }


space space_of(std::string_view s) {
    std::string_view base = s.substr(0, s.find("::"));
    if (base == "global") return space::global;
    if (base == "shared") return space::shared;
    if (base == "local") return space::local;
    if (base == "param") return space::param;
    if (base == "const") return space::const_;
    return space::generic;
}

} // namespace ptxsim::isa::sem
