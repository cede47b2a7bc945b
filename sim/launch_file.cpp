#include "sim/launch_file.hpp"

#include "isa/tensor_map.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/detail/launch_textures.hpp"

namespace ptxsim::sim {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

struct type_info {
    const char* name;
    uint32_t bytes;
    bool is_float, is_signed;
};
constexpr type_info types[] = {
    {"u8", 1, false, false}, {"s8", 1, false, true}, {"u16", 2, false, false}, {"s16", 2, false, true},
    {"u32", 4, false, false}, {"s32", 4, false, true}, {"u64", 8, false, false}, {"s64", 8, false, true},
    {"f16", 2, true, false}, {"bf16", 2, true, false}, {"f32", 4, true, false}, {"f64", 8, true, false},
    // argument-only spellings nvcc uses for parameters
    {"b8", 1, false, false}, {"b16", 2, false, false}, {"b32", 4, false, false}, {"b64", 8, false, false},
};
const type_info* find_type(const std::string& t) {
    for (const auto& ti : types)
        if (t == ti.name) return &ti;
    return nullptr;
}

// Rounds a double to a binary format with `ebits` exponent and `mbits`
// fraction bits, to nearest-even, with subnormals and overflow to infinity.
uint64_t round_to_format(double x, int ebits, int mbits) {
    uint64_t sign = std::signbit(x) ? 1 : 0;
    uint64_t exp_all = (1ull << ebits) - 1;
    if (x != x) return (sign << (ebits + mbits)) | (exp_all << mbits) | (1ull << (mbits - 1));
    x = std::fabs(x);
    if (std::isinf(x)) return (sign << (ebits + mbits)) | (exp_all << mbits);
    if (x == 0) return sign << (ebits + mbits);
    int bias = (1 << (ebits - 1)) - 1;
    int e;
    double frac = std::frexp(x, &e); // x = frac * 2^e, frac in [0.5, 1)
    int exp = e - 1;                  // x = 1.f * 2^exp
    int shift = exp < 1 - bias ? (1 - bias) - exp : 0; // subnormal: fewer fraction bits
    // Scaled so the units digit is the last kept fraction bit; ldexp and
    // nearbyint (nearest-even in the default mode) are exact here.
    double scaled = std::ldexp(frac * 2, mbits - shift);
    uint64_t m = static_cast<uint64_t>(std::nearbyint(scaled));
    if (shift == 0) {
        if (m >> (mbits + 1)) { // rounded up to the next binade
            m >>= 1;
            ++exp;
        }
        if (exp + bias >= static_cast<int>(exp_all)) return (sign << (ebits + mbits)) | (exp_all << mbits);
        return (sign << (ebits + mbits)) | (static_cast<uint64_t>(exp + bias) << mbits) | (m & ((1ull << mbits) - 1));
    }
    // Subnormal (m may round up into the smallest normal, which the encoding handles).
    return (sign << (ebits + mbits)) | m;
}

double from_format(uint64_t bits, int ebits, int mbits) {
    int bias = (1 << (ebits - 1)) - 1;
    bool sign = (bits >> (ebits + mbits)) & 1;
    uint64_t e = (bits >> mbits) & ((1ull << ebits) - 1), m = bits & ((1ull << mbits) - 1);
    double v;
    if (e == (1ull << ebits) - 1) v = m ? NAN : INFINITY;
    else if (e == 0) v = std::ldexp(static_cast<double>(m), 1 - bias - mbits);
    else v = std::ldexp(static_cast<double>(m | (1ull << mbits)), static_cast<int>(e) - bias - mbits);
    return sign ? -v : v;
}

// splitmix64: the documented generator for {"random": ...}.
uint64_t splitmix64(uint64_t& state) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

class reader {
public:
    reader(const std::string& path, parser::diagnostics& d) : path_(path), d_(d) {}

