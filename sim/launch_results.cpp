#include "sim/launch_results.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>
#include <stdexcept>

namespace ptxsim::sim {
namespace {

const buffer_spec& spec_of(const launch_file& f, const std::string& name) {
    for (const auto& b : f.buffers)
        if (b.name == name) return b;
    throw std::logic_error("launch file names an undeclared buffer: " + name); // read_launch_file checks names
}

const std::vector<uint8_t>& contents_of(const buffer_contents& c, const std::string& name) {
    for (const auto& [n, bytes] : c)
        if (n == name) return bytes;
    throw std::logic_error("no contents for buffer " + name);
}

// Distance in units in the last place between two floats of one type, by
// their ordered bit patterns; 0 for identical bits (NaNs equal when both NaN).
uint64_t ulp_distance(const std::string& type, uint64_t a, uint64_t b) {
    uint32_t bits = type_bytes(type) * 8;
    uint64_t sign = 1ull << (bits - 1), mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
    a &= mask;
    b &= mask;
    if (a == b) return 0;
    double da = decode_value(type, a), db = decode_value(type, b);
    if (da != da && db != db) return 0;
    auto ordered = [&](uint64_t v) -> int64_t { // monotonic integer order of the float values
        return (v & sign) ? -static_cast<int64_t>(v & ~sign & mask) : static_cast<int64_t>(v);
    };
    int64_t x = ordered(a), y = ordered(b);
    if (x == y) return 1; // +0 and -0: different bits, so never within max_ulp 0
    return static_cast<uint64_t>(x > y ? x - y : y - x);
}

// How far a float element is from its expectation, with the bounds it missed.
std::string float_gap(uint64_t dist, double diff, const expect_spec& e) {
    std::string s = fmt::format(", {} ulp apart (max_ulp {})", dist, e.max_ulp);
    if (e.max_abs > 0 || e.max_rel > 0) s += fmt::format(", |difference| {:.3g} (max_abs {:g}, max_rel {:g})", diff, e.max_abs, e.max_rel);
    return s;
}

// An element as text: integers exactly (a double would round 64-bit ones).
std::string shown(const std::string& type, uint64_t bits) {
    if (type[0] == 'u') return fmt::format("{}", bits);
    if (type[0] == 's') {
        uint32_t width = static_cast<uint32_t>(std::stoi(type.substr(1)));
        int64_t v = width == 64 ? static_cast<int64_t>(bits) : static_cast<int64_t>(bits << (64 - width)) >> (64 - width);
        return fmt::format("{}", v);
    }
    return fmt::format("{}", decode_value(type, bits));
}

bool write_npy(const std::string& path, const std::string& type, uint64_t count, const std::vector<uint8_t>& data) {
    static const std::map<std::string, std::string> descr{{"u8", "|u1"}, {"s8", "|i1"}, {"u16", "<u2"}, {"s16", "<i2"},
                                                          {"u32", "<u4"}, {"s32", "<i4"}, {"u64", "<u8"}, {"s64", "<i8"},
                                                          {"f16", "<f2"}, {"bf16", "<u2"}, {"f32", "<f4"}, {"f64", "<f8"}};
    std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({},), }}", descr.at(type), count);
    size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header += '\n';
    std::ofstream out(path, std::ios::binary);
    if (!out) return false;
    out.write("\x93NUMPY\x01\x00", 8);
    uint16_t len = static_cast<uint16_t>(header.size());
    out.write(reinterpret_cast<const char*>(&len), 2);
    out << header;
    out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
    return static_cast<bool>(out);
}

} // namespace

int write_outputs(const launch_file& f, const buffer_contents& c, std::ostream& err) {
    for (const auto& [name, path] : f.outputs) {
        const buffer_spec& spec = spec_of(f, name);
        const std::vector<uint8_t>& data = contents_of(c, name);
        bool ok;
        if (path.size() > 4 && path.substr(path.size() - 4) == ".npy") {
            ok = write_npy(path, spec.type, spec.count, data);
        } else {
            std::ofstream o(path, std::ios::binary);
            o.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
            ok = static_cast<bool>(o);
        }
        if (!ok) {
            err << fmt::format("{}: error: cannot write output '{}' to {}\n", f.path, name, path);
            return 2;
        }
    }
    return 0;
}

