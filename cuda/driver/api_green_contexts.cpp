// Green contexts (CUDA 12.4+): the GPU's SMs split into disjoint sets, a
// context made of one set, and streams in it whose kernels run only on
// those SMs (sim::launch_options::sms), as DeepSeek-V3 keeps 20 of an
// H800's 132 SMs for communication. Under `ptxsim prof PROGRAM` kernels of
// different green contexts' streams overlap on the time line, each on its
// own SMs (docs/timing.md, "Streams in CUDA programs").
//
// A CUdevResource is the program's to copy, so it carries no pointer: its
// internal bytes name an SM set the state keeps (state::sm_sets), the split
// that made it and whether it is a split's output (which cannot be split
// again, as cuda.h says). SMs are handed out in order of their ids: a
// split's groups take the first ones, the remainder the rest.
#include <algorithm>
#include <cstring>

#include "cuda/driver/api.hpp"
#include "cuda/driver/profiling.hpp"
#include "cuda/driver/state.hpp"

namespace ptxsim::cuda::driver {
namespace {

constexpr uint32_t resource_magic = 0x70747853; // "ptxS"

struct resource_tag {
    uint32_t magic, set, split, split_output;
};
static_assert(sizeof(resource_tag) <= sizeof(CUdevResource::internal));

// Hopper's partition rule (cuda.h's guideline for compute capability 9.0+:
// at least 8 SMs, a multiple of 8); CU_DEV_SM_RESOURCE_SPLIT_IGNORE_SM_COSCHEDULING
// lowers it, to 2 and a multiple of 2 here (NVIDIA publishes no figure for it).
constexpr unsigned hopper_partition = 8, fine_partition = 2;

void describe(state& st, CUdevResource& r, std::vector<uint32_t> sms, uint32_t split, bool split_output) {
    std::memset(&r, 0, sizeof r);
    r.type = CU_DEV_RESOURCE_TYPE_SM;
    r.sm.smCount = static_cast<unsigned>(sms.size());
    r.sm.minSmPartitionSize = hopper_partition;
    r.sm.smCoscheduledAlignment = hopper_partition;
    const resource_tag tag{resource_magic, static_cast<uint32_t>(st.sm_sets.size()), split, split_output ? 1u : 0u};
    std::memcpy(r.internal, &tag, sizeof tag);
    st.sm_sets.push_back(std::move(sms));
}

// The SM set a resource names; null when it is not one this driver made.
const std::vector<uint32_t>* sms_of(state& st, const CUdevResource& r, resource_tag& tag) {
    std::memcpy(&tag, r.internal, sizeof tag);
    if (r.type != CU_DEV_RESOURCE_TYPE_SM || tag.magic != resource_magic || tag.set >= st.sm_sets.size()) return nullptr;
    return &st.sm_sets[tag.set];
}

std::vector<uint32_t> every_sm(const state& st) {
    std::vector<uint32_t> all(st.model().sm_count);
    for (uint32_t i = 0; i < all.size(); ++i) all[i] = i;
    return all;
}

green_context_object* find_green(state& st, void* handle) {
    for (const auto& g : st.green_contexts_owned)
        if (g.get() == handle) return g.get();
    return nullptr;
}

} // namespace

extern "C" {

CUresult cuDeviceGetDevResource(CUdevice dev, CUdevResource* resource, int type) {
    PTXSIM_ENTER(false);
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    if (!resource) return CUDA_ERROR_INVALID_VALUE;
    if (type != CU_DEV_RESOURCE_TYPE_SM) return CUDA_ERROR_INVALID_RESOURCE_TYPE;
    describe(st, *resource, every_sm(st), 0, false);
    return CUDA_SUCCESS;
}

CUresult cuCtxGetDevResource(CUcontext ctx, CUdevResource* resource, int type) {
    PTXSIM_ENTER(false);
    if (!resource) return CUDA_ERROR_INVALID_VALUE;
    if (type != CU_DEV_RESOURCE_TYPE_SM) return CUDA_ERROR_INVALID_RESOURCE_TYPE;
    if (green_context_object* g = st.green_of_context(ctx)) describe(st, *resource, g->sms, 0, false);
    else if (ctx == st.primary_context()) describe(st, *resource, every_sm(st), 0, false);
    else return CUDA_ERROR_INVALID_CONTEXT;
    return CUDA_SUCCESS;
}

CUresult cuGreenCtxGetDevResource(void* green, CUdevResource* resource, int type) {
    PTXSIM_ENTER(false);
    green_context_object* g = find_green(st, green);
    if (!g) return CUDA_ERROR_INVALID_HANDLE;
    if (!resource) return CUDA_ERROR_INVALID_VALUE;
    if (type != CU_DEV_RESOURCE_TYPE_SM) return CUDA_ERROR_INVALID_RESOURCE_TYPE;
    describe(st, *resource, g->sms, 0, false);
    return CUDA_SUCCESS;
}

// Groups of minCount SMs (rounded up to the partition rule) taken in order,
// as many as fit or as *nbGroups asks for; the rest in `remaining`.
CUresult cuDevSmResourceSplitByCount(CUdevResource* result, unsigned* nbGroups, const CUdevResource* input,
                                     CUdevResource* remaining, unsigned flags, unsigned minCount) {
    PTXSIM_ENTER(false);
    if (!nbGroups || !input) return CUDA_ERROR_INVALID_VALUE;
    if (flags & ~(CU_DEV_SM_RESOURCE_SPLIT_IGNORE_SM_COSCHEDULING | CU_DEV_SM_RESOURCE_SPLIT_MAX_POTENTIAL_CLUSTER_SIZE))
        return CUDA_ERROR_INVALID_VALUE;
    resource_tag tag{};
    const std::vector<uint32_t>* in = sms_of(st, *input, tag);
    if (!in) return input->type != CU_DEV_RESOURCE_TYPE_SM ? CUDA_ERROR_INVALID_RESOURCE_TYPE : CUDA_ERROR_INVALID_VALUE;
    if (tag.split_output) return CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION; // make a green context of it first
    if (minCount > in->size()) return CUDA_ERROR_INVALID_VALUE;
    const unsigned unit = flags & CU_DEV_SM_RESOURCE_SPLIT_IGNORE_SM_COSCHEDULING ? fine_partition : hopper_partition;
    const unsigned size = std::max(unit, (minCount + unit - 1) / unit * unit);
    unsigned groups = static_cast<unsigned>(in->size() / size);
    if (result) groups = std::min(groups, *nbGroups);
    *nbGroups = groups;
    if (!result) return CUDA_SUCCESS;
    const std::vector<uint32_t> sms = *in; // describe() may grow sm_sets, which `in` points into
    const uint32_t split = ++st.splits;
    for (unsigned i = 0; i < groups; ++i)
        describe(st, result[i], {sms.begin() + i * size, sms.begin() + (i + 1) * size}, split, true);
    if (remaining) describe(st, *remaining, {sms.begin() + groups * size, sms.end()}, split, true);
    return CUDA_SUCCESS;
}

// One descriptor of several resources: they must come from the same split.
CUresult cuDevResourceGenerateDesc(void** desc, CUdevResource* resources, unsigned count) {
    PTXSIM_ENTER(false);
    if (!desc || !resources || count == 0) return CUDA_ERROR_INVALID_VALUE;
    auto d = std::make_unique<resource_desc_object>();
    uint32_t split = 0;
    for (unsigned i = 0; i < count; ++i) {
        resource_tag tag{};
        const std::vector<uint32_t>* sms = sms_of(st, resources[i], tag);
        if (!sms) return resources[i].type != CU_DEV_RESOURCE_TYPE_SM ? CUDA_ERROR_INVALID_RESOURCE_TYPE : CUDA_ERROR_INVALID_VALUE;
        if (i > 0 && (tag.split != split || !split)) return CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION;
        split = tag.split;
        d->sms.insert(d->sms.end(), sms->begin(), sms->end());
    }
    std::sort(d->sms.begin(), d->sms.end());
    if (std::adjacent_find(d->sms.begin(), d->sms.end()) != d->sms.end()) return CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION;
    *desc = d.get();
    st.resource_descs_owned.insert(std::move(d));
    return CUDA_SUCCESS;
}

CUresult cuGreenCtxCreate(void** green, void* desc, CUdevice dev, unsigned flags) {
    PTXSIM_ENTER(false);
    if (!green) return CUDA_ERROR_INVALID_VALUE;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    if (flags != CU_GREEN_CTX_DEFAULT_STREAM) return CUDA_ERROR_INVALID_VALUE; // required, and the only flag
    const resource_desc_object* d = st.find(st.resource_descs_owned, desc);
    if (!d || d->sms.empty()) return CUDA_ERROR_INVALID_VALUE;
    auto g = std::make_unique<green_context_object>();
    g->sms = d->sms;
    g->id = ++st.green_contexts_made;
    g->default_stream.flags = CU_STREAM_NON_BLOCKING;
    g->default_stream.green = g.get();
    *green = g.get();
    st.green_contexts_owned.insert(std::move(g));
    return CUDA_SUCCESS;
}

CUresult cuGreenCtxDestroy(void* green) {
    PTXSIM_ENTER(false);
    green_context_object* g = find_green(st, green);
    if (!g) return CUDA_ERROR_INVALID_HANDLE;
    if (st.current_context == g->context()) st.current_context = nullptr;
    program_profiling* p = program_profiling::get();
    for (const auto& s : st.streams_owned)
        if (s->green == g) {
            s->green = nullptr; // its later kernels run on every SM, as streams of a destroyed context must not
            if (p) p->forget(s.get());
        }
    if (p) p->forget(&g->default_stream);
    for (auto it = st.green_contexts_owned.begin(); it != st.green_contexts_owned.end(); ++it)
        if (it->get() == g) {
            st.green_contexts_owned.erase(it);
            break;
        }
    return CUDA_SUCCESS;
}

CUresult cuCtxFromGreenCtx(CUcontext* ctx, void* green) {
    PTXSIM_ENTER(false);
    if (!ctx) return CUDA_ERROR_INVALID_VALUE;
    green_context_object* g = find_green(st, green);
    if (!g) return CUDA_ERROR_INVALID_HANDLE;
    *ctx = g->context();
    return CUDA_SUCCESS;
}

CUresult cuGreenCtxGetId(void* green, unsigned long long* id) {
    PTXSIM_ENTER(false);
    if (!id) return CUDA_ERROR_INVALID_VALUE;
    green_context_object* g = find_green(st, green);
    if (!g) return CUDA_ERROR_INVALID_HANDLE;
    *id = g->id;
    return CUDA_SUCCESS;
}

CUresult cuGreenCtxStreamCreate(CUstream* stream, void* green, unsigned flags, int priority) {
    PTXSIM_ENTER(false);
    if (!stream) return CUDA_ERROR_INVALID_VALUE;
    green_context_object* g = find_green(st, green);
    if (!g) return CUDA_ERROR_INVALID_HANDLE;
    if (flags != CU_STREAM_NON_BLOCKING) return CUDA_ERROR_INVALID_VALUE; // must be given, and the only one
    auto s = std::make_unique<stream_object>();
    s->flags = flags;
    s->priority = std::clamp(priority, -5, 0);
    s->green = g;
    *stream = s.get();
    st.streams_owned.insert(std::move(s));
    return CUDA_SUCCESS;
}

CUresult cuStreamGetGreenCtx(CUstream stream, void** green) {
    PTXSIM_ENTER(false);
    if (!green) return CUDA_ERROR_INVALID_VALUE;
    if (const stream_object* s = st.find(st.streams_owned, stream)) *green = s->green;
    else if (!stream || stream == CU_STREAM_LEGACY || stream == CU_STREAM_PER_THREAD) *green = st.green_of_context(st.current_context);
    else return CUDA_ERROR_INVALID_HANDLE;
    return CUDA_SUCCESS;
}

// An event recorded for all the green context's work so far, and all its
// later work waiting for an event.
CUresult cuGreenCtxRecordEvent(void* green, CUevent event) {
    PTXSIM_ENTER(true);
    green_context_object* g = find_green(st, green);
    if (!g) return CUDA_ERROR_INVALID_HANDLE;
    event_object* e = st.find(st.events_owned, event);
    if (!e) return CUDA_ERROR_INVALID_HANDLE;
    e->recorded = true;
    e->when = std::chrono::steady_clock::now();
    if (program_profiling* p = program_profiling::get()) {
        e->simulated_cycle = p->point(*g);
        e->simulated_ms = p->ms(e->simulated_cycle);
    }
    return CUDA_SUCCESS;
}

CUresult cuGreenCtxWaitEvent(void* green, CUevent event) {
    PTXSIM_ENTER(true);
    green_context_object* g = find_green(st, green);
    if (!g) return CUDA_ERROR_INVALID_HANDLE;
    event_object* e = st.find(st.events_owned, event);
    if (!e) return CUDA_ERROR_INVALID_HANDLE;
    if (program_profiling* p = program_profiling::get(); p && e->recorded) p->stream_waits(*g, e->simulated_cycle);
    return CUDA_SUCCESS;
}

} // extern "C"

} // namespace ptxsim::cuda::driver