    std::optional<launch_file> run() {
        std::ifstream in(path_, std::ios::binary);
        if (!in) {
            d_.report_unlocated(parser::severity::error, path_,
                                fmt::format("cannot open launch file '{}': {}", path_, std::strerror(errno)));
            return std::nullopt;
        }
        std::stringstream ss;
        ss << in.rdbuf();
        src_ = std::make_unique<parser::source_file>(path_, ss.str());
        json j;
        try {
            j = json::parse(src_->text(), nullptr, true, /*ignore_comments=*/true);
        } catch (const json::parse_error& e) {
            uint32_t at = e.byte > 0 ? static_cast<uint32_t>(e.byte - 1) : 0;
            std::string what = e.what();
            auto colon = what.find("syntax error");
            d_.error(*src_, std::min<uint32_t>(at, static_cast<uint32_t>(src_->text().size())),
                     "invalid JSON: " + (colon != std::string::npos ? what.substr(colon) : what));
            return std::nullopt;
        }
        if (!j.is_object()) return fail("", "a launch file is a JSON object");
        launch_file f;
        f.path = path_;
        base_ = fs::path(path_).parent_path();
        for (auto& [key, value] : j.items())
            if (key != "module" && key != "modules" && key != "buffers" && key != "textures" && key != "surfaces" &&
                key != "multicast" && key != "symbols" && key != "launches" && key != "outputs" && key != "expect" &&
                key != "comment")
                error(key, fmt::format("unknown key '{}' (expected module, modules, buffers, textures, surfaces, multicast, "
                                       "symbols, launches, outputs, expect)", key));
        if (j.contains("module") && j.contains("modules")) error("modules", "give either \"module\" or \"modules\", not both");
        if (j.contains("module")) {
            if (!j["module"].is_string()) error("module", "\"module\" is a path string");
            else f.modules.push_back(resolve(j["module"]));
        } else if (j.contains("modules")) {
            if (!j["modules"].is_array()) error("modules", "\"modules\" is a list of paths");
            else
                for (auto& m : j["modules"]) {
                    if (m.is_string()) f.modules.push_back(resolve(m));
                    else error("modules", "\"modules\" is a list of paths");
                }
        } else {
            error("", "the launch file names no PTX: add \"module\": \"kernel.ptx\"");
        }
        if (j.contains("buffers")) buffers(j["buffers"], f);
        if (j.contains("multicast")) multicasts(j["multicast"], f);
        auto report = [this](const std::string& key, const std::string& msg) { error(key, msg); };
        if (j.contains("textures")) detail::read_texture_specs(j["textures"], isa::object_kind::texture, f, report);
        if (j.contains("surfaces")) detail::read_texture_specs(j["surfaces"], isa::object_kind::surface, f, report);
        for (const auto& b : f.buffers) check_pointer_targets(b.pointers, f);
        // Struct contents may point at any buffer or object, so they are read once all exist.
        for (auto& [index, init] : struct_inits_)
            f.buffers[index].structure = arg(init, fmt::format("buffer '{}'.init", f.buffers[index].name), f);
        if (j.contains("symbols")) symbols(j["symbols"], f);
        if (!j.contains("launches") || !j["launches"].is_array() || j["launches"].empty())
            error("launches", "\"launches\" must be a non-empty list");
        else
            for (size_t i = 0; i < j["launches"].size(); ++i) f.launches.push_back(launch(j["launches"][i], i, f));
        if (j.contains("outputs")) {
            if (!j["outputs"].is_object()) error("outputs", "\"outputs\" maps buffer names to file paths");
            else
                for (auto& [name, p] : j["outputs"].items()) {
                    if (!has_buffer(f, name)) error(name, fmt::format("output names an unknown buffer '{}'", name));
                    else if (!p.is_string()) error(name, "an output is a file path");
                    else f.outputs.push_back({name, resolve(p)});
                }
        }
        if (j.contains("expect")) expects(j["expect"], f);
        if (failed_) return std::nullopt;
        return f;
    }

private:
    std::optional<launch_file> fail(const std::string& key, const std::string& msg) {
        error(key, msg);
        return std::nullopt;
    }

    // Reports at the first occurrence of "key" in the file (JSON has no
    // positions once parsed), or at the start.
    // Locates the message at the first "key" in the file, or the first after
    // `after` (so that an expect entry is not reported at its buffer).
    void error(const std::string& key, const std::string& msg, const std::string& after = {}) {
        failed_ = true;
        size_t from = after.empty() ? 0 : src_->text().find("\"" + after + "\"");
        if (from == std::string_view::npos) from = 0;
        size_t at = key.empty() ? std::string_view::npos : src_->text().find("\"" + key + "\"", from);
        if (at == std::string_view::npos && from) at = src_->text().find("\"" + key + "\"");
        d_.error(*src_, at == std::string_view::npos ? 0 : static_cast<uint32_t>(at), msg);
    }

    std::string resolve(const json& p) {
        fs::path q = p.get<std::string>();
        return (q.is_absolute() ? q : base_ / q).lexically_normal().string();
    }

    // "multicast": {"name": {"members": ["buffer", ...]}}
    void multicasts(const json& j, launch_file& f) {
        const char* shape = "\"multicast\" maps names to {\"members\": [buffer names]}";
        if (!j.is_object()) return error("multicast", shape);
        for (auto& [name, m] : j.items()) {
            multicast_spec s;
            s.name = name;
            if (has_buffer(f, name)) error(name, fmt::format("multicast '{}' has the name of a buffer", name));
            if (!m.is_object() || !m.contains("members") || !m["members"].is_array() || m["members"].empty() || m.size() != 1) {
                error(name, fmt::format("multicast '{}': {}", name, shape));
                continue;
            }
            uint64_t size = 0;
            for (auto& b : m["members"]) {
                const buffer_spec* spec = b.is_string() ? find_buffer(f, b) : nullptr;
                if (!spec) {
                    error(name, fmt::format("multicast '{}': unknown member buffer {}", name, b.dump()));
                    break;
                }
                const uint64_t bytes = spec->count * spec->elem_bytes;
                if (!s.members.empty() && bytes != size) {
                    error(name, fmt::format("multicast '{}': member '{}' has {} bytes, '{}' has {}", name, spec->name, bytes,
                                            s.members.front(), size));
                    break;
                }
                size = bytes;
                s.members.push_back(spec->name);
            }
            f.multicasts.push_back(std::move(s));
        }
    }

    static const buffer_spec* find_buffer(const launch_file& f, const std::string& n) {
        for (const auto& b : f.buffers)
            if (b.name == n) return &b;
        return nullptr;
    }

    static bool has_buffer(const launch_file& f, const std::string& n) {
        for (const auto& b : f.buffers)
            if (b.name == n) return true;
        return false;
    }

