// Control flow and synchronisation: bra, exit, ret (from an entry), trap,
// brkpt, pmevent (no effect),
// bar/barrier (.sync .arrive .red), membar/fence (no effect on values in a
// sequentially interleaved run), nanosleep. The engine advances every lane
// in the mask to the next instruction before a handler runs; a taken branch
// overwrites that with the target.
#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"

namespace ptxsim::isa::sem {
namespace {

// A PC is the function id in the high bits and the instruction index in the
// low 20; a branch stays in its function.
inline constexpr uint32_t index_bits = 0xFFFFFu;

void bra_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    for_lanes(mask, [&](uint32_t lane) { c.pc[lane] = (c.pc[lane] & ~index_bits) | ins.target; });
}
std::string dec_bra(const matched_instruction&, exec_instruction& out) {
    out.control = out.branch = true;
    out.run = bra_handler;
    return {};
}

void exit_handler(exec_context& c, const exec_instruction&, uint32_t mask) { c.exited |= mask; }
std::string dec_exit(const matched_instruction&, exec_instruction& out) {
    out.control = true;
    out.run = exit_handler;
    return {};
}

void trap_handler(exec_context& c, const exec_instruction&, uint32_t mask) {
    c.fault(fault_kind::trap, static_cast<uint32_t>(__builtin_ctz(mask)), 0, "trap instruction executed");
}
std::string dec_trap(const matched_instruction&, exec_instruction& out) {
    out.run = trap_handler;
    return {};
}

// brkpt: on a GPU with no debugger attached the breakpoint exception ends
// the kernel with an error, as trap does; ptxsim has no debugger to stop
// in, so it is a located fault of its own wording.
void brkpt_handler(exec_context& c, const exec_instruction&, uint32_t mask) {
    c.fault(fault_kind::trap, static_cast<uint32_t>(__builtin_ctz(mask)), 0, "breakpoint (brkpt) reached with no debugger attached");
}
std::string dec_brkpt(const matched_instruction&, exec_instruction& out) {
    out.run = brkpt_handler;
    return {};
}

// pmevent / pmevent.mask: signals performance-monitor events to a profiler.
// The events change no register or memory and no thread's progress, and
// ptxsim has no performance counters for them to count: the instruction is
// decoded and checked (the operand is a constant) and changes nothing.
void pmevent_handler(exec_context&, const exec_instruction&, uint32_t) {}
std::string dec_pmevent(const matched_instruction&, exec_instruction& out) {
    out.run = pmevent_handler;
    return {};
}

void nop_handler(exec_context&, const exec_instruction&, uint32_t) {}

// fence / membar / fence.proxy: no effect on values here (every write is
// visible at once); observers see them (ordering and scope are in ins).
void fence_handler(exec_context& c, const exec_instruction&, uint32_t mask) { c.note(sync_note::fence, mask); }
std::string dec_fence(const matched_instruction&, exec_instruction& out) {
    out.run = fence_handler;
    return {};
}
void proxy_fence_handler(exec_context& c, const exec_instruction&, uint32_t mask) { c.note(sync_note::proxy_fence, mask); }
std::string dec_proxy_fence(const matched_instruction&, exec_instruction& out) {
    out.run = proxy_fence_handler;
    return {};
}

// nanosleep: the thread waits (for a while, by the ISA: up to twice the
// hint, possibly not at all); ptxsim lets other warps run.
void nanosleep_handler(exec_context& c, const exec_instruction&, uint32_t) { c.relinquish(); }
std::string dec_nanosleep(const matched_instruction&, exec_instruction& out) {
    out.run = nanosleep_handler;
    return {};
}

// griddepcontrol.wait waits until the grids this one depends on have
// completed and their writes are visible; launch_dependents lets a
// dependent grid start early. ptxsim runs a device's launches one after the
// other, so the prerequisites are always complete: both have nothing to do.
std::string dec_griddepcontrol(const matched_instruction&, exec_instruction& out) {
    out.run = nop_handler;
    return {};
}

// setmaxnreg.{inc,dec}.sync.aligned.u32 n: n must be a multiple of 8 in
// 24..256 (ptxas checks a literal; a register operand is not allowed). No
// register changes value; the engine moves the registers between the warp
// and the CTA's pool, and an .inc waits until the pool can cover it.
void setmaxnreg_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    c.set_max_registers(static_cast<uint32_t>(ins.ops[0].imm), ins.flags != 0, mask);
}
} // namespace

uint32_t setmaxnreg_inc_count(const exec_instruction& ins) {
    return ins.run == setmaxnreg_handler && ins.flags ? static_cast<uint32_t>(ins.ops[0].imm) : 0;
}

