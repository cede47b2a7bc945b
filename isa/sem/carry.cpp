// The integer carry forms: add.cc, addc, sub.cc, subc, mad.lo/hi.cc, madc.
// CC.CF is per thread; the decoder keeps it in a hidden predicate slot of
// the function and passes it as ops[carry_operand], so it lives in the
// warp's frame and follows divergence like any predicate.
//
// The carry is that of the n-bit unsigned addition of the operands' bit
// patterns, whatever the type's sign: the signed types differ only in how
// mad's .hi half of the product is formed.
//
// Subtraction is addition of the complement, as the hardware does it:
// sub.cc computes a + ~b + 1 and subc a + ~b + CF, and CC.CF receives the
// carry out, which is 1 when there is *no* borrow. The PTX ISA's text
// ("d = a - (b + CC.CF)", "borrow-out written to CC.CF") reads like x86's
// borrow flag, but code nvcc emits relies on the hardware's meaning: its
// 128-bit division reads the flag with `addc 0, 0` after a `subc.cc` chain
// and gives wrong quotients under the borrow reading (tests/sim/
// semantics_isa_extra_test.cpp has both a direct check and an __int128
// division compiled by nvcc).
#include "isa/sem/operands.hpp"
#include "isa/sem/registry.hpp"

namespace ptxsim::isa::sem {
namespace {

using u128 = unsigned __int128;

enum class carry_op : uint8_t { add, sub, mad_lo, mad_hi };
enum : uint8_t { reads_cf = 1, writes_cf = 2 };

// The half of a*b that mad/madc add (n = 32 or 64).
uint64_t product_part(uint64_t a, uint64_t b, uint32_t bits, bool sign, bool hi) {
    __int128 p = sign ? static_cast<__int128>(sign_extend(a, bits)) * sign_extend(b, bits)
                      : static_cast<__int128>(static_cast<u128>(a & mask_bits(bits)) * (b & mask_bits(bits)));
    u128 up = static_cast<u128>(p);
    return static_cast<uint64_t>(hi ? up >> bits : up) & mask_bits(bits);
}

template <carry_op Op>
void carry_handler(exec_context& c, const exec_instruction& ins, uint32_t mask) {
    const uint32_t bits = bits_of(ins.type);
    const bool sign = is_signed(ins.type), cin = ins.flags & reads_cf, cout = ins.flags & writes_cf;
    const uint64_t m = mask_bits(bits);
    const exec_operand& cf = ins.ops[carry_operand];
    for_lanes(mask, [&](uint32_t lane) {
        uint64_t a = read(c, ins.ops[1], lane) & m, b = read(c, ins.ops[2], lane) & m;
        u128 in = cin ? (read(c, cf, lane) & 1) : 0;
        uint64_t r;
        bool carry;
        if constexpr (Op == carry_op::sub) {
            // a + ~b + (CF, or 1 for sub.cc); the carry out means "no borrow".
            u128 s = static_cast<u128>(a) + (~b & m) + (cin ? in : 1);
            r = static_cast<uint64_t>(s) & m;
            carry = (s >> bits) != 0;
        } else {
            u128 x = a, y = b;
            if constexpr (Op == carry_op::mad_lo || Op == carry_op::mad_hi) {
                x = product_part(a, b, bits, sign, Op == carry_op::mad_hi);
                y = read(c, ins.ops[3], lane) & m;
            }
            u128 s = x + y + in;
            r = static_cast<uint64_t>(s) & m;
            carry = (s >> bits) != 0;
        }
        write(c, ins.ops[0], lane, r);
        if (cout) write(c, cf, lane, carry);
    });
}

// add.cc sub.cc mad.cc (from int.cpp) and addc subc madc.
std::string dec_carry(const matched_instruction& m, exec_instruction& out) {
    std::string_view key = m.row->key;
    const bool with_cf = key == "addc" || key == "subc" || key == "madc";
    if (m.has("sat")) return "a .cc carry form with .sat is not valid PTX";
    if (out.type != parser::data_type::u32 && out.type != parser::data_type::s32 && out.type != parser::data_type::u64 &&
        out.type != parser::data_type::s64)
        return "carry forms take .u32, .s32, .u64 or .s64";
    out.flags = static_cast<uint8_t>((with_cf ? reads_cf : 0) | (m.has_mod("cc") ? writes_cf : 0));
    if (key == "add" || key == "addc") {
        out.run = carry_handler<carry_op::add>;
    } else if (key == "sub" || key == "subc") {
        out.run = carry_handler<carry_op::sub>;
    } else {
        std::string_view mode = m.get("mode");
        if (mode == "lo") out.run = carry_handler<carry_op::mad_lo>;
        else if (mode == "hi") out.run = carry_handler<carry_op::mad_hi>;
        else return key == "madc" ? "madc needs .lo or .hi" : "mad.cc needs .lo or .hi (mad.wide has no carry form)";
    }
    return {};
}

} // namespace

std::string decode_carry(const matched_instruction& m, exec_instruction& out) { return dec_carry(m, out); }

bool uses_carry_flag(const matched_instruction& m) {
    std::string_view key = m.row->key;
    return key == "addc" || key == "subc" || key == "madc" || m.has_mod("cc");
}

namespace {
constexpr entry entries[] = {{"addc", dec_carry}, {"subc", dec_carry}, {"madc", dec_carry}};
}

std::span<const entry> carry_entries() { return entries; }

} // namespace ptxsim::isa::sem