    static bool has_object(const launch_file& f, const std::string& n, isa::object_kind kind) {
        for (const auto& t : f.textures)
            if (t.name == n && t.object.kind == kind) return true;
        return false;
    }

    bool number(const json& v, double& out) {
        if (!v.is_number()) return false;
        out = v.get<double>();
        return true;
    }

    void buffers(const json& j, launch_file& f) {
        if (!j.is_object()) return error("buffers", "\"buffers\" maps names to {\"type\", \"count\", \"init\"}");
        for (auto& [name, b] : j.items()) {
            buffer_spec s;
            s.name = name;
            if (!b.is_object()) {
                error(name, fmt::format("buffer '{}' must be an object", name));
                continue;
            }
            for (auto& [k, v] : b.items())
                if (k != "type" && k != "count" && k != "init" && k != "address")
                    error(k, fmt::format("buffer '{}': unknown key '{}' (expected type, count, init, address)", name, k));
            if (b.contains("address")) {
                // "0x600000010000" (as recordings write it) or a number.
                const json& a = b["address"];
                const std::string text = a.is_string() ? a.get<std::string>() : "";
                char* end = nullptr;
                if (a.is_number_unsigned()) s.address = a.get<uint64_t>();
                else if (text.size() > 2 && text.rfind("0x", 0) == 0) s.address = std::strtoull(text.c_str() + 2, &end, 16);
                if (!s.address || (end && *end) || s.address % 16)
                    error("address", fmt::format("buffer '{}': \"address\" is a non-zero device address, a multiple of 16, such as \"0x600000010000\"", name));
            }
            auto is_bits = [](const std::string& t) { return t == "b8" || t == "b16" || t == "b32" || t == "b64"; };
            if (!b.contains("type") || !b["type"].is_string() || !find_type(b["type"]) || is_bits(b["type"].get<std::string>())) {
                error(name, fmt::format("buffer '{}' needs \"type\": one of u8 s8 u16 s16 u32 s32 u64 s64 f16 bf16 f32 f64", name));
                continue;
            }
            s.type = b["type"];
            s.elem_bytes = find_type(s.type)->bytes;
            if (!b.contains("count") || !b["count"].is_number_unsigned() || b["count"].get<uint64_t>() == 0) {
                error(name, fmt::format("buffer '{}' needs \"count\": a positive number of elements", name));
                continue;
            }
            s.count = b["count"];
            if (b.contains("init") && b["init"].is_object() && b["init"].contains("struct")) {
                s.init = buffer_spec::init_kind::structure;
                struct_inits_.emplace_back(f.buffers.size(), b["init"]);
            } else if (b.contains("init")) {
                init(b["init"], s);
            }
            f.buffers.push_back(s);
        }
    }

    void init(const json& i, buffer_spec& s) {
        auto bad = [&] {
            error(s.name, fmt::format("buffer '{}': \"init\" is {{\"fill\": v}}, {{\"iota\": {{\"start\": a, \"step\": b}}}}, "
                                      "{{\"random\": {{\"seed\": s, \"min\": a, \"max\": b}}}}, {{\"file\": \"path\"}} (optionally with \"pointers\") or {{\"struct\": [...]}}",
                                      s.name));
        };
        if (!i.is_object() || i.empty() || i.size() > 2 || (i.size() == 2 && !(i.contains("file") && i.contains("pointers"))))
            return bad();
        if (i.contains("fill")) {
            if (!number(i["fill"], s.fill)) return bad();
            s.init = buffer_spec::init_kind::fill;
        } else if (i.contains("iota")) {
            const json& o = i["iota"];
            if (!o.is_object()) return bad();
            if (o.contains("start") && !number(o["start"], s.start)) return bad();
            if (o.contains("step") && !number(o["step"], s.step)) return bad();
            s.init = buffer_spec::init_kind::iota;
        } else if (i.contains("random")) {
            const json& o = i["random"];
            if (!o.is_object()) return bad();
            if (o.contains("seed")) {
                if (!o["seed"].is_number_unsigned()) return bad();
                s.seed = o["seed"];
            }
            if (o.contains("min") && !number(o["min"], s.min)) return bad();
            if (o.contains("max") && !number(o["max"], s.max)) return bad();
            if (s.max < s.min) return error(s.name, fmt::format("buffer '{}': random min is above max", s.name));
            s.init = buffer_spec::init_kind::random;
        } else if (i.contains("file")) {
            if (!i["file"].is_string()) return bad();
            s.file = resolve(i["file"]);
            s.init = buffer_spec::init_kind::file;
            if (i.contains("pointers")) s.pointers = pointers(i["pointers"], fmt::format("buffers.{}.init", s.name));
        } else {
            bad();
        }
    }

    dim3 dims(const json& v, const std::string& where, const std::string& key) {
        dim3 d;
        if (v.is_number_unsigned() && v.get<uint64_t>() > 0 && v.get<uint64_t>() <= 0x7FFFFFFF) {
            d.x = v;
        } else if (v.is_array() && !v.empty() && v.size() <= 3) {
            uint32_t* parts[] = {&d.x, &d.y, &d.z};
            for (size_t i = 0; i < v.size(); ++i) {
                if (!v[i].is_number_unsigned() || v[i].get<uint64_t>() == 0 || v[i].get<uint64_t>() > 0x7FFFFFFF) {
                    error(key, fmt::format("{}.{}: dimensions are positive integers", where, key));
                    return d;
                }
                *parts[i] = v[i];
            }
        } else {
            error(key, fmt::format("{}.{}: a positive integer or [x, y, z]", where, key));
        }
        return d;
    }

