#include "cuda/driver/state.hpp"

#include "cuda/driver/linked_image.hpp"

#include <link.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include <fmt/format.h>

#include "cuda/driver/array_object.hpp"
#include "cuda/driver/checking.hpp"
#include "cuda/driver/profiling.hpp"
#include "cuda/driver/recording.hpp"
#include "cuda/fatbin.hpp"
#include "memory/global_memory.hpp"
#include "models/model.hpp"
#include "models/models_dir.hpp"

namespace ptxsim::cuda::driver {
namespace {

// 1 TiB of host address space reserved for device addresses: far from where
// Linux puts the heap (just above the program) and mmap (below the stack).
constexpr uint64_t reserve_bytes = 1ull << 40;
constexpr uint64_t candidate_bases[] = {0x6000'0000'0000ull, 0x5000'0000'0000ull, 0x4000'0000'0000ull,
                                        0x3000'0000'0000ull};

uint64_t reserve_device_range() {
    for (uint64_t base : candidate_bases) {
        void* p = mmap(reinterpret_cast<void*>(base), reserve_bytes, PROT_NONE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
        if (p == reinterpret_cast<void*>(base)) return base;
        if (p != MAP_FAILED) munmap(p, reserve_bytes);
    }
    return 0;
}

models::gpu_model load_model_or_die() {
    const char* file = std::getenv("PTXSIM_MODEL_FILE");
    std::string path = file && *file ? file : models::default_model_path(PTXSIM_SOURCE_DIR).string();
    parser::diagnostics d;
    auto m = models::load_model(path, d);
    if (!m) {
        std::fprintf(stderr, "ptxsim: the CUDA driver cannot load the GPU model %s:\n%s", path.c_str(),
                     text_of(d).c_str());
        std::exit(2);
    }
    return *m;
}

} // namespace

std::string text_of(const parser::diagnostics& d) {
    std::ostringstream out;
    for (const auto& x : d.all()) parser::print_text(out, x);
    return out.str();
}

bool tracing() {
    static const bool on = [] {
        const char* v = std::getenv("PTXSIM_CUDA_TRACE");
        return v && *v && std::string(v) != "0";
    }();
    return on;
}

void trace(const std::string& line) {
    if (tracing()) std::fprintf(stderr, "ptxsim-trace: %s\n", line.c_str());
}

state& state::get() {
    static state* s = new state();
    return *s;
}

state::state() {
    uint64_t base = reserve_device_range();
    memory::global_memory_options o;
    if (base) {
        o.base = base;
        o.limit = base + reserve_bytes;
        o.window_reserved = true;  // managed and pinned memory are placed at their own address
    }
    device_base_ = o.base;
    device_limit_ = o.limit;
    device_ = std::make_unique<sim::device>(load_model_or_die(), o);
    // Registers by liveness, unless a checker (which reports registers by
    // slot) runs or launches are recorded for the debugger's replay.
    auto unset = [](const char* name) { const char* v = std::getenv(name); return !v || !*v; };
    device_->set_compact_registers(sim::compaction_requested() && unset("PTXSIM_CHECK_TOOLS") && unset("PTXSIM_RECORD_DIR"));
    if (const char* b = std::getenv("PTXSIM_MAX_INSTRUCTIONS"); b && *b) max_warp_instructions = std::strtoull(b, nullptr, 10);
    if (const char* t = std::getenv("PTXSIM_THREADS"); t && *t) host_threads = std::max(1u, uint32_t(std::strtoul(t, nullptr, 10)));
    std::atexit([] { state::get().summarise(); });
}

void state::warn(const std::string& message) { std::fprintf(stderr, "ptxsim: %s\n", message.c_str()); }

void state::note_unserved(const std::string& name, const std::string& why) {
    std::lock_guard<std::recursive_mutex> guard(lock);
    for (const auto& n : unserved_)
        if (n == name) return;
    unserved_.push_back(name);
    warn(fmt::format("{} is not served by ptxsim's CUDA driver{}{}; the call returns CUDA_ERROR_NOT_SUPPORTED",
                     name, why.empty() ? "" : ": ", why));
}

void state::summarise() {
    if (program_checking* c = program_checking::get()) c->finish();
    if (const launch_recording* r = launch_recording::get()) r->finish();
    if (program_profiling* p = program_profiling::get()) p->finish(*this);
    if (unserved_.empty()) return;
    std::fprintf(stderr, "ptxsim: the program called %zu CUDA function(s) ptxsim does not serve: %s\n",
                 unserved_.size(), fmt::format("{}", fmt::join(unserved_, ", ")).c_str());
}

namespace {

// The file of the loaded object (the program or a shared library) whose
// memory holds `address`; empty when none does.
std::string object_file_of(const void* address) {
    struct search {
        uintptr_t address;
        std::string path;
    } s{reinterpret_cast<uintptr_t>(address), {}};
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* p) {
            auto& s = *static_cast<search*>(p);
            for (int i = 0; i < info->dlpi_phnum; ++i) {
                const auto& ph = info->dlpi_phdr[i];
                const uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
                if (ph.p_type != PT_LOAD || s.address < lo || s.address >= lo + ph.p_memsz) continue;
                s.path = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "/proc/self/exe";
                return 1;
            }
            return 0;
        },
        &s);
    return s.path;
}

} // namespace

