#include "bench/ptx_generator.hpp"

#include <fmt/format.h>

#include <random>

namespace ptxsim::bench {
namespace {

class generator {
public:
    explicit generator(uint32_t seed) : rng_(seed) {}

    void kernel(std::string& out, int index) {
        int line = 10;
        out += fmt::format("\n\t// .globl\tk{0}\n.visible .entry k{0}(\n\t.param .u32 k{0}_param_0,\n"
                           "\t.param .f32 k{0}_param_1,\n\t.param .u64 .ptr.global.align 16 k{0}_param_2,\n"
                           "\t.param .u64 k{0}_param_3,\n\t.param .align 128 .b8 k{0}_param_4[128]\n)\n"
                           ".maxntid 384, 1, 1\n.minnctapersm 1\n{{\n"
                           "\t.reg .pred \t%p<16>;\n\t.reg .b16 \t%rs<16>;\n\t.reg .f32 \t%f<128>;\n"
                           "\t.reg .b32 \t%r<128>;\n\t.reg .b64 \t%rd<64>;\n"
                           "\t.shared .align 1024 .b8 smem{0}[32768];\n",
                           index);
        out += fmt::format("\t.loc\t1 {} 0\n\tld.param.u32 \t%r1, [k{}_param_0];\n", line, index);
        out += fmt::format("\tld.param.f32 \t%f1, [k{0}_param_1];\n\tld.param.u64 \t%rd1, [k{0}_param_2];\n"
                           "\tld.param.u64 \t%rd2, [k{0}_param_3];\n\tcvta.to.global.u64 \t%rd3, %rd1;\n"
                           "\tmov.u32 \t%r2, %ntid.x;\n\tmov.u32 \t%r3, %ctaid.x;\n\tmov.u32 \t%r4, %tid.x;\n"
                           "\tmad.lo.s32 \t%r5, %r3, %r2, %r4;\n\tsetp.ge.s32 \t%p1, %r5, %r1;\n"
                           "\t@%p1 bra \t$L__BB{0}_99;\n",
                           index);
        int blocks = 6 + static_cast<int>(rng_() % 4);
        for (int b = 0; b < blocks; ++b) {
            out += fmt::format("$L__BB{}_{}:\n", index, b + 1);
            int n = 12 + static_cast<int>(rng_() % 10);
            for (int i = 0; i < n; ++i) {
                if (i % 3 == 0) out += fmt::format("\t.loc\t1 {} {}\n", line += 1 + rng_() % 3, 5 + rng_() % 20);
                instruction(out);
            }
            if (b % 3 == 2) inline_asm(out, index, b);
            out += fmt::format("\tsetp.lt.u32 \t%p{}, %r{}, %r{};\n\t@%p{} bra \t$L__BB{}_{};\n", 2 + b % 8, reg(), reg(),
                               2 + b % 8, index, b + 1);
        }
        out += fmt::format("$L__BB{}_99:\n\t.loc\t1 {} 1\n\tret;\n\n}}\n", index, line + 2);
    }

private:
    int reg() { return 1 + static_cast<int>(rng_() % 120); }
    int reg64() { return 4 + static_cast<int>(rng_() % 56); }