    launch_spec launch(const json& l, size_t index, const launch_file& f) {
        launch_spec s;
        s.where = fmt::format("launches[{}]", index);
        if (!l.is_object()) {
            error("launches", s.where + " must be an object");
            return s;
        }
        for (auto& [k, v] : l.items())
            if (k != "kernel" && k != "grid" && k != "block" && k != "shared_bytes" && k != "args" && k != "malloc_heap_bytes" &&
                k != "stack_bytes" && k != "registers_per_thread" && k != "cooperative" && k != "cluster" &&
                k != "non_portable_cluster_size" && k != "sms" && k != "stream")
                error(k, fmt::format("{}: unknown key '{}'", s.where, k));
        if (!l.contains("kernel") || !l["kernel"].is_string()) error("kernel", s.where + ": \"kernel\" names the entry to run");
        else s.kernel = l["kernel"];
        s.grid = l.contains("grid") ? dims(l["grid"], s.where, "grid") : dim3{};
        if (!l.contains("block")) error("launches", s.where + ": \"block\" is required");
        else s.block = dims(l["block"], s.where, "block");
        if (s.block.count() > 1024) error("block", fmt::format("{}: a block has at most 1024 threads, not {}", s.where, s.block.count()));
        if (l.contains("shared_bytes")) {
            if (!l["shared_bytes"].is_number_unsigned()) error("shared_bytes", s.where + ": \"shared_bytes\" is a byte count");
            else s.shared_bytes = l["shared_bytes"];
        }
        for (const char* key : {"malloc_heap_bytes", "stack_bytes"}) {
            if (!l.contains(key)) continue;
            if (!l[key].is_number_unsigned() || (std::string_view(key) == "stack_bytes" && l[key] > 0xFFFFFFFFull))
                error(key, fmt::format("{}: \"{}\" is a byte count", s.where, key));
            else (std::string_view(key) == "stack_bytes" ? s.stack_bytes : s.malloc_heap_bytes) = l[key].get<uint64_t>();
        }
        if (l.contains("registers_per_thread")) {
            const auto& r = l["registers_per_thread"];
            if (!r.is_number_unsigned() || r.get<uint64_t>() == 0 || r.get<uint64_t>() > 255)
                error("registers_per_thread", s.where + ": \"registers_per_thread\" is a register count from 1 to 255");
            else s.registers_per_thread = r.get<uint32_t>();
        }
        for (const char* key : {"cooperative", "non_portable_cluster_size"}) {
            if (!l.contains(key)) continue;
            if (!l[key].is_boolean()) error(key, fmt::format("{}: \"{}\" is true or false", s.where, key));
            else (std::string_view(key) == "cooperative" ? s.cooperative : s.non_portable_cluster_size) = l[key].get<bool>();
        }
        if (l.contains("cluster")) s.cluster = dims(l["cluster"], s.where, "cluster");
        if (l.contains("sms")) { // SM partitioning: a count (the first N SMs) or a list of SM ids
            const auto& v = l["sms"];
            if (v.is_number_unsigned() && v.get<uint64_t>() >= 1 && v.get<uint64_t>() <= 4096) {
                for (uint32_t i = 0; i < v.get<uint32_t>(); ++i) s.sms.push_back(i);
            } else if (v.is_array() && !v.empty() && v.size() <= 4096 &&
                       std::all_of(v.begin(), v.end(), [](const json& x) { return x.is_number_unsigned() && x.get<uint64_t>() < 4096; })) {
                for (const auto& x : v) s.sms.push_back(x.get<uint32_t>());
                std::vector<uint32_t> sorted = s.sms;
                std::sort(sorted.begin(), sorted.end());
                if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
                    error("sms", s.where + ": \"sms\" names an SM twice");
            } else {
                error("sms", s.where + ": \"sms\" is a count of SMs (the first N) or a list of SM ids");
            }
        }
        if (l.contains("stream")) { // launches of one stream run in order; of different streams, at once (under prof)
            if (!l["stream"].is_number_unsigned() || l["stream"].get<uint64_t>() > 0x7FFFFFFF)
                error("stream", s.where + ": \"stream\" is a stream number from 0 (the default stream) up");
            else s.stream = l["stream"].get<uint32_t>();
        }
        if (l.contains("args")) {
            if (!l["args"].is_array()) error("args", s.where + ": \"args\" is a list");
            else
                for (size_t i = 0; i < l["args"].size(); ++i) s.args.push_back(arg(l["args"][i], fmt::format("{}.args[{}]", s.where, i), f));
        }
        return s;
    }

