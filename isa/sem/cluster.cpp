// Thread-block clusters: barrier.cluster.arrive/wait, mapa, getctarank, and
// the asynchronous stores into another CTA's shared memory that complete on
// its mbarrier (st.async, red.async). Where shared::cluster addresses point
// and which threads a cluster barrier waits for is the simulator's business
// (exec_context); here are the instructions' operands and rules.
#include <fmt/format.h>

#include <cstring>

#include "isa/sem/mbarrier.hpp"
#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"

namespace ptxsim::isa::sem {
namespace {

// barrier.cluster.arrive{.release|.relaxed}{.aligned}: .relaxed drops only
// the ordering, which a sequentially consistent emulator has anyway.
void arrive_handler(exec_context& c, const exec_instruction&, uint32_t mask) { c.cluster_arrive(mask); }
void wait_handler(exec_context& c, const exec_instruction&, uint32_t mask) { c.cluster_wait(mask); }

std::string dec_arrive(const matched_instruction&, exec_instruction& out) {
    out.control = out.uniform = true; // it may put lanes to sleep, like bar.sync
    out.run = arrive_handler;
    return {};
}
std::string dec_wait(const matched_instruction&, exec_instruction& out) {
    out.control = out.uniform = true;
    out.run = wait_handler;
    return {};
}

// mapa{.shared::cluster}.type d, a, b: ins.flags 1 when a and d are generic.
void mapa_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t out;
        uint64_t a = read(c, ins.ops[1], lane);
        if (!(ins.flags & 1)) a &= 0xFFFFFFFFu;
        if (c.map_shared_rank(a, ins.flags & 1, static_cast<uint32_t>(read(c, ins.ops[2], lane)), lane, out))
            write(c, ins.ops[0], lane, out);
    });
}
std::string dec_mapa(const matched_instruction& m, exec_instruction& out) {
    out.flags = m.get("space").empty() ? 1 : 0;
    out.run = mapa_handler;
    return {};
}

// getctarank{.shared::cluster}.type d, a
void getctarank_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    for_lanes(mask, [&](uint32_t lane) {
        uint32_t rank;
        uint64_t a = read(c, ins.ops[1], lane);
        if (!(ins.flags & 1)) a &= 0xFFFFFFFFu;
        if (c.shared_rank(a, ins.flags & 1, lane, rank)) write(c, ins.ops[0], lane, rank);
    });
}
std::string dec_getctarank(const matched_instruction& m, exec_instruction& out) {
    out.flags = m.get("space").empty() ? 1 : 0;
    out.run = getctarank_handler;
    return {};
}

// The mbarrier operand of st.async/red.async receives complete-tx of the
// bytes written. The store lands at once (it is complete before any thread
// can observe the mbarrier's phase), then the tx-count drops.
bool complete_tx(exec_context& c, const exec_instruction& ins, uint32_t lane, uint32_t bytes) {
    if (ins.nops < 3) return true; // the .global form has no mbarrier
    uint64_t off;
    if (!mbar::locate(c, space::shared, address(c, ins.ops[2], lane), lane, off)) return false;
    mbar::state before;
    return mbar::update(c, off, lane, mbar::add_tx, bytes, 1, before);
}

// st.async{...}{.vec}.type [a], b, [mbar]: ins.sub element bytes.
void st_async_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const exec_operand& v = ins.ops[1];
    const uint32_t n = v.kind == opnd::vec ? v.count : 1, size = ins.sub;
    for_lanes(mask, [&](uint32_t lane) {
        uint8_t data[32];
        for (uint32_t i = 0; i < n; ++i) {
            uint64_t e = v.kind == opnd::vec ? vec_element(c, v, i, lane) : read(c, v, lane);
            std::memcpy(data + i * size, &e, size);
        }
        uint64_t a = address(c, ins.ops[0], lane);
        // One access of the whole vector (its alignment is the vector's).
        if (!c.store(ins.sp, a, n * size, lane, data)) return;
        complete_tx(c, ins, lane, n * size);
    });
}
std::string dec_st_async(const matched_instruction& m, exec_instruction& out) {
    out.sp = space_of(m.get("space"));
    if (out.sp == space::generic) out.sp = space::shared;
    out.sub = static_cast<uint8_t>(bits_of(type_of(m.get("type"))) / 8);
    uint32_t n = out.ops[1].kind == opnd::vec ? out.ops[1].count : 1;
    if (n * out.sub > 16) return "st.async stores at most 16 bytes";
    out.run = st_async_handler;
    return {};
}

