// Launch files with "textures" and "surfaces": objects over buffers passed
// as {"texture": name} / {"surface": name} arguments, and located messages
// (exit status 2) for every kind of mistake in them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

// A launch file around the texture_sample kernel with `objects` (the
// "textures" and "surfaces" keys) and `args` for its seven parameters.
std::string launch_file(const std::string& name, const std::string& objects, const std::string& args) {
    auto p = std::filesystem::temp_directory_path() / name;
    std::ofstream(p) << "{\"module\": \"" << source_dir()
                     << "/kernels/texture_sample/texture_sample.sm_90a.ptx\",\n"
                        "\"buffers\": {\"img\": {\"type\": \"f32\", \"count\": 16}, \"out\": {\"type\": \"f32\", \"count\": 16}},\n"
                     << objects << ",\n\"launches\": [{\"kernel\": \"texture_sample\", \"grid\": 1, \"block\": [4, 4],\n\"args\": ["
                     << args << "]}]}\n";
    return p.string();
}

const std::string good_objects =
    "\"textures\": {\"t\": {\"buffer\": \"img\", \"dims\": [4, 4], \"format\": {\"type\": \"f32\"}}},\n"
    "\"surfaces\": {\"s\": {\"buffer\": \"out\", \"dims\": [4, 4], \"format\": {\"type\": \"f32\", \"channels\": 1}}}";
const std::string good_args = "{\"texture\": \"t\"}, {\"texture\": \"t\"}, {\"texture\": \"t\"}, {\"surface\": \"s\"}, "
                              "{\"buffer\": \"out\"}, {\"s32\": 4}, {\"s32\": 4}";

TEST(run_textures, objects_over_buffers_run) {
    auto r = run_ptxsim("run '" + launch_file("ptxsim_tex_ok.json", good_objects, good_args) + "'");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
}

// Runs a launch file that must be refused with `message` on line `line`.
void refused(const std::string& name, const std::string& objects, const std::string& args, int line, const std::string& message) {
    std::string f = launch_file(name, objects, args);
    auto r = run_ptxsim("run '" + f + "'");
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find(fmt::format("{}:{}:", f, line)), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("error: " + message), std::string::npos) << r.err;
}

TEST(run_textures, mistakes_in_objects_are_located) {
    refused("ptxsim_tex_buf.json", "\"textures\": {\"t\": {\"buffer\": \"nope\", \"dims\": [4], \"format\": {\"type\": \"f32\"}}}",
            good_args, 3, "texture 't': unknown buffer 'nope'");
    refused("ptxsim_tex_size.json", "\"textures\": {\"t\": {\"buffer\": \"img\", \"dims\": [4, 5], \"format\": {\"type\": \"f32\"}}}",
            good_args, 3, "texture 't': its texels span 80 bytes from byte 0; buffer 'img' has 64");
    refused("ptxsim_tex_offset.json",
            "\"textures\": {\"t\": {\"buffer\": \"img\", \"offset\": 4, \"dims\": [4, 4], \"format\": {\"type\": \"f32\"}}}", good_args, 3,
            "texture 't': its texels span 64 bytes from byte 4; buffer 'img' has 64");
    refused("ptxsim_tex_mode.json",
            "\"textures\": {\"t\": {\"buffer\": \"img\", \"dims\": [4],\n \"format\": {\"type\": \"f32\"}, \"address_mode\": \"repeat\"}}",
            good_args, 4,
            "texture 't': \"address_mode\" is \"clamp\", \"wrap\", \"mirror\" or \"border\", or a list of one per dimension");
    refused("ptxsim_tex_fmt.json", "\"textures\": {\"t\": {\"buffer\": \"img\", \"dims\": [4],\n \"format\": {\"type\": \"f64\"}}}",
            good_args, 4, "texture 't': \"format\" is {\"type\": u8|s8|u16|s16|u32|s32|f16|f32, \"channels\": 1|2|4}");
    refused("ptxsim_tex_rule.json",
            "\"textures\": {\"t\": {\"buffer\": \"img\", \"dims\": [4], \"format\": {\"type\": \"f32\"}, \"address_mode\": \"wrap\"}}",
            good_args, 3,
            "texture 't': wrap and mirror addressing without normalized coordinates (CUDA supports them only with normalized "
            "coordinates)");
    refused("ptxsim_tex_cube.json",
            "\"textures\": {\"t\": {\"buffer\": \"img\", \"dims\": [2, 1], \"format\": {\"type\": \"f32\"}, \"cubemap\": true}}",
            good_args, 3, "texture 't': a cubemap that is not square 2-D faces in layers of six");
    refused("ptxsim_surf_key.json",
            "\"surfaces\": {\"s\": {\"buffer\": \"out\", \"dims\": [4], \"format\": {\"type\": \"f32\"},\n \"filter\": \"point\"}}",
            good_args, 4, "surface 's': unknown key 'filter'");
}

TEST(run_textures, arguments_must_name_objects_of_their_kind) {
    refused("ptxsim_tex_arg.json", good_objects,
            "{\"texture\": \"s\"}, {\"texture\": \"t\"}, {\"texture\": \"t\"}, {\"surface\": \"s\"}, {\"buffer\": \"out\"}, "
            "{\"s32\": 4}, {\"s32\": 4}",
            6, "launches[0].args[0]: unknown texture \"s\"");
}

TEST(run_textures, a_surface_passed_as_a_texture_faults_in_the_kernel) {
    std::string f = launch_file("ptxsim_tex_swap.json", good_objects,
                                "{\"texture\": \"t\"}, {\"texture\": \"t\"}, {\"texture\": \"t\"}, {\"buffer\": \"out\"}, "
                                "{\"buffer\": \"out\"}, {\"s32\": 4}, {\"s32\": 4}");
    auto r = run_ptxsim("run '" + f + "'");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("which is not a surface object"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("texture_sample.sm_90a.ptx:86"), std::string::npos) << r.err; // the sust
}

} // namespace
} // namespace ptxsim::test
