#include "sim/device.hpp"
#include "sim/register_estimate.hpp"

#include "isa/sem/registry.hpp"

#include <algorithm>
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "isa/register_compaction.hpp"
#include "isa/validate.hpp"
#include "memory/global_memory.hpp"
#include "memory/multicast.hpp"
#include "parser/parser.hpp"
#include "sim/engine.hpp"
#include "sim/device_heap.hpp"
#include "sim/device_runtime.hpp"
#include "sim/global_port_adapter.hpp"
#include "sim/texture_table.hpp"

namespace ptxsim::sim {

using namespace parser;

struct device::loaded_module {
    parser::module ast;
    struct placement {
        isa::space sp;
        uint64_t address;
        uint64_t size;
    };
    std::map<std::string, placement, std::less<>> vars;
    std::map<std::string, const function*, std::less<>> functions;
    uint32_t shared_bytes = 0;
    std::map<const function*, isa::decoded_function> decoded;
};

namespace {

uint64_t decl_size(const var_decl& v) {
    uint64_t n = size_of(v.type) * (v.vec ? v.vec : 1);
    for (uint64_t d : v.dims) n *= d;
    return n;
}

// "_Z5saxpyifPKfPf" -> "saxpy"; other names unchanged.
std::string base_name(std::string_view mangled) {
    if (mangled.substr(0, 2) != "_Z") return std::string(mangled);
    size_t i = 2;
    if (i < mangled.size() && mangled[i] == 'N') ++i; // nested name: take the first component
    size_t len = 0;
    while (i < mangled.size() && mangled[i] >= '0' && mangled[i] <= '9') len = len * 10 + static_cast<size_t>(mangled[i++] - '0');
    if (len == 0 || i + len > mangled.size()) return std::string(mangled);
    return std::string(mangled.substr(i, len));
}

uint64_t function_token(size_t id) { return 0xF000000000000000ull + id * 16; }

// PTXSIM_COMPACT_REGISTERS=all: every device compacts from the start, its
// tests' own included (tests/CMakeLists.txt runs the semantics tests so).
bool compaction_everywhere() {
    const char* v = std::getenv("PTXSIM_COMPACT_REGISTERS");
    return v && std::string_view(v) == "all";
}

} // namespace

device::device(models::gpu_model model)
    : model_(std::move(model)), global_(std::make_unique<memory::global_memory>()),
      multicast_(std::make_unique<memory::multicast_table>()), heap_(std::make_unique<device_heap>(*global_)),
      textures_(std::make_unique<texture_table>()), runtime_(std::make_unique<device_runtime>()),
      compact_registers_(compaction_everywhere()) {}
device::device(models::gpu_model model, const memory::global_memory_options& options)
    : model_(std::move(model)), global_(std::make_unique<memory::global_memory>(options)),
      multicast_(std::make_unique<memory::multicast_table>()), heap_(std::make_unique<device_heap>(*global_)),
      textures_(std::make_unique<texture_table>()), runtime_(std::make_unique<device_runtime>()),
      compact_registers_(compaction_everywhere()) {}
device::~device() = default;

memory::global_memory& device::global() { return *global_; }

std::optional<size_t> device::load_module_file(const std::string& path, diagnostics& d, const isa::validate_options& options) {
    auto m = std::make_unique<loaded_module>();
    m->ast = parse_file(path, d);
    if (d.has_errors()) return std::nullopt;
    isa::validate(m->ast, d, options);
    if (d.has_errors()) return std::nullopt;
    return place(std::move(m), d);
}

std::optional<size_t> device::load_module_text(const std::string& name, std::string text, diagnostics& d,
                                               const isa::validate_options& options) {
    auto m = std::make_unique<loaded_module>();
    m->ast = parse(name, std::move(text), d);
    if (d.has_errors()) return std::nullopt;
    isa::validate(m->ast, d, options);
    if (d.has_errors()) return std::nullopt;
    return place(std::move(m), d);
}

std::optional<size_t> device::place(std::unique_ptr<loaded_module> m, diagnostics& d) {
    const module& ast = m->ast;
    // Functions first, so initialisers can take their addresses.
    for (const auto& item : ast.items)
        if (auto f = std::get_if<const function*>(&item.node))
            if ((*f)->has_body || !m->functions.count(ast.str((*f)->name))) m->functions[std::string(ast.str((*f)->name))] = *f;
    size_t index = modules_.size();
    for (const auto& [name, f] : m->functions)
        if (f->has_body) functions_.push_back({index, f});
    for (const auto& item : ast.items) {
        auto vp = std::get_if<const var_decl*>(&item.node);
        if (!vp) continue;
        const var_decl& v = **vp;
        if (v.link == linkage::extern_) continue; // defined by another module
        std::string name(ast.str(v.name));
        uint64_t size = decl_size(v);
        uint64_t align = v.align ? v.align : std::max<uint32_t>(1, size_of(v.type));
        if (v.space == state_space::shared) {
            m->shared_bytes = static_cast<uint32_t>((m->shared_bytes + align - 1) / align * align);
            m->vars[name] = {isa::space::shared, m->shared_bytes, size};
            m->shared_bytes += static_cast<uint32_t>(size);
            continue;
        }
        if (v.space != state_space::global && v.space != state_space::const_) continue;
        uint64_t addr = global_->allocate(std::max<uint64_t>(size, 1), std::max<uint64_t>(align, 16));
        if (!addr) {
            d.error(*ast.source, v.pos, fmt::format("cannot place '{}' ({} bytes) in device memory", name, size));
            return std::nullopt;
        }
        m->vars[name] = {v.space == state_space::const_ ? isa::space::const_ : isa::space::global, addr, size};
    }
    modules_.push_back(std::move(m));
    loaded_module& lm = *modules_.back();
    // Initialisers, now that every variable of the module has an address.
    for (const auto& item : ast.items) {
        auto vp = std::get_if<const var_decl*>(&item.node);
        if (!vp || !(*vp)->init.present) continue;
        const var_decl& v = **vp;
        auto it = lm.vars.find(ast.str(v.name));
        if (it == lm.vars.end() || it->second.sp == isa::space::shared) continue;
        uint32_t elem = size_of(v.type) * (v.vec ? v.vec : 1);
        std::vector<uint8_t> bytes(it->second.size, 0);
        size_t off = 0;
        auto put = [&](uint64_t value) {
            if (off + elem <= bytes.size()) std::memcpy(bytes.data() + off, &value, std::min<uint32_t>(elem, 8));
            off += elem;
        };
        std::function<void(const init_item&)> item_value = [&](const init_item& i) {
            switch (i.kind) {
            case init_kind::nested:
                for (const auto& e : i.elems) item_value(e);
                break;
            case init_kind::symbol:
            case init_kind::generic: {
                auto a = resolve(index, ast.str(i.sym));
                put(a ? a->address + static_cast<uint64_t>(i.value) : 0);
                break;
            }
            case init_kind::f64:
                if (v.type == data_type::f32) { // a 0d constant in an .f32 initialiser
                    double dv;
                    uint64_t b = static_cast<uint64_t>(i.value);
                    std::memcpy(&dv, &b, 8);
                    float fv = static_cast<float>(dv);
                    uint32_t fb;
                    std::memcpy(&fb, &fv, 4);
                    put(fb);
                } else {
                    put(static_cast<uint64_t>(i.value));
                }
                break;
            default: put(static_cast<uint64_t>(i.value)); break;
            }
        };
        for (int64_t value : v.init.ints) put(static_cast<uint64_t>(value));
        for (const auto& i : v.init.items) item_value(i);
        global_->write(it->second.address, bytes.data(), bytes.size());
    }
    return index;
}

std::optional<isa::symbol_address> device::resolve(size_t module, std::string_view name) const {
    auto look = [&](const loaded_module& m) -> std::optional<isa::symbol_address> {
        auto v = m.vars.find(name);
        if (v != m.vars.end()) return isa::symbol_address{v->second.sp, v->second.address, false};
        auto f = m.functions.find(name);
        if (f != m.functions.end() && f->second->has_body) {
            // Functions have no memory; a token derived from the id stands for their address.
            for (size_t id = 0; id < functions_.size(); ++id)
                if (functions_[id].second == f->second) return isa::symbol_address{isa::space::global, function_token(id), true};
        }
        return std::nullopt;
    };
    if (auto r = look(*modules_[module])) return r;
    for (size_t i = 0; i < modules_.size(); ++i)
        if (i != module)
            if (auto r = look(*modules_[i])) return r;
    return std::nullopt;
}

bool device::uses_device_heap(const kernel_ref& k) const {
    const loaded_module& m = *modules_.at(k.module);
    for (const char* name : {"malloc", "free"}) {
        auto f = m.functions.find(name);
        if (f != m.functions.end() && !f->second->has_body) return true;
    }
    return false;
}

std::optional<kernel_ref> device::find_kernel(const std::string& name, std::string& error) const {
    std::vector<kernel_ref> by_base;
    std::vector<std::string> all;
    for (size_t mi = 0; mi < modules_.size(); ++mi) {
        for (const auto& [fname, f] : modules_[mi]->functions) {
            if (!f->is_entry || !f->has_body) continue;
            if (fname == name) return kernel_ref{mi, f, fname};
            all.push_back(fname);
            if (base_name(fname) == name) by_base.push_back({mi, f, fname});
        }
    }
    if (by_base.size() == 1) return by_base.front();
    if (by_base.size() > 1) {
        error = fmt::format("'{}' names {} kernels; use the full PTX name: ", name, by_base.size());
        for (size_t i = 0; i < by_base.size(); ++i) error += (i ? ", " : "") + by_base[i].name;
    } else {
        error = fmt::format("no kernel named '{}'; the modules have: {}", name, fmt::join(all, ", "));
    }
    return std::nullopt;
}

std::optional<std::pair<uint64_t, uint64_t>> device::symbol(const std::string& name) const {
    for (const auto& m : modules_) {
        auto v = m->vars.find(name);
        if (v != m->vars.end() && v->second.sp != isa::space::shared) return std::pair{v->second.address, v->second.size};
    }
    return std::nullopt;
}

std::optional<kernel_ref> device::kernel_in(size_t module, const std::string& name) const {
    if (module >= modules_.size()) return std::nullopt;
    auto it = modules_[module]->functions.find(name);
    if (it == modules_[module]->functions.end() || !it->second->is_entry || !it->second->has_body) return std::nullopt;
    return kernel_ref{module, it->second, name};
}

std::optional<std::pair<uint64_t, uint64_t>> device::symbol_in(size_t module, const std::string& name) const {
    if (module >= modules_.size()) return std::nullopt;
    auto v = modules_[module]->vars.find(name);
    if (v == modules_[module]->vars.end() || v->second.sp == isa::space::shared) return std::nullopt;
    return std::pair{v->second.address, v->second.size};
}

std::vector<std::string> device::kernels_in(size_t module) const {
    std::vector<std::string> out;
    if (module >= modules_.size()) return out;
    for (const auto& [fname, f] : modules_[module]->functions)
        if (f->is_entry && f->has_body) out.push_back(fname);
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<device::variable> device::variables_in(size_t module) const {
    std::vector<variable> out;
    if (module >= modules_.size()) return out;
    for (const auto& [name, v] : modules_[module]->vars)
        if (v.sp != isa::space::shared) out.push_back({name, v.address, v.size});
    return out;
}

const parser::source_file* device::module_source(size_t module) const {
    return module < modules_.size() ? modules_[module]->ast.source.get() : nullptr;
}

std::optional<int32_t> device::function_id(size_t module, std::string_view name) const {
    // The caller's module first, then the others (.extern functions are linked by name).
    for (int pass = 0; pass < 2; ++pass)
        for (size_t id = 0; id < functions_.size(); ++id) {
            auto [mi, f] = functions_[id];
            if ((pass == 0) != (mi == module)) continue;
            if (modules_[mi]->ast.str(f->name) == name) return static_cast<int32_t>(id);
        }
    if (name == "vprintf") return static_cast<int32_t>(isa::builtin::vprintf);
    if (name == "__assertfail") return static_cast<int32_t>(isa::builtin::assertfail);
    if (name == "malloc") return static_cast<int32_t>(isa::builtin::malloc);
    if (name == "free") return static_cast<int32_t>(isa::builtin::free);
    if (name == "cudaGraphSetConditional") return static_cast<int32_t>(isa::builtin::graph_set_conditional);
    if (auto b = device_runtime_function(name)) return static_cast<int32_t>(*b);
    return std::nullopt;
}

bool compaction_requested() {
    const char* v = std::getenv("PTXSIM_COMPACT_REGISTERS");
    return !v || std::string_view(v) != "0";
}

const isa::exec_function* device::decode_function(size_t module, const parser::function* f, diagnostics& d) {
    loaded_module& m = *modules_[module];
    auto it = m.decoded.find(f);
    if (it != m.decoded.end()) return &it->second.fn;
    isa::decode_inputs in;
    in.module = &m.ast;
    in.function = f;
    in.shared_base = m.shared_bytes;
    in.resolve = [this, module](std::string_view n) { return resolve(module, n); };
    in.function_id = [this, module](std::string_view n) { return function_id(module, n); };
    auto dec = isa::decode(in, d);
    if (!dec) return nullptr;
    if (compact_registers_) {
        const uint32_t per_sm = model_.sm.registers_per_sm ? model_.sm.registers_per_sm : 65536;
        const uint32_t estimate = estimate_registers(dec->fn, per_sm);
        if (isa::compact_registers(dec->fn).compacted) {
            dec->fn.declared_estimate = estimate;
            dec->fn.estimate_per_sm = per_sm;
        }
    }
    return &m.decoded.emplace(f, std::move(*dec)).first->second.fn;
}

const isa::exec_function* device::kernel_code(const kernel_ref& k, diagnostics& d) {
    return decode_function(k.module, k.function, d);
}

uint32_t device::resident_ctas(uint64_t threads, uint64_t shared, uint32_t registers) const {
    models::kernel_resources k;
    k.block_threads = static_cast<uint32_t>(std::min<uint64_t>(threads, UINT32_MAX));
    k.registers_per_thread = registers;
    k.static_shared_bytes = shared;
    return resident_ctas(models::occupancy_of(model_, k));
}

uint32_t device::resident_ctas(const models::occupancy& o, uint32_t sms) const {
    if (!sms) sms = std::max<uint32_t>(model_.sm_count, 1);
    return static_cast<uint32_t>(std::min<uint64_t>(uint64_t(o.ctas_per_sm) * sms, 1u << 20));
}

void device::locate(const loaded_module& m, const function& f, uint32_t pos, fault_report& r) const {
    r.ptx_file = m.ast.source->name();
    r.ptx_line = m.ast.where(pos).line;
    // The last .loc before the instruction names its CUDA source line.
    const loc_directive* best = nullptr;
    std::function<void(list<statement>)> walk = [&](list<statement> body) {
        for (const auto& st : body) {
            if (auto l = std::get_if<loc_directive>(&st.node)) {
                if (l->pos < pos) best = l;
            } else if (auto b = std::get_if<const block_stmt*>(&st.node)) {
                walk((*b)->body);
            }
        }
    };
    walk(f.body);
    if (!best || best->line == 0) return;
    auto file_name = [&](uint32_t index) {
        for (const auto& item : m.ast.items)
            if (auto fd = std::get_if<file_directive>(&item.node))
                if (fd->index == index) return std::string(m.ast.str(fd->path));
        return std::string();
    };
    // Code inlined from a header (atomicAdd, __shfl_sync, cooperative
    // groups) carries `inlined_at` the call site; the user's line is where
    // that chain ends (a call site inside another inlined function has a
    // .loc of its own with a further inlined_at).
    uint32_t file = best->file, line = best->line;
    if (best->has_inlined_at) {
        r.inlined_file = file_name(best->file);
        r.inlined_line = best->line;
        uint32_t col = best->inlined_col;
        file = best->inlined_file, line = best->inlined_line;
        for (int hops = 0; hops < 16; ++hops) {
            const loc_directive* next = nullptr;
            std::function<void(list<statement>)> find = [&](list<statement> body) {
                for (const auto& st : body) {
                    if (auto l = std::get_if<loc_directive>(&st.node)) {
                        if (l->has_inlined_at && l->file == file && l->line == line && l->col == col) next = l;
                    } else if (auto b = std::get_if<const block_stmt*>(&st.node)) {
                        find((*b)->body);
                    }
                }
            };
            find(f.body);
            if (!next) break;
            file = next->inlined_file, line = next->inlined_line, col = next->inlined_col;
        }
    }
    r.source_file = file_name(file);
    if (!r.source_file.empty()) r.source_line = line;
    else r.inlined_file.clear();
}

bool device::cluster_shape(const isa::exec_function& code, dim3 grid, const launch_options& options, launch_request& req,
                           const loaded_module& m, const kernel_ref& k, diagnostics& d) const {
    auto text = [](dim3 c) { return fmt::format("({},{},{})", c.x, c.y, c.z); };
    auto fail = [&](std::string message) {
        d.error(*m.ast.source, k.function->pos, std::move(message));
        return false;
    };
    const uint32_t* r = code.reqnctapercluster;
    dim3 required{r[0] ? r[0] : 1, r[1] ? r[1] : 1, r[2] ? r[2] : 1};
    bool has_required = r[0] != 0;
    dim3 c = options.cluster.x ? options.cluster : has_required ? required : dim3{};
    if (options.cluster.x && (c.y == 0 || c.z == 0)) return fail(fmt::format("cluster dimensions {} must be positive", text(c)));
    if (options.cluster.x && has_required && (c.x != required.x || c.y != required.y || c.z != required.z))
        return fail(fmt::format("cluster dimensions {} differ from the kernel's .reqnctapercluster {}", text(c), text(required)));
    if (code.explicitcluster && !options.cluster.x && !has_required)
        return fail("the kernel is .explicitcluster but the launch gives no cluster dimensions");
    // The CUDA runtime's rule (cudaErrorInvalidClusterSize otherwise): up to
    // the portable size always, past it only when the function allows
    // non-portable sizes, and never past what the GPU supports. It holds for
    // a .reqnctapercluster shape as much as for one given at launch.
    uint32_t portable = model_.cluster.max_ctas_portable ? model_.cluster.max_ctas_portable : 8;
    uint32_t most = std::max(portable, model_.cluster.max_ctas_nonportable);
    if (c.count() > most)
        return fail(fmt::format("a cluster of {} CTAs {} is larger than the modelled GPU's limit of {}{}", c.count(), text(c), most,
                                most > portable ? " (non-portable)" : ""));
    if (c.count() > portable && !options.non_portable_cluster_size)
        return fail(fmt::format("a cluster of {} CTAs {} is larger than the portable limit of {}{}", c.count(), text(c), portable,
                                most > portable ? fmt::format("; sizes up to {} need the launch's non_portable_cluster_size "
                                                              "(cudaFuncAttributeNonPortableClusterSizeAllowed)",
                                                              most)
                                                : std::string()));
    if (code.maxclusterrank && c.count() > code.maxclusterrank)
        return fail(fmt::format("a cluster of {} CTAs {} is larger than the kernel's .maxclusterrank {}", c.count(), text(c),
                                code.maxclusterrank));
    if (grid.x % c.x || grid.y % c.y || grid.z % c.z)
        return fail(fmt::format("grid {} is not a multiple of the cluster dimensions {}", text(grid), text(c)));
    // A cluster's CTAs run at the same time on one GPC; ptxsim asks only that
    // the whole GPU can hold them at once.
    if (c.count() > req.resident_ctas)
        return fail(fmt::format("a cluster of {} CTAs does not fit: the modelled GPU holds at most {} of these CTAs at once",
                                c.count(), req.resident_ctas));
    req.cluster = c;
    req.explicit_cluster = options.cluster.x || has_required;
    return true;
}

launch_result device::launch(const kernel_ref& k, dim3 grid, dim3 block, uint32_t dynamic_shared,
                             const std::vector<uint8_t>& params, const launch_options& options, diagnostics& d) {
    launch_result bad;
    bad.ok = false;
    const isa::exec_function* code = kernel_code(k, d);
    if (!code) return bad;
    const loaded_module& m = *modules_[k.module];
    launch_request req;
    req.kernel = code;
    req.grid = grid;
    req.block = block;
    req.dynamic_shared = dynamic_shared;
    req.static_shared = m.decoded.at(k.function).shared_static_bytes;
    req.params = params;
    req.params.resize(std::max<size_t>(params.size(), code->param_bytes), 0);
    req.sm_count = model_.sm_count;
    for (uint32_t id : options.sms)
        if (id >= model_.sm_count) {
            d.error(*m.ast.source, k.function->pos,
                    fmt::format("the launch names SM {}, but the modelled GPU has SMs 0 to {}", id, model_.sm_count - 1));
            return bad;
        }
    uint32_t registers = options.registers_per_thread ? options.registers_per_thread : code->maxnreg;
    const bool estimated = !registers && options.estimate_registers;
    if (estimated) registers = estimate_registers(*code, model_.sm.registers_per_sm ? model_.sm.registers_per_sm : 65536);
    if (model_.sm.max_registers_per_thread && registers > model_.sm.max_registers_per_thread) {
        d.error(*m.ast.source, k.function->pos, fmt::format("{} registers per thread: the modelled GPU allows at most {}", registers,
                               model_.sm.max_registers_per_thread));
        return bad;
    }
    // CUDA's occupancy rules decide how many CTAs are live at once, and
    // refuse what no SM can hold with CUDA's reason. Barriers: cuda_occupancy.h's
    // default of one a CTA (the count is not taken from the code yet), which
    // never limits on sm_90.
    models::kernel_resources need;
    need.block_threads = static_cast<uint32_t>(block.count());
    need.registers_per_thread = registers;
    need.static_shared_bytes = req.static_shared;
    need.dynamic_shared_bytes = dynamic_shared;
    const models::occupancy occ = models::occupancy_of(model_, need);
    req.occupancy = occ;
    req.resident_ctas = resident_ctas(occ, static_cast<uint32_t>(options.sms.size()));
    if (req.resident_ctas == 0) {
        d.error(*m.ast.source, k.function->pos, occ.error);
        return bad;
    }
    if (!cluster_shape(*code, grid, options, req, m, k, d)) return bad;
    if (options.cooperative && grid.count() > req.resident_ctas) {
        d.error(*m.ast.source, k.function->pos,
                fmt::format("cooperative launch too large: {} CTAs, but the modelled GPU holds at most {} of these at once",
                            grid.count(), req.resident_ctas));
        return bad;
    }
    // The grid barrier of a cooperative launch: a zeroed word the kernel's
    // grid.sync() counts arrivals in (cooperative_groups adds 4 to the address).
    uint64_t grid_barrier = 0;
    if (options.cooperative) {
        grid_barrier = allocate(16, 16);
        const uint8_t zero[16] = {};
        write(grid_barrier, zero, sizeof zero);
        req.envreg[1] = static_cast<uint32_t>(grid_barrier >> 32);
        req.envreg[2] = static_cast<uint32_t>(grid_barrier);
    }
    req.registers_per_thread = registers;
    req.registers_estimated = estimated;
    if (!registers && block.count()) { // unknown: the most one CTA could have, a multiple of 8, at most 255
        req.registers_per_thread = static_cast<uint32_t>(std::min<uint64_t>(
            255 / 8 * 8, model_.sm.registers_per_sm / (((block.count() + 31) / 32) * 32) / 8 * 8));
        // A kernel that takes registers with setmaxnreg.inc was compiled to
        // start at or below every count it asks for, so the guess is no higher.
        for (const auto& ins : code->code)
            if (uint32_t n = isa::sem::setmaxnreg_inc_count(ins); n && n < req.registers_per_thread) req.registers_per_thread = n;
    }
    req.options = options;
    req.print = options.print ? options.print : [](const std::string& text) { std::fwrite(text.data(), 1, text.size(), stdout); };
    // Every function becomes part of the program (calls may reach any of them).
    for (size_t id = 0; id < functions_.size(); ++id) {
        auto [mi, f] = functions_[id];
        const isa::exec_function* code_f = decode_function(mi, f, d);
        if (!code_f) return bad;
        req.functions.push_back(code_f);
        req.function_addresses[function_token(id)] = static_cast<int32_t>(id);
        if (f == k.function) req.kernel_id = static_cast<int32_t>(id);
    }
    // The system's reserved shared memory, where the kernel or a device
    // function reads where it is (other kernels keep exact bounds).
    bool reserved = code->uses_reserved_shared;
    for (const isa::exec_function* f : req.functions) reserved |= f && !f->is_entry && f->uses_reserved_shared;
    if (reserved) req.reserved_shared = static_cast<uint32_t>(std::max<uint64_t>(model_.shared_memory.reserved_per_cta_bytes, 1024));
    req.locate = [this](int32_t id, uint32_t pos, fault_report& r) {
        auto [mi, f] = functions_[static_cast<size_t>(id)];
        locate(*modules_[mi], *f, pos, r);
    };
    req.heap = heap_.get();
    req.runtime = runtime_.get();
    req.multicast = multicast_.get();
    req.textures = textures_.get();
    for (const auto& mod : modules_) // for isspacep.const
        for (const auto& [name, v] : mod->vars)
            if (v.sp == isa::space::const_) req.const_ranges.push_back({v.address, v.size});
    launch_result r = run_launch(req, [this] { return std::make_unique<global_port_adapter>(*global_, *heap_); });
    heap_->end_launch();
    if (grid_barrier) free(grid_barrier);
    run_device_work(r, options, d);
    return r;
}

// Dynamic parallelism: what the finished grid queued, in order
// (sim/device_runtime.hpp); each child grid's own children run as part of
// its launch. The first failure ends the parent's launch with its fault.
void device::run_device_work(launch_result& r, const launch_options& options, diagnostics& d) {
    std::vector<device_work> work = runtime_->take();
    for (size_t i = 0; i < work.size(); ++i) {
        const device_work& w = work[i];
        if (!r.ok) {
            if (w.param_buffer) heap_->free(w.param_buffer);
            continue;
        }
        if (w.what == device_work::kind::launch) {
            auto [mi, f] = functions_[static_cast<size_t>(w.function)];
            std::vector<uint8_t> params(w.param_bytes);
            read(w.param_buffer, params.data(), params.size());
            heap_->free(w.param_buffer);
            const kernel_ref child{mi, f, std::string(modules_[mi]->ast.str(f->name))};
            launch_result c = launch(child, w.grid, w.block, w.shared, params, options, d);
            r.stats.warp_instructions += c.stats.warp_instructions;
            r.stats.thread_instructions += c.stats.thread_instructions;
            if (!c.ok) {
                r.ok = false;
                r.fault = c.fault;
            }
            continue;
        }
        std::vector<uint8_t> bytes(w.bytes, w.value);
        const bool ok = (w.what == device_work::kind::fill || read(w.src, bytes.data(), w.bytes)) &&
                        write(w.dst, bytes.data(), w.bytes);
        if (!ok) {
            r.ok = false;
            fault_report f;
            f.kind = "device-runtime copy fault";
            f.message = fmt::format("a {} queued by the kernel with the device runtime ({} bytes to {:#x}) touches memory "
                                    "that is not allocated",
                                    w.what == device_work::kind::copy ? "cudaMemcpyAsync" : "cudaMemsetAsync", w.bytes, w.dst);
            r.fault = f;
        }
    }
}

uint64_t device::allocate(uint64_t bytes, uint64_t align) { return global_->allocate(bytes, align); }

uint64_t device::create_multicast(const std::vector<uint64_t>& members, uint64_t bytes, std::string& error) {
    if (members.empty() || members.size() > memory::multicast_table::max_members) {
        error = fmt::format("a multicast object needs 1 to {} members, not {}", memory::multicast_table::max_members, members.size());
        return 0;
    }
    if (bytes == 0) {
        error = "a multicast object needs a size";
        return 0;
    }
    for (uint64_t m : members) {
        auto a = global_->find(m);
        if (!a || !a->alive || a->base != m) {
            error = fmt::format("multicast member {:#x} is not the base of a live allocation", m);
            return 0;
        }
        if (a->size < bytes) {
            error = fmt::format("multicast member {:#x} has {} bytes, the object {}", m, a->size, bytes);
            return 0;
        }
    }
    uint64_t base = multicast_->create(bytes, members);
    if (!base) error = "the multicast address window is full";
    return base;
}

} // namespace ptxsim::sim

namespace ptxsim::sim {

// As cudaFree, refuses a block that device malloc returned (only device free releases those).
bool device::free(uint64_t address) { return !heap_->owns(address) && global_->free(address).ok(); }
bool device::write(uint64_t address, const void* src, uint64_t bytes) { return global_->copy_to_device(address, src, bytes).ok(); }
bool device::read(uint64_t address, void* dst, uint64_t bytes) { return global_->copy_from_device(dst, address, bytes).ok(); }

uint64_t device::create_texture_object(const isa::texture_object& object, std::string& error) {
    return textures_->create(object, *global_, error);
}
bool device::destroy_texture_object(uint64_t handle) { return textures_->destroy(handle); }
const isa::texture_object* device::texture_object(uint64_t handle) const { return textures_->find(handle); }

} // namespace ptxsim::sim
