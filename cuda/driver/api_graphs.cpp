// CUDA graphs (cudaGraphCreate, cudaGraphAdd*Node, cudaGraphInstantiate,
// cudaGraphLaunch, exec updates) and stream capture (cudaStreamBeginCapture
// ... EndCapture), over graphs.hpp's model: nodes in dependency order, run
// one after the other when the graph is launched.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>
#include <map>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "cuda/driver/api.hpp"
#include "cuda/driver/graphs.hpp"
#include "cuda/driver/state.hpp"
#include "memory/global_memory.hpp"

extern "C" {
ptxsim::cuda::driver::CUresult cuLaunchKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                              unsigned bz, unsigned shared, void* stream, void** params, void** extra);
ptxsim::cuda::driver::CUresult cuMemcpy3D_v2(const void* p);
ptxsim::cuda::driver::CUresult cuMemsetD2D8_v2(uint64_t, size_t, unsigned char, size_t, size_t);
ptxsim::cuda::driver::CUresult cuMemsetD2D16_v2(uint64_t, size_t, unsigned short, size_t, size_t);
ptxsim::cuda::driver::CUresult cuMemsetD2D32_v2(uint64_t, size_t, unsigned, size_t, size_t);
}

namespace ptxsim::cuda::driver {
namespace {

struct kernel_params {
    void* function = nullptr;
    unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
    unsigned shared = 0;
    std::vector<uint8_t> bytes;            // the parameters, laid out as the kernel declares them
    std::vector<std::pair<uint32_t, uint32_t>> layout;  // (offset, size) per parameter
};

struct graph_object;

struct graph_node {
    node_type type = node_empty;
    std::vector<graph_node*> deps;
    kernel_params kernel;                   // node_kernel
    std::function<CUresult()> work;         // every other kind that does something
    graph_object* child = nullptr;          // node_graph
    // node_conditional: the handle's device word, IF/WHILE/SWITCH, the bodies.
    uint64_t condition = 0;
    int condition_type = 0;
    std::vector<graph_object*> bodies;
    std::shared_ptr<std::vector<void*>> bodies_out; // the CUDA-owned array cuGraphAddNode hands out
    std::vector<uint8_t> raw;               // the node's CUDA parameter struct, for Get/SetParams
};

struct graph_object {
    std::vector<std::unique_ptr<graph_node>> nodes;
};

struct graph_exec {
    graph_object* source = nullptr;
    std::vector<std::unique_ptr<graph_node>> nodes;  // copies, in order
    std::map<const graph_node*, graph_node*> of;     // the graph's node -> its copy here
};

struct capture {
    graph_object* graph = nullptr;
    std::vector<graph_node*> deps;  // what the next captured node depends on
    unsigned long long id = 0;
    bool into_existing = false; // cuStreamBeginCaptureToGraph: the end hands out no graph
};

// cuGraphConditionalHandleCreate: a handle is the address of a device word
// that kernels set with cudaGraphSetConditional (a store there: isa builtin).
struct conditional_handle {
    graph_object* graph = nullptr;
    unsigned default_value = 0;
    bool assign_default = false; // CU_GRAPH_COND_ASSIGN_DEFAULT: set at each launch of the graph
};

struct registry {
    std::map<uint64_t, conditional_handle> conditions;
    std::set<std::unique_ptr<graph_object>> graphs;
    std::set<std::unique_ptr<graph_exec>> execs;
    std::map<void*, capture> captures;  // by stream
    unsigned long long next_capture_id = 1;
};

registry& reg() {
    static auto* r = new registry();  // never destroyed: programs destroy graphs from exit handlers
    return *r;
}

graph_object* graph_of(void* h) {
    for (const auto& g : reg().graphs)
        if (g.get() == h) return g.get();
    return nullptr;
}

graph_exec* exec_of(void* h) {
    for (const auto& e : reg().execs)
        if (e.get() == h) return e.get();
    return nullptr;
}

graph_node* node_of(void* h) {
    for (const auto& g : reg().graphs)
        for (const auto& n : g->nodes)
            if (n.get() == h) return n.get();
    return nullptr;
}

CUresult kernel_from(state& st, void* function, const unsigned grid[3], const unsigned block[3], unsigned shared,
                     void** params, void** extra, kernel_params& k) {
    function_object* f = function_of(st, function);
    if (!f) return CUDA_ERROR_INVALID_HANDLE;
    const isa::exec_function& code = *f->code;
    k.function = function;
    std::copy(grid, grid + 3, k.grid);
    std::copy(block, block + 3, k.block);
    k.shared = shared;
    k.bytes.assign(code.param_bytes, 0);
    k.layout.clear();
    for (const auto& p : code.params) k.layout.push_back({p.offset, p.size});
    if (params) {
        for (size_t i = 0; i < code.params.size(); ++i) {
            if (!params[i]) return CUDA_ERROR_INVALID_VALUE;
            std::memcpy(k.bytes.data() + code.params[i].offset, params[i], code.params[i].size);
        }
    } else if (extra) {
        for (void** e = extra; *e != CU_LAUNCH_PARAM_END; e += 2)
            if (e[0] == CU_LAUNCH_PARAM_BUFFER_POINTER) std::memcpy(k.bytes.data(), e[1], k.bytes.size());
    }
    return CUDA_SUCCESS;
}

// The stream the graph running now was launched into: its kernels go
// there (under prof, on that stream's time line), one after the other.
CUstream graph_stream = nullptr;

CUresult run_kernel(const kernel_params& k) {
    std::vector<uint8_t> bytes = k.bytes;
    std::vector<void*> params;
    for (const auto& [offset, size] : k.layout) params.push_back(bytes.data() + offset);
    return cuLaunchKernel(k.function, k.grid[0], k.grid[1], k.grid[2], k.block[0], k.block[1], k.block[2], k.shared,
                          graph_stream, params.data(), nullptr);
}

CUresult run_nodes(const std::vector<std::unique_ptr<graph_node>>& nodes);

// The value a conditional node's handle holds now.
unsigned condition_value(const graph_node& n) {
    unsigned v = 0;
    state::get().device().read(n.condition, &v, sizeof v);
    return v;
}

CUresult run_conditional(const graph_node& n) {
    switch (n.condition_type) {
    case 0: { // IF, with an ELSE body when there are two
        const unsigned v = condition_value(n);
        if (v) return run_nodes(n.bodies[0]->nodes);
        return n.bodies.size() == 2 ? run_nodes(n.bodies[1]->nodes) : CUDA_SUCCESS;
    }
    case 1: // WHILE: the body's kernels clear the condition to end it
        while (condition_value(n))
            if (CUresult r = run_nodes(n.bodies[0]->nodes)) return r;
        return CUDA_SUCCESS;
    default: { // SWITCH: body[value], none when out of range
        const unsigned v = condition_value(n);
        return v < n.bodies.size() ? run_nodes(n.bodies[v]->nodes) : CUDA_SUCCESS;
    }
    }
}

// Every graph a launch of `nodes` may run: children and conditional bodies.
void graphs_under(const std::vector<std::unique_ptr<graph_node>>& nodes, std::set<const graph_object*>& out) {
    for (const auto& n : nodes) {
        std::vector<graph_object*> inner = n->bodies;
        if (n->child) inner.push_back(n->child);
        for (graph_object* g : inner)
            if (g && out.insert(g).second) graphs_under(g->nodes, out);
    }
}

// At a graph's launch, handles made with CU_GRAPH_COND_ASSIGN_DEFAULT take their default.
void assign_condition_defaults(const graph_exec& e) {
    std::set<const graph_object*> graphs{e.source};
    graphs_under(e.nodes, graphs);
    for (const auto& [address, h] : reg().conditions)
        if (h.assign_default && graphs.count(h.graph)) state::get().device().write(address, &h.default_value, 4);
}

CUresult run_node(const graph_node& n) {
    switch (n.type) {
    case node_kernel: return run_kernel(n.kernel);
    case node_graph: return n.child ? run_nodes(n.child->nodes) : CUDA_SUCCESS;
    case node_conditional: return run_conditional(n);
    default: return n.work ? n.work() : CUDA_SUCCESS;
    }
}

CUresult run_nodes(const std::vector<std::unique_ptr<graph_node>>& nodes) {
    for (const auto& n : nodes)
        if (CUresult r = run_node(*n)) return r;
    return CUDA_SUCCESS;
}

CUresult add_node(graph_object* g, void** out, void* const* deps, size_t n, std::unique_ptr<graph_node> node) {
    if (!g || !out || (n && !deps)) return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < n; ++i) {
        graph_node* d = static_cast<graph_node*>(deps[i]);
        bool in_graph = std::any_of(g->nodes.begin(), g->nodes.end(), [&](const auto& x) { return x.get() == d; });
        if (!in_graph) return CUDA_ERROR_INVALID_VALUE;
        node->deps.push_back(d);
    }
    *out = node.get();
    g->nodes.push_back(std::move(node));
    return CUDA_SUCCESS;
}

// Copies of the nodes (their dependencies mapped to the copies).
void copy_nodes(const std::vector<std::unique_ptr<graph_node>>& from, std::vector<std::unique_ptr<graph_node>>& to,
                std::map<const graph_node*, graph_node*>& of) {
    for (const auto& n : from) {
        auto c = std::make_unique<graph_node>(*n);
        for (auto& d : c->deps) d = of[d];
        of[n.get()] = c.get();
        to.push_back(std::move(c));
    }
}

// CUDA_KERNEL_NODE_PARAMS (the _v2 layout; v1 lacks the last two fields).
struct kernel_node_params {
    void* func;
    unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ;
    unsigned sharedMemBytes;
    void** kernelParams;
    void** extra;
    void* kern;
    void* ctx;
};

struct memset_node_params {
    CUdeviceptr dst;
    size_t pitch;
    unsigned value, elementSize;
    size_t width, height;
};

struct host_node_params {
    void (*fn)(void*);
    void* userData;
};

// The CUDA_MEMCPY3D struct's size (its layout is api_memory.cpp's).
constexpr size_t memcpy3d_bytes = 25 * 8;

std::function<CUresult()> memset_work(const memset_node_params& p) {
    return [p]() -> CUresult {
        switch (p.elementSize) {
        case 1: return cuMemsetD2D8_v2(p.dst, p.pitch ? p.pitch : p.width, uint8_t(p.value), p.width, p.height ? p.height : 1);
        case 2: return cuMemsetD2D16_v2(p.dst, p.pitch ? p.pitch : p.width * 2, uint16_t(p.value), p.width, p.height ? p.height : 1);
        case 4: return cuMemsetD2D32_v2(p.dst, p.pitch ? p.pitch : p.width * 4, p.value, p.width, p.height ? p.height : 1);
        default: return CUDA_ERROR_INVALID_VALUE;
        }
    };
}

} // namespace

