// ldmatrix, stmatrix and movmatrix on 8x8 matrices of 16-bit elements
// (.m8n8 .b16: the forms sm_90 has; .m16n16/.m8n16/.b8 are sm_100a).
//
// PTX ISA 9.7.14.5.15-17: for .xN, lanes 8i..8i+7 give the addresses of
// rows 0-7 of matrix i (16 bytes each, 16-byte aligned). In register i,
// lane l holds row l/4, columns 2(l%4) and 2(l%4)+1 (the lower column in
// the low half). With .trans the matrix is read (written) column-major:
// lane l holds rows 2(l%4) and 2(l%4)+1 of column l/4.
#include <array>
#include <cstring>

#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"
#include "isa/sem/warp_collective.hpp"

namespace ptxsim::isa::sem {
namespace {

constexpr uint8_t trans_flag = 1;

// The 8x8 matrices as 16-bit elements, [matrix][row][col].
using tiles = std::array<std::array<std::array<uint16_t, 8>, 8>, 4>;

// Which element of its matrix half `h` of lane `lane`'s register holds.
struct rc {
    uint32_t row, col;
};
rc element_of(uint32_t lane, uint32_t h, bool trans) {
    const uint32_t g = lane >> 2, t = lane & 3;
    return trans ? rc{2 * t + h, g} : rc{g, 2 * t + h};
}

bool row_address(exec_context& c, const exec_instruction& ins, uint32_t lane, const char* name, uint64_t& addr) {
    addr = address(c, ins.ops[ins.sub], lane);
    if (addr % 16 == 0) return true;
    c.fault(fault_kind::misaligned, lane, addr, std::string(name) + " row address is not 16-byte aligned");
    return false;
}

void ldmatrix_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    if (!whole_warp(c, mask, "ldmatrix")) return;
    const exec_operand& d = ins.ops[0];
    tiles m{};
    for (uint32_t i = 0; i < d.count; ++i)
        for (uint32_t r = 0; r < 8; ++r) {
            const uint32_t lane = 8 * i + r;
            uint64_t addr;
            if (!row_address(c, ins, lane, "ldmatrix", addr)) return;
            uint8_t row[16];
            if (!c.load(ins.sp, addr, 16, lane, row)) return;
            std::memcpy(m[i][r].data(), row, 16);
        }
    const bool trans = ins.flags & trans_flag;
    for (uint32_t lane = 0; lane < warp_size; ++lane)
        for (uint32_t i = 0; i < d.count; ++i) {
            if (d.elems[i] == no_slot) continue;
            auto lo = element_of(lane, 0, trans), hi = element_of(lane, 1, trans);
            c.reg(d.elems[i], lane) = m[i][lo.row][lo.col] | uint64_t{m[i][hi.row][hi.col]} << 16;
        }
}

void stmatrix_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    if (!whole_warp(c, mask, "stmatrix")) return;
    const exec_operand& s = ins.ops[1];
    const bool trans = ins.flags & trans_flag;
    tiles m{};
    for (uint32_t lane = 0; lane < warp_size; ++lane)
        for (uint32_t i = 0; i < s.count; ++i) {
            const uint64_t v = s.elems[i] == no_slot ? 0 : c.reg(s.elems[i], lane);
            auto lo = element_of(lane, 0, trans), hi = element_of(lane, 1, trans);
            m[i][lo.row][lo.col] = static_cast<uint16_t>(v);
            m[i][hi.row][hi.col] = static_cast<uint16_t>(v >> 16);
        }
    for (uint32_t i = 0; i < s.count; ++i)
        for (uint32_t r = 0; r < 8; ++r) {
            const uint32_t lane = 8 * i + r;
            uint64_t addr;
            if (!row_address(c, ins, lane, "stmatrix", addr)) return;
            if (!c.store(ins.sp, addr, 16, lane, m[i][r].data())) return;
        }
}

// movmatrix.sync.aligned.m8n8.trans.b16 d, a: the warp's 8x8 matrix in `a`
// (row layout) comes back transposed in `d` (same layout).
void movmatrix_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    if (!whole_warp(c, mask, "movmatrix")) return;
    std::array<std::array<uint16_t, 8>, 8> m{};
    for (uint32_t lane = 0; lane < warp_size; ++lane) {
        const uint64_t v = read(c, ins.ops[1], lane);
        for (uint32_t h = 0; h < 2; ++h) {
            auto e = element_of(lane, h, false);
            m[e.row][e.col] = static_cast<uint16_t>(v >> (16 * h));
        }
    }
    for (uint32_t lane = 0; lane < warp_size; ++lane) {
        auto lo = element_of(lane, 0, true), hi = element_of(lane, 1, true); // read column-major = transposed
        write(c, ins.ops[0], lane, m[lo.row][lo.col] | uint64_t{m[hi.row][hi.col]} << 16);
    }
}

// .x1/.x2/.x4 must match the register vector.
std::string check_form(const matched_instruction& m, const exec_instruction& out, uint32_t vec_operand) {
    if (m.get("shape") != "m8n8" || m.get("type") != "b16") return "only the .m8n8 .b16 form is implemented (the others are sm_100a)";
    const std::string_view num = m.get("num");
    const uint32_t n = num == "x1" ? 1 : num == "x2" ? 2 : 4;
    if (out.ops[vec_operand].kind != opnd::vec || out.ops[vec_operand].count != n)
        return std::string(".") + std::string(num) + " needs a vector of " + std::to_string(n) + " registers";
    return {};
}

std::string dec_ldmatrix(const matched_instruction& m, exec_instruction& out) {
    out.control = out.uniform = true; // waits for the whole warp
    if (auto why = check_form(m, out, 0); !why.empty()) return why;
    out.sp = space_of(m.get("space"));
    out.flags = m.has("trans") ? trans_flag : 0;
    out.sub = 1; // the address operand
    out.run = ldmatrix_handler;
    return {};
}

std::string dec_stmatrix(const matched_instruction& m, exec_instruction& out) {
    out.control = out.uniform = true;
    if (auto why = check_form(m, out, 1); !why.empty()) return why;
    out.sp = space_of(m.get("space"));
    out.flags = m.has("trans") ? trans_flag : 0;
    out.sub = 0;
    out.run = stmatrix_handler;
    return {};
}

std::string dec_movmatrix(const matched_instruction&, exec_instruction& out) {
    out.control = out.uniform = true;
    out.run = movmatrix_handler;
    return {};
}

constexpr entry entries[] = {{"ldmatrix", dec_ldmatrix}, {"stmatrix", dec_stmatrix}, {"movmatrix", dec_movmatrix}};

} // namespace

std::span<const entry> matrix_entries() { return entries; }

} // namespace ptxsim::isa::sem