int compare_expectations(const launch_file& f, const buffer_contents& c, std::ostream& out, std::ostream& err) {
    int status = 0;
    for (const auto& e : f.expects) {
        const buffer_spec& spec = spec_of(f, e.buffer);
        const std::vector<uint8_t>& data = contents_of(c, e.buffer);
        std::vector<uint8_t> want(data.size(), 0);
        if (!e.file.empty()) {
            std::ifstream in(e.file, std::ios::binary);
            std::stringstream ss;
            ss << in.rdbuf();
            std::string w = ss.str();
            if (!in || w.size() != want.size()) {
                err << fmt::format("{}: error: expected data for '{}' must be {} bytes; {} {}\n", f.path, e.buffer, want.size(),
                                   e.file, in ? fmt::format("has {}", w.size()) : std::string("cannot be read"));
                return 2;
            }
            std::memcpy(want.data(), w.data(), want.size());
        } else {
            if (e.values.size() != spec.count) {
                err << fmt::format("{}: error: expect '{}' lists {} values for {} elements\n", f.path, e.buffer, e.values.size(), spec.count);
                return 2;
            }
            for (uint64_t i = 0; i < spec.count; ++i) {
                uint64_t bits = encode_value(spec.type, e.values[i]);
                std::memcpy(want.data() + i * spec.elem_bytes, &bits, spec.elem_bytes);
            }
        }
        bool is_float = spec.type[0] == 'f' || spec.type == "bf16";
        uint64_t mismatches = 0;
        for (uint64_t i = 0; i < spec.count; ++i) {
            uint64_t got = 0, exp = 0;
            std::memcpy(&got, data.data() + i * spec.elem_bytes, spec.elem_bytes);
            std::memcpy(&exp, want.data() + i * spec.elem_bytes, spec.elem_bytes);
            uint64_t dist = is_float ? ulp_distance(spec.type, got, exp) : (got == exp ? 0 : ~0ull);
            if (dist <= e.max_ulp) continue;
            double diff = 0;
            if (is_float) {
                const double g = decode_value(spec.type, got), w = decode_value(spec.type, exp);
                diff = std::abs(g - w);
                // Infinities and NaNs must match by bits (max_ulp) alone.
                const bool finite = std::isfinite(g) && std::isfinite(w);
                if (finite && (diff <= e.max_abs || diff <= e.max_rel * std::abs(w))) continue;
            }
            if (mismatches++ < 10)
                err << fmt::format("mismatch: {}[{}] = {} (0x{:x}), expected {} (0x{:x}){}\n", e.buffer, i, shown(spec.type, got),
                                   got, shown(spec.type, exp), exp, is_float ? float_gap(dist, diff, e) : std::string());
        }
        if (mismatches) {
            err << fmt::format("{}: {} of {} elements of '{}' differ from the expected values\n", f.path, mismatches, spec.count, e.buffer);
            status = 1;
        } else {
            out << fmt::format("{}: all {} elements match\n", e.buffer, spec.count);
        }
    }
    return status;
}

std::string dump_buffers(const std::string& dir, const launch_file& f, const buffer_contents& c) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return fmt::format("cannot create {}: {}", dir, ec.message());
    std::ofstream manifest(fs::path(dir) / "buffers.txt");
    for (const auto& b : f.buffers) {
        // Buffer names become file names: keep them to a portable set.
        if (b.name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") != std::string::npos ||
            b.name[0] == '.')
            return fmt::format("buffer name '{}' cannot be a file name (letters, digits, '_', '.', '-')", b.name);
        const std::vector<uint8_t>& data = contents_of(c, b.name);
        const fs::path p = fs::path(dir) / (b.name + ".bin");
        std::ofstream o(p, std::ios::binary);
        o.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
        if (!o) return fmt::format("cannot write {}", p.string());
        manifest << b.name << ' ' << b.type << ' ' << b.count << '\n';
    }
    if (!manifest) return fmt::format("cannot write {}", (fs::path(dir) / "buffers.txt").string());
    return "";
}

} // namespace ptxsim::sim