namespace {
std::string dec_setmaxnreg(const matched_instruction& m, exec_instruction& out) {
    if (out.ops[0].kind != opnd::imm || out.ops[0].imm < 24 || out.ops[0].imm > 256 || out.ops[0].imm % 8)
        return "setmaxnreg takes a register count that is a multiple of 8 from 24 to 256";
    out.flags = m.get("action") == "inc" ? 1 : 0;
    out.run = setmaxnreg_handler;
    return {};
}

// bar.sync a{, b} / barrier.sync a{, b} / bar.arrive a, b
constexpr uint8_t bar_arrive = 1, bar_aligned = 2; // exec_instruction::flags
void bar_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    uint32_t lane = static_cast<uint32_t>(__builtin_ctz(mask));
    uint32_t id = static_cast<uint32_t>(read(c, ins.ops[0], lane));
    uint32_t count = ins.nops > 1 ? static_cast<uint32_t>(read(c, ins.ops[1], lane)) : 0;
    c.barrier(id, count, mask, /*wait=*/(ins.flags & bar_arrive) == 0);
}
// bar.red.popc.u32 d, a{, b}, {!}c / bar.red.{and,or}.pred p, a{, b}, {!}c:
// the barrier also reduces c over the arriving threads; every one of them
// receives the result (the engine writes d when the barrier completes).
void bar_red_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    uint32_t lane = static_cast<uint32_t>(__builtin_ctz(mask));
    uint32_t id = static_cast<uint32_t>(read(c, ins.ops[1], lane));
    uint32_t count = ins.nops > 3 ? static_cast<uint32_t>(read(c, ins.ops[2], lane)) : 0;
    uint32_t votes = 0;
    for_lanes(mask, [&](uint32_t l) { votes |= static_cast<uint32_t>(read(c, ins.ops[ins.nops - 1], l) & 1) << l; });
    c.barrier_reduce(id, count, mask, votes, static_cast<bar_reduction>(ins.sub), ins.ops[0]);
}

std::string dec_bar(const matched_instruction& m, exec_instruction& out) {
    std::string_view mode = m.get("mode");
    // bar{.cta}.* is barrier{.cta}.*.aligned: the whole warp executes it together.
    const bool aligned = m.row->key == "bar" || m.has("aligned");
    if (mode == "red") {
        std::string_view op = m.get("op");
        out.sub = static_cast<uint8_t>(op == "popc" ? bar_reduction::popc : op == "and" ? bar_reduction::and_ : bar_reduction::or_);
        out.control = true;
        out.flags = aligned ? bar_aligned : 0;
        out.run = bar_red_handler;
        return {};
    }
    out.flags = static_cast<uint8_t>((mode == "arrive" ? bar_arrive : 0) | (aligned ? bar_aligned : 0));
    out.control = out.uniform = true;
    out.run = bar_handler;
    return {};
}

void ret_handler(exec_context& c, const exec_instruction&, uint32_t mask) { c.ret(mask); }
std::string dec_ret(const matched_instruction&, exec_instruction& out) {
    out.control = true;
    out.run = ret_handler;
    return {};
}

void call_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) { c.call(ins, mask); }

// brx.idx index, tlist: jump to the index-th label of a .branchtargets list
void brx_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    for_lanes(mask, [&](uint32_t lane) {
        uint32_t target;
        if (c.branch_target(ins.target, read(c, ins.ops[0], lane), lane, target))
            c.pc[lane] = (c.pc[lane] & ~index_bits) | target;
    });
}
std::string dec_brx(const matched_instruction&, exec_instruction& out) {
    out.control = true;
    out.run = brx_handler; // the decoder fills in the table (isa/decode.cpp)
    return {};
}
std::string dec_call(const matched_instruction&, exec_instruction& out) {
    out.control = true;
    out.run = call_handler; // the decoder fills in the call site (isa/decode.cpp)
    return {};
}

constexpr entry entries[] = {
    {"bra", dec_bra}, {"exit", dec_exit}, {"ret", dec_ret}, {"call", dec_call}, {"brx.idx", dec_brx}, {"trap", dec_trap}, {"brkpt", dec_brkpt}, {"bar", dec_bar},
    {"barrier", dec_bar}, {"membar", dec_fence}, {"fence", dec_fence}, {"fence.proxy", dec_proxy_fence}, {"nanosleep", dec_nanosleep},
    {"griddepcontrol", dec_griddepcontrol}, {"setmaxnreg", dec_setmaxnreg}, {"pmevent", dec_pmevent},
};

} // namespace

std::span<const entry> control_entries() { return entries; }

bool barrier_aligned(const exec_instruction& ins) {
    return (ins.run == bar_handler || ins.run == bar_red_handler) && (ins.flags & bar_aligned);
}

} // namespace ptxsim::isa::sem