    // {"buffer", "offset", "type", "dims", "strides", "box" | "im2col", "element_strides", "swizzle", "l2_promotion", "oob_fill"}
    arg_spec tensormap(const json& t, const std::string& where, const launch_file& f, arg_spec& s) {
        s.k = arg_spec::kind::tensormap;
        if (!t.is_object()) {
            error("tensormap", where + " is an object: {\"buffer\", \"type\", \"dims\", \"box\", ...}");
            return s;
        }
        for (auto& [k, v] : t.items())
            if (k != "buffer" && k != "offset" && k != "type" && k != "dims" && k != "strides" && k != "box" && k != "element_strides" &&
                k != "swizzle" && k != "l2_promotion" && k != "oob_fill" && k != "im2col")
                error(k, fmt::format("{}: unknown key '{}'", where, k));
        if (!t.contains("buffer") || !t["buffer"].is_string() || !has_buffer(f, t["buffer"]))
            error("tensormap", fmt::format("{}: \"buffer\" names the tensor's buffer", where));
        else s.buffer = t["buffer"];
        if (t.contains("offset")) {
            if (!t["offset"].is_number_unsigned()) error("offset", where + ": \"offset\" is a byte count");
            else s.offset = t["offset"];
        }
        if (!t.contains("type") || !t["type"].is_string() || !isa::tma_type_named(t["type"]))
            error("type", where + ": \"type\" is one of u8 u16 u32 s32 u64 s64 f16 f32 f64 bf16 f32_ftz tf32 tf32_ftz");
        else s.tmap.type = t["type"];
        auto numbers = [&](const char* key, auto& out, bool required) {
            if (!t.contains(key)) {
                if (required) error("tensormap", fmt::format("{}: \"{}\" is required", where, key));
                return;
            }
            if (!t[key].is_array() || t[key].empty() || t[key].size() > 5) return error(key, fmt::format("{}: \"{}\" is a list of 1 to 5 counts", where, key));
            for (auto& n : t[key]) {
                if (!n.is_number_unsigned()) return error(key, fmt::format("{}: \"{}\" holds non-negative integers", where, key));
                out.push_back(n.get<uint64_t>());
            }
        };
        numbers("dims", s.tmap.dims, true);
        if (t.contains("im2col")) {
            if (t.contains("box")) error("box", where + ": an im2col map has no \"box\" (its \"im2col\" says what a copy loads)");
            im2col(t["im2col"], where + ".im2col", s.tmap);
        } else {
            numbers("box", s.tmap.box, true);
        }
        numbers("strides", s.tmap.strides, false);
        numbers("element_strides", s.tmap.element_strides, false);
        if (t.contains("swizzle")) {
            if (!t["swizzle"].is_string() || !isa::tma_swizzle_named(t["swizzle"])) error("swizzle", where + ": \"swizzle\" is none, 32B, 64B or 128B");
            else s.tmap.swizzle = t["swizzle"];
        }
        if (t.contains("l2_promotion")) {
            const auto& l = t["l2_promotion"];
            std::string v = l.is_string() ? l.get<std::string>() : "";
            if (v == "none" || v == "64B" || v == "128B" || v == "256B") s.tmap.l2_promotion = v == "none" ? 0 : v == "64B" ? 1 : v == "128B" ? 2 : 3;
            else error("l2_promotion", where + ": \"l2_promotion\" is none, 64B, 128B or 256B");
        }
        if (t.contains("oob_fill")) {
            const auto& o = t["oob_fill"];
            if (o == "zero" || o == "nan") s.tmap.nan_fill = o == "nan";
            else error("oob_fill", where + ": \"oob_fill\" is zero or nan");
        }
        return s;
    }

    // "symbols": {"name": value}, each value an argument form (cudaMemcpyToSymbol).
    void symbols(const json& j, launch_file& f) {
        if (!j.is_object()) return error("symbols", "\"symbols\" maps module variable names to values ({\"u32\": v}, {\"struct\": [...]} ...)");
        for (auto& [name, v] : j.items()) f.symbols.push_back({name, arg(v, fmt::format("symbols.{}", name), f)});
    }

    // {"struct": [field, ...], "align": n}: fields are argument forms.
    arg_spec structure(const json& a, const std::string& where, const launch_file& f, arg_spec& s) {
        s.k = arg_spec::kind::structure;
        for (auto& [k, v] : a.items())
            if (k != "struct" && k != "align") error(k, fmt::format("{}: unknown key '{}' (a struct has \"struct\" and \"align\")", where, k));
        if (!a["struct"].is_array() || a["struct"].empty())
            error("struct", where + ": \"struct\" is a non-empty list of fields, each an argument form");
        else
            for (size_t i = 0; i < a["struct"].size(); ++i)
                s.fields.push_back(arg(a["struct"][i], fmt::format("{}.struct[{}]", where, i), f));
        if (a.contains("align")) {
            const json& n = a["align"];
            if (!n.is_number_unsigned() || n.get<uint64_t>() == 0 || n.get<uint64_t>() > 4096 || (n.get<uint64_t>() & (n.get<uint64_t>() - 1)))
                error("align", where + ": \"align\" is a power of two up to 4096");
            else s.align = n.get<uint32_t>();
        }
        return s;
    }

