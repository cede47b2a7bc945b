#pragma once
// A simulated GPU: a hardware model, global memory, loaded modules (parsed,
// validated, their variables placed and initialised, .extern names linked
// across modules) and kernel launches. This is the library API that
// `ptxsim run` and, later, a CUDA runtime are built on.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "isa/decode.hpp"
#include "isa/validate.hpp"
#include "models/model.hpp"
#include "models/occupancy.hpp"
#include "parser/ast.hpp"
#include "parser/diagnostics.hpp"
#include "isa/sem/texture_object.hpp"
#include "sim/launch_types.hpp"

namespace ptxsim::memory {
class global_memory;
struct global_memory_options;
class multicast_table;
}

namespace ptxsim::sim {

class device_heap;
class device_runtime;
class texture_table;
struct launch_request;

struct kernel_ref {
    size_t module = 0;
    const parser::function* function = nullptr;
    std::string name;
};

class device {
public:
    explicit device(models::gpu_model model);
    // With global memory handing out addresses from options.base (the CUDA
    // driver, cuda/driver/, places them in a host range it has reserved so
    // that a pointer says by itself whether it is a device one).
    device(models::gpu_model model, const memory::global_memory_options& options);
    ~device();
    device(const device&) = delete;
    device& operator=(const device&) = delete;

    const models::gpu_model& model() const { return model_; }

    // ---- memory
    // 0 on failure (size too large for the modelled GPU).
    uint64_t allocate(uint64_t bytes, uint64_t align = 256);
    bool free(uint64_t address);
    bool write(uint64_t address, const void* src, uint64_t bytes);
    bool read(uint64_t address, void* dst, uint64_t bytes);
    memory::global_memory& global();
    // A multicast object (cuMulticastCreate + cuMulticastBindMem) of `bytes`
    // bound to the allocations at `members` (each a live allocation base
    // with at least `bytes` bytes): one simulated device holds all N
    // members, which stand for N GPUs' copies. Returns its base address
    // for multimem.*, or 0 with `error` saying why.
    uint64_t create_multicast(const std::vector<uint64_t>& members, uint64_t bytes, std::string& error);
    const memory::multicast_table& multicast() const { return *multicast_; }

    // ---- texture and surface objects (cuTexObjectCreate, cuSurfObjectCreate)
    // The handle a kernel receives, or 0 with `error` saying why the
    // description is refused (sim/texture_table.hpp).
    uint64_t create_texture_object(const isa::texture_object& object, std::string& error);
    bool destroy_texture_object(uint64_t handle);
    const isa::texture_object* texture_object(uint64_t handle) const;

    // ---- modules
    // Parses, validates and places a module; diagnostics on failure.
    std::optional<size_t> load_module_file(const std::string& path, parser::diagnostics& d,
                                           const isa::validate_options& options = {});
    std::optional<size_t> load_module_text(const std::string& name, std::string text, parser::diagnostics& d,
                                           const isa::validate_options& options = {});
    // A kernel by its PTX name or, when that is unique, its unmangled base name
    // (`saxpy` for `_Z5saxpyifPKfPf`). `error` says why none was found.
    std::optional<kernel_ref> find_kernel(const std::string& name, std::string& error) const;
    // The address and size of a module variable (cudaMemcpyToSymbol).
    std::optional<std::pair<uint64_t, uint64_t>> symbol(const std::string& name) const;
    // The same within one module, by exact PTX name (cuModuleGetFunction,
    // cuModuleGetGlobal: two modules may both define a kernel or variable).
    std::optional<kernel_ref> kernel_in(size_t module, const std::string& name) const;
    std::optional<std::pair<uint64_t, uint64_t>> symbol_in(size_t module, const std::string& name) const;
    // The kernels (entries with a body) of one module, in name order.
    std::vector<std::string> kernels_in(size_t module) const;
    // The module's variables in global and constant memory, in name order.
    struct variable {
        std::string name;
        uint64_t address = 0, size = 0;
    };
    std::vector<variable> variables_in(size_t module) const;
    // The PTX text a module was loaded from, and the name it was given.
    const parser::source_file* module_source(size_t module) const;
    // Whether the kernel's module calls device malloc or free (declares them
    // without a body, as nvcc does): once such a kernel has run, CUDA fixes
    // the heap size (cudaLimitMallocHeapSize) for the rest of the context.
    bool uses_device_heap(const kernel_ref& k) const;
    // The parameter layout of a kernel (decodes it if needed).
    const isa::exec_function* kernel_code(const kernel_ref& k, parser::diagnostics& d);

    // Whether functions decoded from now on get their register slots by
    // liveness (isa/register_compaction.hpp): a run's warps then touch far
    // less register memory. Off by default: a debugger or a checker that
    // names registers by slot must see them as declared.
    // Runs that may compact call it with compaction_requested(): on unless
    // PTXSIM_COMPACT_REGISTERS=0 (to compare the two, or to rule it out);
    // PTXSIM_COMPACT_REGISTERS=all starts every device compacting.
    void set_compact_registers(bool on) { compact_registers_ = on; }
    bool compact_registers() const { return compact_registers_; }

    // ---- launches
    launch_result launch(const kernel_ref& k, dim3 grid, dim3 block, uint32_t dynamic_shared,
                         const std::vector<uint8_t>& params, const launch_options& options, parser::diagnostics& d);

    // CTAs the modelled GPU holds at once over all SMs, by CUDA's occupancy rules
    // (0: a CTA cannot launch; models::occupancy_of says why).
    uint32_t resident_ctas(uint64_t threads_per_cta, uint64_t shared_per_cta, uint32_t registers_per_thread = 0) const;
    // The same for an occupancy already computed (models/occupancy.hpp).
    uint32_t resident_ctas(const models::occupancy& o, uint32_t sms = 0) const; // sms 0: all of the model's

private:
    struct loaded_module;
    std::optional<size_t> place(std::unique_ptr<loaded_module> m, parser::diagnostics& d);
    std::optional<isa::symbol_address> resolve(size_t module, std::string_view name) const;
    void locate(const loaded_module& m, const parser::function& f, uint32_t pos, fault_report& r) const;
    // The launch's cluster shape (options, else the kernel's .reqnctapercluster)
    // into req, after checking it against the grid and the model; false after
    // reporting why it cannot launch.
    // Runs the work the launch's grid queued through the device runtime.
    void run_device_work(launch_result& r, const launch_options& options, parser::diagnostics& d);
    bool cluster_shape(const isa::exec_function& code, dim3 grid, const launch_options& options, launch_request& req,
                       const loaded_module& m, const kernel_ref& k, parser::diagnostics& d) const;

    std::optional<int32_t> function_id(size_t module, std::string_view name) const;
    const isa::exec_function* decode_function(size_t module, const parser::function* f, parser::diagnostics& d);

    models::gpu_model model_;
    // Every function with a body, in load order: the index is its function id.
    std::vector<std::pair<size_t, const parser::function*>> functions_;
    std::unique_ptr<memory::global_memory> global_;
    std::unique_ptr<memory::multicast_table> multicast_;
    std::unique_ptr<device_heap> heap_;  // device malloc/free; outlives launches, as in CUDA
    std::vector<std::unique_ptr<loaded_module>> modules_;
    std::unique_ptr<texture_table> textures_;
    std::unique_ptr<device_runtime> runtime_; // dynamic parallelism's queued work
    bool compact_registers_ = false;
};

bool compaction_requested();

} // namespace ptxsim::sim
