// Occupancy by CUDA's rules: hand-computed cases on the H800 model, and,
// where the CUDA toolkit's cuda_occupancy.h is found at build time, the
// same answer as cudaOccMaxActiveBlocksPerMultiprocessor over a grid of
// block sizes, register counts, shared-memory sizes, carve-outs and barrier
// counts (the header is NVIDIA's own calculator, an independent reference).
#include "models/occupancy.hpp"

#include <gtest/gtest.h>

#include <climits>

#include "models/model.hpp"

#if defined(PTXSIM_HAVE_CUDA_OCCUPANCY)
#include <cuda_occupancy.h>
#endif

namespace {

using namespace ptxsim::models;

const gpu_model& h800() {
    static const gpu_model m = [] {
        ptxsim::parser::diagnostics d;
        auto m = load_model(std::string(PTXSIM_MODELS_DIR) + "/h800.json", d);
        if (!m) throw std::runtime_error("h800.json does not load");
        return *m;
    }();
    return m;
}

kernel_resources kernel(uint32_t threads, uint32_t regs, uint64_t static_shared = 0, uint64_t dynamic_shared = 0) {
    kernel_resources k;
    k.block_threads = threads;
    k.registers_per_thread = regs;
    k.static_shared_bytes = static_shared;
    k.dynamic_shared_bytes = dynamic_shared;
    return k;
}

TEST(Occupancy, WarpsAndRegistersTie) {
    // 8 warps; 1,024 registers a warp, 16 warps per sub-partition: 64 warps.
    occupancy o = occupancy_of(h800(), kernel(256, 32));
    EXPECT_EQ(o.ctas_per_sm, 8u);
    EXPECT_EQ(o.limit_warps, 8u);
    EXPECT_EQ(o.limit_registers, 8u);
    EXPECT_EQ(o.limit_shared_memory, 228u); // 1,024 reserved bytes a CTA, 228 KiB
    EXPECT_EQ(o.limit_ctas, 32u);
    EXPECT_EQ(o.limit_barriers, 64u);
    EXPECT_EQ(o.limiting, occupancy::warps | occupancy::registers);
    EXPECT_EQ(o.limiting_names(), "registers, warps");
    EXPECT_DOUBLE_EQ(o.theoretical, 1.0);
    EXPECT_EQ(o.registers_per_cta, 8u * 1024);
    EXPECT_TRUE(o.error.empty());
}

TEST(Occupancy, RegistersFillEachSubPartitionSeparately) {
    // 40 registers: 1,280 a warp; 16,384 / 1,280 = 12 warps per quarter,
    // 48 per SM (the whole file would hold 51), so 24 CTAs of two warps.
    occupancy o = occupancy_of(h800(), kernel(64, 40));
    EXPECT_EQ(o.ctas_per_sm, 24u);
    EXPECT_EQ(o.limiting, occupancy::registers);
    EXPECT_DOUBLE_EQ(o.theoretical, 48.0 / 64);
}

TEST(Occupancy, RegistersRoundToTheAllocationUnit) {
    // 33 registers: 1,056 a warp, granted as 1,280.
    occupancy o = occupancy_of(h800(), kernel(128, 33));
    EXPECT_EQ(o.registers_per_cta, 4u * 1280);
    EXPECT_EQ(o.limit_registers, 12u); // 12 warps a quarter, 48 / 4
}

TEST(Occupancy, SharedMemoryOptInAndGranularity) {
    // 100 KiB dynamic + 1 KiB reserved: 103,424 bytes; two fit in 228 KiB.
    occupancy o = occupancy_of(h800(), kernel(128, 32, 0, 100 * 1024));
    EXPECT_EQ(o.ctas_per_sm, 2u);
    EXPECT_EQ(o.limiting, occupancy::shared_memory);
    EXPECT_EQ(o.shared_per_cta, 103424u);
    // 100 static bytes: 1,124 rounded up to 1,152 (128-byte granularity).
    EXPECT_EQ(occupancy_of(h800(), kernel(32, 16, 100)).shared_per_cta, 1152u);
}

TEST(Occupancy, CarveoutPreferenceRoundsUpToAnAvailableSize) {
    kernel_resources k = kernel(128, 32, 0, 40 * 1024);
    k.carveout_percent = 50; // 114 KiB, which the hardware rounds up to 132 KiB
    occupancy o = occupancy_of(h800(), k);
    EXPECT_EQ(o.shared_per_sm, 132u * 1024);
    EXPECT_EQ(o.ctas_per_sm, 3u); // 135,168 / 41,984
    k.carveout_percent = 0;       // no shared memory preferred: the smallest carve-out that holds one CTA
    o = occupancy_of(h800(), k);
    EXPECT_EQ(o.shared_per_sm, 64u * 1024);
    EXPECT_EQ(o.ctas_per_sm, 1u);
}

TEST(Occupancy, NamedBarriersLimitSmallCtas) {
    kernel_resources k = kernel(32, 16);
    k.barriers = 16; // a barrier id in a register: ptxas reserves all 16
    occupancy o = occupancy_of(h800(), k);
    EXPECT_EQ(o.ctas_per_sm, 4u);
    EXPECT_EQ(o.limiting, occupancy::barriers);
    k.barriers = 0;
    EXPECT_EQ(occupancy_of(h800(), k).ctas_per_sm, 32u);
}

TEST(Occupancy, WhatCannotLaunchSaysWhyAsCudaDoes) {
    occupancy o = occupancy_of(h800(), kernel(1025, 32));
    EXPECT_EQ(o.ctas_per_sm, 0u);
    EXPECT_EQ(o.error, "invalid configuration argument: a block of 1025 threads, but a CTA holds at most 1024");
    o = occupancy_of(h800(), kernel(1024, 255));
    EXPECT_EQ(o.error, "too many resources requested for launch: a block of 1024 threads using 255 registers each needs "
                       "262144 registers, but a CTA may have at most 65536");
    o = occupancy_of(h800(), kernel(128, 32, 1024, 227 * 1024));
    EXPECT_EQ(o.error, "invalid argument: 234496 bytes of shared memory a CTA (1024 static, 232448 dynamic, 1024 reserved, "
                       "rounded to 128), but a CTA may have at most 232448 plus the reservation");
    kernel_resources k = kernel(128, 32, 0, 64 * 1024);
    k.max_dynamic_shared_bytes = 48 * 1024;
    EXPECT_EQ(occupancy_of(h800(), k).error,
              "invalid argument: 65536 bytes of dynamic shared memory, above the kernel's maximum of 49152 "
              "(cudaFuncAttributeMaxDynamicSharedMemorySize)");
    k = kernel(128, 32);
    k.carveout_percent = 101;
    EXPECT_EQ(occupancy_of(h800(), k).error, "invalid argument: a shared-memory carve-out preference of 101%");
    EXPECT_EQ(occupancy_of(h800(), kernel(0, 32)).error, "invalid configuration argument: a block of 0 threads");
}

#if defined(PTXSIM_HAVE_CUDA_OCCUPANCY)

// NVIDIA's calculator for the same SM, its properties from the model.
cudaOccResult cuda_answer(const gpu_model& m, const kernel_resources& k) {
    cudaOccDeviceProp p;
    p.computeMajor = 9;
    p.computeMinor = 0;
    p.maxThreadsPerBlock = static_cast<int>(m.sm.max_threads_per_cta);
    p.maxThreadsPerMultiprocessor = static_cast<int>(m.sm.max_threads);
    p.regsPerBlock = static_cast<int>(m.sm.registers_per_cta);
    p.regsPerMultiprocessor = static_cast<int>(m.sm.registers_per_sm);
    p.warpSize = static_cast<int>(m.sm.warp_size);
    p.sharedMemPerBlock = m.shared_memory.default_per_cta_bytes;
    p.sharedMemPerMultiprocessor = m.shared_memory.per_sm_bytes;
    p.numSms = static_cast<int>(m.sm_count);
    p.sharedMemPerBlockOptin = m.shared_memory.max_per_cta_bytes;
    p.reservedSharedMemPerBlock = m.shared_memory.reserved_per_cta_bytes;
    cudaOccFuncAttributes a;
    a.maxThreadsPerBlock = static_cast<int>(m.sm.max_threads_per_cta);
    a.numRegs = static_cast<int>(k.registers_per_thread);
    a.sharedSizeBytes = k.static_shared_bytes;
    a.partitionedGCConfig = PARTITIONED_GC_OFF;
    a.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
    a.maxDynamicSharedSizeBytes = k.max_dynamic_shared_bytes < 0 ? k.dynamic_shared_bytes : size_t(k.max_dynamic_shared_bytes);
    a.numBlockBarriers = static_cast<int>(k.barriers);
    cudaOccDeviceState s;
    s.carveoutConfig = k.carveout_percent;
    cudaOccResult r{};
    EXPECT_EQ(cudaOccMaxActiveBlocksPerMultiprocessor(&r, &p, &a, &s, static_cast<int>(k.block_threads), k.dynamic_shared_bytes),
              CUDA_OCC_SUCCESS);
    return r;
}

uint32_t cuda_limit(int v) { return v == INT_MAX ? UINT32_MAX : static_cast<uint32_t>(v); }

TEST(Occupancy, SameAsCudaOccupancyHeader) {
    const gpu_model& m = h800();
    const uint32_t threads[] = {1, 32, 33, 64, 96, 128, 160, 192, 256, 288, 384, 512, 640, 768, 1000, 1024, 1025};
    const uint32_t regs[] = {0, 16, 24, 32, 33, 40, 48, 56, 64, 72, 80, 96, 128, 168, 200, 232, 255};
    const uint64_t statics[] = {0, 100, 4096, 48 * 1024, 100 * 1024};
    const uint64_t dynamics[] = {0, 1, 8 * 1024, 47 * 1024, 64 * 1024, 113 * 1024, 200 * 1024, 227 * 1024};
    const int carveouts[] = {-1, 0, 25, 50, 100};
    const uint32_t barriers[] = {0, 1, 2, 16};
    int compared = 0, launchable = 0;
    for (uint32_t t : threads)
        for (uint32_t r : regs)
            for (uint64_t st : statics)
                for (uint64_t dy : dynamics)
                    for (int c : carveouts)
                        for (uint32_t b : barriers) {
                            kernel_resources k = kernel(t, r, st, dy);
                            k.carveout_percent = c;
                            k.barriers = b;
                            occupancy o = occupancy_of(m, k);
                            cudaOccResult want = cuda_answer(m, k);
                            SCOPED_TRACE(testing::Message() << t << " threads, " << r << " registers, " << st << "+" << dy
                                                            << " shared, carve-out " << c << ", " << b << " barriers");
                            ASSERT_EQ(o.ctas_per_sm, uint32_t(want.activeBlocksPerMultiprocessor));
                            ASSERT_EQ(o.limit_registers, cuda_limit(want.blockLimitRegs));
                            ASSERT_EQ(o.limit_warps, cuda_limit(want.blockLimitWarps));
                            ASSERT_EQ(o.limit_shared_memory, cuda_limit(want.blockLimitSharedMem));
                            ASSERT_EQ(o.limit_ctas, cuda_limit(want.blockLimitBlocks));
                            ASSERT_EQ(o.limit_barriers, cuda_limit(want.blockLimitBarriers));
                            ASSERT_EQ(o.shared_per_cta, want.allocatedSharedMemPerBlock);
                            ASSERT_EQ(o.registers_per_cta, uint64_t(want.allocatedRegistersPerBlock));
                            // CUDA keeps the earlier resources' bits when the
                            // barriers lower the limit further; ptxsim names
                            // only what sets it, so compare where they agree.
                            if (want.limitingFactors & OCC_LIMIT_BARRIERS) ASSERT_TRUE(o.limiting & occupancy::barriers);
                            else ASSERT_EQ(o.limiting, want.limitingFactors);
                            ASSERT_EQ(o.ctas_per_sm == 0, !o.error.empty());
                            ++compared;
                            launchable += o.ctas_per_sm > 0;
                        }
    std::printf("compared %d launch shapes with cuda_occupancy.h (%d launchable)\n", compared, launchable);
}

#else

TEST(Occupancy, SameAsCudaOccupancyHeader) {
    GTEST_SKIP() << "cuda_occupancy.h was not found when this test was built (the CUDA toolkit is optional); the "
                    "hand-computed cases above still ran";
}

#endif

} // namespace