    // {"lower_corner": [...], "upper_corner": [...], "channels_per_pixel": n, "pixels_per_column": n}
    void im2col(const json& t, const std::string& where, tensormap_spec& m) {
        m.im2col = true;
        if (!t.is_object()) {
            error("im2col", where + " is an object: {\"lower_corner\", \"upper_corner\", \"channels_per_pixel\", \"pixels_per_column\"}");
            return;
        }
        for (auto& [k, v] : t.items())
            if (k != "lower_corner" && k != "upper_corner" && k != "channels_per_pixel" && k != "pixels_per_column")
                error(k, fmt::format("{}: unknown key '{}'", where, k));
        for (const char* key : {"lower_corner", "upper_corner"}) {
            auto& out = std::string(key) == "lower_corner" ? m.lower_corner : m.upper_corner;
            if (!t.contains(key) || !t[key].is_array() || t[key].empty() || t[key].size() > 3) {
                error(key, fmt::format("{}: \"{}\" is a list of 1 to 3 offsets (W, H, D)", where, key));
                continue;
            }
            for (auto& n : t[key]) {
                if (!n.is_number_integer()) {
                    error(key, fmt::format("{}: \"{}\" holds integers", where, key));
                    break;
                }
                out.push_back(n.get<int32_t>());
            }
        }
        for (const char* key : {"channels_per_pixel", "pixels_per_column"}) {
            if (!t.contains(key) || !t[key].is_number_unsigned()) error(key, fmt::format("{}: \"{}\" is a count", where, key));
            else (std::string(key) == "channels_per_pixel" ? m.channels_per_pixel : m.pixels_per_column) = t[key].get<uint32_t>();
        }
    }

    // "pointers": [{"at": n, "buffer": name | "symbol": name, "offset": k}]. Buffer
    // names are checked once every buffer is known (check_pointer_targets);
    // module variables when the modules are loaded.
    std::vector<pointer_patch> pointers(const json& list, const std::string& where) {
        std::vector<pointer_patch> out;
        const std::string form = "{\"at\": byte offset, \"buffer\" or \"symbol\": name, \"offset\": bytes}";
        if (!list.is_array()) {
            error("pointers", where + ": \"pointers\" is a list of " + form);
            return out;
        }
        for (size_t i = 0; i < list.size(); ++i) {
            const json& p = list[i];
            pointer_patch q;
            q.where = fmt::format("{}.pointers[{}]", where, i);
            if (!p.is_object() || !p.contains("at") || !p["at"].is_number_unsigned() || p.contains("buffer") == p.contains("symbol")) {
                error("pointers", q.where + ": a pointer is " + form);
                continue;
            }
            for (auto& [k, v] : p.items())
                if (k != "at" && k != "buffer" && k != "symbol" && k != "offset") error(k, fmt::format("{}: unknown key '{}'", q.where, k));
            q.at = p["at"];
            q.symbol = p.contains("symbol");
            const json& name = q.symbol ? p["symbol"] : p["buffer"];
            if (!name.is_string()) {
                error("pointers", q.where + ": the target is a name");
                continue;
            }
            q.target = name;
            if (p.contains("offset")) {
                if (!p["offset"].is_number_unsigned()) error("offset", q.where + ": \"offset\" is a byte count");
                else q.offset = p["offset"];
            }
            out.push_back(q);
        }
        return out;
    }

    void check_pointer_targets(const std::vector<pointer_patch>& list, const launch_file& f) {
        for (const auto& p : list)
            if (!p.symbol && !has_buffer(f, p.target)) error("pointers", fmt::format("{}: unknown buffer '{}'", p.where, p.target));
    }

    // {"file": path, "pointers": [...]}: raw bytes read now, addresses written when the launch runs.
    arg_spec& file_bytes(const json& a, const std::string& where, const launch_file& f, arg_spec& s) {
        s.k = arg_spec::kind::bytes;
        for (auto& [k, v] : a.items())
            if (k != "file" && k != "pointers") error(k, fmt::format("{}: unknown key '{}' (a file value has \"file\" and \"pointers\")", where, k));
        if (!a["file"].is_string()) {
            error("file", where + ": \"file\" is a path");
            return s;
        }
        const std::string path = resolve(a["file"]);
        std::ifstream in(path, std::ios::binary);
        if (!in) {
            error("file", fmt::format("{}: cannot open '{}': {}", where, path, std::strerror(errno)));
            return s;
        }
        s.bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        if (a.contains("pointers")) {
            s.pointers = pointers(a["pointers"], where);
            check_pointer_targets(s.pointers, f);
        }
        return s;
    }

