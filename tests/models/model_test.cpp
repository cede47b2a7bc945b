// The bundled model files load and say what HARDWARE.md says.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "models/detail/schema.hpp"
#include "models/model.hpp"

namespace ptxsim::models {
namespace {

const std::filesystem::path models_dir = PTXSIM_MODELS_DIR;

gpu_model load_bundled(const std::string& name) {
    parser::diagnostics d;
    auto path = find_model(name, models_dir);
    EXPECT_TRUE(path) << name;
    auto m = path ? load_model(path->string(), d) : std::nullopt;
    for (const auto& x : d.all()) ADD_FAILURE() << x.file << ":" << x.line << ":" << x.col << ": " << x.message;
    EXPECT_TRUE(m) << name;
    return m.value_or(gpu_model{});
}

TEST(bundled_models, all_load_without_diagnostics) {
    EXPECT_EQ(list_models(models_dir), (std::vector<std::string>{"h100", "h200", "h800"}));
    for (const auto& name : list_models(models_dir)) EXPECT_EQ(load_bundled(name).name, name);
}

TEST(bundled_models, h800_figures) {
    gpu_model m = load_bundled("h800");
    EXPECT_EQ(m.format, 1u);
    EXPECT_EQ(m.arch, "sm_90");
    EXPECT_EQ(m.sm_count, 132u);
    EXPECT_EQ(m.clock_mhz, 1830.0);
    EXPECT_EQ(m.sm.warp_size, 32u);
    EXPECT_EQ(m.sm.sub_partitions, 4u);
    EXPECT_EQ(m.sm.max_threads, 2048u);
    EXPECT_EQ(m.sm.max_warps, 64u);
    EXPECT_EQ(m.sm.max_ctas, 32u);
    EXPECT_EQ(m.sm.max_threads_per_cta, 1024u);
    EXPECT_EQ(m.sm.registers_per_sm, 65536u);
    EXPECT_EQ(m.sm.register_alloc_unit, 256u);
    EXPECT_EQ(m.sm.max_registers_per_thread, 255u);
    EXPECT_EQ(m.sm.setmaxnreg_min, 24u);
    EXPECT_EQ(m.sm.setmaxnreg_max, 256u);
    EXPECT_EQ(m.sm.setmaxnreg_step, 8u);
    EXPECT_EQ(m.sm.mma_dense_bf16_flop_per_clock, 4096u);
    EXPECT_EQ(m.sm.mma_dense_fp8_flop_per_clock, 8192u);
    EXPECT_EQ(m.shared_memory.per_sm_bytes, 228u * 1024);
    EXPECT_EQ(m.shared_memory.max_per_cta_bytes, 227u * 1024);
    EXPECT_EQ(m.shared_memory.reserved_per_cta_bytes, 1024u);
    EXPECT_EQ(m.shared_memory.alloc_granularity_bytes, 128u);
    std::vector<uint64_t> carveouts;
    for (uint64_t k : {0, 8, 16, 32, 64, 100, 132, 164, 196, 228}) carveouts.push_back(k * 1024);
    EXPECT_EQ(m.shared_memory.carveouts_bytes, carveouts);
    EXPECT_EQ(m.shared_memory.l1_and_shared_bytes, 256u * 1024);
    EXPECT_EQ(m.shared_memory.banks, 32u);
    EXPECT_EQ(m.shared_memory.bank_width_bytes, 4u);
    EXPECT_EQ(m.l2.size_bytes, 50ull << 20);
    EXPECT_EQ(m.l2.partitions, 2u);
    EXPECT_EQ(m.dram.capacity_bytes, 80ull << 30);
    EXPECT_EQ(m.dram.bandwidth_bytes_per_s, 3.35e12);
    EXPECT_EQ(m.cluster.max_ctas_portable, 8u);
    EXPECT_EQ(m.cluster.max_ctas_nonportable, 16u);
}

TEST(bundled_models, presets_differ_where_the_hardware_does) {
    gpu_model h100 = load_bundled("h100"), h200 = load_bundled("h200");
    EXPECT_EQ(h100.clock_mhz, 1980.0);
    EXPECT_EQ(h100.dram.capacity_bytes, 80ull << 30);
    EXPECT_EQ(h200.dram.capacity_bytes, 141ull << 30);
    EXPECT_EQ(h200.dram.bandwidth_bytes_per_s, 4.8e12);
    EXPECT_EQ(h200.sm.registers_per_sm, h100.sm.registers_per_sm);
}

TEST(bundled_models, every_figure_has_a_source_and_unconfirmed_ones_say_so) {
    gpu_model m = load_bundled("h800");
    size_t figures = std::count_if(detail::model_fields().begin(), detail::model_fields().end(),
                                   [](const detail::field& f) { return f.kind == detail::field_kind::figure; });
    EXPECT_EQ(m.sources.size(), figures);
    for (const auto& s : m.sources) EXPECT_FALSE(s.source.empty()) << s.path;
    std::vector<std::string> unconfirmed;
    for (const auto& s : m.sources)
        if (s.unconfirmed) unconfirmed.push_back(s.path);
    // HARDWARE.md's [U] figures for the H800, figures it does not list yet, and
    // the timing figures taken from other simulators' configurations (the FMA
    // pipe's interval follows from NVIDIA's FP32 peak instead).
    EXPECT_EQ(unconfirmed,
              (std::vector<std::string>{"sm.max_threads_per_cta", "sm.registers_per_cta", "shared_memory.default_per_cta_kib",
                                        "l2.size_mib", "l2.partitions", "l2.bandwidth_gb_per_s", "l2.full_bandwidth_gb_per_s", "dram.capacity_gib", "timing.alu_latency",
                                        "timing.alu_interval", "timing.fma_latency", "timing.fp64_latency",
                                        "timing.fp64_interval", "timing.sfu_latency", "timing.sfu_interval", "timing.warp_latency",
                                        "timing.mma_latency", "timing.mma_interval", "timing.wgmma_tail", "timing.l2_atomic_interval", "timing.host_link_gb_per_s", "timing.barrier_latency",
                                        "timing.dram_efficiency_pct", "timing.launch_overhead_ns", "cluster.max_ctas_nonportable"}));
    ASSERT_NE(m.source_of("sm.warp_size"), nullptr);
    EXPECT_EQ(m.source_of("sm.warp_size")->source, "CUDA 13 cuda_occupancy.h");
    EXPECT_EQ(m.source_of("sm.nothing"), nullptr);
}

TEST(find_model, accepts_plain_names_only) {
    EXPECT_EQ(find_model("h800", models_dir), models_dir / "h800.json");
    EXPECT_FALSE(find_model("h900", models_dir));
    EXPECT_FALSE(find_model("", models_dir));
    EXPECT_FALSE(find_model("../models/h800", models_dir));
    EXPECT_FALSE(find_model("h800.json", models_dir));
    EXPECT_FALSE(find_model("h800", models_dir / "nowhere"));
    EXPECT_TRUE(list_models(models_dir / "nowhere").empty());
}

TEST(load_model, missing_file_is_an_unlocated_error) {
    parser::diagnostics d;
    EXPECT_FALSE(load_model("/nonexistent/x.json", d));
    ASSERT_EQ(d.all().size(), 1u);
    EXPECT_EQ(d.all()[0].file, "/nonexistent/x.json");
    EXPECT_EQ(d.all()[0].line, 0u);
    EXPECT_EQ(d.all()[0].message, "cannot open model file: No such file or directory");
}

TEST(load_model, directory_is_an_unlocated_error) {
    parser::diagnostics d;
    EXPECT_FALSE(load_model(models_dir.string(), d));
    ASSERT_EQ(d.all().size(), 1u);
    EXPECT_EQ(d.all()[0].message, "cannot open model file: Is a directory");
}

} // namespace
} // namespace ptxsim::models
