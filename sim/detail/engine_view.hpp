#pragma once
// The engine's machine_view (sim/inspect.hpp): read-only access to the
// live clusters of one host thread's engine, for instruction events.
#include <deque>
#include <memory>

#include "sim/detail/engine_state.hpp"
#include "sim/inspect.hpp"

namespace ptxsim::sim::detail {

// The engine's address layout, which the view decodes as the engine does.
struct address_layout {
    uint64_t shared_window, local_window, param_window, window_size, local_window_size;
    uint64_t stack_base;
    uint32_t local_depth_shift, cluster_rank_shift;
};

class engine_view final : public machine_view {
public:
    engine_view(const launch_request& req, global_port& global, const address_layout& layout, uint32_t max_local,
                uint32_t max_params)
        : req_(req), global_(global), layout_(layout), max_local_(max_local), max_params_(max_params) {}
    void set_live(const std::deque<std::unique_ptr<cluster_state>>* live) { live_ = live; }

    std::vector<uint64_t> live_ctas() const override;
    std::optional<dim3> cta_index(uint64_t cta) const override;
    uint32_t warp_count(uint64_t cta) const override;
    std::optional<warp_view> warp(uint64_t cta, uint32_t warp) const override;
    std::optional<uint64_t> reg(uint64_t cta, uint32_t warp, uint32_t lane, uint32_t slot, uint32_t depth) const override;
    std::optional<bool> pred(uint64_t cta, uint32_t warp, uint32_t lane, uint32_t slot, uint32_t depth) const override;
    uint64_t local_address(uint64_t offset, uint32_t depth) const override;
    std::vector<uint32_t> return_pcs(uint64_t cta, uint32_t warp, uint32_t lane) const override;
    std::string read(isa::space sp, uint64_t addr, void* dst, uint32_t bytes, uint64_t cta, uint32_t warp,
                     uint32_t lane) const override;
    std::optional<memory_place> place(isa::space sp, uint64_t addr, uint64_t cta, uint32_t warp, uint32_t lane,
                                      std::string& why) const override;
    uint64_t shared_bytes(uint64_t cta) const override;
    std::vector<barrier_view> barriers(uint64_t cta) const override;
    std::vector<mbarrier_view> mbarriers(uint64_t cta) const override;
    const isa::exec_function* function(int32_t id) const override;

private:
    const cta_state* find(uint64_t cta) const;
    const warp_state* find(uint64_t cta, uint32_t warp) const;
    const frame* frame_of(const warp_state& w, uint32_t lane, uint32_t depth = current_depth) const;
    // A generic address's space and offset there.
    isa::space classify(uint64_t addr, uint64_t& off) const;

    const launch_request& req_;
    global_port& global_;
    address_layout layout_;
    uint32_t max_local_, max_params_;
    const std::deque<std::unique_ptr<cluster_state>>* live_ = nullptr;
};

} // namespace ptxsim::sim::detail