    arg_spec arg(const json& a, const std::string& where, const launch_file& f) {
        arg_spec s;
        s.where = where;
        if (!a.is_object() || a.empty()) {
            error("args", where + ": an argument is {\"u32\": v}, {\"buffer\": name}, {\"texture\": name}, {\"surface\": name}, "
                                 "{\"multicast\": name}, {\"symbol\": name}, {\"bytes\": [...]}, {\"file\": path}, {\"tensormap\": {...}} or "
                                 "{\"struct\": [...]}");
            return s;
        }
        if (a.contains("struct")) return structure(a, where, f, s);
        if (a.contains("file")) return file_bytes(a, where, f, s);
        if (a.contains("symbol")) {
            s.k = arg_spec::kind::symbol;
            for (auto& [k, v] : a.items())
                if (k != "symbol" && k != "offset") error(k, fmt::format("{}: unknown key '{}'", where, k));
            if (!a["symbol"].is_string()) error("symbol", where + ": \"symbol\" is a module variable's name");
            else s.buffer = a["symbol"];
            if (a.contains("offset")) {
                if (!a["offset"].is_number_unsigned()) error("offset", where + ": \"offset\" is a byte count");
                else s.offset = a["offset"];
            }
            return s;
        }
        if (a.contains("buffer")) {
            s.k = arg_spec::kind::buffer;
            if (!a["buffer"].is_string() || !has_buffer(f, a["buffer"])) {
                error("buffer", fmt::format("{}: unknown buffer {}", where, a["buffer"].dump()));
                return s;
            }
            s.buffer = a["buffer"];
            if (a.contains("offset")) {
                if (!a["offset"].is_number_unsigned()) error("offset", where + ": \"offset\" is a byte count");
                else s.offset = a["offset"];
            }
            return s;
        }
        if (a.contains("tensormap")) return tensormap(a["tensormap"], where + ".tensormap", f, s);
        if (a.contains("multicast")) {
            s.k = arg_spec::kind::multicast;
            bool known = false;
            for (const auto& m : f.multicasts) known = known || (a["multicast"].is_string() && m.name == a["multicast"]);
            if (!known) {
                error("multicast", fmt::format("{}: unknown multicast object {}", where, a["multicast"].dump()), "launches");
                return s;
            }
            s.buffer = a["multicast"];
            if (a.contains("offset")) {
                if (!a["offset"].is_number_unsigned()) error("offset", where + ": \"offset\" is a byte count");
                else s.offset = a["offset"];
            }
            return s;
        }
        for (auto [key, kind] : {std::pair{"texture", isa::object_kind::texture}, std::pair{"surface", isa::object_kind::surface}}) {
            if (!a.contains(key)) continue;
            s.k = kind == isa::object_kind::texture ? arg_spec::kind::texture : arg_spec::kind::surface;
            if (!a[key].is_string() || !has_object(f, a[key], kind)) {
                error(key, fmt::format("{}: unknown {} {}", where, key, a[key].dump()));
                return s;
            }
            s.buffer = a[key];
            return s;
        }
        if (a.contains("bytes")) {
            s.k = arg_spec::kind::bytes;
            if (!a["bytes"].is_array()) error("bytes", where + ": \"bytes\" is a list of byte values");
            else
                for (auto& b : a["bytes"]) {
                    if (!b.is_number_unsigned() || b.get<uint64_t>() > 255) {
                        error("bytes", where + ": \"bytes\" holds values 0 to 255");
                        break;
                    }
                    s.bytes.push_back(static_cast<uint8_t>(b.get<uint64_t>()));
                }
            return s;
        }
        if (a.size() != 1) {
            error("args", where + ": a scalar argument has one key, its type");
            return s;
        }
        auto [type, value] = *a.items().begin();
        const type_info* ti = find_type(type);
        if (!ti || !value.is_number()) {
            error(type, fmt::format("{}: '{}' is not a scalar type name (u8 ... s64, f16, bf16, f32, f64, b8 ... b64) with a number", where, type));
            return s;
        }
        uint64_t bits;
        if (!ti->is_float && value.is_number_integer())
            bits = value.is_number_unsigned() ? value.get<uint64_t>() : static_cast<uint64_t>(value.get<int64_t>());
        else
            bits = encode_value(type, value.get<double>());
        s.bytes.resize(ti->bytes);
        std::memcpy(s.bytes.data(), &bits, ti->bytes);
        return s;
    }

    void expects(const json& j, launch_file& f) {
        if (!j.is_object()) return error("expect", "\"expect\" maps buffer names to {\"file\", \"max_ulp\"} or {\"values\"}");
        for (auto& [name, e] : j.items()) {
            expect_spec s;
            s.buffer = name;
            const buffer_spec* b = find_buffer(f, name);
            if (!b) {
                error(name, fmt::format("expect names an unknown buffer '{}'", name));
                continue;
            }
            if (!e.is_object() || (!e.contains("file") && !e.contains("values"))) {
                error(name, fmt::format("expect '{}': give {{\"file\": path}} or {{\"values\": [...]}}", name), "expect");
                continue;
            }
            for (auto& [k, v] : e.items())
                if (k != "file" && k != "values" && k != "max_ulp" && k != "max_abs" && k != "max_rel" && k != "comment")
                    error(k, fmt::format("expect '{}': unknown key '{}' (expected file, values, max_ulp, max_abs, max_rel)", name, k),
                          "expect");
            if (e.contains("file")) {
                if (!e["file"].is_string()) error(name, "expect: \"file\" is a path");
                else s.file = resolve(e["file"]);
            } else if (!e["values"].is_array()) {
                error(name, "expect: \"values\" is a list of numbers");
            } else {
                for (auto& v : e["values"]) {
                    double d;
                    if (!number(v, d)) {
                        error(name, "expect: \"values\" is a list of numbers");
                        break;
                    }
                    s.values.push_back(d);
                }
            }
            if (e.contains("max_ulp")) {
                if (!e["max_ulp"].is_number_unsigned()) error(name, "expect: \"max_ulp\" is a non-negative integer");
                else s.max_ulp = e["max_ulp"];
            }
            const bool is_float = b->type[0] == 'f' || b->type == "bf16";
            for (auto [key, bound] : {std::pair{"max_abs", &s.max_abs}, std::pair{"max_rel", &s.max_rel}}) {
                if (!e.contains(key)) continue;
                double v;
                if (!is_float) error(key, fmt::format("expect '{}': \"{}\" applies to float buffers; '{}' is {}", name, key, name, b->type), "expect");
                else if (!number(e[key], v) || !(v >= 0) || std::isinf(v)) error(key, fmt::format("expect '{}': \"{}\" is a non-negative number", name, key), "expect");
                else *bound = v;
            }
            f.expects.push_back(s);
        }
    }

