#pragma once
// Per-instruction decoders: each family file registers, for the table keys
// it implements, a function that fills an exec_instruction's handler and
// fields from the matched modifiers. Keys with no entry decode to a handler
// that faults as "not implemented" with the instruction's location.
#include <string>
#include <span>
#include <string_view>

#include "isa/exec.hpp"
#include "isa/match.hpp"

namespace ptxsim::isa::sem {

// Returns an empty string on success, or why this form cannot run yet.
using decoder = std::string (*)(const matched_instruction& m, exec_instruction& out);

decoder find_decoder(std::string_view key);

// Family tables (one per isa/sem/*.cpp).
struct entry {
    const char* key;
    decoder fn;
};
std::span<const entry> int_entries();
std::span<const entry> float_entries();
std::span<const entry> mem_entries();
std::span<const entry> ldu_entries();        // isa/sem/ldu.cpp
std::span<const entry> atomic_entries();
std::span<const entry> mem_misc_entries();
std::span<const entry> control_entries();
std::span<const entry> cvt_entries();
std::span<const entry> cvt_pack_entries();   // isa/sem/cvt_pack.cpp
std::span<const entry> warp_entries();
std::span<const entry> bits_entries();
std::span<const entry> approx_entries();
std::span<const entry> float_misc_entries();
std::span<const entry> carry_entries();
std::span<const entry> video_entries();
std::span<const entry> mbarrier_entries();
std::span<const entry> async_copy_entries();
std::span<const entry> tma_entries();
std::span<const entry> tma_reduce_entries(); // cp.reduce.async.bulk.tensor
std::span<const entry> tensormap_entries();  // tensormap.replace, tensormap.cp_fenceproxy
std::span<const entry> multimem_entries();
std::span<const entry> texture_entries();
std::span<const entry> surface_entries();
std::span<const entry> mma_entries();    // isa/sem/mma.cpp
std::span<const entry> mma_sparse_entries(); // mma.sp, mma.sp::ordered_metadata
std::span<const entry> matrix_entries(); // ldmatrix, stmatrix, movmatrix
std::span<const entry> wmma_entries();   // wmma.load, wmma.store, wmma.mma
std::span<const entry> cluster_entries(); // barrier.cluster, mapa, getctarank, st.async, red.async
std::span<const entry> wgmma_entries();  // wgmma.mma_async, fence, commit_group, wait_group
std::span<const entry> wgmma_sparse_entries(); // wgmma.mma_async.sp
// rcp/sqrt/div .approx and div.full (isa/sem/approx.cpp).
std::string decode_approx(const matched_instruction& m, exec_instruction& out);

// The carry forms (isa/sem/carry.cpp): add.cc, sub.cc, mad.cc come here
// from int.cpp; addc, subc, madc have their own entries. The decoder gives
// each instruction for which uses_carry_flag holds the function's hidden
// CC.CF predicate as operand ops[carry_operand].
inline constexpr uint32_t carry_operand = 5;
bool uses_carry_flag(const matched_instruction& m);
std::string decode_carry(const matched_instruction& m, exec_instruction& out);

// cvt with the sm_100a fp6/fp4/ue8m0 types (isa/sem/cvt_mx.cpp) and cvt.rs
// (isa/sem/cvt_rs.cpp), reached from cvt.cpp's decoder.
std::string decode_cvt_mx(const matched_instruction& m, exec_instruction& out);
std::string decode_cvt_rs(const matched_instruction& m, exec_instruction& out);

// mov.b128 and mov.v2/.v4 (isa/sem/mem_misc.cpp).
std::string decode_mov_wide(const matched_instruction& m, exec_instruction& out);

// Float forms of keys that integer code also uses (add, mul, min ...).
std::string decode_float(const matched_instruction& m, exec_instruction& out);

// The element update of reduction `op` on `type`, with red's rules
// (isa/sem/atomic.cpp), for cp.reduce.async.bulk; nullptr when there is none.
using rmw_fn = uint64_t (*)(uint64_t old, uint64_t value, uint64_t unused);
rmw_fn reduction_update(std::string_view op, parser::data_type type);

// The register count a `setmaxnreg.inc` asks for; 0 for any other instruction.
uint32_t setmaxnreg_inc_count(const exec_instruction& ins);

// bar.* and barrier.*.aligned: the whole warp must execute the instruction
// together (a CTA barrier reached by part of a warp is undefined). False for
// barrier.* without .aligned, whose lanes may arrive separately, and for
// any other instruction.
bool barrier_aligned(const exec_instruction& ins);

// The handler for instructions that cannot run yet: faults with the reason.
void not_implemented(exec_context& ctx, const exec_instruction& ins, uint32_t mask);

// Helpers shared by the family files.
parser::data_type type_of(std::string_view text);
// (inline: handlers ask them per instruction)
inline uint32_t bits_of(parser::data_type t) { return parser::size_of(t) * 8; }
inline bool is_signed(parser::data_type t) {
    using parser::data_type;
    return t == data_type::s8 || t == data_type::s16 || t == data_type::s32 || t == data_type::s64;
}
inline bool is_float(parser::data_type t) {
    using parser::data_type;
    return t == data_type::f16 || t == data_type::f32 || t == data_type::f64 || t == data_type::bf16 ||
           t == data_type::f16x2 || t == data_type::bf16x2;
}
// The space a .global/.shared::cta/... modifier names (generic when absent).
space space_of(std::string_view modifier);

} // namespace ptxsim::isa::sem
