#pragma once
// The executable form of a PTX function: decoded once (decode.hpp), run
// many times. No strings, maps or AST on the execution path: registers are
// slots, labels are instruction indices, symbols are resolved addresses,
// modifiers are enum fields, and each instruction carries its handler.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "parser/ast.hpp"

namespace ptxsim::isa {

inline constexpr uint32_t warp_size = 32;
inline constexpr uint32_t no_slot = 0xFFFFFFFFu;

enum class opnd : uint8_t { none, reg, pred, imm, special, addr, vec, label };

// State spaces as instructions name them.
enum class space : uint8_t { generic, global, shared, local, param, const_ };

// The memory-model qualifiers of an access or fence (.relaxed.gpu,
// .volatile, membar.cta ...). They change no value in a run; checkers
// (racecheck) read them. weak: a plain ld/st; volatile_: relaxed.sys (PTX's
// .volatile, as hand-written PTX and inline asm mean it); volatile_cuda: a
// .volatile that a compiler emitted for a CUDA C++ `volatile` access, which
// the CUDA C++ memory model does not make atomic (parser/code_origin.hpp).
enum class mem_order : uint8_t { weak, volatile_, volatile_cuda, relaxed, acquire, release, acq_rel, sc, mmio };
enum class mem_scope : uint8_t { none, cta, cluster, gpu, sys };

enum class special_reg : uint16_t {
    tid_x, tid_y, tid_z, ntid_x, ntid_y, ntid_z, ctaid_x, ctaid_y, ctaid_z, nctaid_x, nctaid_y, nctaid_z,
    laneid, warpid, nwarpid, smid, nsmid, gridid, clock, clock_hi, clock64, globaltimer, globaltimer_lo,
    globaltimer_hi, lanemask_eq, lanemask_le, lanemask_lt, lanemask_ge, lanemask_gt, dynamic_smem_size,
    total_smem_size,
    // Thread-block clusters: the cluster's place in the grid, the CTA's place in its cluster.
    clusterid_x, clusterid_y, clusterid_z, nclusterid_x, nclusterid_y, nclusterid_z, cluster_ctaid_x, cluster_ctaid_y,
    cluster_ctaid_z, cluster_nctaid_x, cluster_nctaid_y, cluster_nctaid_z, cluster_ctarank, cluster_nctarank,
    is_explicit_cluster,
    // Shared memory the system reserves (cooperative groups' multi-warp
    // tiles keep their state at %reserved_smem_offset_1): a region after the
    // CTA's own, there only when the code names one of these (see
    // exec_function::uses_reserved_shared), so that elsewhere an access past
    // the CTA's shared memory still faults.
    reserved_smem_begin, reserved_smem_end, reserved_smem_cap, reserved_smem_0, reserved_smem_1, aggr_smem_size,
    envreg0, // envreg0 + n for %envregN
};

struct exec_operand {
    opnd kind = opnd::none;
    bool negate = false;            // !p, or -r (vmad's negated sources)
    uint8_t count = 0;              // vec: number of elements
    // vec: bit i set when element i is a constant (elems[i] is then no_slot
    // and the value sits in the unused tail of elems, see vec_element());
    // bit 4 + i: that 32-bit value zero-extends rather than sign-extends.
    uint8_t consts = 0;
    special_reg special{};          // opnd::special
    // Video byte/half-word selector after a register (%r1.b1, %r2.h10,
    // %r3.b3210): 0 when absent; else bit 15 set for .h, bits 12-14 the
    // number of digits, and the i-th digit from the right in bits 3i..3i+2.
    uint16_t sel = 0;
    uint32_t slot = no_slot;        // reg/pred slot; addr: base register slot, no_slot when absolute
    int64_t imm = 0;                // immediate bits; addr: offset (with any symbol address folded in)
    std::array<uint32_t, 8> elems{}; // vec: element register slots (no_slot for the sink _)
    // A vector of more than 8 elements (wgmma's accumulator lists, up to
    // 128 registers) keeps its slots in the function's long_vectors and
    // `imm` holds their address; see isa/sem/operands.hpp vec_slot().
};

struct exec_context;
struct exec_instruction;
// Runs one instruction for the lanes in `mask` (guard already applied).
using handler = void (*)(exec_context&, const exec_instruction&, uint32_t mask);

// The cache hints of ld/st that the cycle model honours
// (sim/timing/memory_timing.cpp); they never change values.
enum cache_hint : uint8_t {
    hint_l1_bypass = 1,      // .cg, .cv: cached in L2 only
    hint_l1_no_allocate = 2, // L1::no_allocate: a hit hits, a miss does not fill the L1
    hint_evict_first = 4,    // .cs, .lu, L1::evict_first, L2::evict_first: replaced before the rest
    hint_evict_last = 8,     // L1::evict_last, L2::evict_last: survives one pass of replacement
};

struct exec_instruction {
    handler run = nullptr;
    parser::data_type type = parser::data_type::none;   // instruction type (.u32, .f32 ...)
    parser::data_type type2 = parser::data_type::none;  // second type (cvt source, mul.wide source ...)
    uint8_t sub = 0;          // per-handler variant: comparison, rounding, operation
    uint8_t flags = 0;        // per-handler bits (ftz, sat, wide, hi ...)
    space sp = space::generic;
    uint8_t vec = 1;          // .v2/.v4 element count
    uint8_t nops = 0;
    bool dest_pair = false;   // the first operand was a pipe (p|q, d|p): ops[0] and ops[1] are both destinations
    uint32_t guard = no_slot; // predicate slot of @p
    bool guard_negated = false;
    uint32_t target = 0;      // branch target (instruction index)
    uint64_t (*rmw)(uint64_t old, uint64_t a, uint64_t b) = nullptr; // atomics: the new value
    std::array<exec_operand, 8> ops{}; // wgmma.mma_async with a descriptor A needs eight
    parser::pos_t pos = 0;    // source position, for fault reports
    uint16_t row = 0;         // instruction-table row (dense op id)
    // ld/st/atom/red/fence/membar/bar.warp.sync: the ordering and scope the
    // instruction names, with the ISA's defaults filled in (decode.cpp).
    mem_order order = mem_order::weak;
    mem_scope scope = mem_scope::none;
    uint8_t cache = 0;        // ld/st: cache_hint bits
    // A shared-memory access made through a .shared variable of its
    // function (exec_function::shared_regions index; no_region when not
    // known statically): memcheck holds it to that variable's bounds.
    static constexpr uint16_t no_region = 0xFFFF;
    uint16_t shared_region = no_region;
    // Set by decoders whose handler may change PCs, exit lanes or make them
    // wait (branches, calls, barriers, warp-synchronous instructions): the
    // engine runs these on its per-lane path. Every other handler only reads
    // and writes registers and memory, so a converged warp runs it directly.
    bool control = false;
    bool branch = false;      // a plain bra to `target` (the engine's converged path takes it itself)
    // A control instruction that a converged warp may run in place when
    // every live lane takes part: it never moves lanes apart (bar.sync may
    // make them all wait; warp-synchronous ones find every member present).
    bool uniform = false;
};

struct exec_param {
    std::string name;
    uint32_t offset = 0, size = 0, align = 1;
};

// Functions called through `call` keep their .param variables (formal
// parameters, return values, and the call-site variables param0, retval0 …)
// in a per-call frame; their addresses carry this tag so that ld/st.param
// find the frame rather than the kernel's parameter buffer.
inline constexpr uint64_t frame_param_tag = 0x80000000ull;

// Functions ptxsim provides itself (CUDA's device runtime; the dynamic
// parallelism ones, __cudaCDP2*, are served by sim/device_runtime.cpp).
enum class builtin : int32_t {
    none = -1, vprintf = -2, assertfail = -3, malloc = -4, free = -5,
    cdp_parameter_buffer_v2 = -6, cdp_parameter_buffer = -7, cdp_launch_v2 = -8, cdp_launch = -9,
    cdp_stream_create = -10, cdp_stream_destroy = -11, cdp_malloc = -12, cdp_free = -13, cdp_last_error = -14,
    cdp_error_string = -15, cdp_memcpy_async = -16, cdp_memset_async = -17, cdp_get_device = -18,
    cdp_device_count = -19, cdp_runtime_version = -20,
    graph_set_conditional = -21, // cudaGraphSetConditional(handle, value): the handle is a device word
    first_cdp = cdp_parameter_buffer_v2, last_cdp = cdp_runtime_version, // ids descend
};

struct exec_call_site {
    int32_t callee = -1;                 // function id, or a builtin
    uint32_t indirect_slot = no_slot;    // call through a register: its slot
    std::vector<std::pair<uint32_t, uint32_t>> args, rets; // (frame offset, size) of the caller's param variables
};

// A static .shared variable of a function: bytes [offset, offset + size)
// of the CTA's shared memory (isa/shared_provenance.hpp).
struct shared_region {
    uint32_t offset = 0, size = 0;
    std::string name;
};

// A register name as declared, for debuggers (never used to run code):
// `%r` with count 12 for %r<12> (%r0 ... %r11), or one register (count 0).
// Valid in the instructions [begin, end) of its { } block.
struct exec_register_name {
    std::string name;
    uint32_t count = 0;
    uint32_t slot = 0;
    uint32_t width = 1;  // slots per register: 2 for .b128
    bool pred = false;
    parser::data_type type = parser::data_type::none;
    uint32_t begin = 0, end = 0;
};

struct exec_function {
    std::string name;
    bool is_entry = false;
    std::vector<exec_instruction> code;
    uint32_t reg_slots = 0, pred_slots = 0;
    std::vector<exec_param> params;
    uint32_t param_bytes = 0;
    uint32_t local_bytes = 0;         // per-thread .local frame
    uint32_t frame_param_bytes = 0;   // per-thread .param frame (formals of a .func and call-site variables)
    std::vector<exec_param> formal_rets, formal_params; // of a .func, at frame offsets
    std::vector<exec_call_site> calls; // a call instruction's `target` indexes here
    std::vector<std::vector<uint32_t>> branch_tables; // brx.idx: `target` indexes here; instruction indices
    // Register slots of vector operands longer than 8 (exec_operand::imm
    // points into one); shared so that copies of the function stay valid.
    std::vector<std::shared_ptr<const std::vector<uint32_t>>> long_vectors;
    uint32_t reqntid[3] = {0, 0, 0};  // .reqntid, 0 when absent
    uint32_t maxntid[3] = {0, 0, 0};
    uint32_t maxnreg = 0;             // .maxnreg, 0 when absent
    uint32_t minnctapersm = 0;        // .minnctapersm, 0 when absent
    uint32_t reqnctapercluster[3] = {0, 0, 0}; // .reqnctapercluster, 0 when absent
    bool explicitcluster = false;     // .explicitcluster: must be launched with cluster dimensions
    uint32_t maxclusterrank = 0;      // .maxclusterrank: most CTAs per cluster, 0 when absent
    std::vector<shared_region> shared_regions; // its static .shared variables
    std::vector<shared_region> local_regions;  // its .local variables at frame offsets, for debuggers (debug/)
    std::vector<shared_region> extern_shared;  // .extern .shared names, all at the dynamic area's start (size 0: the launch sizes it)
    std::vector<exec_register_name> register_names; // for debuggers (debug/)
    // When the slots were compacted (isa/register_compaction.hpp): what
    // sim::estimate_registers gave for them as declared, for an SM of
    // estimate_per_sm registers (the estimate counts 64-bit slots twice,
    // which a slot shared by a 32- and a 64-bit register would blur).
    uint32_t declared_estimate = 0, estimate_per_sm = 0;
    // It reads a %reserved_smem_offset_* register: its CTAs get the
    // system's reserved shared memory (sim::launch_request::reserved_shared).
    bool uses_reserved_shared = false;
    // Why each instruction that cannot run yet cannot (its `target` indexes here).
    std::vector<std::string> unsupported;
};

} // namespace ptxsim::isa