std::function<CUresult()> alloc_work(uint64_t address) {
    return [address] {
        auto& g = state::get().device().global();
        auto a = g.find(address);
        if (a && !a->alive && !g.revive(address)) return CUresult(CUDA_ERROR_OUT_OF_MEMORY);
        return CUresult(CUDA_SUCCESS);
    };
}

std::function<CUresult()> free_work(uint64_t address) {
    return [address] {
        state::get().device().free(address);  // already freed outside the graph: nothing to do
        return CUresult(CUDA_SUCCESS);
    };
}

bool capturing(state& st, CUstream stream) { return reg().captures.count(stream) != 0; }

bool captured(state& st, CUstream stream, node_type type, std::function<CUresult()> work) {
    auto it = reg().captures.find(stream);
    if (it == reg().captures.end()) return false;
    auto n = std::make_unique<graph_node>();
    n->type = type;
    n->work = std::move(work);
    n->deps = it->second.deps;
    it->second.deps = {n.get()};
    it->second.graph->nodes.push_back(std::move(n));
    return true;
}

bool captured_launch(state& st, CUstream stream, void* function, const unsigned grid[3], const unsigned block[3],
                     unsigned shared, void** params, void** extra) {
    auto it = reg().captures.find(stream);
    if (it == reg().captures.end()) return false;
    auto n = std::make_unique<graph_node>();
    n->type = node_kernel;
    if (kernel_from(st, function, grid, block, shared, params, extra, n->kernel) != CUDA_SUCCESS) {
        // A bad launch inside a capture is reported when the graph runs.
        n->type = node_empty;
        n->work = [] { return CUresult(CUDA_ERROR_INVALID_VALUE); };
    }
    n->deps = it->second.deps;
    it->second.deps = {n.get()};
    it->second.graph->nodes.push_back(std::move(n));
    return true;
}

