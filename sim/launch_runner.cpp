#include "sim/launch_runner.hpp"

#include "sim/events.hpp"
#include "sim/launch_args.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>

namespace ptxsim::sim {
namespace {

void print_diags(const parser::diagnostics& d, std::ostream& err) {
    for (const auto& x : d.all()) parser::print_text(err, x);
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

int run_launch_file(device& dev, const launch_file& f, const run_settings& s, std::ostream& out, std::ostream& err) {
    parser::diagnostics d;
    for (const auto& m : f.modules) {
        if (!dev.load_module_file(m, d)) {
            print_diags(d, err);
            return 2;
        }
    }
    struct live_buffer {
        const buffer_spec* spec;
        uint64_t address;
    };
    std::map<std::string, live_buffer> buffers;
    arg_addresses at; // what values may name: buffers, multicast objects, textures
    for (const auto& b : f.buffers) {
        auto init = initial_contents(b, d);
        if (!init) {
            print_diags(d, err);
            return 2;
        }
        uint64_t addr = dev.allocate(init->size());
        if (!addr) {
            err << fmt::format("{}: error: buffer '{}' ({} bytes) does not fit in device memory\n", f.path, b.name, init->size());
            return 2;
        }
        dev.write(addr, init->data(), init->size());
        if (observer* o = s.options.observer) { // initcheck: cudaMalloc, then a copy only when the buffer has an init
            o->host_allocate({addr, init->size(), b.name});
            if (b.init != buffer_spec::init_kind::none && b.init != buffer_spec::init_kind::structure)
                o->host_write({addr, init->size(), b.name});
        }
        buffers[b.name] = {&b, addr};
        at.buffers[b.name] = addr;
    }
    if (s.buffer_addresses) {
        s.buffer_addresses->clear();
        for (const auto& b : f.buffers) s.buffer_addresses->push_back(buffers.at(b.name).address);
    }
    // Multicast objects over the member buffers (one simulated device holds
    // the copies that N GPUs would).
    for (const auto& m : f.multicasts) {
        std::vector<uint64_t> members;
        for (const auto& b : m.members) members.push_back(buffers.at(b).address);
        const buffer_spec& first = *buffers.at(m.members.front()).spec;
        std::string why;
        uint64_t base = dev.create_multicast(members, first.count * first.elem_bytes, why);
        if (!base) {
            err << fmt::format("{}: error: multicast '{}': {}\n", f.path, m.name, why);
            return 2;
        }
        at.multicasts[m.name] = base;
    }
    // Texture and surface objects over the buffers, named by kind and name.
    for (const auto& t : f.textures) {
        isa::texture_object o = t.object;
        o.base = buffers.at(t.buffer).address;
        std::string why;
        uint64_t handle = dev.create_texture_object(o, why);
        if (!handle) {
            err << fmt::format("{}: error: {} '{}': {}\n", f.path, o.kind == isa::object_kind::texture ? "texture" : "surface", t.name,
                               why);
            return 2;
        }
        at.objects[{o.kind, t.name}] = handle;
    }
    // Contents that point at buffers and objects: struct buffers, then module
    // variables (cudaMemcpyToSymbol before the first launch).
    for (const auto& b : f.buffers) {
        if (b.init != buffer_spec::init_kind::structure) continue;
        encoded_arg e;
        if (std::string problem = encode_arg(b.structure, at, e); !problem.empty()) {
            err << fmt::format("{}: error: {}\n", f.path, problem);
            return 2;
        }
        if (e.bytes.size() > b.count * b.elem_bytes) {
            err << fmt::format("{}: error: buffer '{}': its struct is {} bytes, the buffer {}\n", f.path, b.name, e.bytes.size(),
                               b.count * b.elem_bytes);
            return 2;
        }
        dev.write(at.buffers.at(b.name), e.bytes.data(), e.bytes.size());
        if (observer* o = s.options.observer) o->host_write({at.buffers.at(b.name), e.bytes.size(), b.name});
    }
    for (const auto& v : f.symbols) {
        auto sym = dev.symbol(v.name);
        if (!sym) {
            err << fmt::format("{}: error: {}: no module variable '{}' in global or constant memory\n", f.path, v.value.where, v.name);
            return 2;
        }
        encoded_arg e;
        if (std::string problem = encode_arg(v.value, at, e); !problem.empty()) {
            err << fmt::format("{}: error: {}\n", f.path, problem);
            return 2;
        }
        if (e.bytes.size() > sym->second) {
            err << fmt::format("{}: error: {}: the value is {} bytes, '{}' holds {}\n", f.path, v.value.where, e.bytes.size(), v.name,
                               sym->second);
            return 2;
        }
        dev.write(sym->first, e.bytes.data(), e.bytes.size());
        if (observer* o = s.options.observer) o->host_write({sym->first, e.bytes.size(), v.name});
    }
    launch_stats total;
    run_settings settings = s;
    settings.options.print = [&out](const std::string& text) { out << text; };
    for (const auto& l : f.launches) {
        std::string why;
        auto k = dev.find_kernel(l.kernel, why);
        if (!k) {
            err << fmt::format("{}: error: {}: {}\n", f.path, l.where, why);
            return 2;
        }
        const isa::exec_function* code = dev.kernel_code(*k, d);
        if (!code) {
            print_diags(d, err);
            return 2;
        }
        if (l.args.size() != code->params.size()) {
            err << fmt::format("{}: error: {}: kernel '{}' takes {} arguments, the launch gives {}\n", f.path, l.where, k->name,
                               code->params.size(), l.args.size());
            return 2;
        }
        std::vector<uint8_t> params(code->param_bytes, 0);
        for (size_t i = 0; i < l.args.size(); ++i) {
            const arg_spec& a = l.args[i];
            const isa::exec_param& p = code->params[i];
            encoded_arg e;
            if (std::string problem = encode_arg(a, at, e); !problem.empty()) {
                err << fmt::format("{}: error: {}\n", f.path, problem);
                return 2;
            }
            const std::vector<uint8_t>& bytes = e.bytes;
            if (bytes.size() != p.size) {
                err << fmt::format("{}: error: {}: parameter {} ('{}') of '{}' is {} bytes, the argument is {}\n", f.path, a.where,
                                   i, p.name, k->name, p.size, bytes.size());
                return 2;
            }
            std::memcpy(params.data() + p.offset, bytes.data(), bytes.size());
        }
        launch_options options = settings.options;
        if (l.malloc_heap_bytes) options.malloc_heap_bytes = *l.malloc_heap_bytes;
        if (l.stack_bytes) options.stack_bytes = static_cast<uint32_t>(*l.stack_bytes);
        options.registers_per_thread = l.registers_per_thread;
        options.cooperative = l.cooperative;
        options.cluster = l.cluster;
        options.non_portable_cluster_size = l.non_portable_cluster_size;
        launch_result r = dev.launch(*k, l.grid, l.block, l.shared_bytes, params, options, d);
        if (d.has_errors()) {
            print_diags(d, err);
            return 2;
        }
        total.warp_instructions += r.stats.warp_instructions;
        total.thread_instructions += r.stats.thread_instructions;
        total.seconds += r.stats.seconds;
        if (s.totals) {
            s.totals->warp_instructions += r.stats.warp_instructions;
            s.totals->thread_instructions += r.stats.thread_instructions;
            s.totals->seconds += r.stats.seconds;
        }
        if (r.fault) {
            if (s.report_faults && r.fault->raised_by.empty()) err << r.fault->format(); // an observer reports its own stops
            return 1;
        }
    }
    if (s.final_buffers) {
        for (const auto& b : f.buffers) {
            const live_buffer& lb = buffers.at(b.name);
            std::vector<uint8_t> data(b.count * b.elem_bytes);
            dev.read(lb.address, data.data(), data.size());
            s.final_buffers->emplace_back(b.name, std::move(data));
        }
    }
    for (const auto& [name, path] : f.outputs) {
        const live_buffer& b = buffers.at(name);
        std::vector<uint8_t> data(b.spec->count * b.spec->elem_bytes);
        dev.read(b.address, data.data(), data.size());
        bool ok;
        if (path.size() > 4 && path.substr(path.size() - 4) == ".npy") {
            ok = write_npy(path, b.spec->type, b.spec->count, data);
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
    int status = 0;
    for (const auto& e : f.expects) {
        const live_buffer& b = buffers.at(e.buffer);
        const buffer_spec& spec = *b.spec;
        std::vector<uint8_t> data(spec.count * spec.elem_bytes);
        dev.read(b.address, data.data(), data.size());
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
    if (s.stats) {
        double rate = total.seconds > 0 ? static_cast<double>(total.thread_instructions) / total.seconds : 0;
        out << fmt::format("instructions: {} thread, {} warp; time {:.3f} s; {:.3g} thread-instructions/s\n",
                           total.thread_instructions, total.warp_instructions, total.seconds, rate);
    }
    return status;
}

} // namespace ptxsim::sim
