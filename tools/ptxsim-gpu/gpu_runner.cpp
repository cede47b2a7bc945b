#include "tools/ptxsim-gpu/gpu_runner.hpp"

#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "sim/device.hpp"
#include "sim/launch_args.hpp"
#include "sim/launch_results.hpp"

namespace ptxsim::gpu {
namespace {

// Why a value cannot be reproduced on the GPU by this runner, or "".
// Tensor maps are the driver's own opaque format (ptxsim encodes its model
// of it); textures, surfaces and multicast objects need driver objects
// this runner does not create yet.
std::string unsupported(const sim::arg_spec& a) {
    using k = sim::arg_spec::kind;
    switch (a.k) {
    case k::tensormap: return a.where + ": tensor map values are not supported by ptxsim-gpu yet";
    case k::texture:
    case k::surface: return a.where + ": texture and surface objects are not supported by ptxsim-gpu yet";
    case k::multicast: return a.where + ": multicast objects are not supported by ptxsim-gpu yet";
    case k::structure:
        for (const auto& field : a.fields)
            if (std::string why = unsupported(field); !why.empty()) return why;
        return "";
    default: return "";
    }
}

// Addresses that stand in for device pointers while sizes are checked on the CPU.
sim::arg_addresses placeholder_addresses(const sim::launch_file& f) {
    sim::arg_addresses at;
    uint64_t next = 0x10000;
    for (const auto& b : f.buffers) at.buffers[b.name] = next += 0x10000;
    return at;
}

bool is_kernel_fault(CUresult r) {
    switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_TOO_MANY_PEERS:
        return true;
    default:
        return false;
    }
}

} // namespace

