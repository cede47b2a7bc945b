// The engine's observer events (sim/events.hpp) through the device API:
// what each access, malloc and free reports, launch begin and end, and that
// nothing is called when no observer is attached.
#include <gtest/gtest.h>

#include <cstring>

#include "models/model.hpp"
#include "sim/device.hpp"
#include "sim/events.hpp"
#include "tests/support/test_support.hpp"

namespace ptxsim::test {
namespace {

struct recorder final : sim::observer {
    std::vector<sim::access_event> accesses;
    std::vector<sim::malloc_event> mallocs;
    std::vector<sim::free_event> frees;
    std::vector<std::string> begins, ends;
    std::vector<sim::launch_result> results;
    std::vector<sim::fault_report> located; // each access's location, looked up during the launch
    const std::function<void(int32_t, uint32_t, sim::fault_report&)>* locate = nullptr;

    void launch_begin(const sim::launch_event& e) override {
        begins.push_back(e.kernel + fmt_dim(e.grid) + fmt_dim(e.block));
        locate = e.locate;
    }
    void launch_end(const sim::launch_event& e, const sim::launch_result& r) override {
        ends.push_back(e.kernel);
        results.push_back(r);
    }
    void access(const sim::access_event& e) override {
        accesses.push_back(e);
        sim::fault_report r;
        (*locate)(e.site.function_id, e.site.pos, r);
        located.push_back(r);
    }
    void device_malloc(const sim::malloc_event& e) override { mallocs.push_back(e); }
    void device_free(const sim::free_event& e) override { frees.push_back(e); }
    size_t total() const { return accesses.size() + mallocs.size() + frees.size() + begins.size() + ends.size(); }
    static std::string fmt_dim(sim::dim3 d) { return " " + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z); }
};

models::gpu_model h800() {
    parser::diagnostics d;
    auto m = models::load_model(source_dir() + "/models/h800.json", d);
    EXPECT_TRUE(m.has_value());
    return *m;
}

// Line 15 stores out[tid] = tid (a coalesced warp store), line 16 adds 1 to
// out[tid] atomically, line 20 stores the result through a generic shared
// address, then a malloc'd block is written and freed.
const char* kernel_text = R"(.version 9.0
.target sm_90a
.address_size 64
.extern .func (.param .b64 func_retval0) malloc(.param .b64 malloc_param_0);
.extern .func free(.param .b64 free_param_0);
.visible .entry k(.param .u64 out)
{
	.shared .align 4 .b8 sh[256];
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd2, %r1, 4;
	add.u64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r1;
	atom.global.add.u32 %r2, [%rd3], 1;
	mov.u64 %rd4, sh;
	cvta.shared.u64 %rd5, %rd4;
	add.u64 %rd6, %rd5, %rd2;
	st.u32 [%rd6], %r2;
	{
	.param .b64 param0;
	st.param.b64 [param0], 16;
	.param .b64 retval0;
	call.uni (retval0), malloc, (param0);
	ld.param.b64 %rd7, [retval0];
	}
	st.global.u32 [%rd7], %r1;
	{
	.param .b64 param0;
	st.param.b64 [param0], %rd7;
	call.uni free, (param0);
	}
	ret;
}
)";

struct fixture {
    sim::device dev{h800()};
    parser::diagnostics d;
    sim::kernel_ref kernel;
    uint64_t buf = 0;

    fixture() {
        EXPECT_TRUE(dev.load_module_text("events.ptx", kernel_text, d)) << (d.all().empty() ? "" : d.all()[0].message);
        std::string why;
        kernel = *dev.find_kernel("k", why);
    }
    // One CTA of 32 threads; returns out[].
    std::vector<uint32_t> run(sim::observer* obs, uint32_t out_words = 32) {
        buf = dev.allocate(out_words * 4);
        std::vector<uint32_t> zero(out_words, 0);
        dev.write(buf, zero.data(), out_words * 4);
        std::vector<uint8_t> params(8);
        std::memcpy(params.data(), &buf, 8);
        sim::launch_options o;
        o.observer = obs;
        last = dev.launch(kernel, {1, 1, 1}, {32, 1, 1}, 0, params, o, d);
        std::vector<uint32_t> out(out_words);
        dev.read(buf, out.data(), out_words * 4);
        return out;
    }
    sim::launch_result last;
};