    void instruction(std::string& out) {
        switch (rng_() % 16) {
        case 0: out += fmt::format("\tadd.s32 \t%r{}, %r{}, %r{};\n", reg(), reg(), reg()); break;
        case 1: out += fmt::format("\tfma.rn.f32 \t%f{}, %f{}, %f{}, %f{};\n", reg(), reg(), reg(), reg()); break;
        case 2: out += fmt::format("\tmul.wide.s32 \t%rd{}, %r{}, 4;\n", reg64(), reg()); break;
        case 3: out += fmt::format("\tadd.s64 \t%rd{}, %rd3, %rd{};\n", reg64(), reg64()); break;
        case 4: out += fmt::format("\tld.global.nc.v4.f32 \t{{%f{}, %f{}, %f{}, %f{}}}, [%rd{}+{}];\n", reg(), reg(), reg(), reg(), reg64(), 16 * (rng_() % 64)); break;
        case 5: out += fmt::format("\tst.global.f32 \t[%rd{}+-{}], %f{};\n", reg64(), 4 * (rng_() % 16), reg()); break;
        case 6: out += fmt::format("\tshfl.sync.bfly.b32 \t%r{}|%p{}, %r{}, {}, 31, -1;\n", reg(), 1 + rng_() % 15, reg(), 1 << (rng_() % 5)); break;
        case 7: out += fmt::format("\tsetp.gt.f32 \t%p{}, %f{}, 0f3F800000;\n", 1 + rng_() % 15, reg()); break;
        case 8: out += fmt::format("\tselp.f32 \t%f{}, %f{}, %f{}, %p{};\n", reg(), reg(), reg(), 1 + rng_() % 15); break;
        case 9: out += fmt::format("\tcvt.rn.bf16x2.f32 \t%r{}, %f{}, %f{};\n", reg(), reg(), reg()); break;
        case 10: out += fmt::format("\tatom.global.add.u32 \t%r{}, [%rd{}], 1;\n", reg(), reg64()); break;
        case 11: out += fmt::format("\tld.shared.v2.u32 \t{{%r{}, %r{}}}, [%r{}+{}];\n", reg(), reg(), reg(), 8 * (rng_() % 512)); break;
        case 12: out += fmt::format("\tex2.approx.ftz.f32 \t%f{}, %f{};\n", reg(), reg()); break;
        case 13: out += fmt::format("\tlop3.b32 \t%r{}, %r{}, %r{}, %r{}, 150;\n", reg(), reg(), reg(), reg()); break;
        case 14: out += fmt::format("\tld.global.nc.L1::no_allocate.L2::256B.v4.s32 \t{{%r{}, %r{}, %r{}, %r{}}}, [%rd{}];\n", reg(), reg(), reg(), reg(), reg64()); break;
        default: out += fmt::format("\tmax.f32 \t%f{}, %f{}, %f{};\n", reg(), reg(), reg()); break;
        }
    }

    void inline_asm(std::string& out, int k, int b) {
        out += "\t// begin inline asm\n\t{\n\t.reg .pred P1;\n\tLAB_WAIT:\n"
               "\tmbarrier.try_wait.parity.shared::cta.b64 P1, [%r" + std::to_string(reg()) + "], %r" + std::to_string(reg()) +
               ";\n\t@P1 bra DONE;\n\tbra.uni LAB_WAIT;\n\tDONE:\n\t}\n\t// end inline asm\n";
        out += fmt::format("\t// begin inline asm\n\tcp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
                           "[%r{}], [%rd2, {{%r{}, %r{}}}], [%r{}];\n\t// end inline asm\n",
                           reg(), reg(), reg(), reg());
        out += "\twgmma.fence.sync.aligned;\n\twgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {";
        for (int i = 0; i < 16; ++i) out += fmt::format("{}%f{}", i ? ", " : "", 64 + i);
        out += fmt::format("}}, %rd{}, %rd{}, %p{}, 1, 1, 0, 1;\n\twgmma.commit_group.sync.aligned;\n"
                           "\twgmma.wait_group.sync.aligned 0;\n",
                           reg64(), reg64(), 1 + (k + b) % 15);
    }

    std::mt19937 rng_;
};

} // namespace

std::string generate_ptx(size_t min_bytes, uint32_t seed) {
    std::string out = "//\n// Generated by ptxsim's bench generator\n//\n\n.version 9.0\n.target sm_90a\n.address_size 64\n";
    out.reserve(min_bytes + 8192);
    generator g(seed);
    for (int k = 0; out.size() < min_bytes; ++k) g.kernel(out, k);
    out += "\t.file\t1 \"/bench/generated.cu\"\n";
    return out;
}

} // namespace ptxsim::bench