std::optional<gpu_plan> plan_launch_file(const models::gpu_model& model, const sim::launch_file& f, std::ostream& err) {
    if (!f.multicasts.empty()) {
        err << fmt::format("{}: error: multicast objects are not supported by ptxsim-gpu yet\n", f.path);
        return std::nullopt;
    }
    if (!f.textures.empty()) {
        err << fmt::format("{}: error: texture and surface objects are not supported by ptxsim-gpu yet\n", f.path);
        return std::nullopt;
    }
    auto refuse = [&](const std::string& why) {
        err << fmt::format("{}: error: {}\n", f.path, why);
        return std::nullopt;
    };
    for (const auto& b : f.buffers)
        if (b.init == sim::buffer_spec::init_kind::structure)
            if (std::string why = unsupported(b.structure); !why.empty()) return refuse(why);
    for (const auto& v : f.symbols)
        if (std::string why = unsupported(v.value); !why.empty()) return refuse(why);

    gpu_plan plan;
    plan.file = &f;
    sim::device dev(model); // ptxsim's parser, validator and decoder, for the checks a GPU need not be asked
    parser::diagnostics d;
    for (const auto& m : f.modules) {
        if (!dev.load_module_file(m, d)) {
            for (const auto& x : d.all()) parser::print_text(err, x);
            return std::nullopt;
        }
        std::ifstream in(m, std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        plan.module_texts.push_back(text.str());
    }
    const sim::arg_addresses at = placeholder_addresses(f);
    for (const auto& l : f.launches) {
        std::string why;
        auto k = dev.find_kernel(l.kernel, why);
        if (!k) return refuse(l.where + ": " + why);
        const isa::exec_function* code = dev.kernel_code(*k, d);
        if (!code) {
            for (const auto& x : d.all()) parser::print_text(err, x);
            return std::nullopt;
        }
        if (l.args.size() != code->params.size())
            return refuse(fmt::format("{}: kernel '{}' takes {} arguments, the launch gives {}", l.where, k->name, code->params.size(),
                                      l.args.size()));
        planned_launch p;
        p.spec = &l;
        p.entry = k->name;
        p.param_bytes = code->param_bytes;
        for (size_t i = 0; i < l.args.size(); ++i) {
            if (std::string why = unsupported(l.args[i]); !why.empty()) return refuse(why);
            sim::encoded_arg e;
            if (std::string problem = sim::encode_arg(l.args[i], at, e); !problem.empty()) return refuse(problem);
            const isa::exec_param& param = code->params[i];
            if (e.bytes.size() != param.size)
                return refuse(fmt::format("{}: parameter {} ('{}') of '{}' is {} bytes, the argument is {}", l.args[i].where, i, param.name,
                                          k->name, param.size, e.bytes.size()));
            p.params.emplace_back(param.offset, param.size);
        }
        plan.launches.push_back(std::move(p));
    }
    return plan;
}

int run_on_gpu(const cuda_driver& cu, const gpu_plan& plan, const gpu_settings& s, std::ostream& out, std::ostream& err) {
    const sim::launch_file& f = *plan.file;
    // Errors before any kernel ran (no device, a JIT refusal, a refused
    // launch) are bad input or environment: status 2.
    auto fail = [&](const std::string& what, CUresult r, int status = 2) {
        err << fmt::format("ptxsim-gpu: {}: {}\n", what, cu.describe(r));
        return status;
    };
    if (CUresult r = cu.init(0)) return fail("no usable CUDA device: cuInit", r);
    CUdevice device;
    if (CUresult r = cu.device_get(&device, s.device)) return fail(fmt::format("cuDeviceGet({})", s.device), r);
    CUcontext ctx;
    if (CUresult r = cu.primary_ctx_retain(&ctx, device)) return fail("cuDevicePrimaryCtxRetain", r);
    if (CUresult r = cu.ctx_set_current(ctx)) return fail("cuCtxSetCurrent", r);

    // Modules are linked into one image, so that .extern names resolve
    // across them as ptxsim links them.
    char error_log[8192] = {}, info_log[8192] = {};
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER,
                           CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    void* values[] = {error_log, reinterpret_cast<void*>(sizeof error_log), info_log, reinterpret_cast<void*>(sizeof info_log)};
    CUlinkState link;
    if (CUresult r = cu.link_create(4, opts, values, &link)) return fail("cuLinkCreate", r);
    for (size_t i = 0; i < plan.module_texts.size(); ++i) {
        const std::string& text = plan.module_texts[i];
        CUresult r = cu.link_add_data(link, CU_JIT_INPUT_PTX, const_cast<char*>(text.c_str()), text.size() + 1,
                                      f.modules[i].c_str(), 0, nullptr, nullptr);
        if (r) {
            err << error_log;
            return fail(fmt::format("the driver's PTX compiler refused {}", f.modules[i]), r);
        }
    }
    void* image = nullptr;
    size_t image_bytes = 0;
    if (CUresult r = cu.link_complete(link, &image, &image_bytes)) {
        err << error_log;
        return fail("linking the modules", r);
    }
    CUmodule module;
    CUresult loaded = cu.module_load_data(&module, image);
    cu.link_destroy(link);
    if (loaded) return fail("cuModuleLoadData", loaded);

    sim::arg_addresses at;
    std::map<std::string, CUdeviceptr> addr;
    for (const auto& b : f.buffers) {
        parser::diagnostics d;
        auto init = sim::initial_contents(b, d);
        if (!init) {
            for (const auto& x : d.all()) parser::print_text(err, x);
            return 2;
        }
        CUdeviceptr p = 0;
        if (CUresult r = cu.mem_alloc(&p, std::max<size_t>(1, init->size())))
            return fail(fmt::format("buffer '{}' ({} bytes): cuMemAlloc", b.name, init->size()), r);
        if (!init->empty())
            if (CUresult r = cu.memcpy_htod(p, init->data(), init->size())) return fail("cuMemcpyHtoD", r);
        addr[b.name] = p;
        at.buffers[b.name] = p;
    }
    for (const auto& b : f.buffers) { // struct contents may point at any buffer
        if (b.init != sim::buffer_spec::init_kind::structure) continue;
        sim::encoded_arg e;
        if (std::string problem = sim::encode_arg(b.structure, at, e); !problem.empty()) {
            err << fmt::format("{}: error: {}\n", f.path, problem);
            return 2;
        }
        if (e.bytes.size() > b.count * b.elem_bytes) {
            err << fmt::format("{}: error: buffer '{}': its struct is {} bytes, the buffer {}\n", f.path, b.name, e.bytes.size(),
                               b.count * b.elem_bytes);
            return 2;
        }
        if (CUresult r = cu.memcpy_htod(addr.at(b.name), e.bytes.data(), e.bytes.size())) return fail("cuMemcpyHtoD", r);
    }
    for (const auto& v : f.symbols) {
        CUdeviceptr p = 0;
        size_t bytes = 0;
        if (cu.module_get_global(&p, &bytes, module, v.name.c_str()) != CUDA_SUCCESS) {
            err << fmt::format("{}: error: {}: no module variable '{}' in global or constant memory\n", f.path, v.value.where, v.name);
            return 2;
        }
        sim::encoded_arg e;
        if (std::string problem = sim::encode_arg(v.value, at, e); !problem.empty()) {
            err << fmt::format("{}: error: {}\n", f.path, problem);
            return 2;
        }
        if (e.bytes.size() > bytes) {
            err << fmt::format("{}: error: {}: the value is {} bytes, '{}' holds {}\n", f.path, v.value.where, e.bytes.size(), v.name, bytes);
            return 2;
        }
        if (CUresult r = cu.memcpy_htod(p, e.bytes.data(), e.bytes.size())) return fail("cuMemcpyHtoD", r);
    }

    // The device heap is a context limit: set before the first launch and
    // whenever a launch names another size (which the driver refuses once a
    // kernel that calls malloc has run; ptxsim refuses it the same way).
    std::optional<uint64_t> heap_bytes;
    for (const planned_launch& pl : plan.launches) {
        const sim::launch_spec& l = *pl.spec;
        CUfunction fn;
        if (CUresult r = cu.module_get_function(&fn, module, pl.entry.c_str())) return fail(fmt::format("{}: '{}'", l.where, pl.entry), r);
        std::vector<uint8_t> params(pl.param_bytes, 0);
        std::vector<void*> pointers;
        for (size_t i = 0; i < l.args.size(); ++i) {
            sim::encoded_arg e;
            if (std::string problem = sim::encode_arg(l.args[i], at, e); !problem.empty()) {
                err << fmt::format("{}: error: {}\n", f.path, problem);
                return 2;
            }
            std::copy(e.bytes.begin(), e.bytes.end(), params.begin() + pl.params[i].first);
        }
        for (const auto& [offset, size] : pl.params) pointers.push_back(params.data() + offset);
        // The limits ptxsim applies (CUDA's defaults when absent).
        if (uint64_t want = l.malloc_heap_bytes.value_or(heap_bytes.value_or(8 << 20)); want != heap_bytes) {
            if (CUresult r = cu.ctx_set_limit(CU_LIMIT_MALLOC_HEAP_SIZE, want)) return fail(fmt::format("{}: cuCtxSetLimit", l.where), r);
            heap_bytes = want;
        }
        if (CUresult r = cu.ctx_set_limit(CU_LIMIT_STACK_SIZE, l.stack_bytes.value_or(1024))) return fail("cuCtxSetLimit", r);
        if (l.shared_bytes > 48 * 1024)
            if (CUresult r = cu.func_set_attribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(l.shared_bytes)))
                return fail(fmt::format("{}: {} bytes of dynamic shared memory", l.where, l.shared_bytes), r);
        if (l.non_portable_cluster_size)
            if (CUresult r = cu.func_set_attribute(fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1))
                return fail(fmt::format("{}: non-portable cluster size", l.where), r);
        std::cout.flush(); // device printf comes out of the driver's own stream
        CUresult r;
        if (l.cluster.x != 0) {
            if (!cu.launch_kernel_ex) {
                err << "ptxsim-gpu: this CUDA driver has no cuLaunchKernelEx (CUDA 12.0+), needed for clusters\n";
                return 2;
            }
            CUlaunchAttribute attrs[2] = {};
            attrs[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
            attrs[0].value.clusterDim.x = l.cluster.x;
            attrs[0].value.clusterDim.y = l.cluster.y;
            attrs[0].value.clusterDim.z = l.cluster.z;
            attrs[1].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
            attrs[1].value.cooperative = l.cooperative ? 1 : 0;
            CUlaunchConfig config = {};
            config.gridDimX = l.grid.x, config.gridDimY = l.grid.y, config.gridDimZ = l.grid.z;
            config.blockDimX = l.block.x, config.blockDimY = l.block.y, config.blockDimZ = l.block.z;
            config.sharedMemBytes = l.shared_bytes;
            config.attrs = attrs;
            config.numAttrs = 2;
            r = cu.launch_kernel_ex(&config, fn, pointers.data(), nullptr);
        } else if (l.cooperative) {
            r = cu.launch_cooperative_kernel(fn, l.grid.x, l.grid.y, l.grid.z, l.block.x, l.block.y, l.block.z, l.shared_bytes, nullptr,
                                             pointers.data());
        } else {
            r = cu.launch_kernel(fn, l.grid.x, l.grid.y, l.grid.z, l.block.x, l.block.y, l.block.z, l.shared_bytes, nullptr,
                                 pointers.data(), nullptr);
        }
        if (r) return fail(fmt::format("{}: launching '{}' was refused", l.where, pl.entry), r);
        if (CUresult r2 = cu.ctx_synchronize()) {
            // A fault leaves the context unusable: nothing more can be read back.
            return fail(fmt::format("kernel fault in '{}' ({})", pl.entry, l.where), r2, is_kernel_fault(r2) ? 1 : 2);
        }
    }

    sim::buffer_contents contents;
    for (const auto& b : f.buffers) {
        std::vector<uint8_t> data(b.count * b.elem_bytes);
        if (!data.empty())
            if (CUresult r = cu.memcpy_dtoh(data.data(), addr.at(b.name), data.size())) return fail("cuMemcpyDtoH", r, 1);
        contents.emplace_back(b.name, std::move(data));
    }
    for (const auto& [name, p] : addr) cu.mem_free(p);
    cu.primary_ctx_release(device);
    if (!s.dump_dir.empty())
        if (std::string why = sim::dump_buffers(s.dump_dir, f, contents); !why.empty()) {
            err << "ptxsim-gpu: --dump: " << why << '\n';
            return 2;
        }
    if (int status = sim::write_outputs(f, contents, err)) return status;
    return sim::compare_expectations(f, contents, out, err);
}

} // namespace ptxsim::gpu
