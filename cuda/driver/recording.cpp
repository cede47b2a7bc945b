#include "cuda/driver/recording.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cuda/driver/reachable_memory.hpp"
#include "cuda/driver/recorded_values.hpp"
#include "cuda/driver/state.hpp"
#include "memory/global_memory.hpp"
#include "isa/sem/texture_object.hpp"
#include "parser/ast.hpp"
#include "parser/source.hpp"
#include "sim/launch_file.hpp"

namespace ptxsim::cuda::driver {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

// A file name from a kernel or module name: letters, digits, '.', '-', '_'.
std::string file_safe(const std::string& name, size_t max = 60) {
    std::string out;
    for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' ? c : '_';
    return out.substr(0, max);
}

// "_Z10vector_addPKfS0_Pfi" -> "vector_add", for folder names and the filter.
std::string unmangled(const std::string& name) {
    if (name.rfind("_Z", 0) != 0) return name;
    size_t i = 2;
    if (i < name.size() && name[i] == 'N') ++i;
    size_t len = 0;
    while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i]))) len = len * 10 + size_t(name[i++] - '0');
    return len && i + len <= name.size() ? name.substr(i, len) : name;
}

bool write_file(const fs::path& p, const void* data, size_t bytes) {
    std::ofstream out(p, std::ios::binary);
    out.write(static_cast<const char*>(data), std::streamsize(bytes));
    return bool(out);
}

// FNV-1a: tells a buffer's bytes from the ones its last file holds.
uint64_t fingerprint(const std::vector<uint8_t>& bytes) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint8_t b : bytes) h = (h ^ b) * 0x100000001b3ull;
    return h;
}

bool all_zero(const std::vector<uint8_t>& b) {
    return std::all_of(b.begin(), b.end(), [](uint8_t x) { return x == 0; });
}

} // namespace

// What a recorded launch took before it ran.
struct launch_recording::pending {
    fs::path folder;
    json file;
    std::vector<reachable_memory::region> taken;  // the memory the launch can reach, before it
    std::vector<std::string> notes;
};

launch_recording* launch_recording::get() {
    static launch_recording* made = []() -> launch_recording* {
        const std::string dir = env("PTXSIM_RECORD_DIR");
        if (dir.empty()) return nullptr;
        auto* r = new launch_recording();  // lives to the end of the process
        r->dir_ = dir;
        r->kernel_filter_ = env("PTXSIM_RECORD_KERNEL");
        if (const std::string m = env("PTXSIM_RECORD_MAX"); !m.empty()) r->max_ = std::strtoull(m.c_str(), nullptr, 10);
        return r;
    }();
    return made;
}

void launch_recording::pending_deleter::operator()(pending* p) const { delete p; }

std::string launch_recording::module_file(size_t module, const std::string& name) {
    return fmt::format("m{}-{}", module, file_safe(name));
}

