#include "tools/ptxsim-gpu/gpu_runner.hpp"

#include <fmt/format.h>

#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>

#include "sim/device.hpp"
#include "sim/launch_args.hpp"
#include "sim/launch_results.hpp"
#include "tools/ptxsim-gpu/launch_times.hpp"

namespace ptxsim::gpu {
namespace {

// Why a value cannot be reproduced on the GPU by this runner, or "".
// Textures, surfaces and multicast objects need driver objects this runner
// does not create yet. (Tensor maps are encoded by the driver: gpu_tensormap.)
std::string unsupported(const sim::arg_spec& a) {
    using k = sim::arg_spec::kind;
    switch (a.k) {
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

// A tensor map value encoded by the GPU's driver, with the parameters
// ptxsim's encoder was given (and accepted, in plan_launch_file): the
// driver's 128 bytes are its own format. ptxsim's enums are CUDA's, value
// for value (isa/tensor_map.hpp).
static_assert(int(isa::tma_type::bf16) == CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 && int(isa::tma_type::u6x16_16b) == CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B);
static_assert(int(isa::tma_swizzle::b128) == CU_TENSOR_MAP_SWIZZLE_128B && int(isa::tma_swizzle::b128_atom_64b) == CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B);
static_assert(int(isa::tma_l2_promotion::b256) == CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
static_assert(int(isa::tma_oob_fill::nan_request_zero_fma) == CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
std::function<std::string(const sim::tensormap_params&, std::vector<uint8_t>&)> gpu_tensormap(const cuda_driver& cu) {
    return [&cu](const sim::tensormap_params& p, std::vector<uint8_t>& out) -> std::string {
        if (!cu.tensor_map_encode_tiled || !cu.tensor_map_encode_im2col)
            return "this CUDA driver has no cuTensorMapEncodeTiled/Im2col (CUDA 12.0+), needed for tensor maps";
        CUtensorMap map;
        std::vector<cuuint64_t> dims(p.dims.begin(), p.dims.end()), strides(p.strides.begin(), p.strides.end());
        std::vector<cuuint32_t> box(p.box.begin(), p.box.end()), es(p.element_strides.begin(), p.element_strides.end());
        const auto type = static_cast<CUtensorMapDataType>(p.type);
        const auto swizzle = static_cast<CUtensorMapSwizzle>(p.swizzle);
        const auto l2 = static_cast<CUtensorMapL2promotion>(p.l2);
        const auto oob = static_cast<CUtensorMapFloatOOBfill>(p.oob);
        void* address = reinterpret_cast<void*>(static_cast<uintptr_t>(p.address));
        CUresult r = p.im2col ? cu.tensor_map_encode_im2col(&map, type, p.rank, address, dims.data(), strides.data(), p.lower_corner.data(),
                                                            p.upper_corner.data(), p.channels_per_pixel, p.pixels_per_column, es.data(),
                                                            CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, l2, oob)
                              : cu.tensor_map_encode_tiled(&map, type, p.rank, address, dims.data(), strides.data(), box.data(), es.data(),
                                                           CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, l2, oob);
        if (r) return std::string(p.im2col ? "cuTensorMapEncodeIm2col" : "cuTensorMapEncodeTiled") + ": " + cu.describe(r);
        const auto* bytes = reinterpret_cast<const uint8_t*>(&map);
        out.assign(bytes, bytes + sizeof map);
        return "";
    };
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
    at.tensormap = gpu_tensormap(cu);
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

    // --warmup: every buffer's bytes copied aside and back around a launch's
    // warm-up runs (the copies made once, reused by every launch).
    struct saved_copy {
        CUdeviceptr buffer, copy;
        size_t bytes;
    };
    std::vector<saved_copy> saved;
    auto save_buffers = [&]() -> int {
        if (saved.empty())
            for (const auto& b : f.buffers)
                if (const size_t bytes = b.count * b.elem_bytes) {
                    saved.push_back({addr.at(b.name), 0, bytes});
                    if (CUresult r = cu.mem_alloc(&saved.back().copy, bytes))
                        return fail(fmt::format("--warmup: a copy of buffer '{}': cuMemAlloc", b.name), r);
                }
        for (const saved_copy& c : saved)
            if (CUresult r = cu.memcpy_dtod(c.copy, c.buffer, c.bytes)) return fail("--warmup: cuMemcpyDtoD", r);
        return 0;
    };
    auto restore_buffers = [&]() -> int {
        for (const saved_copy& c : saved)
            if (CUresult r = cu.memcpy_dtod(c.buffer, c.copy, c.bytes)) return fail("--warmup: cuMemcpyDtoD", r);
        if (CUresult r = cu.ctx_synchronize()) return fail("--warmup: cuCtxSynchronize", r);
        return 0;
    };

    // The device heap is a context limit: set before the first launch and
    // whenever a launch names another size (which the driver refuses once a
    // kernel that calls malloc has run; ptxsim refuses it the same way).
    std::optional<uint64_t> heap_bytes;
    std::optional<launch_times> timer;
    if (!s.times_path.empty()) {
        timer.emplace(cu, s.times_path);
        if (!timer->error().empty()) {
            err << "ptxsim-gpu: --times: " << timer->error() << '\n';
            return 2;
        }
        if (CUresult r = timer->origin()) return fail("--times: cuEventRecord", r);
    }
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
        if (l.cluster.x != 0 && !cu.launch_kernel_ex) {
            err << "ptxsim-gpu: this CUDA driver has no cuLaunchKernelEx (CUDA 12.0+), needed for clusters\n";
            return 2;
        }
        std::cout.flush(); // device printf comes out of the driver's own stream
        auto launch = [&]() -> CUresult {
            if (l.cluster.x != 0) {
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
                return cu.launch_kernel_ex(&config, fn, pointers.data(), nullptr);
            }
            if (l.cooperative)
                return cu.launch_cooperative_kernel(fn, l.grid.x, l.grid.y, l.grid.z, l.block.x, l.block.y, l.block.z, l.shared_bytes,
                                                    nullptr, pointers.data());
            return cu.launch_kernel(fn, l.grid.x, l.grid.y, l.grid.z, l.block.x, l.block.y, l.block.z, l.shared_bytes, nullptr,
                                    pointers.data(), nullptr);
        };
        auto refused = [&](CUresult r) { return fail(fmt::format("{}: launching '{}' was refused", l.where, pl.entry), r); };
        auto synchronize = [&](const char* what) -> int {
            if (CUresult r = cu.ctx_synchronize())
                // A fault leaves the context unusable: nothing more can be read back.
                return fail(fmt::format("kernel fault in '{}' ({}{})", pl.entry, l.where, what), r, is_kernel_fault(r) ? 1 : 2);
            return 0;
        };
        // Warm-up runs (--warmup), on buffers saved first and put back after,
        // so that the launch that counts sees the bytes it would have seen.
        if (s.warmup) {
            if (int status = save_buffers()) return status;
            for (uint32_t run = 0; run < s.warmup; ++run) {
                if (CUresult r = launch()) return refused(r);
                if (int status = synchronize(", a warm-up run")) return status;
            }
            if (int status = restore_buffers()) return status;
        }
        if (timer)
            if (CUresult r = timer->before(pl.entry, l.where)) return fail("--times: cuEventRecord", r);
        if (CUresult r = launch()) return refused(r);
        if (timer) {
            // Timed launches without warm-ups are queued back to back, as a
            // program queues them; a fault shows at the synchronize after the last.
            if (CUresult r = timer->after()) return fail("--times: cuEventRecord", r);
            if (s.warmup)
                if (int status = synchronize("")) return status;
        } else if (int status = synchronize("")) {
            return status;
        }
    }
    if (timer) {
        if (CUresult r = cu.ctx_synchronize())
            return fail("kernel fault in one of the timed launches (--times queues them with no synchronize between; run without "
                        "--times to find which)",
                        r, is_kernel_fault(r) ? 1 : 2);
        char name[256] = {};
        cu.device_get_name(name, sizeof name, device);
        if (std::string why = timer->write(name); !why.empty()) {
            err << "ptxsim-gpu: --times: " << why << '\n';
            return 2;
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
    for (const saved_copy& c : saved)
        if (c.copy) cu.mem_free(c.copy);
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
