#pragma once
// Which pipe of a sub-partition an instruction issues to, and its latency
// and initiation interval from the model (models/*.json, "timing"): the
// instruction table's timing class refined by the instruction's type
// (an `add.f32` is FP32 work, an `add.f64` FP64). Memory, tensor-core and
// synchronising instructions get their latency from the components that
// model them (memory_timing.hpp, timing_model.cpp); here only their pipe.
#include <cstdint>
#include <string_view>

#include "isa/exec.hpp"
#include "models/model.hpp"

namespace ptxsim::sim::timing {

enum class pipe : uint8_t { alu, fma, fp64, sfu, warp, mma, wgmma, lsu, control, sync, count };

// What the timing model must do beyond a fixed latency.
enum class op_kind : uint8_t {
    plain,           // latency and interval from the pipe
    memory,          // ld/st/atom/red/tex...: latency from the memory hierarchy
    wgmma,           // wgmma.mma_async: asynchronous, busy time from N and K
    wgmma_commit,    // wgmma.commit_group
    wgmma_wait,      // wgmma.wait_group N
    bulk_commit,     // cp.async.bulk.commit_group
    bulk_wait,       // cp.async.bulk.wait_group{.read} N (exec_instruction::sub 2: .read)
    async_copy,      // cp.async (non-bulk): a load through the LSU whose data lands in shared memory, waited for by its group
    async_commit,    // cp.async.commit_group
    async_wait,      // cp.async.wait_group N, cp.async.wait_all (exec_instruction::sub 3)
    async_arrive,    // cp.async.mbarrier.arrive{.noinc}: the mbarrier's arrival happens when the thread's copies have landed
};

struct issue_class {
    pipe unit = pipe::alu;
    op_kind kind = op_kind::plain;
    uint32_t latency = 1;  // issue to result, cycles
    uint32_t interval = 1; // between two issues to this pipe of one sub-partition
    uint8_t dests = 0;     // leading operands the instruction writes (0, 1, or 2 for p|q pairs)
    uint8_t cache = 0;     // memory: isa::cache_hint bits, plus L1 bypass for strong loads past the CTA
    // wgmma: the warpgroup's operand bytes read from shared memory (A unless
    // it is in registers, and B), and whether A is 2:4 sparse (twice the
    // dense rate: the pipe does half the products of the shape's K).
    uint32_t operand_bytes = 0;
    bool sparse = false;
    bool cluster_wait = false;  // barrier.cluster.wait: the warp waits for the cluster, held by the engine
};

// The issue class of one decoded instruction under model `m`.
issue_class classify(const isa::exec_instruction& ins, const models::timing_config& m);

std::string_view to_string(pipe p);

} // namespace ptxsim::sim::timing