launch_recording::pending_ptr launch_recording::before(state& st, const function_object& f,
                                                                    const recorded_launch_shape& shape,
                                                                    const std::vector<uint8_t>& params,
                                                                    uint64_t launch_number) {
    const std::string& kernel = f.kernel.name;
    if (!kernel_filter_.empty() && kernel.find(kernel_filter_) == std::string::npos) return nullptr;
    if (recorded_ >= max_) {
        ++skipped_;
        return nullptr;
    }
    sim::device& dev = st.device();
    const size_t module = f.kernel.module;
    pending_ptr p(new pending());
    p->folder = fs::path(dir_) / fmt::format("{:04}-{}", launch_number, file_safe(unmangled(kernel)));
    std::error_code ec;
    fs::create_directories(p->folder, ec);
    fs::create_directories(fs::path(dir_) / "modules", ec);
    if (ec) {
        st.warn(fmt::format("--record: cannot create {}: {}", p->folder.string(), ec.message()));
        return nullptr;
    }

    // The module's PTX, once per module, shared by its launches; a program
    // built with -rdc=true links its translation units by name, so the
    // kernel's launch file names every unit (the kernel's first).
    std::vector<size_t> units{module};
    if (f.module)
        for (size_t u : f.module->all())
            if (u != module) units.push_back(u);
    json unit_files = json::array();
    for (size_t u : units) {
        const parser::source_file* source = dev.module_source(u);
        const std::string file = launch_recording::module_file(u, source ? source->name() : "module.ptx");
        if (!modules_written_.count(u) && source) {
            if (!write_file(fs::path(dir_) / "modules" / file, source->text().data(), source->text().size())) {
                st.warn(fmt::format("--record: cannot write the module {}", file));
                return nullptr;
            }
            modules_written_.insert(u);
        }
        unit_files.push_back("../modules/" + file);
    }

    // What the kernel can reach: its module's variables, then what the
    // arguments and (below) the memory taken point into.
    reachable_memory reach(st, module);
    auto refer = [&reach](uint64_t v) { return reach.refer(v); };

    // The arguments, each as the launch file writes it.
    json args = json::array();
    json objects = json::object();  // "textures" and "surfaces" the arguments name
    const isa::exec_function& code = *f.code;
    for (size_t i = 0; i < code.params.size(); ++i) {
        const auto& prm = code.params[i];
        const uint8_t* at = params.data() + prm.offset;
        uint64_t word = 0;
        if (prm.size == 1 || prm.size == 2 || prm.size == 4 || prm.size == 8) {
            std::memcpy(&word, at, prm.size);
            if (prm.size == 8) {
                if (auto t = refer(word)) {
                    json a = {{t->symbol ? "symbol" : "buffer", t->name}};
                    if (t->offset) a["offset"] = t->offset;
                    args.push_back(a);
                    continue;
                }
                if (const isa::texture_object* t = dev.texture_object(word)) {
                    // Over the allocation holding its texels, taken like any other.
                    auto under = refer(t->base);
                    if (under && !under->symbol) {
                        const bool texture = t->kind == isa::object_kind::texture;
                        const std::string name = fmt::format("{}{}", texture ? "tex" : "surf", i);
                        objects[texture ? "textures" : "surfaces"][name] = object_spec(*t, under->name, under->offset);
                        args.push_back({{texture ? "texture" : "surface", name}});
                        continue;
                    }
                    p->notes.push_back(fmt::format("argument {} is texture or surface object {:#x} over memory the recording "
                                                   "cannot take: recorded as its handle, which the replay does not have",
                                                   i, word));
                }
            }
            const auto& decls = f.kernel.function->params;
            args.push_back(scalar_arg(decls.size() == code.params.size() ? &decls[uint32_t(i)] : nullptr, prm.size, word));
            continue;
        }
        // A struct by value: its bytes as they are (buffers keep their
        // addresses), but a pointer to one of the module's variables as a
        // {"symbol"} field, since the replay places those anew.
        json fields = json::array();
        std::vector<uint8_t> chunk;
        auto flush = [&] {
            if (!chunk.empty()) fields.push_back({{"bytes", chunk}});
            chunk.clear();
        };
        for (uint32_t k = 0; k < prm.size;) {
            if (k % 8 == 0 && k + 8 <= prm.size) {
                std::memcpy(&word, at + k, 8);
                if (auto t = refer(word); t && t->symbol) {
                    flush();
                    json a = {{"symbol", t->name}};
                    if (t->offset) a["offset"] = t->offset;
                    fields.push_back(a);
                    k += 8;
                    continue;
                }
            }
            chunk.push_back(at[k++]);
        }
        flush();
        args.push_back(fields.size() == 1 && fields[0].contains("bytes") ? fields[0] : json{{"struct", fields}});
    }

    // The words stay as they are: the replay puts every buffer at its
    // recorded address.
    reach.follow();
    p->taken = reach.take_regions();

    json buffers = json::object(), symbols = json::object();
    for (const auto& c : p->taken) {
        if (c.bytes.empty()) continue;
        json init;
        if (all_zero(c.bytes) && !c.symbol) {  // a variable is set whatever it holds: its PTX may start it otherwise
            init = {{"fill", 0}};
        } else {
            const std::string data = file_safe(c.name, 80) + ".in";
            if (!save(c.name, (p->folder / data).string(), c.bytes)) {
                st.warn(fmt::format("--record: cannot write {} ({} bytes): launch #{} is not recorded", (p->folder / data).string(),
                                    c.bytes.size(), launch_number));
                return nullptr;
            }
            init = {{"file", data}};
        }
        if (c.symbol) symbols[c.name] = init;
        else buffers[c.name] = {{"type", "u8"}, {"count", c.bytes.size()}, {"address", fmt::format("{:#x}", c.address)}, {"init", init}};
    }

    auto dims = [](const sim::dim3& d) { return d.y == 1 && d.z == 1 ? json(d.x) : json{d.x, d.y, d.z}; };
    json launch = {{"kernel", kernel}, {"grid", dims(shape.grid)}, {"block", dims(shape.block)}};
    if (shape.shared) launch["shared_bytes"] = shape.shared;
    launch["registers_per_thread"] = registers_of(st, f);
    if (st.stack_bytes != 1024) launch["stack_bytes"] = st.stack_bytes;
    if (st.heap_bytes != (8u << 20)) launch["malloc_heap_bytes"] = st.heap_bytes;
    if (shape.cooperative) launch["cooperative"] = true;
    if (shape.cluster.x) launch["cluster"] = {shape.cluster.x, shape.cluster.y, shape.cluster.z};
    if (!shape.sms.empty()) launch["sms"] = shape.sms;
    if (f.non_portable_cluster) launch["non_portable_cluster_size"] = true;
    launch["args"] = args;

    p->file["comment"] = fmt::format("recorded by ptxsim exec --record: launch #{} of {}", launch_number, kernel);
    if (unit_files.size() == 1) p->file["module"] = unit_files[0];
    else p->file["modules"] = unit_files;
    if (!buffers.empty()) p->file["buffers"] = buffers;
    for (const auto& [section, entries] : objects.items()) p->file[section] = entries;
    if (!symbols.empty()) p->file["symbols"] = symbols;
    p->file["launches"] = json::array({launch});
    return p;
}

