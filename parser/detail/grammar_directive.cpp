// X3 grammar for the module-level and debug directives:
// .version .target .address_size .file .loc .pragma .section and name lists
// (.branchtargets, .calltargets, .alias).
#include "parser/detail/grammar_common.hpp"

namespace ptxsim::parser::detail {
namespace {
using namespace g;

x3::rule<class loc_tag, raw_loc> const loc = ".loc";
x3::rule<class file_tag, raw_file> const file = ".file";

const auto set = [](auto member) { return [member](auto& ctx) { x3::_val(ctx).*member = x3::_attr(ctx); }; };
const auto set_fn = [](auto& ctx) {
    x3::_val(ctx).has_function = true;
    x3::_val(ctx).function_name = view(x3::_attr(ctx));
};
const auto set_fn_off = [](auto& ctx) {
    bool u;
    int64_t v;
    if (convert_integer(view(x3::_attr(ctx)), v, u)) x3::_val(ctx).function_offset = v;
};
const auto set_inlined = [](auto& ctx) { x3::_val(ctx).has_inlined_at = true; };

const auto loc_def = here >> lit(".loc") >> must(uint64[set(&raw_loc::file)], "a file number") >>
                     must(uint64[set(&raw_loc::line)], "a line number") >> must(uint64[set(&raw_loc::col)], "a column number") >>
                     -(',' >> lit("function_name") >> must(raw[identifier][set_fn], "a label") >>
                       -('+' >> must(raw[int_text][set_fn_off], "an offset"))) >>
                     -(',' >> lit("inlined_at")[set_inlined] >> must(uint64[set(&raw_loc::ifile)], "a file number") >>
                       must(uint64[set(&raw_loc::iline)], "a line number") >> must(uint64[set(&raw_loc::icol)], "a column number"));

const auto set_path = [](auto& ctx) { x3::_val(ctx).path = view(x3::_attr(ctx)); };
const auto set_stamp = [](auto& ctx) { x3::_val(ctx).has_stamp = true; };
const auto file_def = here >> lit(".file") >> must(uint64[set(&raw_file::index)], "a file number") >>
                      must(quoted[set_path], "a quoted path") >>
                      -(lit(',')[set_stamp] >> must(uint64[set(&raw_file::timestamp)], "a timestamp") > ',' >>
                        must(uint64[set(&raw_file::size)], "a file size"));

BOOST_SPIRIT_DEFINE(loc, file)

const auto push_view = [](std::vector<std::string_view>& out) {
    return [&out](auto& ctx) { out.push_back(view(x3::_attr(ctx))); };
};

} // namespace

bool parse_loc(const char*& it, const char* end, raw_loc& out, parse_failure& fail) {
    out = raw_loc{};
    return g::run(it, end, loc, out, fail, ".loc");
}

bool parse_file(const char*& it, const char* end, raw_file& out, parse_failure& fail) {
    out = raw_file{};
    return g::run(it, end, file, out, fail, ".file");
}

bool parse_pragma(const char*& it, const char* end, std::vector<std::string_view>& out, parse_failure& fail) {
    out.clear();
    auto rule = lit(".pragma") >> must(quoted[push_view(out)], "a quoted string") >>
                *(',' >> must(quoted[push_view(out)], "a quoted string")) > ';';
    return g::run(it, end, rule, x3::unused, fail, ".pragma");
}

bool parse_version(const char*& it, const char* end, uint64_t& major, uint64_t& minor, parse_failure& fail) {
    auto rule = lit(".version") >> must(lexeme[uint64[([&](auto& ctx) { major = x3::_attr(ctx); })] >> '.' >>
                                               uint64[([&](auto& ctx) { minor = x3::_attr(ctx); })]],
                                        "a version number such as 9.0");
    return g::run(it, end, rule, x3::unused, fail, ".version");
}

bool parse_target(const char*& it, const char* end, std::vector<std::string_view>& out, parse_failure& fail) {
    out.clear();
    auto rule = lit(".target") >> must(raw[identifier][push_view(out)], "a target name such as sm_90a") >>
                *(',' >> must(raw[identifier][push_view(out)], "a target name"));
    return g::run(it, end, rule, x3::unused, fail, ".target");
}

bool parse_address_size(const char*& it, const char* end, uint64_t& bits, parse_failure& fail) {
    auto rule = lit(".address_size") >> must(uint64[([&](auto& ctx) { bits = x3::_attr(ctx); })], "32 or 64");
    return g::run(it, end, rule, x3::unused, fail, ".address_size");
}

bool parse_name_list(const char*& it, const char* end, std::string_view directive, std::vector<std::string_view>& out,
                     parse_failure& fail) {
    out.clear();
    auto rule = x3::string(std::string(directive)) >> must(raw[identifier][push_view(out)], "a name") >>
                *(',' >> must(raw[identifier][push_view(out)], "a name")) > ';';
    return g::run(it, end, rule, x3::unused, fail, "name list");
}

bool parse_section_open(const char*& it, const char* end, std::string_view& name, parse_failure& fail) {
    auto rule = lit(".section") >> must(lexeme['.' >> raw[+(alnum_c | char_("_."))][([&](auto& ctx) {
                                          name = view(x3::_attr(ctx));
                                      })]],
                                      "a section name such as .debug_info") > '{';
    return g::run(it, end, rule, x3::unused, fail, ".section");
}

} // namespace ptxsim::parser::detail