    std::string path_;
    parser::diagnostics& d_;
    std::unique_ptr<parser::source_file> src_;
    fs::path base_;
    bool failed_ = false;
    std::vector<std::pair<size_t, json>> struct_inits_; // buffer index, its {"struct": ...} init
};

} // namespace

uint32_t type_bytes(const std::string& type) {
    const type_info* t = find_type(type);
    return t ? t->bytes : 0;
}

namespace {

// encode_value for a known type (the per-element loops of initial_contents
// look the type up once).
uint64_t encode(const type_info& t, double v) {
    const std::string_view name = t.name;
    if (name == "f64") {
        uint64_t b;
        std::memcpy(&b, &v, 8);
        return b;
    }
    if (name == "f32") return round_to_format(v, 8, 23);
    if (name == "f16") return round_to_format(v, 5, 10);
    if (name == "bf16") return round_to_format(v, 8, 7);
    // Integers: values are whole numbers in range (checked by the caller's data).
    if (t.is_signed) return static_cast<uint64_t>(static_cast<int64_t>(v));
    return v < 0 ? static_cast<uint64_t>(static_cast<int64_t>(v)) : static_cast<uint64_t>(v);
}

} // namespace

uint64_t encode_value(const std::string& type, double v) {
    const type_info* t = find_type(type);
    return t ? encode(*t, v) : 0;
}

double decode_value(const std::string& type, uint64_t bits) {
    const type_info* t = find_type(type);
    if (!t) return 0;
    if (type == "f64") {
        double d;
        std::memcpy(&d, &bits, 8);
        return d;
    }
    if (type == "f32") return from_format(bits & 0xFFFFFFFFu, 8, 23);
    if (type == "f16") return from_format(bits & 0xFFFF, 5, 10);
    if (type == "bf16") return from_format(bits & 0xFFFF, 8, 7);
    uint64_t m = t->bytes == 8 ? ~0ull : (1ull << (8 * t->bytes)) - 1;
    bits &= m;
    if (t->is_signed && t->bytes < 8 && (bits >> (8 * t->bytes - 1))) return static_cast<double>(static_cast<int64_t>(bits | ~m));
    return t->is_signed ? static_cast<double>(static_cast<int64_t>(bits)) : static_cast<double>(bits);
}

std::optional<launch_file> read_launch_file(const std::string& path, parser::diagnostics& d) { return reader(path, d).run(); }

std::optional<std::vector<uint8_t>> initial_contents(const buffer_spec& b, parser::diagnostics& d) {
    std::vector<uint8_t> out(b.count * b.elem_bytes, 0);
    auto put = [&](uint64_t i, uint64_t bits) { std::memcpy(out.data() + i * b.elem_bytes, &bits, b.elem_bytes); };
    const type_info* t = find_type(b.type);
    switch (b.init) {
    case buffer_spec::init_kind::none: break; // left as zeros; initcheck will see it as never written
    case buffer_spec::init_kind::structure: break; // written by the runner once every buffer has its address
    case buffer_spec::init_kind::fill:
        for (uint64_t i = 0; i < b.count; ++i) put(i, encode(*t, b.fill));
        break;
    case buffer_spec::init_kind::iota:
        for (uint64_t i = 0; i < b.count; ++i) put(i, encode(*t, b.start + b.step * static_cast<double>(i)));
        break;
    case buffer_spec::init_kind::random: {
        uint64_t state = b.seed;
        for (uint64_t i = 0; i < b.count; ++i) {
            uint64_t r = splitmix64(state);
            if (t->is_float) {
                double u = static_cast<double>(r >> 11) * 0x1.0p-53; // [0, 1)
                put(i, encode(*t, b.min + (b.max - b.min) * u));
            } else {
                // Integers uniform in [min, max] by modulo (documented; the bias is below 2^-32 for small ranges).
                auto lo = static_cast<int64_t>(std::ceil(b.min)), hi = static_cast<int64_t>(std::floor(b.max));
                uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
                put(i, static_cast<uint64_t>(lo + static_cast<int64_t>(span ? r % span : r)));
            }
        }
        break;
    }
    case buffer_spec::init_kind::file: {
        std::ifstream in(b.file, std::ios::binary);
        if (!in) {
            d.report_unlocated(parser::severity::error, b.file, fmt::format("cannot open the data file of buffer '{}'", b.name));
            return std::nullopt;
        }
        std::stringstream ss;
        ss << in.rdbuf();
        std::string data = ss.str();
        if (data.size() != out.size()) {
            d.report_unlocated(parser::severity::error, b.file,
                               fmt::format("buffer '{}' needs {} bytes ({} x {}), the file has {}", b.name, out.size(), b.count,
                                           b.type, data.size()));
            return std::nullopt;
        }
        std::memcpy(out.data(), data.data(), out.size());
        break;
    }
    }
    return out;
}

} // namespace ptxsim::sim