std::string launch_recording::after(state& st, pending_ptr p, const sim::launch_result& r) {
    if (!p) return "";
    sim::device& dev = st.device();
    json expect = json::object();
    if (r.fault) {
        p->notes.push_back("this launch faulted: " + r.fault->kind);
    } else if (!r.ok) {
        p->notes.push_back("this launch was refused");
    } else {
        for (const auto& c : p->taken) {
            if (c.symbol || c.bytes.empty()) continue;  // expectations are on buffers
            std::vector<uint8_t> now(c.bytes.size());
            dev.global().copy_from_device(now.data(), c.address, now.size());
            if (now == c.bytes) continue;
            const std::string data = file_safe(c.name, 80) + ".expected";
            if (!save(c.name, (p->folder / data).string(), now)) {
                st.warn(fmt::format("--record: cannot write {}: its expectation is left out", (p->folder / data).string()));
                continue;
            }
            expect[c.name] = {{"file", data}, {"max_ulp", 0}};
        }
    }
    if (!expect.empty()) p->file["expect"] = expect;
    if (!p->notes.empty()) {
        std::string all = p->file["comment"];
        for (const auto& n : p->notes) all += "; " + n;
        p->file["comment"] = all;
        for (const auto& n : p->notes) st.warn(fmt::format("--record: {}: {}", p->folder.filename().string(), n));
    }
    const fs::path file = p->folder / "launch.json";
    std::ofstream out(file);
    out << p->file.dump(1) << "\n";
    if (!out) {
        st.warn("--record: cannot write " + file.string());
        return "";
    }
    if (!recorded_++) first_file_ = file.string();
    return file.string();
}

bool launch_recording::save(const std::string& buffer, const std::string& path, const std::vector<uint8_t>& bytes) {
    const uint64_t hash = fingerprint(bytes);
    auto last = last_saved_.find(buffer);
    if (last != last_saved_.end() && last->second.hash == hash && last->second.size == bytes.size()) {
        std::error_code ec;
        fs::create_hard_link(last->second.path, path, ec);
        if (!ec) {
            bytes_linked_ += bytes.size();
            return true;
        }
    }
    if (!write_file(path, bytes.data(), bytes.size())) return false;
    // Read-only: a file may be shared by several launches, so an edit in
    // place must not change another launch's data (replace the file instead).
    std::error_code ec;
    fs::permissions(path, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read, ec);
    bytes_written_ += bytes.size();
    last_saved_[buffer] = {hash, bytes.size(), path};
    return true;
}

void launch_recording::finish() const {
    if (recorded_ == 0) {
        std::cerr << fmt::format("ptxsim: --record: no launch recorded in {}{}\n", dir_,
                                 kernel_filter_.empty() ? "" : " (none of a kernel named like '" + kernel_filter_ + "')");
        return;
    }
    std::cerr << fmt::format("ptxsim: --record: {} launch{} recorded in {} ({:.1f} MiB of data written, {:.1f} MiB shared with "
                             "earlier launches){}; replay one with: ptxsim run {}\n",
                             recorded_, recorded_ == 1 ? "" : "es", dir_, double(bytes_written_) / (1 << 20),
                             double(bytes_linked_) / (1 << 20),
                             skipped_ ? fmt::format(" ({} more not recorded: --record-max {})", skipped_, max_) : "",
                             first_file_);
}

} // namespace ptxsim::cuda::driver
