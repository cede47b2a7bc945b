#include "sim/detail/engine_view.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace ptxsim::sim::detail {

const cta_state* engine_view::find(uint64_t cta) const {
    if (!live_) return nullptr;
    for (const auto& cl : *live_)
        for (const auto& c : cl->ctas)
            if (c->linear == cta) return c.get();
    return nullptr;
}

const warp_state* engine_view::find(uint64_t cta, uint32_t warp) const {
    const cta_state* c = find(cta);
    if (!c || warp >= c->warps.size()) return nullptr;
    return c->warps[warp].get();
}

const frame* engine_view::frame_of(const warp_state& w, uint32_t lane, uint32_t depth) const {
    if (lane >= warp_size || !(w.alive >> lane & 1)) return nullptr;
    uint32_t d = w.depth[lane];
    if (depth != current_depth) {
        if (depth > d) return nullptr;
        d = depth;
    }
    if (d >= w.frames.size()) return nullptr;
    return &w.frames[d];
}

std::vector<uint64_t> engine_view::live_ctas() const {
    std::vector<uint64_t> out;
    if (live_)
        for (const auto& cl : *live_)
            for (const auto& c : cl->ctas) out.push_back(c->linear);
    return out;
}

std::optional<dim3> engine_view::cta_index(uint64_t cta) const {
    const cta_state* c = find(cta);
    if (!c) return std::nullopt;
    return c->id;
}

uint32_t engine_view::warp_count(uint64_t cta) const {
    const cta_state* c = find(cta);
    return c ? static_cast<uint32_t>(c->warps.size()) : 0;
}

std::optional<warp_view> engine_view::warp(uint64_t cta, uint32_t warp) const {
    const warp_state* w = find(cta, warp);
    if (!w) return std::nullopt;
    warp_view v;
    v.alive = w->alive;
    v.exited = w->exited;
    v.waiting = w->waiting;
    v.sync_wait = w->sync_wait;
    v.depth = w->depth;
    // A converged warp keeps one PC for all its lanes (upc); the lane array is stale.
    for (uint32_t l = 0; l < warp_size; ++l) v.pc[l] = w->converged && (w->alive & ~w->exited) >> l & 1 ? w->upc : w->pc[l];
    return v;
}

std::optional<uint64_t> engine_view::reg(uint64_t cta, uint32_t warp, uint32_t lane, uint32_t slot, uint32_t depth) const {
    const warp_state* w = find(cta, warp);
    const frame* f = w ? frame_of(*w, lane, depth) : nullptr;
    if (!f || size_t(slot) * warp_size + lane >= f->regs.size()) return std::nullopt;
    return f->regs[size_t(slot) * warp_size + lane];
}

uint64_t engine_view::local_address(uint64_t offset, uint32_t depth) const {
    return offset | uint64_t(depth + 1) << layout_.local_depth_shift;
}

std::optional<bool> engine_view::pred(uint64_t cta, uint32_t warp, uint32_t lane, uint32_t slot, uint32_t depth) const {
    const warp_state* w = find(cta, warp);
    const frame* f = w ? frame_of(*w, lane, depth) : nullptr;
    if (!f || slot >= f->preds.size()) return std::nullopt;
    return (f->preds[slot] >> lane & 1) != 0;
}

std::vector<uint32_t> engine_view::return_pcs(uint64_t cta, uint32_t warp, uint32_t lane) const {
    const warp_state* w = find(cta, warp);
    std::vector<uint32_t> out;
    if (!w || lane >= warp_size) return out;
    for (const auto& r : w->returns[lane]) out.push_back(r.pc);
    return out;
}

std::string engine_view::read(isa::space sp, uint64_t addr, void* dst, uint32_t bytes, uint64_t cta, uint32_t warp,
                              uint32_t lane) const {
    const warp_state* w = find(cta, warp);
    if (!w) return "that block is not running";
    uint64_t off = addr;
    if (sp == isa::space::generic) sp = classify(addr, off);
    auto copy_from = [&](const std::vector<uint8_t>& store, size_t base, uint64_t o, uint64_t limit, const char* what) {
        if (o + bytes > limit || o + bytes < o)
            return fmt::format("{} bytes at offset {} are outside {} memory ({} bytes)", bytes, o, what, limit);
        std::memcpy(dst, store.data() + base + o, bytes);
        return std::string();
    };
    switch (sp) {
    case isa::space::global:
    case isa::space::const_:
        if (global_.read(addr, dst, bytes) != isa::fault_kind::none) return global_.describe(addr);
        return {};
    case isa::space::shared: {
        off &= 0xFFFFFFFFull;
        const uint64_t offset_mask = (1ull << layout_.cluster_rank_shift) - 1;
        uint64_t tag = off >> layout_.cluster_rank_shift;
        const cta_state* owner = w->cta;
        if (tag) {
            const cluster_state& cl = *w->cta->cluster;
            if (tag - 1 >= cl.ctas.size())
                return fmt::format("shared::cluster address {:#x} names CTA rank {} of a cluster of {}", off, tag - 1, cl.ctas.size());
            owner = cl.ctas[tag - 1].get();
            off &= offset_mask;
        }
        return copy_from(owner->shared, 0, off, owner->shared.size(), "shared");
    }
    case isa::space::local: {
        const frame* f = frame_of(*w, lane);
        if (!f) return "that lane does not exist";
        uint64_t tag = off >> layout_.local_depth_shift;
        off &= (1ull << layout_.local_depth_shift) - 1;
        if (off >= layout_.stack_base) {
            const lane_stack& st = w->stacks[lane];
            return copy_from(st.bytes, 0, off - layout_.stack_base, st.top, "alloca stack");
        }
        uint32_t depth = tag ? static_cast<uint32_t>(tag - 1) : w->depth[lane];
        if (depth > w->depth[lane] || depth >= w->frames.size()) return fmt::format("local address of call depth {}, which is not live", depth);
        return copy_from(w->frames[depth].local, size_t(lane) * max_local_, off, max_local_, "local");
    }
    case isa::space::param: {
        if (off >= isa::frame_param_tag) {
            const frame* f = frame_of(*w, lane);
            if (!f) return "that lane does not exist";
            return copy_from(f->params, size_t(lane) * max_params_, off - isa::frame_param_tag, max_params_, "param");
        }
        return copy_from(req_.params, 0, off, req_.params.size(), "kernel parameter");
    }
    case isa::space::generic: break;
    }
    return "no such state space";
}

