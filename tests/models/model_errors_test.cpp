// Every kind of model-file mistake gives one exact, located message.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "models/model.hpp"

namespace ptxsim::models {
namespace {

std::string h800_text() {
    std::ifstream in(std::string(PTXSIM_MODELS_DIR) + "/h800.json");
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// The bundled file with one unique piece of text replaced.
std::string h800_with(std::string_view from, std::string_view to) {
    std::string t = h800_text();
    size_t p = t.find(from);
    EXPECT_NE(p, std::string::npos) << from;
    EXPECT_EQ(t.find(from, p + 1), std::string::npos) << "not unique: " << from;
    if (p != std::string::npos) t.replace(p, from.size(), to);
    return t;
}

// "line:col" of the first occurrence of `needle` (plus `skip` bytes).
std::string where(const std::string& text, std::string_view needle, size_t skip = 0) {
    size_t p = text.find(needle);
    EXPECT_NE(p, std::string::npos) << needle;
    p += skip;
    size_t line = 1 + std::count(text.begin(), text.begin() + p, '\n');
    size_t line_start = text.rfind('\n', p == 0 ? 0 : p - 1);
    size_t col = line_start == std::string::npos || p == 0 ? p + 1 : p - line_start;
    return std::to_string(line) + ":" + std::to_string(col);
}

// "line:col: message" for each diagnostic; the load must fail.
std::vector<std::string> errors(const std::string& text) {
    parser::diagnostics d;
    auto m = load_model_text("m.json", text, d);
    EXPECT_FALSE(m);
    std::vector<std::string> out;
    for (const auto& x : d.all()) {
        EXPECT_EQ(x.file, "m.json");
        EXPECT_EQ(x.level, parser::severity::error);
        out.push_back(std::to_string(x.line) + ":" + std::to_string(x.col) + ": " + x.message);
    }
    return out;
}

using strings = std::vector<std::string>;

TEST(model_errors, unknown_key_with_suggestion) {
    std::string t = h800_with("\"registers_per_sm\":", "\"registers_per_smm\":");
    EXPECT_EQ(errors(t), (strings{
        where(t, "\"registers_per_smm\"") + ": sm.registers_per_smm: unknown key; did you mean registers_per_sm?",
        where(t, "\"sm\": {", 6) + ": sm.registers_per_sm: missing required key"}));
}

TEST(model_errors, unknown_key_without_a_close_name) {
    std::string t = h800_with("\"format\": 1,", "\"format\": 1, \"frobnicate\": true,");
    EXPECT_EQ(errors(t), (strings{where(t, "\"frobnicate\"") + ": frobnicate: unknown key"}));
}

TEST(model_errors, unknown_member_of_a_figure) {
    std::string t = h800_with("\"banks\": {\"value\": 32, \"source\"", "\"banks\": {\"value\": 32, \"sorce\"");
    EXPECT_EQ(errors(t), (strings{
        where(t, "\"sorce\"") + ": shared_memory.banks.sorce: unknown key; did you mean source?",
        where(t, "\"banks\": {", 9) + ": shared_memory.banks.source: missing required key"}));
}

TEST(model_errors, unknown_section_is_named) {
    std::string t = h800_with("\"l2\": {", "\"l3\": {");
    EXPECT_EQ(errors(t), (strings{where(t, "\"l3\"") + ": l3: unknown key; did you mean l2?",
                                  where(t, "\n{\n", 1) + ": l2: missing required key"}));
}

TEST(model_errors, missing_key_points_at_its_object) {
    std::string t = h800_with("\"sub_partitions\": {\"value\": 4, \"source\": \"CUDA 13 cuda_occupancy.h\"},", "");
    EXPECT_EQ(errors(t), (strings{where(t, "\"sm\": {", 6) + ": sm.sub_partitions: missing required key"}));
}

TEST(model_errors, json_syntax_error_has_line_and_column) {
    EXPECT_EQ(errors("{\"format\": 1,}"),
              (strings{"1:14: invalid JSON: syntax error while parsing object key - unexpected '}'; "
                       "expected string literal"}));
    // Comments are allowed and do not shift the location. nlohmann reports
    // the end of the offending token.
    EXPECT_EQ(errors("// a model\n{\n  /* figures */ \"format\": 1\n  \"name\": \"x\"\n}"),
              (strings{"4:8: invalid JSON: syntax error while parsing object - unexpected string literal; "
                       "expected '}'"}));
    EXPECT_EQ(errors(""), (strings{"1:1: invalid JSON: syntax error while parsing value - unexpected end of input; "
                                   "expected '[', '{', or a literal"}));
}

TEST(model_errors, top_level_must_be_an_object) {
    EXPECT_EQ(errors("  [1, 2]"), (strings{"1:3: model file: expected an object, found an array"}));
}

TEST(model_errors, section_must_be_an_object) {
    std::string t = h800_with("\"cluster\": {\n", "\"cluster\": 8, \"unused\": {\n");
    strings e = errors(t);
    ASSERT_GE(e.size(), 1u);
    EXPECT_EQ(e[0], where(t, "\"cluster\": 8", 11) + ": cluster: expected an object, found an integer");
}

TEST(model_errors, figure_without_source) {
    std::string t = h800_with("\"sm_count\": {\"value\": 132, \"source\": \"FlashMLA docs, hopper-fp8-sparse-deep-dive "
                              "(989 TFLOPS / 1830 MHz / 132 SMs on H800)\"}",
                              "\"sm_count\": 132");
    EXPECT_EQ(errors(t), (strings{where(t, "\"sm_count\": 132", 12) + ": sm_count: a figure needs its source: expected "
                                                    "{\"value\": ..., \"source\": \"...\"}, found an integer"}));
}

TEST(model_errors, empty_source) {
    std::string t = h800_with("\"warp_size\": {\"value\": 32, \"source\": \"CUDA 13 cuda_occupancy.h\"}",
                              "\"warp_size\": {\"value\": 32, \"source\": \"\"}");
    EXPECT_EQ(errors(t), (strings{where(t, "\"\"}") + ": sm.warp_size.source: must not be empty"}));
}

TEST(model_errors, wrong_types) {
    std::string t = h800_with("\"warp_size\": {\"value\": 32,", "\"warp_size\": {\"value\": \"32\",");
    EXPECT_EQ(errors(t), (strings{where(t, "\"32\"") + ": sm.warp_size: expected an integer, found a string"}));

    t = h800_with("\"max_ctas\": {\"value\": 32,", "\"max_ctas\": {\"value\": 32.5,");
    EXPECT_EQ(errors(t), (strings{where(t, "32.5") + ": sm.max_ctas: expected an integer, found 32.5"}));

    t = h800_with("\"clock_mhz\": {\"value\": 1830,", "\"clock_mhz\": {\"value\": null,");
    EXPECT_EQ(errors(t), (strings{where(t, "null") + ": clock_mhz: expected a number, found null"}));

    t = h800_with("\"arch\": \"sm_90\"", "\"arch\": 90");
    EXPECT_EQ(errors(t), (strings{where(t, "90,") + ": arch: expected a string, found an integer"}));

    t = h800_with("\"max_ctas_nonportable\": {\"value\": 16, \"source\": \"CUDA 13 cuda.h\", \"unconfirmed\": true}",
                  "\"max_ctas_nonportable\": {\"value\": 16, \"source\": \"CUDA 13 cuda.h\", \"unconfirmed\": 1}");
    EXPECT_EQ(errors(t), (strings{where(t, "1}") + ": cluster.max_ctas_nonportable.unconfirmed: expected a boolean, "
                                                   "found an integer"}));

    t = h800_with("[0, 8, 16,", "[0, \"8\", 16,");
    EXPECT_EQ(errors(t), (strings{where(t, "\"8\"") + ": shared_memory.carveouts_kib: expected an integer, found a "
                                                      "string"}));
}

TEST(model_errors, values_out_of_range) {
    std::string t = h800_with("\"warp_size\": {\"value\": 32,", "\"warp_size\": {\"value\": 16,");
    EXPECT_EQ(errors(t), (strings{where(t, "16,") + ": sm.warp_size: 16 is out of range (must be 32)"}));

    t = h800_with("\"sm_count\": {\"value\": 132,", "\"sm_count\": {\"value\": -1,");
    EXPECT_EQ(errors(t), (strings{where(t, "-1") + ": sm_count: -1 is out of range (must be between 1 and 1024)"}));

    // The classic unit mistake: bytes where KiB are asked for.
    t = h800_with("\"per_sm_kib\": {\"value\": 228,", "\"per_sm_kib\": {\"value\": 233472,");
    EXPECT_EQ(errors(t), (strings{where(t, "233472") + ": shared_memory.per_sm_kib: 233472 is out of range (must be "
                                                       "between 1 and 4096)"}));

    t = h800_with("\"clock_mhz\": {\"value\": 1830,", "\"clock_mhz\": {\"value\": 1.83,");
    EXPECT_EQ(errors(t), (strings{where(t, "1.83") + ": clock_mhz: 1.83 is out of range (must be between 100 and "
                                                     "10000)"}));

    t = h800_with("\"format\": 1,", "\"format\": 2,");
    EXPECT_EQ(errors(t), (strings{where(t, "2,") + ": format: 2 is out of range (must be 1)"}));

    t = h800_with("\"name\": \"h800\"", "\"name\": \"\"");
    EXPECT_EQ(errors(t), (strings{where(t, "\"\",") + ": name: must not be empty"}));
}

TEST(model_errors, duplicate_key) {
    std::string t = h800_with("\"format\": 1,", "\"format\": 1, \"format\": 1,");
    EXPECT_EQ(errors(t), (strings{where(t, "\"format\"", 13) + ": format: duplicate key (first given at line 6)"}));
}

TEST(model_errors, inconsistent_figures) {
    std::string t = h800_with("\"max_threads\": {\"value\": 2048,", "\"max_threads\": {\"value\": 1024,");
    EXPECT_EQ(errors(t), (strings{where(t, "1024, \"source\": \"CUDA 13 cuda_occupancy.h\"}") +
                                  ": sm.max_threads: 1024 must equal sm.max_warps * sm.warp_size = 2048"}));

    t = h800_with("\"max_per_cta_kib\": {\"value\": 227,", "\"max_per_cta_kib\": {\"value\": 228,");
    EXPECT_EQ(errors(t), (strings{where(t, "\"max_per_cta_kib\": {\"value\": 228", 29) +
                                  ": shared_memory.max_per_cta_kib: 228 KiB plus 1024 reserved bytes exceeds "
                                  "shared_memory.per_sm_kib (228 KiB)"}));

    t = h800_with("[0, 8, 16, 32, 64, 100,", "[0, 8, 16, 32, 64, 60,");
    EXPECT_EQ(errors(t), (strings{where(t, "60,") + ": shared_memory.carveouts_kib: must be in ascending order"}));

    t = h800_with("164, 196, 228]", "164, 196]");
    EXPECT_EQ(errors(t), (strings{where(t, "[0, 8") + ": shared_memory.carveouts_kib: the largest carve-out (196 "
                                                      "KiB) must equal shared_memory.per_sm_kib (228 KiB)"}));

    t = h800_with("\"register_alloc_unit\": {\"value\": 256,", "\"register_alloc_unit\": {\"value\": 255,");
    EXPECT_EQ(errors(t), (strings{where(t, "255, \"source\": \"CUDA 13 cuda_occupancy.h\",") +
                                  ": sm.register_alloc_unit: 255 does not divide sm.registers_per_sm (65536)"}));

    t = h800_with("\"arch\": \"sm_90\"", "\"arch\": \"hopper\"");
    EXPECT_EQ(errors(t), (strings{where(t, "\"hopper\"") + ": arch: \"hopper\" is not a target name like sm_90"}));
}

TEST(model_errors, several_errors_are_all_reported) {
    std::string t = h800_with("\"warp_size\": {\"value\": 32,", "\"warp_size\": {\"value\": 64,");
    size_t p = t.find("\"banks\": {\"value\": 32");
    t.replace(p, 9, "\"bankz\":");
    strings e = errors(t);
    EXPECT_EQ(e.size(), 3u);
}

TEST(model_errors, deep_nesting_is_an_error_not_a_crash) {
    std::string deep = std::string(100000, '[') + std::string(100000, ']');
    EXPECT_EQ(errors(deep), (strings{"1:1: model file: expected an object, found an array"}));
    std::string t = h800_with("\"l2\": {", "\"l2\": " + deep + ", \"unused\": {");
    strings e = errors(t);
    ASSERT_GE(e.size(), 1u);
    EXPECT_EQ(e[0], where(t, "\"l2\": [", 6) + ": l2: expected an object, found an array");
}

TEST(model_errors, printed_with_caret) {
    std::string t = h800_with("\"registers_per_sm\":", "\"registers_per_smm\":");
    parser::diagnostics d;
    EXPECT_FALSE(load_model_text("models/h800.json", t, d));
    ASSERT_FALSE(d.all().empty());
    std::ostringstream out;
    parser::print_text(out, d.all()[0]);
    std::string line = where(t, "\"registers_per_smm\"");
    // print_text shows 100 characters either side of the caret.
    std::string expected_line = "    \"registers_per_smm\": {\"value\": 65536, \"source\": \"CUDA 13 cuda_occupancy.h\", "
                                "\"note\": \"32-bit register...";
    EXPECT_EQ(out.str(), "models/h800.json:" + line +
                             ": error: sm.registers_per_smm: unknown key; did you mean registers_per_sm?\n  " +
                             expected_line + "\n      ^\n");
}

} // namespace
} // namespace ptxsim::models
