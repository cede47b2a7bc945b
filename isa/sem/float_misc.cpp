// testp, copysign and slct: bit-level classification and selection on
// f32/f64 values (no arithmetic, so nothing to round).
#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"

namespace ptxsim::isa::sem {
namespace {

using parser::data_type;

struct fbits {
    uint64_t sign, exp, frac;
};
fbits layout(data_type t) {
    return t == data_type::f64 ? fbits{1ull << 63, 0x7FFull << 52, (1ull << 52) - 1} : fbits{1ull << 31, 0xFFull << 23, (1ull << 23) - 1};
}

enum class tp : uint8_t { finite, infinite, number, notanumber, normal, subnormal };

// testp.op.type p, a
void testp_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const fbits f = layout(ins.type);
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t v = read(c, ins.ops[1], lane);
        uint64_t e = v & f.exp, m = v & f.frac;
        bool inf = e == f.exp && !m, nan = e == f.exp && m;
        bool r = false;
        switch (static_cast<tp>(ins.sub)) {
        case tp::finite: r = e != f.exp; break;
        case tp::infinite: r = inf; break;
        case tp::number: r = !nan; break;
        case tp::notanumber: r = nan; break;
        case tp::normal: r = e != 0 && e != f.exp; break;
        case tp::subnormal: r = e == 0 && m != 0; break;
        }
        write(c, ins.ops[0], lane, r);
    });
}
std::string dec_testp(const matched_instruction& m, exec_instruction& out) {
    std::string_view op = m.get("op");
    out.sub = static_cast<uint8_t>(op == "finite" ? tp::finite : op == "infinite" ? tp::infinite : op == "number" ? tp::number
                                   : op == "notanumber" ? tp::notanumber : op == "normal" ? tp::normal : tp::subnormal);
    out.run = testp_handler;
    return {};
}

// copysign.type d, a, b: b with the sign of a
void copysign_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const fbits f = layout(ins.type);
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t a = read(c, ins.ops[1], lane), b = read(c, ins.ops[2], lane);
        write(c, ins.ops[0], lane, (b & ~f.sign & (f.sign | f.exp | f.frac)) | (a & f.sign));
    });
}
std::string dec_copysign(const matched_instruction&, exec_instruction& out) {
    out.run = copysign_handler;
    return {};
}

// slct.dtype.stype d, a, b, c: a when c >= 0, else b (c is s32 or f32; a NaN c selects b)
void slct_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const bool ftz = ins.flags & 1;
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t cv = read(c, ins.ops[3], lane);
        bool take_a;
        if (ins.type2 == data_type::f32) {
            uint32_t bits = static_cast<uint32_t>(cv);
            bool nan = (bits & 0x7F800000u) == 0x7F800000u && (bits & 0x7FFFFFu);
            bool zero = (bits & 0x7FFFFFFFu) == 0 || (ftz && (bits & 0x7F800000u) == 0);
            take_a = !nan && (zero || !(bits & 0x80000000u));
        } else {
            take_a = static_cast<int32_t>(cv) >= 0;
        }
        write(c, ins.ops[0], lane, (take_a ? read(c, ins.ops[1], lane) : read(c, ins.ops[2], lane)) & mask_bits(bits_of(ins.type)));
    });
}
std::string dec_slct(const matched_instruction& m, exec_instruction& out) {
    out.flags = m.has("ftz") ? 1 : 0;
    out.run = slct_handler;
    return {};
}

constexpr entry entries[] = {{"testp", dec_testp}, {"copysign", dec_copysign}, {"slct", dec_slct}};

} // namespace

std::span<const entry> float_misc_entries() { return entries; }

} // namespace ptxsim::isa::sem