isa::space engine_view::classify(uint64_t addr, uint64_t& off) const {
    auto in = [&](uint64_t base, uint64_t size) { return addr >= base && addr - base < size; };
    off = addr;
    if (in(layout_.shared_window, layout_.window_size)) return off = addr - layout_.shared_window, isa::space::shared;
    if (in(layout_.local_window, layout_.local_window_size)) return off = addr - layout_.local_window, isa::space::local;
    if (in(layout_.param_window, layout_.window_size)) return off = addr - layout_.param_window, isa::space::param;
    return isa::space::global;
}

std::optional<memory_place> engine_view::place(isa::space sp, uint64_t addr, uint64_t cta, uint32_t warp, uint32_t lane,
                                               std::string& why) const {
    const warp_state* w = find(cta, warp);
    if (!w || lane >= warp_size) {
        why = "that thread is not running";
        return std::nullopt;
    }
    uint64_t off = addr;
    if (sp == isa::space::generic) sp = classify(addr, off);
    memory_place p;
    p.space = sp;
    p.offset = off;
    if (sp == isa::space::shared) {
        off &= 0xFFFFFFFFull;
        uint64_t tag = off >> layout_.cluster_rank_shift;
        const cluster_state& cl = *w->cta->cluster;
        if (tag && tag - 1 >= cl.ctas.size()) {
            why = fmt::format("shared::cluster address {:#x} names CTA rank {} of a cluster of {}", off, tag - 1, cl.ctas.size());
            return std::nullopt;
        }
        p.owner = tag ? cl.ctas[tag - 1]->linear : w->cta->linear;
        p.offset = off & ((1ull << layout_.cluster_rank_shift) - 1);
    } else if (sp == isa::space::local || sp == isa::space::param) {
        p.owner = w->cta->linear * req_.block.count() + w->index * warp_size + lane;
        if (sp == isa::space::local && (off >> layout_.local_depth_shift) == 0 && off < layout_.stack_base)
            p.offset = off | uint64_t(w->depth[lane] + 1) << layout_.local_depth_shift;
    }
    return p;
}

uint64_t engine_view::shared_bytes(uint64_t cta) const {
    const cta_state* c = find(cta);
    return c ? c->shared.size() : 0;
}

std::vector<barrier_view> engine_view::barriers(uint64_t cta) const {
    std::vector<barrier_view> out;
    const cta_state* c = find(cta);
    if (!c) return out;
    for (uint32_t id = 0; id < c->barriers.size(); ++id) {
        if (!c->barriers[id].arrived && c->waiters[id].empty()) continue;
        barrier_view b;
        b.id = id;
        b.arrived = c->barriers[id].arrived;
        b.expected = c->barriers[id].expected;
        for (const auto& [w, lanes] : c->waiters[id]) b.waiters.push_back({w->index, lanes});
        out.push_back(std::move(b));
    }
    return out;
}

std::vector<mbarrier_view> engine_view::mbarriers(uint64_t cta) const {
    std::vector<mbarrier_view> out;
    const cta_state* c = find(cta);
    if (!c) return out;
    for (const auto& [offset, sleepers] : c->mbarrier_sleepers) {
        if (sleepers.empty()) continue;
        mbarrier_view m;
        m.offset = offset;
        for (const auto& [w, lanes] : sleepers) m.sleepers.push_back({w->index, lanes});
        out.push_back(std::move(m));
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.offset < b.offset; });
    return out;
}

const isa::exec_function* engine_view::function(int32_t id) const {
    if (id < 0 || size_t(id) >= req_.functions.size()) return nullptr;
    return req_.functions[size_t(id)];
}

} // namespace ptxsim::sim::detail
