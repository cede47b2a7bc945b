#include "sim/timing/pipes.hpp"

#include "isa/op_table.hpp"

namespace ptxsim::sim::timing {

namespace {

using parser::data_type;

bool is_float(data_type t) {
    switch (t) {
    case data_type::f16: case data_type::f16x2: case data_type::bf16: case data_type::bf16x2:
    case data_type::tf32: case data_type::f32: case data_type::e4m3: case data_type::e5m2:
    case data_type::e4m3x2: case data_type::e5m2x2:
        return true;
    default:
        return false;
    }
}

} // namespace

issue_class classify(const isa::exec_instruction& ins, const models::timing_config& m) {
    const isa::op_info& row = isa::op_table::get().rows()[ins.row];
    const std::string_view key = row.key;
    issue_class c;
    auto set = [&](pipe p, uint32_t latency, uint32_t interval) {
        c.unit = p;
        c.latency = latency;
        c.interval = interval;
    };
    switch (row.timing) {
    case isa::timing_class::alu:
    case isa::timing_class::fma:
        if (ins.type == data_type::f64) set(pipe::fp64, m.fp64_latency, m.fp64_interval);
        else if (is_float(ins.type)) set(pipe::fma, m.fma_latency, m.fma_interval);
        // Integer mad (IMAD) runs on the FMA pipe at the integer rate
        // (CUDA's throughput table: half the FP32 rate on compute 9.0).
        else if (row.timing == isa::timing_class::fma) set(pipe::fma, m.fma_latency, m.alu_interval);
        else set(pipe::alu, m.alu_latency, m.alu_interval);
        break;
    case isa::timing_class::sfu:
        if (ins.type == data_type::f64) set(pipe::fp64, m.fp64_latency, m.fp64_interval);
        else set(pipe::sfu, m.sfu_latency, m.sfu_interval);
        break;
    case isa::timing_class::conv:
        // Between integer types cvt is no conversion on the GPU: ptxas
        // makes it a move, a shift or a byte permute (cvt.u64.u32 sets the
        // high word to zero), all integer-ALU work. Conversions to or from
        // a floating type go to the conversion unit.
        if (is_float(ins.type) || is_float(ins.type2) || ins.type == data_type::f64 || ins.type2 == data_type::f64)
            set(pipe::sfu, m.sfu_latency, m.sfu_interval);
        else
            set(pipe::alu, m.alu_latency, m.alu_interval);
        break;
    case isa::timing_class::warp: set(pipe::warp, m.warp_latency, m.alu_interval); break;
    case isa::timing_class::mem:
    case isa::timing_class::atom:
    case isa::timing_class::async:
        if (key == "cp.async.bulk.commit_group" || key == "cp.async.bulk.wait_group") {
            set(pipe::control, 1, 1);
            c.kind = key.ends_with("commit_group") ? op_kind::bulk_commit : op_kind::bulk_wait;
            break;
        }
        // The Ampere kind: a copy is a global load through the LSU (and the
        // L1 with .ca); its group completes when its data has landed.
        if (key == "cp.async.commit_group" || key == "cp.async.wait_group" || key == "cp.async.wait_all" ||
            key == "cp.async.mbarrier.arrive") {
            set(pipe::control, 1, 1);
            c.kind = key == "cp.async.commit_group" ? op_kind::async_commit
                     : key == "cp.async.mbarrier.arrive" ? op_kind::async_arrive
                                                         : op_kind::async_wait;
            break;
        }
        if (key == "cp.async") {
            set(pipe::lsu, m.l1_hit_latency, 1);
            c.kind = op_kind::async_copy;
            break;
        }
        set(pipe::lsu, m.l1_hit_latency, 1);
        c.kind = op_kind::memory;
        break;
    case isa::timing_class::tensor:
        if (key == "wgmma.mma_async" || key == "wgmma.mma_async.sp") {
            set(pipe::wgmma, 1, 1);
            c.kind = op_kind::wgmma;
            // Every dense wgmma's row of K elements is 32 bytes (f16 k16,
            // tf32 k8, 8-bit k32, b1 k256); a sparse one's B rows hold
            // twice the K, its stored A the same 32 bytes.
            c.sparse = key.ends_with(".sp");
            const bool a_in_registers = ins.ops[1].kind == isa::opnd::vec;
            c.operand_bytes = (a_in_registers ? 0u : 64u * 32u) + uint32_t(ins.vec) * 8u * 32u * (c.sparse ? 2u : 1u);
        } else if (key == "wgmma.commit_group") {
            set(pipe::control, 1, 1);
            c.kind = op_kind::wgmma_commit;
        } else if (key == "wgmma.wait_group") {
            set(pipe::control, 1, 1);
            c.kind = op_kind::wgmma_wait;
        } else if (key == "ldmatrix" || key == "stmatrix" || key == "wmma.load" || key == "wmma.store") {
            set(pipe::lsu, m.shared_latency, 1);
            c.kind = op_kind::memory;
        } else {
            set(pipe::mma, m.mma_latency, m.mma_interval);
        }
        break;
    case isa::timing_class::ctrl: set(pipe::control, m.alu_latency, 1); break;
    case isa::timing_class::sync:
        if (key.starts_with("mbarrier")) {
            set(pipe::lsu, m.shared_latency, 1);
            c.kind = op_kind::memory;
        } else {
            set(pipe::sync, m.barrier_latency, 1);
            c.cluster_wait = key == "barrier.cluster.wait";
        }
        break;
    case isa::timing_class::misc: set(pipe::alu, m.alu_latency, m.alu_interval); break;
    }
    if (!row.shapes.empty() && !row.shapes[0].classes.empty() && row.shapes[0].classes[0] == isa::operand_class::dest)
        c.dests = ins.dest_pair ? 2 : 1;
    // The instruction's cache hints, plus: a strong load (volatile,
    // relaxed, acquire) at a scope wider than the CTA must see other SMs'
    // writes, which the SM's L1 is not kept coherent with, so the L2 serves it.
    c.cache = ins.cache;
    if (ins.order != isa::mem_order::weak && ins.scope != isa::mem_scope::cta && ins.scope != isa::mem_scope::none)
        c.cache |= isa::hint_l1_bypass;
    return c;
}

std::string_view to_string(pipe p) {
    static constexpr std::string_view names[] = {"alu", "fma", "fp64", "sfu", "warp", "mma", "wgmma", "lsu", "control", "sync"};
    return p < pipe::count ? names[static_cast<int>(p)] : "?";
}

} // namespace ptxsim::sim::timing