// A device-linked fatbinary (nvcc -rdc=true) holds SASS only; the object it
// lies in keeps each translation unit's fatbinary, with its PTX, in
// __nv_relfatbin. Their PTX for `sm`, one text per unit.
std::vector<std::string> state::relocatable_ptx_beside(const void* image, uint32_t sm) {
    const std::string path = object_file_of(image);
    if (path.empty()) return {};
    auto it = host_objects_.find(path);
    if (it == host_objects_.end()) {
        host_binary bin;
        std::string error;
        if (!read_host_binary(path, bin, error)) bin = {};
        it = host_objects_.emplace(path, std::move(bin)).first;
    }
    std::vector<std::string> out;
    for (const fatbin_entry* e : it->second.relocatable_ptx(sm)) out.push_back(e->text());
    return out;
}

CUresult state::load_image(const void* image, module_object*& out, std::string* error_log) {
    if (!image) return CUDA_ERROR_INVALID_VALUE;
    auto failed = [&](const std::string& text, CUresult r) {
        warn(text);
        if (error_log) *error_log = text;
        return r;
    };
    auto m = std::make_unique<module_object>();
    const uint8_t* bytes = static_cast<const uint8_t*>(image);
    uint32_t magic;
    std::memcpy(&magic, bytes, 4);
    std::string ptx, name;
    const auto& arch = model().arch;  // "sm_90"
    uint32_t sm = uint32_t(std::atoi(arch.c_str() + 3));
    if (magic == fatbinc_wrapper_magic) {
        const void* data;
        std::memcpy(&data, bytes + 8, sizeof data);
        return load_image(data, out, error_log);
    }
    ++fatbins_loaded_;
    // Several inputs, each a module, linked by name (one is the first).
    auto load_units = [&](std::vector<std::string>& units, const std::string& prefix, const char* what) -> CUresult {
        for (size_t i = 0; i < units.size(); ++i) {
            parser::diagnostics d;
            auto index = device_->load_module_text(fmt::format("{}{}.ptx", prefix, i + 1), std::move(units[i]), d);
            if (!index)
                return failed(fmt::format("{}: {} {} does not load:\n{}", m->origin, what, i + 1, text_of(d)), CUDA_ERROR_INVALID_PTX);
            if (i == 0) m->index = *index;
            else m->linked.push_back(*index);
        }
        m->has_ptx = !units.empty();
        return CUDA_SUCCESS;
    };
    if (std::vector<std::string> inputs; read_linked_image(image, inputs)) {
        m->origin = fmt::format("linked image #{} ({} PTX inputs of cuLinkComplete)", fatbins_loaded_, inputs.size());
        if (CUresult r = load_units(inputs, fmt::format("link{}.input", fatbins_loaded_), "input")) return r;
        out = m.get();
        modules_owned.insert(std::move(m));
        return CUDA_SUCCESS;
    }
    if (magic == fatbin_magic) {
        std::vector<fatbin_entry> entries;
        std::string error;
        if (!parse_fatbin_at(image, entries, error)) {
            return failed("a fatbinary the program loads is malformed: " + error, CUDA_ERROR_INVALID_IMAGE);
        }
        auto pick = choose_ptx(entries, sm, true);
        m->origin = fmt::format("fatbinary #{} ({})", fatbins_loaded_, describe(entries));
        std::vector<std::string> units;
        if (!pick) units = relocatable_ptx_beside(image, sm);
        if (!units.empty()) {
            // nvcc -rdc=true: SASS linked on the device; run the translation
            // units' own PTX, linked by name as the device linker linked them.
            m->origin = fmt::format("fatbinary #{} (device-linked SASS; {} translation units' PTX from __nv_relfatbin)",
                                    fatbins_loaded_, units.size());
            if (CUresult r = load_units(units, fmt::format("fatbin{}.unit", fatbins_loaded_), "translation unit")) return r;
        } else if (!pick) {
            m->no_ptx_reason = fmt::format(
                "{} has no PTX ptxsim can run on {} (it holds {}); rebuild with nvcc "
                "-gencode arch=compute_90a,code=compute_90a (or -arch=sm_90a, which embeds it) to embed PTX",
                m->origin, arch, describe(entries));
        } else {
            ptx = entries[*pick].text();
            name = fmt::format("fatbin{}.{}.ptx", fatbins_loaded_, entries[*pick].arch_name());
        }
    } else if (magic == 0x464c457f) {  // "\x7fELF": a cubin
        m->origin = fmt::format("cubin #{}", fatbins_loaded_);
        m->no_ptx_reason = m->origin + " is SASS only (a cubin); ptxsim runs PTX: load the PTX instead, or build with "
                                       "nvcc -gencode arch=compute_90a,code=compute_90a";
    } else {
        // PTX text (cuModuleLoadData with a NUL-terminated PTX string).
        ptx = reinterpret_cast<const char*>(image);
        name = fmt::format("module{}.ptx", fatbins_loaded_);
        m->origin = "PTX module " + name;
    }
    if (!ptx.empty()) {
        parser::diagnostics d;
        auto index = device_->load_module_text(name, std::move(ptx), d);
        if (!index) {
            return failed(fmt::format("{} does not load:\n{}", m->origin, text_of(d)), CUDA_ERROR_INVALID_PTX);
        }
        m->index = *index;
        m->has_ptx = true;
    }
    out = m.get();
    modules_owned.insert(std::move(m));
    return CUDA_SUCCESS;
}

} // namespace ptxsim::cuda::driver