extern "C" {

CUresult cuGraphCreate(void** graph, unsigned flags) {
    PTXSIM_ENTER(true);
    if (!graph || flags) return CUDA_ERROR_INVALID_VALUE;
    auto g = std::make_unique<graph_object>();
    *graph = g.get();
    reg().graphs.insert(std::move(g));
    return CUDA_SUCCESS;
}

CUresult cuGraphDestroy(void* graph) {
    PTXSIM_ENTER(false);
    for (auto it = reg().graphs.begin(); it != reg().graphs.end(); ++it)
        if (it->get() == graph) {
            reg().graphs.erase(it);
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGraphAddKernelNode_v2(void** out, void* graph, void* const* deps, size_t n, const kernel_node_params* p) {
    PTXSIM_ENTER(true);
    if (!p) return CUDA_ERROR_INVALID_VALUE;
    auto node = std::make_unique<graph_node>();
    node->type = node_kernel;
    const unsigned grid[3] = {p->gridDimX, p->gridDimY, p->gridDimZ}, block[3] = {p->blockDimX, p->blockDimY, p->blockDimZ};
    if (CUresult r = kernel_from(st, p->func ? p->func : p->kern, grid, block, p->sharedMemBytes, p->kernelParams,
                                 p->extra, node->kernel))
        return r;
    return add_node(graph_of(graph), out, deps, n, std::move(node));
}

CUresult cuGraphAddKernelNode(void** out, void* graph, void* const* deps, size_t n, const kernel_node_params* p) {
    return cuGraphAddKernelNode_v2(out, graph, deps, n, p);
}

CUresult cuGraphKernelNodeGetParams_v2(void* node, kernel_node_params* p) {
    PTXSIM_ENTER(true);
    graph_node* g = node_of(node);
    if (!g || g->type != node_kernel || !p) return CUDA_ERROR_INVALID_VALUE;
    const kernel_params& k = g->kernel;
    *p = {k.function, k.grid[0], k.grid[1], k.grid[2], k.block[0], k.block[1], k.block[2], k.shared, nullptr, nullptr,
          nullptr, nullptr};
    return CUDA_SUCCESS;
}

CUresult cuGraphKernelNodeSetParams_v2(void* node, const kernel_node_params* p) {
    PTXSIM_ENTER(true);
    graph_node* g = node_of(node);
    if (!g || g->type != node_kernel || !p) return CUDA_ERROR_INVALID_VALUE;
    const unsigned grid[3] = {p->gridDimX, p->gridDimY, p->gridDimZ}, block[3] = {p->blockDimX, p->blockDimY, p->blockDimZ};
    return kernel_from(st, p->func ? p->func : p->kern, grid, block, p->sharedMemBytes, p->kernelParams, p->extra,
                       g->kernel);
}

CUresult cuGraphAddMemcpyNode(void** out, void* graph, void* const* deps, size_t n, const void* copy, void*) {
    PTXSIM_ENTER(true);
    if (!copy) return CUDA_ERROR_INVALID_VALUE;
    auto node = std::make_unique<graph_node>();
    node->type = node_memcpy;
    node->raw.assign(static_cast<const uint8_t*>(copy), static_cast<const uint8_t*>(copy) + memcpy3d_bytes);
    std::vector<uint8_t> params = node->raw;
    node->work = [params] { return cuMemcpy3D_v2(params.data()); };
    return add_node(graph_of(graph), out, deps, n, std::move(node));
}

CUresult cuGraphAddMemsetNode(void** out, void* graph, void* const* deps, size_t n, const memset_node_params* p, void*) {
    PTXSIM_ENTER(true);
    if (!p) return CUDA_ERROR_INVALID_VALUE;
    auto node = std::make_unique<graph_node>();
    node->type = node_memset;
    node->work = memset_work(*p);
    return add_node(graph_of(graph), out, deps, n, std::move(node));
}

CUresult cuGraphAddHostNode(void** out, void* graph, void* const* deps, size_t n, const host_node_params* p) {
    PTXSIM_ENTER(true);
    if (!p || !p->fn) return CUDA_ERROR_INVALID_VALUE;
    auto node = std::make_unique<graph_node>();
    node->type = node_host;
    host_node_params h = *p;
    node->work = [h] {
        h.fn(h.userData);
        return CUresult(CUDA_SUCCESS);
    };
    return add_node(graph_of(graph), out, deps, n, std::move(node));
}

CUresult cuGraphAddEmptyNode(void** out, void* graph, void* const* deps, size_t n) {
    PTXSIM_ENTER(true);
    auto node = std::make_unique<graph_node>();
    node->type = node_empty;
    return add_node(graph_of(graph), out, deps, n, std::move(node));
}

CUresult cuGraphAddChildGraphNode(void** out, void* graph, void* const* deps, size_t n, void* child) {
    PTXSIM_ENTER(true);
    graph_object* c = graph_of(child);
    if (!c) return CUDA_ERROR_INVALID_VALUE;
    // The child is copied, as CUDA does: later changes to it do not reach the node.
    auto copy = std::make_unique<graph_object>();
    std::map<const graph_node*, graph_node*> of;
    copy_nodes(c->nodes, copy->nodes, of);
    auto node = std::make_unique<graph_node>();
    node->type = node_graph;
    node->child = copy.get();
    reg().graphs.insert(std::move(copy));
    return add_node(graph_of(graph), out, deps, n, std::move(node));
}

// Events in graphs order work across streams; a graph runs in order anyway.
CUresult cuGraphAddEventRecordNode(void** out, void* graph, void* const* deps, size_t n, void*) {
    PTXSIM_ENTER(true);
    auto node = std::make_unique<graph_node>();
    node->type = node_event_record;
    return add_node(graph_of(graph), out, deps, n, std::move(node));
}

CUresult cuGraphAddEventWaitNode(void** out, void* graph, void* const* deps, size_t n, void*) {
    PTXSIM_ENTER(true);
    auto node = std::make_unique<graph_node>();
    node->type = node_wait_event;
    return add_node(graph_of(graph), out, deps, n, std::move(node));
}

// Graph memory: an allocation node's address is fixed when the node is made
// (as CUDA fixes it); at each launch the node makes the memory live again if
// a free node (or the program) freed it since, and a free node frees it.
uint64_t graph_memory_bytes = 0;

CUresult cuGraphAddMemAllocNode(void** out, void* graph, void* const* deps, size_t n, void* params) {
    PTXSIM_ENTER(true);
    if (!params) return CUDA_ERROR_INVALID_VALUE;
    // CUDA_MEM_ALLOC_NODE_PARAMS: bytesize at byte 104, dptr (out) at 112.
    auto* bytes = reinterpret_cast<size_t*>(static_cast<uint8_t*>(params) + 104);
    auto* dptr = reinterpret_cast<CUdeviceptr*>(static_cast<uint8_t*>(params) + 112);
    uint64_t a = st.device().allocate(*bytes, 256);
    if (!a) return CUDA_ERROR_OUT_OF_MEMORY;
    graph_memory_bytes += *bytes;
    *dptr = a;
    auto node = std::make_unique<graph_node>();
    node->type = node_mem_alloc;
    node->work = alloc_work(a);
    return add_node(graph_of(graph), out, deps, n, std::move(node));
}

CUresult cuGraphAddMemFreeNode(void** out, void* graph, void* const* deps, size_t n, CUdeviceptr dptr) {
    PTXSIM_ENTER(true);
    auto node = std::make_unique<graph_node>();
    node->type = node_mem_free;
    node->work = free_work(dptr);
    return add_node(graph_of(graph), out, deps, n, std::move(node));
}

CUresult cuDeviceGraphMemTrim(CUdevice dev) { return dev == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE; }

// CUgraphMem_attribute: used/reserved, current/high, all the bytes graphs allocated.
CUresult cuDeviceGetGraphMemAttribute(CUdevice dev, int, void* value) {
    PTXSIM_ENTER(true);
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    if (!value) return CUDA_ERROR_INVALID_VALUE;
    *static_cast<uint64_t*>(value) = graph_memory_bytes;
    return CUDA_SUCCESS;
}

CUresult cuDeviceSetGraphMemAttribute(CUdevice dev, int, void*) { return dev == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE; }

CUresult cuGraphNodeGetType(void* node, int* type) {
    PTXSIM_ENTER(true);
    graph_node* g = node_of(node);
    if (!g || !type) return CUDA_ERROR_INVALID_VALUE;
    *type = g->type;
    return CUDA_SUCCESS;
}

CUresult cuGraphGetNodes(void* graph, void** nodes, size_t* count) {
    PTXSIM_ENTER(true);
    graph_object* g = graph_of(graph);
    if (!g || !count) return CUDA_ERROR_INVALID_VALUE;
    if (nodes)
        for (size_t i = 0; i < std::min(*count, g->nodes.size()); ++i) nodes[i] = g->nodes[i].get();
    *count = g->nodes.size();
    return CUDA_SUCCESS;
}

CUresult cuGraphGetRootNodes(void* graph, void** nodes, size_t* count) {
    PTXSIM_ENTER(true);
    graph_object* g = graph_of(graph);
    if (!g || !count) return CUDA_ERROR_INVALID_VALUE;
    std::vector<void*> roots;
    for (const auto& n : g->nodes)
        if (n->deps.empty()) roots.push_back(n.get());
    if (nodes)
        for (size_t i = 0; i < std::min(*count, roots.size()); ++i) nodes[i] = roots[i];
    *count = roots.size();
    return CUDA_SUCCESS;
}

CUresult cuGraphClone(void** out, void* graph) {
    PTXSIM_ENTER(true);
    graph_object* g = graph_of(graph);
    if (!g || !out) return CUDA_ERROR_INVALID_VALUE;
    auto copy = std::make_unique<graph_object>();
    std::map<const graph_node*, graph_node*> of;
    copy_nodes(g->nodes, copy->nodes, of);
    *out = copy.get();
    reg().graphs.insert(std::move(copy));
    return CUDA_SUCCESS;
}

CUresult cuGraphInstantiateWithFlags(void** exec, void* graph, unsigned long long) {
    PTXSIM_ENTER(true);
    graph_object* g = graph_of(graph);
    if (!g || !exec) return CUDA_ERROR_INVALID_VALUE;
    auto e = std::make_unique<graph_exec>();
    e->source = g;
    copy_nodes(g->nodes, e->nodes, e->of);
    *exec = e.get();
    reg().execs.insert(std::move(e));
    return CUDA_SUCCESS;
}

CUresult cuGraphInstantiate_v2(void** exec, void* graph, void** error_node, char* log, size_t log_size) {
    if (error_node) *error_node = nullptr;
    if (log && log_size) log[0] = '\0';
    return cuGraphInstantiateWithFlags(exec, graph, 0);
}

struct instantiate_params {
    unsigned long long flags;
    void* hUploadStream;
    void* hErrNode_out;
    int result_out;
};

CUresult cuGraphInstantiateWithParams(void** exec, void* graph, instantiate_params* p) {
    CUresult r = cuGraphInstantiateWithFlags(exec, graph, p ? p->flags : 0);
    if (p) {
        p->hErrNode_out = nullptr;
        p->result_out = r == CUDA_SUCCESS ? 0 : 1;  // CU_GRAPH_INSTANTIATE_SUCCESS / _ERROR
    }
    return r;
}

CUresult cuGraphUpload(void* exec, CUstream) {
    PTXSIM_ENTER(true);
    return exec_of(exec) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGraphLaunch(void* exec, CUstream stream) {
    graph_exec* e;
    {
        PTXSIM_ENTER(true);
        e = exec_of(exec);
        if (!e) return CUDA_ERROR_INVALID_VALUE;
        // A graph launched into a capturing stream becomes a child graph node.
        if (captured(st, stream, node_graph, [e] {
                assign_condition_defaults(*e);
                return run_nodes(e->nodes);
            }))
            return CUDA_SUCCESS;
        assign_condition_defaults(*e);
    }
    const CUstream outer = std::exchange(graph_stream, stream);
    const CUresult r = run_nodes(e->nodes);
    graph_stream = outer;
    return r;
}

CUresult cuGraphExecDestroy(void* exec) {
    PTXSIM_ENTER(false);
    for (auto it = reg().execs.begin(); it != reg().execs.end(); ++it)
        if (it->get() == exec) {
            reg().execs.erase(it);
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGraphExecKernelNodeSetParams_v2(void* exec, void* node, const kernel_node_params* p) {
    PTXSIM_ENTER(true);
    graph_exec* e = exec_of(exec);
    if (!e || !p) return CUDA_ERROR_INVALID_VALUE;
    auto it = e->of.find(static_cast<graph_node*>(node));
    if (it == e->of.end() || it->second->type != node_kernel) return CUDA_ERROR_INVALID_VALUE;
    const unsigned grid[3] = {p->gridDimX, p->gridDimY, p->gridDimZ}, block[3] = {p->blockDimX, p->blockDimY, p->blockDimZ};
    return kernel_from(st, p->func ? p->func : p->kern, grid, block, p->sharedMemBytes, p->kernelParams, p->extra,
                       it->second->kernel);
}

struct exec_update_result {
    int result;
    void* errorNode;
    void* errorFromNode;
};

// The executable graph takes the graph's node parameters, when the two have
// the same shape (the same node kinds in the same order).
CUresult cuGraphExecUpdate_v2(void* exec, void* graph, exec_update_result* info) {
    PTXSIM_ENTER(true);
    graph_exec* e = exec_of(exec);
    graph_object* g = graph_of(graph);
    if (!e || !g) return CUDA_ERROR_INVALID_VALUE;
    bool same = e->nodes.size() == g->nodes.size();
    for (size_t i = 0; same && i < g->nodes.size(); ++i) same = e->nodes[i]->type == g->nodes[i]->type;
    if (info) *info = {same ? 0 : 2, nullptr, nullptr};  // CU_GRAPH_EXEC_UPDATE_SUCCESS / ERROR_TOPOLOGY_CHANGED
    if (!same) return CUDA_ERROR_INVALID_VALUE;  // CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE in CUDA 13 (910)
    e->nodes.clear();
    e->of.clear();
    copy_nodes(g->nodes, e->nodes, e->of);
    return CUDA_SUCCESS;
}

// ---- stream capture

CUresult cuStreamBeginCapture_v2(CUstream stream, int) {
    PTXSIM_ENTER(true);
    if (stream == nullptr || stream == CU_STREAM_LEGACY) return CUDA_ERROR_NOT_SUPPORTED;  // as CUDA: not the legacy stream
    if (reg().captures.count(stream)) return CUDA_ERROR_INVALID_VALUE;
    auto g = std::make_unique<graph_object>();
    reg().captures[stream] = {g.get(), {}, reg().next_capture_id++};
    reg().graphs.insert(std::move(g));
    return CUDA_SUCCESS;
}

CUresult cuStreamBeginCapture(CUstream stream) { return cuStreamBeginCapture_v2(stream, 0); }

CUresult cuStreamEndCapture(CUstream stream, void** graph) {
    PTXSIM_ENTER(true);
    auto it = reg().captures.find(stream);
    if (it == reg().captures.end() || (!graph && !it->second.into_existing)) return CUDA_ERROR_INVALID_VALUE;
    graph_object* g = it->second.graph;
    if (graph) *graph = g;
    // Streams that joined this capture through events leave it with it.
    for (auto j = reg().captures.begin(); j != reg().captures.end();)
        j = j->second.graph == g ? reg().captures.erase(j) : std::next(j);
    return CUDA_SUCCESS;
}

CUresult cuStreamIsCapturing(CUstream stream, int* status) {
    PTXSIM_ENTER(true);
    if (!status) return CUDA_ERROR_INVALID_VALUE;
    *status = capturing(st, stream) ? 1 : 0;  // CU_STREAM_CAPTURE_STATUS_ACTIVE / NONE
    return CUDA_SUCCESS;
}

CUresult cuStreamGetCaptureInfo_v3(CUstream stream, int* status, unsigned long long* id, void** graph,
                                   const void*** deps, const void** edges, size_t* count) {
    PTXSIM_ENTER(true);
    auto it = reg().captures.find(stream);
    if (status) *status = it != reg().captures.end() ? 1 : 0;
    if (it == reg().captures.end()) return CUDA_SUCCESS;
    if (id) *id = it->second.id;
    if (graph) *graph = it->second.graph;
    if (deps) *deps = const_cast<const void**>(reinterpret_cast<void**>(it->second.deps.data()));
    if (edges) *edges = nullptr;
    if (count) *count = it->second.deps.size();
    return CUDA_SUCCESS;
}

CUresult cuStreamGetCaptureInfo_v2(CUstream stream, int* status, unsigned long long* id, void** graph,
                                   const void*** deps, size_t* count) {
    return cuStreamGetCaptureInfo_v3(stream, status, id, graph, deps, nullptr, count);
}

CUresult cuStreamGetCaptureInfo(CUstream stream, int* status, unsigned long long* id) {
    return cuStreamGetCaptureInfo_v3(stream, status, id, nullptr, nullptr, nullptr, nullptr);
}

// Capture into a graph that exists (a conditional node's body, say), after `deps`.
CUresult cuStreamBeginCaptureToGraph(CUstream stream, void* graph, void* const* deps, const void* /*edges*/, size_t n,
                                     int /*mode*/) {
    PTXSIM_ENTER(true);
    graph_object* g = graph_of(graph);
    if (!g || (n && !deps)) return CUDA_ERROR_INVALID_VALUE;
    if (stream == nullptr || stream == CU_STREAM_LEGACY) return CUDA_ERROR_NOT_SUPPORTED;
    if (reg().captures.count(stream)) return CUDA_ERROR_INVALID_VALUE;
    capture c{g, {}, reg().next_capture_id++, true};
    for (size_t i = 0; i < n; ++i) c.deps.push_back(static_cast<graph_node*>(deps[i]));
    reg().captures[stream] = c;
    return CUDA_SUCCESS;
}

// flags: CU_STREAM_ADD_CAPTURE_DEPENDENCIES (0) or CU_STREAM_SET_CAPTURE_DEPENDENCIES (1).
CUresult cuStreamUpdateCaptureDependencies_v2(CUstream stream, void** deps, const void* /*edges*/, size_t n, unsigned flags) {
    PTXSIM_ENTER(true);
    auto it = reg().captures.find(stream);
    if (it == reg().captures.end()) return CUDA_ERROR_ILLEGAL_STATE;
    if ((n && !deps) || flags > 1) return CUDA_ERROR_INVALID_VALUE;
    if (flags == 1) it->second.deps.clear();
    for (size_t i = 0; i < n; ++i) {
        auto* d = static_cast<graph_node*>(deps[i]);
        if (std::find(it->second.deps.begin(), it->second.deps.end(), d) == it->second.deps.end()) it->second.deps.push_back(d);
    }
    return CUDA_SUCCESS;
}

CUresult cuStreamUpdateCaptureDependencies(CUstream stream, void** deps, size_t n, unsigned flags) {
    return cuStreamUpdateCaptureDependencies_v2(stream, deps, nullptr, n, flags);
}

// ---- conditional nodes and cuGraphAddNode

CUresult cuGraphConditionalHandleCreate(uint64_t* handle, void* graph, CUcontext, unsigned default_value, unsigned flags) {
    PTXSIM_ENTER(true);
    graph_object* g = graph_of(graph);
    if (!handle || !g || flags > 1) return CUDA_ERROR_INVALID_VALUE;
    const uint64_t word = st.device().allocate(4, 4);
    if (!word) return CUDA_ERROR_OUT_OF_MEMORY;
    st.device().write(word, &default_value, 4);
    reg().conditions[word] = {g, default_value, flags == 1};
    *handle = word;
    return CUDA_SUCCESS;
}

// CUgraphNodeParams: the type, then (at byte 16) the union of each kind's parameters.
CUresult cuGraphAddNode_v2(void** out, void* graph, void* const* deps, const void* /*edges*/, size_t n, void* params) {
    PTXSIM_ENTER(true);
    if (!params) return CUDA_ERROR_INVALID_VALUE;
    int type;
    std::memcpy(&type, params, sizeof type);
    uint8_t* u = static_cast<uint8_t*>(params) + 16;
    switch (type) {
    case node_kernel: return cuGraphAddKernelNode_v2(out, graph, deps, n, reinterpret_cast<const kernel_node_params*>(u));
    case node_memcpy: return cuGraphAddMemcpyNode(out, graph, deps, n, u + 16, nullptr); // after flags and copyCtx
    case node_memset: return cuGraphAddMemsetNode(out, graph, deps, n, reinterpret_cast<const memset_node_params*>(u), nullptr);
    case node_host: return cuGraphAddHostNode(out, graph, deps, n, reinterpret_cast<const host_node_params*>(u));
    case node_graph: {
        void* child;
        std::memcpy(&child, u, sizeof child);
        return cuGraphAddChildGraphNode(out, graph, deps, n, child);
    }
    case node_empty: return cuGraphAddEmptyNode(out, graph, deps, n);
    case node_conditional: {
        struct conditional_params { // CUDA_CONDITIONAL_NODE_PARAMS
            uint64_t handle;
            int type;
            unsigned size;
            void** graphs_out; // filled in here: CUDA owns the array
            CUcontext ctx;
        } c;
        std::memcpy(&c, u, sizeof c);
        auto h = reg().conditions.find(c.handle);
        const bool size_ok = c.type == 0 ? (c.size == 1 || c.size == 2) : c.type == 1 ? c.size == 1 : c.type == 2 && c.size > 0;
        if (h == reg().conditions.end() || h->second.graph != graph_of(graph) || !size_ok) return CUDA_ERROR_INVALID_VALUE;
        auto node = std::make_unique<graph_node>();
        node->type = node_conditional;
        node->condition = c.handle;
        node->condition_type = c.type;
        node->bodies_out = std::make_shared<std::vector<void*>>();
        for (unsigned i = 0; i < c.size; ++i) {
            auto body = std::make_unique<graph_object>();
            node->bodies.push_back(body.get());
            node->bodies_out->push_back(body.get());
            reg().graphs.insert(std::move(body));
        }
        c.graphs_out = node->bodies_out->data();
        if (CUresult r = add_node(graph_of(graph), out, deps, n, std::move(node))) return r;
        std::memcpy(u, &c, sizeof c);
        return CUDA_SUCCESS;
    }
    default:
        st.note_unserved("cuGraphAddNode", fmt::format("node type {}", type));
        return CUDA_ERROR_NOT_SUPPORTED;
    }
}

CUresult cuGraphAddNode(void** out, void* graph, void* const* deps, size_t n, void* params) {
    return cuGraphAddNode_v2(out, graph, deps, nullptr, n, params);
}

} // extern "C"

// Events recorded in a capturing stream let another stream join the
// capture (cudaStreamWaitEvent on it): the fork of a captured fork-join.
std::map<void*, std::pair<graph_object*, std::vector<graph_node*>>>& event_captures() {
    static auto* m = new std::map<void*, std::pair<graph_object*, std::vector<graph_node*>>>();
    return *m;
}

bool capture_event_record(CUevent event, CUstream stream) {
    auto it = reg().captures.find(stream);
    if (it == reg().captures.end()) return false;
    event_captures()[event] = {it->second.graph, it->second.deps};
    return true;
}

bool capture_event_wait(CUstream stream, CUevent event) {
    auto e = event_captures().find(event);
    if (e == event_captures().end()) return false;
    graph_object* g = e->second.first;
    bool live = false;
    for (const auto& [s, c] : reg().captures) live |= c.graph == g;
    if (!live) return false;
    auto it = reg().captures.find(stream);
    if (it == reg().captures.end()) {
        reg().captures[stream] = {g, e->second.second, reg().next_capture_id++};
    } else {
        for (graph_node* d : e->second.second)
            if (std::find(it->second.deps.begin(), it->second.deps.end(), d) == it->second.deps.end())
                it->second.deps.push_back(d);
    }
    return true;
}

} // namespace ptxsim::cuda::driver
