// The wgmma groups of a warp (isa/wgmma_state.hpp): commit_group closes the
// wgmma.mma_async operations issued since the last one into a group (an
// empty group when there were none, which still counts for wait_group);
// wait_group N lands the register writes of every committed group but the
// newest N. Operations not yet committed stay pending.
//
// The groups a wait_group completes are the warpgroup's: it also waits until
// the other warps of the warpgroup have committed as many groups
// (exec_context::wgmma_warpgroup_issued), as the GPU's wait returns only
// when the warpgroup's MMA, which needs every warp's issue, is done.
//
// wgmma.fence orders register and shared-memory accesses before a wgmma on
// the GPU; here a wgmma reads its operands when issued and the engine runs
// a warp's instructions in order, so the fence changes no value.
#include "isa/sem/wgmma_group.hpp"

#include "isa/sem/operands.hpp"
#include "isa/sem/warp_collective.hpp"

namespace ptxsim::isa::sem {
namespace {

void fence_handler(exec_context& c, const exec_instruction&, uint32_t mask) { (void)whole_warp(c, mask, "wgmma.fence"); }

void commit_handler(exec_context& c, const exec_instruction&, uint32_t mask) {
    if (!whole_warp(c, mask, "wgmma.commit_group")) return;
    wgmma_warp_state& st = c.wgmma_state();
    st.groups.push_back(std::move(st.open));
    st.open.clear();
    ++st.committed;
    c.note(sync_note::wgmma_commit, mask, st.committed);
    c.wgmma_committed();
}

void wait_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    if (!whole_warp(c, mask, "wgmma.wait_group")) return;
    wgmma_warp_state& st = c.wgmma_state();
    const uint64_t keep = static_cast<uint64_t>(ins.ops[0].imm);
    if (st.committed > keep) {
        if (!c.wgmma_warpgroup_issued(st.committed - keep, mask)) return; // asleep; runs again
        c.note(sync_note::wgmma_wait, mask, st.committed - keep);
    }
    while (st.groups.size() > keep) {
        for (const wgmma_write& w : st.groups.front())
            for (uint32_t lane = 0; lane < warp_size; ++lane) c.reg(w.slot, lane) = w.value[lane];
        st.groups.pop_front();
    }
}

std::string uniform(exec_instruction& out, handler h) {
    out.control = out.uniform = true; // warp-wide: waits for every lane
    out.run = h;
    return {};
}

} // namespace

std::string dec_wgmma_fence(const matched_instruction&, exec_instruction& out) { return uniform(out, fence_handler); }
std::string dec_wgmma_commit(const matched_instruction&, exec_instruction& out) { return uniform(out, commit_handler); }
std::string dec_wgmma_wait(const matched_instruction&, exec_instruction& out) {
    if (out.nops != 1 || out.ops[0].kind != opnd::imm || out.ops[0].imm < 0) return "wgmma.wait_group takes an integer constant";
    return uniform(out, wait_handler);
}

} // namespace ptxsim::isa::sem