// red.async ... .op.type [a], b, [mbar]: ins.sub the op, ins.flags bit 0
// signed, bit 1 64-bit.
enum class red_op : uint8_t { inc, dec, min, max, add, and_, or_, xor_ };
template <bool Signed, red_op Op>
uint64_t apply(uint64_t old, uint64_t b, uint64_t bits) {
    const uint64_t m = mask_bits(static_cast<uint32_t>(bits));
    old &= m;
    b &= m;
    switch (Op) {
    case red_op::inc: return old >= b ? 0 : old + 1;
    case red_op::dec: return (old == 0 || old > b) ? b : old - 1;
    case red_op::min:
        if (Signed) return sign_extend(old, static_cast<uint32_t>(bits)) < sign_extend(b, static_cast<uint32_t>(bits)) ? old : b;
        return old < b ? old : b;
    case red_op::max:
        if (Signed) return sign_extend(old, static_cast<uint32_t>(bits)) > sign_extend(b, static_cast<uint32_t>(bits)) ? old : b;
        return old > b ? old : b;
    case red_op::add: return (old + b) & m;
    case red_op::and_: return old & b;
    case red_op::or_: return old | b;
    case red_op::xor_: return old ^ b;
    }
    return old;
}
template <bool Signed>
constexpr uint64_t (*ops[])(uint64_t, uint64_t, uint64_t) = {
    apply<Signed, red_op::inc>, apply<Signed, red_op::dec>, apply<Signed, red_op::min>,  apply<Signed, red_op::max>,
    apply<Signed, red_op::add>, apply<Signed, red_op::and_>, apply<Signed, red_op::or_>, apply<Signed, red_op::xor_>,
};

void red_async_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const uint32_t bytes = (ins.flags & 2) ? 8 : 4;
    auto op = (ins.flags & 1) ? ops<true>[ins.sub] : ops<false>[ins.sub];
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t old = 0;
        if (!c.atomic(ins.sp, address(c, ins.ops[0], lane), bytes, lane, &old, op, read(c, ins.ops[1], lane), bytes * 8)) return;
        complete_tx(c, ins, lane, bytes);
    });
}
std::string dec_red_async(const matched_instruction& m, exec_instruction& out) {
    static constexpr std::string_view names[] = {"inc", "dec", "min", "max", "add", "and", "or", "xor"};
    std::string_view op = m.get("op"), type = m.get("type");
    out.sp = space_of(m.get("space"));
    if (out.sp == space::generic) out.sp = space::shared;
    for (uint8_t i = 0; i < 8; ++i)
        if (op == names[i]) out.sub = i;
    bool wide = type.substr(1) == "64";
    bool bitwise = out.sub >= 5, arith = out.sub <= 4;
    // Bitwise ops take .b types, the others .u/.s; inc/dec only .u32, add no .s64.
    if ((bitwise && type[0] != 'b') || (arith && type[0] == 'b') || (out.sub <= 1 && type != "u32") ||
        (out.sub == 4 && type == "s64"))
        return fmt::format("red.async.{} does not take .{}", op, type);
    out.flags = static_cast<uint8_t>((type[0] == 's' ? 1 : 0) | (wide ? 2 : 0));
    out.run = red_async_handler;
    return {};
}

constexpr entry table[] = {
    {"barrier.cluster.arrive", dec_arrive}, {"barrier.cluster.wait", dec_wait}, {"mapa", dec_mapa},
    {"getctarank", dec_getctarank},         {"st.async", dec_st_async},         {"red.async", dec_red_async},
};

} // namespace

std::span<const entry> cluster_entries() { return table; }

} // namespace ptxsim::isa::sem