TEST(events, accesses_mallocs_frees_and_launch_bounds) {
    fixture f;
    recorder rec;
    auto out = f.run(&rec);
    ASSERT_TRUE(f.last.ok) << f.last.fault->format();
    EXPECT_EQ(rec.begins, std::vector<std::string>{"k 1,1,1 32,1,1"});
    EXPECT_EQ(rec.ends, std::vector<std::string>{"k"});
    ASSERT_EQ(rec.results.size(), 1u);
    EXPECT_TRUE(rec.results[0].ok);
    EXPECT_EQ(out[5], 6u);

    // Per lane: the parameter load, the global store, the atomic, the
    // generic shared store, the param-space call traffic, the block store.
    size_t stores = 0, atomics = 0, shared = 0, heap = 0;
    for (size_t i = 0; i < rec.accesses.size(); ++i) {
        const auto& a = rec.accesses[i];
        EXPECT_EQ(a.fault, isa::fault_kind::none);
        EXPECT_EQ(a.site.block.x, 0u);
        if (a.space == isa::space::global && a.op == sim::access_op::store && a.address >= f.buf && a.address < f.buf + 128) {
            EXPECT_EQ(a.address, f.buf + 4 * a.site.thread.x);
            EXPECT_EQ(a.size, 4u);
            EXPECT_EQ(rec.located[i].ptx_file, "events.ptx");
            EXPECT_EQ(rec.located[i].ptx_line, 15u);
            ++stores;
        } else if (a.op == sim::access_op::atomic) {
            EXPECT_EQ(a.address, f.buf + 4 * a.site.thread.x);
            EXPECT_EQ(a.space, isa::space::global);
            EXPECT_EQ(rec.located[i].ptx_line, 16u);
            ++atomics;
        } else if (a.space == isa::space::shared) {
            EXPECT_TRUE(a.generic);
            EXPECT_EQ(a.op, sim::access_op::store);
            EXPECT_EQ(rec.located[i].ptx_line, 20u);
            ++shared;
        } else if (a.space == isa::space::global && a.op == sim::access_op::store) {
            ++heap;
        }
    }
    EXPECT_EQ(stores, 32u);
    EXPECT_EQ(atomics, 32u);
    EXPECT_EQ(shared, 32u);
    EXPECT_EQ(heap, 32u);

    ASSERT_EQ(rec.mallocs.size(), 32u);
    ASSERT_EQ(rec.frees.size(), 32u);
    for (size_t i = 0; i < 32; ++i) {
        EXPECT_EQ(rec.mallocs[i].size, 16u);
        EXPECT_NE(rec.mallocs[i].address, 0u);
        EXPECT_EQ(rec.frees[i].error, "");
    }
    // Every block malloc returned is the one its thread freed.
    for (const auto& m : rec.mallocs) {
        bool freed = false;
        for (const auto& fr : rec.frees)
            if (fr.address == m.address && fr.site.thread.x == m.site.thread.x) freed = true;
        EXPECT_TRUE(freed) << m.site.thread.x;
    }
}

// A failing access is an event with its fault kind; the launch-end event
// carries the located fault.
TEST(events, failing_access_carries_its_fault) {
    fixture f;
    recorder rec;
    f.run(&rec, 16); // threads 16.. store past the end
    ASSERT_FALSE(f.last.ok);
    // The first failing access is thread 16's (the rest of the warp's lanes
    // may still be tried, and fail too, before the launch stops).
    const sim::access_event* first = nullptr;
    for (const auto& e : rec.accesses)
        if (e.fault != isa::fault_kind::none && !first) first = &e;
    ASSERT_TRUE(first);
    const auto& a = *first;
    EXPECT_EQ(a.fault, isa::fault_kind::out_of_bounds);
    EXPECT_EQ(a.op, sim::access_op::store);
    EXPECT_EQ(a.address, f.buf + 64);
    EXPECT_EQ(a.site.thread.x, 16u);
    ASSERT_EQ(rec.results.size(), 1u);
    ASSERT_TRUE(rec.results[0].fault);
    EXPECT_EQ(rec.results[0].fault->thread.x, 16u);
    EXPECT_EQ(rec.results[0].fault->ptx_line, 15u);
}

// Without an observer the engine calls none: the recorder kept from an
// observed launch on the same device hears nothing of the next one, and
// both compute the same bits.
TEST(events, not_called_when_none_is_attached) {
    fixture f;
    recorder rec;
    auto observed = f.run(&rec);
    size_t after_first = rec.total();
    EXPECT_GT(after_first, 100u);
    auto plain = f.run(nullptr);
    EXPECT_EQ(rec.total(), after_first);
    EXPECT_EQ(plain, observed);
}

} // namespace
} // namespace ptxsim::test
