#include "sim/launch_runner.hpp"

#include "sim/events.hpp"
#include "memory/global_memory.hpp"
#include "sim/launch_args.hpp"
#include "sim/launch_results.hpp"

#include <fmt/format.h>

#include <algorithm>
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

} // namespace

int run_launch_file(device& dev, const launch_file& f, const run_settings& s, std::ostream& out, std::ostream& err) {
    parser::diagnostics d;
    struct live_buffer {
        const buffer_spec* spec;
        uint64_t address;
    };
    std::map<std::string, live_buffer> buffers;
    arg_addresses at; // what values may name: buffers, multicast objects, textures, module variables
    at.symbol = [&dev](const std::string& name) -> std::optional<uint64_t> {
        auto v = dev.symbol(name);
        return v ? std::optional<uint64_t>(v->first) : std::nullopt;
    };
    // A buffer, at its "address" when it has one, filled with its init.
    auto create = [&](const buffer_spec& b) {
        auto init = initial_contents(b, d);
        if (!init) {
            print_diags(d, err);
            return false;
        }
        uint64_t addr = b.address ? dev.global().allocate_at(b.address, init->size(), "buffer " + b.name) : dev.allocate(init->size());
        if (!addr) {
            if (b.address)
                err << fmt::format("{}: error: buffer '{}' cannot be placed at {:#x} ({} bytes): it overlaps another buffer or "
                                   "its guard gap ({} bytes)\n",
                                   f.path, b.name, b.address, init->size(), dev.global().options().guard_bytes);
            else
                err << fmt::format("{}: error: buffer '{}' ({} bytes) does not fit in device memory\n", f.path, b.name, init->size());
            return false;
        }
        dev.write(addr, init->data(), init->size());
        if (observer* o = s.options.observer) { // initcheck: cudaMalloc, then a copy only when the buffer has an init
            o->host_allocate({addr, init->size(), b.name});
            if (b.init != buffer_spec::init_kind::none && b.init != buffer_spec::init_kind::structure)
                o->host_write({addr, init->size(), b.name});
        }
        buffers[b.name] = {&b, addr};
        at.buffers[b.name] = addr;
        return true;
    };
    // Buffers at given addresses (a recorded program's, whose data holds
    // pointers) take their places first, in address order, before the
    // modules' variables take theirs.
    std::vector<const buffer_spec*> placed;
    for (const auto& b : f.buffers)
        if (b.address) placed.push_back(&b);
    std::sort(placed.begin(), placed.end(), [](auto* x, auto* y) { return x->address < y->address; });
    if (!placed.empty() && !dev.global().start_at(placed.front()->address)) {
        err << fmt::format("{}: error: buffer '{}' cannot be placed at {:#x}: the device already holds allocations\n", f.path,
                           placed.front()->name, placed.front()->address);
        return 2;
    }
    for (const buffer_spec* b : placed)
        if (!create(*b)) return 2;
    for (const auto& m : f.modules) {
        if (!dev.load_module_file(m, d, s.validate)) {
            print_diags(d, err);
            return 2;
        }
    }
    if (s.validate.allow_newer_version) print_diags(d, err); // say that a newer .version is checked as 9.0
    d = parser::diagnostics();
    for (const auto& b : f.buffers)
        if (!b.address && !create(b)) return 2;
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
        o.base = buffers.at(t.buffer).address + t.offset;
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
    for (const auto& b : f.buffers) {  // file contents that hold pointers
        if (b.pointers.empty()) continue;
        const uint64_t address = at.buffers.at(b.name);
        std::vector<uint8_t> bytes(b.count * b.elem_bytes);
        dev.read(address, bytes.data(), bytes.size());
        if (std::string problem = apply_pointers(b.pointers, at, bytes); !problem.empty()) {
            err << fmt::format("{}: error: {}\n", f.path, problem);
            return 2;
        }
        dev.write(address, bytes.data(), bytes.size());
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
    // The device heap's size is a context limit, as in CUDA: a launch's
    // malloc_heap_bytes stays for the launches after it, and once a kernel
    // that calls malloc or free has run it can no longer change.
    uint64_t heap_bytes = settings.options.malloc_heap_bytes;
    std::string heap_fixed_by; // the launch that fixed it, empty while it may change
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
        if (l.malloc_heap_bytes && *l.malloc_heap_bytes != heap_bytes) {
            if (!heap_fixed_by.empty()) {
                err << fmt::format("{}: error: {}: malloc_heap_bytes {} cannot change the device heap ({} bytes) after {} ran a "
                                   "kernel that calls malloc or free (CUDA's cudaDeviceSetLimit(cudaLimitMallocHeapSize) "
                                   "refuses it the same way)\n",
                                   f.path, l.where, *l.malloc_heap_bytes, heap_bytes, heap_fixed_by);
                return 2;
            }
            heap_bytes = *l.malloc_heap_bytes;
        }
        launch_options options = settings.options;
        options.malloc_heap_bytes = heap_bytes;
        if (l.stack_bytes) options.stack_bytes = static_cast<uint32_t>(*l.stack_bytes);
        options.registers_per_thread = l.registers_per_thread;
        options.cooperative = l.cooperative;
        options.sms = l.sms;
        options.stream = l.stream;
        options.cluster = l.cluster;
        options.non_portable_cluster_size = l.non_portable_cluster_size;
        launch_result r = dev.launch(*k, l.grid, l.block, l.shared_bytes, params, options, d);
        if (heap_fixed_by.empty() && dev.uses_device_heap(*k)) heap_fixed_by = l.where;
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
    buffer_contents contents;
    if (s.final_buffers || !f.outputs.empty() || !f.expects.empty()) {
        for (const auto& b : f.buffers) {
            std::vector<uint8_t> data(b.count * b.elem_bytes);
            dev.read(buffers.at(b.name).address, data.data(), data.size());
            contents.emplace_back(b.name, std::move(data));
        }
    }
    if (int status = write_outputs(f, contents, err)) return status;
    const int status = compare_expectations(f, contents, out, err);
    if (s.final_buffers) *s.final_buffers = std::move(contents);
    if (status == 2) return status;
    if (s.stats) {
        double rate = total.seconds > 0 ? static_cast<double>(total.thread_instructions) / total.seconds : 0;
        out << fmt::format("instructions: {} thread, {} warp; time {:.3f} s; {:.3g} thread-instructions/s\n",
                           total.thread_instructions, total.warp_instructions, total.seconds, rate);
    }
    return status;
}

} // namespace ptxsim::sim
