// The fatbinary and host-binary readers on committed programs built by
// nvcc 13 from tests/exec/programs/vector_add.cu (README.md there says how),
// and on malformed copies of them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "cuda/fatbin.hpp"
#include "cuda/host_binary.hpp"

namespace ptxsim::cuda {
namespace {

std::string data(const std::string& name) { return std::string(PTXSIM_SOURCE_DIR) + "/tests/exec/data/" + name; }

std::vector<uint8_t> bytes_of(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

host_binary read_ok(const std::string& name) {
    host_binary b;
    std::string error;
    EXPECT_TRUE(read_host_binary(data(name), b, error)) << error;
    return b;
}

// What nvcc 13 -arch=sm_90a puts in a program: two containers, one with a
// small sm_90a cubin without kernels and compute_90 PTX, the other with the
// sm_90a cubin of the kernels and compute_90a PTX.
void expect_vector_add(const host_binary& b, const std::string& compression) {
    EXPECT_TRUE(b.dynamic);
    EXPECT_TRUE(b.shared_runtime());
    EXPECT_FALSE(b.driver_linked());
    ASSERT_TRUE(b.has_fatbin);
    EXPECT_EQ(b.fatbin_error, "");
    int ptx = 0, elf = 0, elf_with_kernels = 0;
    for (const auto& e : b.fatbin) {
        EXPECT_EQ(e.sm, 90u);
        if (e.kind == fatbin_entry::kind_t::ptx) {
            ++ptx;
            EXPECT_EQ(e.compression, compression);
            const std::string text = e.text();
            EXPECT_NE(text.find(e.arch_specific ? ".target sm_90a\n" : ".target sm_90\n"), std::string::npos);
            EXPECT_NE(text.find(".visible .entry _Z10vector_addPKfS0_Pfi("), std::string::npos);
            EXPECT_EQ(text.find('\0'), std::string::npos) << "trailing NULs are not PTX";
            EXPECT_TRUE(e.has_kernels());
        } else if (e.kind == fatbin_entry::kind_t::elf) {
            ++elf;
            elf_with_kernels += e.has_kernels();
        }
    }
    EXPECT_EQ(ptx, 2);
    EXPECT_EQ(elf, 2);
    EXPECT_EQ(elf_with_kernels, 1);
    auto pick = choose_ptx(b.fatbin, 90, true);
    ASSERT_TRUE(pick);
    EXPECT_EQ(b.fatbin[*pick].arch_name(), "compute_90a");
    EXPECT_EQ(describe(b.fatbin), "sm_90a SASS, compute_90 PTX, compute_90a PTX");
    // An arch-specific PTX does not run on another architecture; compute_90's does.
    auto newer = choose_ptx(b.fatbin, 100, true);
    ASSERT_TRUE(newer);
    EXPECT_EQ(b.fatbin[*newer].arch_name(), "compute_90");
    EXPECT_FALSE(choose_ptx(b.fatbin, 80, true));
}

TEST(fatbin, nvcc_13_default_compresses_ptx_with_zstd) { expect_vector_add(read_ok("vector_add_zstd.elf"), "zstd"); }

TEST(fatbin, uncompressed) { expect_vector_add(read_ok("vector_add_uncompressed.elf"), ""); }

TEST(fatbin, compress_mode_speed_uses_lz4) { expect_vector_add(read_ok("vector_add_speed.elf"), "lz4"); }

TEST(fatbin, compress_all_also_compresses_the_cubin) {
    expect_vector_add(read_ok("vector_add_compress_all.elf"), "zstd");
}

TEST(fatbin, sass_only_program_has_no_ptx) {
    host_binary b = read_ok("vector_add_sass_only.elf");
    ASSERT_TRUE(b.has_fatbin);
    EXPECT_FALSE(choose_ptx(b.fatbin, 90, true));
    EXPECT_EQ(describe(b.fatbin), "sm_90a SASS");
    bool kernels = false;
    for (const auto& e : b.fatbin) kernels |= e.has_kernels();
    EXPECT_TRUE(kernels);
}

// nvcc -rdc=true: .nv_fatbin holds only the device-linked SASS; each
// translation unit's PTX is in its own container of __nv_relfatbin.
TEST(fatbin, relocatable_device_code_keeps_each_units_ptx) {
    host_binary b = read_ok("rdc_two_units.elf");
    ASSERT_TRUE(b.has_fatbin);
    EXPECT_FALSE(choose_ptx(b.fatbin, 90, true));
    EXPECT_EQ(b.relocatable_error, "");
    EXPECT_EQ(b.relocatable.size(), 2u);
    const auto units = b.relocatable_ptx(90);
    ASSERT_EQ(units.size(), 2u);
    std::string both = units[0]->text() + units[1]->text();
    EXPECT_NE(both.find(".visible .entry _Z6linkedPii"), std::string::npos);
    EXPECT_NE(both.find(".visible .func (.param .b32 func_retval0) _Z5twicei"), std::string::npos);
    EXPECT_NE(both.find(".visible .global .align 4 .u32 offset = 5;"), std::string::npos);
    EXPECT_TRUE(b.relocatable_ptx(80).empty()); // compute_90a PTX does not run on sm_80
}

TEST(fatbin, ptx_choice_prefers_exact_then_newest_older) {
    auto entry = [](fatbin_entry::kind_t k, uint32_t sm, bool a) {
        fatbin_entry e;
        e.kind = k;
        e.sm = sm;
        e.arch_specific = a;
        return e;
    };
    using k = fatbin_entry::kind_t;
    std::vector<fatbin_entry> v = {entry(k::ptx, 70, false), entry(k::ptx, 80, false), entry(k::elf, 90, true),
                                   entry(k::ptx, 100, false)};
    EXPECT_EQ(choose_ptx(v, 90, true), 1u);    // compute_80 PTX runs on sm_90 (forward-compatible)
    EXPECT_EQ(choose_ptx(v, 100, true), 3u);
    EXPECT_FALSE(choose_ptx(v, 60, true));      // nothing old enough
    v.push_back(entry(k::ptx, 90, true));
    EXPECT_EQ(choose_ptx(v, 90, true), 4u);
}

// Every prefix of a real container and copies with bytes flipped: an
// error or fewer entries, never a crash (run under the sanitizers in CI's
// sanitizer job).
TEST(fatbin, truncated_and_corrupted_containers_do_not_crash) {
    host_binary b = read_ok("vector_add_zstd.elf");
    // The container's bytes: find the magic in the file.
    std::vector<uint8_t> file = bytes_of(data("vector_add_zstd.elf"));
    size_t at = 0;
    for (; at + 4 <= file.size(); ++at)
        if (file[at] == 0x50 && file[at + 1] == 0xED && file[at + 2] == 0x55 && file[at + 3] == 0xBA) break;
    ASSERT_LT(at, file.size());
    std::vector<uint8_t> container(file.begin() + long(at), file.end());
    for (size_t n = 0; n < container.size() && n < 4096; n += 7) {
        std::vector<fatbin_entry> entries;
        std::string error;
        bool ok = parse_fatbin(container.data(), n, entries, error);
        if (!ok) {
            EXPECT_NE(error, "");
        }
    }
    for (size_t i = 0; i < 400 && i < container.size(); ++i) {
        std::vector<uint8_t> bad = container;
        bad[i] ^= 0xA5;
        std::vector<fatbin_entry> entries;
        std::string error;
        parse_fatbin(bad.data(), bad.size(), entries, error);
    }
    std::vector<fatbin_entry> entries;
    std::string error;
    EXPECT_FALSE(parse_fatbin(container.data(), 3, entries, error));
    EXPECT_NE(error, "");
}

TEST(host_binary, not_an_elf_is_an_error) {
    auto p = std::filesystem::temp_directory_path() / "ptxsim_not_elf.txt";
    std::ofstream(p) << "#!/bin/sh\necho hello\n";
    host_binary b;
    std::string error;
    EXPECT_FALSE(read_host_binary(p.string(), b, error));
    EXPECT_NE(error.find("not an ELF"), std::string::npos) << error;
    EXPECT_FALSE(read_host_binary("/nonexistent/program", b, error));
    EXPECT_NE(error, "");
}

} // namespace
} // namespace ptxsim::cuda
