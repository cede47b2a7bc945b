// Operand counts and constants of the asynchronous-copy, mbarrier,
// tensor-map and barrier instructions, where the table's operand shapes
// ("m,m,s,s?,s?") allow more than ptxas takes: how many operands a form
// has follows from its modifiers. Each rule was tried on ptxas 13
// (-arch=sm_90a) with the legal and the illegal neighbours (docs/lint.md,
// "Asynchronous copies, mbarriers and tensor maps"; tests/malformed/cases/
// async_*, kernels/corpus/hand/hand_async_legal.ptx):
//  - cp.async.bulk and cp.reduce.async.bulk: [dst], [src], size, then
//    [mbar] with the mbarrier completion, a CTA mask with .multicast::cluster
//    and a cache policy with .L2::cache_hint, nothing else (the shared::cta
//    to shared::cluster copy takes no hint); cp.async.bulk.prefetch [src],
//    size and the policy;
//  - cp.async.bulk.tensor, cp.reduce.async.bulk.tensor and
//    cp.async.bulk.prefetch.tensor: as many coordinates as dimensions;
//    loads [dst], [tmap, {c}], [mbar] (prefetches [tmap, {c}]), then .im2col
//    offsets ({dim-2 of them}), the CTA mask and the policy; stores and
//    reductions [tmap, {c}], [src] and the policy, .im2col_no_offs and never
//    .im2col (loads the other way round); either only from 3d;
//  - cp.async: cp-size 4, 8 or 16 (16 with .cg), a constant src-size no
//    larger, the policy exactly with .L2::cache_hint;
//  - mbarrier.arrive/arrive_drop: a state destination or '_' ('_' only
//    on .shared::cluster), a count with .expect_tx/.noComplete, an arrival
//    count of at least 1;
//  - tensormap.replace: an ordinal (0..4) exactly for the per-dimension
//    fields, .b64 for global_address/global_stride and .b32 otherwise,
//    enumerated fields as constants within their range;
//  - the wait_group counts are constants (wgmma's not negative), a
//    barrier's thread count a multiple of the warp size, and
//    tensormap.cp_fenceproxy's size 128, pmevent's event 0..15 (mask
//    0..0xffff), and fence.mbarrier_init is .release.cluster;
//  - wgmma.mma_async's scale-d is a predicate or 0/1.
#include <fmt/format.h>

#include "isa/detail/check_operands.hpp"
#include "isa/detail/operand_types.hpp"

namespace ptxsim::isa::detail {
namespace {

using namespace parser;

class async_checker {
public:
    async_checker(const instruction_view& v, std::vector<located_problem>& out)
        : v_(v), out_(out), key_(v.row.key), ops_(v.ins.operands) {}

    void run() {
        if (key_ == "cp.async.bulk" || key_ == "cp.reduce.async.bulk") bulk_copy();
        else if (key_ == "cp.async.bulk.prefetch") {
            if (counted(2 + has("L2::cache_hint"), "[src], size")) bulk_size(1);
        }
        else if (key_ == "cp.async.bulk.tensor" || key_ == "cp.reduce.async.bulk.tensor" ||
                 key_ == "cp.async.bulk.prefetch.tensor")
            tensor_copy();
        else if (key_ == "cp.async") small_copy();
        else if (key_ == "mbarrier.arrive" || key_ == "mbarrier.arrive_drop") arrive();
        else if (key_ == "tensormap.replace") tensormap();
        else if (key_ == "cp.async.wait_group" || key_ == "cp.async.bulk.wait_group" || key_ == "wgmma.wait_group")
            wait_group();
        else if (key_ == "bar" || key_ == "barrier") thread_count();
        else if (key_ == "wgmma.mma_async") wgmma_immediates();
        else if (key_ == "pmevent" && ops_.size() == 1 &&
                 (ops_[0].kind != operand_kind::integer || ops_[0].value < 0 ||
                  ops_[0].value > (has("mask") ? 0xFFFF : 15)))
            fail(ops_[0].pos, has("mask") ? "'pmevent.mask' takes a constant mask 0 .. 0xffff"
                                          : "'pmevent' takes a constant event number 0 .. 15");
        else if (key_ == "fence" && has("mbarrier_init") && (!has("release") || !has("cluster")))
            fail(v_.word_pos[0], "'fence.mbarrier_init' is written fence.mbarrier_init.release.cluster");
        else if (key_ == "tensormap.cp_fenceproxy" && ops_.size() == 3 &&
                 !(ops_[2].kind == operand_kind::integer && ops_[2].value == 128))
            fail(ops_[2].pos, "the size of 'tensormap.cp_fenceproxy' is 128 (a tensor map's bytes)");
        if (out_.empty() && key_.starts_with("mbarrier.")) generic_address();
    }

private:
    void fail(pos_t p, std::string msg) {
        if (out_.empty()) out_.push_back({p, std::move(msg)});
    }
    int word(std::string_view w) const {
        for (size_t i = 1; i < v_.words.size(); ++i)
            if (v_.words[i] == w) return static_cast<int>(i);
        return -1;
    }
    bool has(std::string_view w) const { return word(w) >= 0; }
    std::string dotted() const {
        std::string s;
        for (size_t i = 0; i < v_.words.size(); ++i) s += fmt::format("{}{}", i ? "." : "", v_.words[i]);
        return s;
    }
    uint32_t sm() const {
        uint32_t n = 0;
        std::string suffix;
        return !v_.facts.target.empty() && parse_target_name(v_.facts.target, n, suffix) ? n : 0;
    }
    // Exactly `want` operands; `shape` names them for the message.
    bool counted(size_t want, std::string_view shape) {
        if (ops_.size() == want) return true;
        pos_t at = ops_.size() > want ? ops_[want].pos : v_.word_pos[0];
        fail(at, fmt::format("'{}' takes {} operands ({}), not {}", dotted(), want, shape, ops_.size()));
        return false;
    }
    // The modifier that adds an operand, named in the shape.
    std::string shape_of(std::string base, std::initializer_list<std::pair<std::string_view, std::string_view>> extra) {
        for (auto [mod, name] : extra)
            if (has(mod)) base += fmt::format(", {}", name);
        return base;
    }

    void bulk_copy() {
        bool mbar = has("mbarrier::complete_tx::bytes");
        // (cp_mask adds a byte mask on sm_100; judged only before it)
        if (has("cp_mask")) return;
        if (mbar && has("L2::cache_hint") && word("shared::cluster") >= 0 && word("shared::cta") >= 0)
            return fail(v_.word_pos[word("L2::cache_hint")],
                        fmt::format("'{}' copies between shared memories and takes no .L2::cache_hint", key_));
        std::string shape = shape_of(mbar ? "[dst], [src], size, [mbar]" : "[dst], [src], size",
                                     {{"multicast::cluster", "ctaMask"}, {"L2::cache_hint", "cache-policy"}});
        size_t want = (mbar ? 4 : 3) + has("multicast::cluster") + has("L2::cache_hint");
        if (counted(want, shape)) bulk_size(2);
    }
    // A bulk copy's constant size is a multiple of 16 bytes.
    void bulk_size(size_t at) {
        if (at < ops_.size() && ops_[at].kind == operand_kind::integer && (ops_[at].value < 0 || ops_[at].value % 16))
            fail(ops_[at].pos, fmt::format("the size of '{}' is a multiple of 16 bytes, not {}", key_, ops_[at].value));
    }

    // [tmap, {c0, c1, ...}]: the coordinates of a tensor copy.
    static size_t coordinates(const operand& a) {
        if (a.elems.size() == 1 && a.elems.begin()->kind == operand_kind::vector) return a.elems.begin()->elems.size();
        return a.elems.size();
    }
    // cp.async.bulk.tensor (a load with an mbarrier, a store with a bulk
    // group), cp.reduce.async.bulk.tensor and cp.async.bulk.prefetch.tensor.
    void tensor_copy() {
        int dim_at = -1;
        uint32_t dim = 0;
        for (size_t i = 1; i < v_.words.size() && dim_at < 0; ++i)
            if (v_.words[i].size() == 2 && v_.words[i][1] == 'd' && v_.words[i][0] >= '1' && v_.words[i][0] <= '5')
                dim_at = static_cast<int>(i), dim = static_cast<uint32_t>(v_.words[i][0] - '0');
        if (dim_at < 0 || sm() >= 100) return; // sm_100's gather4/scatter4/cta_group forms are not judged
        bool prefetch = key_ == "cp.async.bulk.prefetch.tensor";
        bool load = prefetch || has("mbarrier::complete_tx::bytes");
        // Loads name .im2col and take its offsets; stores and reductions .im2col_no_offs.
        int wrong = word(load ? "im2col_no_offs" : "im2col");
        if (wrong >= 0)
            return fail(v_.word_pos[wrong], fmt::format("'{}' {} .{}; it takes .{}", dotted(),
                                                        load ? "loads with" : "stores with", load ? "im2col" : "im2col_no_offs",
                                                        v_.words[wrong] == "im2col" ? "im2col_no_offs" : "im2col"));
        bool im2col = has("im2col") || has("im2col_no_offs");
        if (im2col && dim < 3)
            return fail(v_.word_pos[dim_at], fmt::format("'.{}' needs a tensor of 3 to 5 dimensions, not .{}d",
                                                         has("im2col") ? "im2col" : "im2col_no_offs", dim));
        size_t tmap = load && !prefetch ? 1 : 0;
        if (tmap < ops_.size() && ops_[tmap].kind == operand_kind::address) {
            size_t n = coordinates(ops_[tmap]);
            if (n != dim)
                return fail(ops_[tmap].pos, fmt::format("'{}' takes {} coordinate{} after the tensor map, not {}",
                                                        dotted(), dim, dim == 1 ? "" : "s", n));
        }
        if (!load) return void(counted(2 + has("L2::cache_hint"), shape_of("[tmap, {coordinates}], [src]",
                                                                               {{"L2::cache_hint", "cache-policy"}})));
        bool offsets = has("im2col");
        size_t base = prefetch ? 1 : 3;
        size_t want = base + offsets + has("multicast::cluster") + has("L2::cache_hint");
        std::string shape = shape_of(prefetch ? "[tmap, {coordinates}]" : "[dst], [tmap, {coordinates}], [mbar]",
                                     {{"im2col", "{im2col offsets}"}, {"multicast::cluster", "ctaMask"},
                                      {"L2::cache_hint", "cache-policy"}});
        if (!counted(want, shape) || !offsets) return;
        const operand& off = ops_[base];
        if (off.kind != operand_kind::vector || off.elems.size() != dim - 2)
            fail(off.pos, fmt::format("the im2col offsets of a .{}d copy are a vector of {} ({{...}})", dim, dim - 2));
    }

    // cp.async [dst], [src], cp-size{, src-size | ignore-src}{, cache-policy}
    void small_copy() {
        if (ops_.size() < 3) return;
        // into shared memory of the CTA, from global memory
        std::string_view spaces[2];
        size_t ns = 0;
        int first_space = -1;
        for (size_t i = 1; i < v_.words.size(); ++i)
            if (v_.words[i] == "shared" || v_.words[i] == "shared::cta" || v_.words[i] == "global" ||
                v_.words[i].starts_with("shared::") || v_.words[i] == "local" || v_.words[i] == "const") {
                if (ns < 2) spaces[ns] = v_.words[i];
                if (first_space < 0) first_space = static_cast<int>(i);
                ++ns;
            }
        if (ns == 2 && (!spaces[0].starts_with("shared") || spaces[0] == "shared::cluster" || spaces[1] != "global"))
            return fail(v_.word_pos[first_space], fmt::format("'cp.async' copies from .global to .shared (.shared::cta), "
                                                              "not from .{} to .{}", spaces[1], spaces[0]));
        const operand& size = ops_[2];
        if (size.kind != operand_kind::integer)
            return fail(size.pos, "the cp-size of 'cp.async' is a constant: 4, 8 or 16");
        bool cg = has("cg");
        if (cg ? size.value != 16 : size.value != 4 && size.value != 8 && size.value != 16)
            return fail(size.pos, fmt::format("the cp-size of '{}' is {}, not {}", dotted(), cg ? "16" : "4, 8 or 16",
                                              size.value));
        bool hint = has("L2::cache_hint");
        if (hint ? ops_.size() < 4 : ops_.size() > 4)
            return fail(hint ? v_.word_pos[word("L2::cache_hint")] : ops_[4].pos,
                        hint ? "'cp.async.L2::cache_hint' needs a cache-policy operand after the others"
                             : "'cp.async' with five operands needs .L2::cache_hint: the last one is a cache policy");
        if (ops_.size() == (hint ? 5u : 4u) && ops_[3].kind == operand_kind::integer &&
            (ops_[3].value < 0 || ops_[3].value > size.value))
            fail(ops_[3].pos, fmt::format("the src-size of 'cp.async' is 0 .. cp-size ({}), not {}", size.value,
                                          ops_[3].value));
    }

    // mbarrier.arrive{.expect_tx|.noComplete} state|_, [addr]{, count}
    void arrive() {
        if (ops_.empty()) return;
        if (ops_[0].kind == operand_kind::address)
            return fail(ops_[0].pos, fmt::format("'{}' first names its state destination (a .b64 register, or '_' to "
                                                 "drop it), then the address", key_));
        bool cluster = has("shared::cluster");
        if (cluster && ops_[0].kind != operand_kind::sink)
            return fail(ops_[0].pos, fmt::format("'{}' on .shared::cluster returns no state: its destination is '_'",
                                                 key_));
        if (ops_[0].kind == operand_kind::name && !v_.types.empty() && v_.types[0] != data_type::none &&
            (info_of(v_.types[0]).bits != 64 || info_of(v_.types[0]).kind == type_kind::floating))
            return fail(ops_[0].pos, fmt::format("the state '{}' returns is a .b64 value; '{}' is .{}", key_,
                                                 v_.m.str(ops_[0].name), to_string(v_.types[0])));
        bool expect = has("expect_tx");
        if ((expect || has("noComplete")) && ops_.size() == 2)
            return fail(v_.word_pos[word(expect ? "expect_tx" : "noComplete")],
                        fmt::format("'{}' needs a count operand after the address", dotted()));
        if (ops_.size() == 3 && ops_[2].kind == operand_kind::name) {
            size_t node = node_count(ops_[0]) + node_count(ops_[1]);
            data_type t = node < v_.types.size() ? v_.types[node] : data_type::none;
            if (t != data_type::none && (info_of(t).bits != 32 || info_of(t).kind == type_kind::floating ||
                                         info_of(t).kind == type_kind::half))
                return fail(ops_[2].pos, fmt::format("the count of '{}' is a 32-bit integer, but '{}' is .{}", key_,
                                                     v_.m.str(ops_[2].name), to_string(t)));
        }
        if (!expect && ops_.size() == 3 && ops_[2].kind == operand_kind::integer && ops_[2].value <= 0)
            fail(ops_[2].pos, fmt::format("the arrival count of '{}' is at least 1, not {}", key_, ops_[2].value));
    }

    void tensormap() {
        std::string_view field;
        int field_at = -1;
        static constexpr std::string_view fields[] = {"global_address", "rank", "box_dim", "global_dim",
                                                      "global_stride", "element_stride", "elemtype",
                                                      "interleave_layout", "swizzle_mode", "swizzle_atomicity",
                                                      "fill_mode"};
        for (auto f : fields)
            if ((field_at = word(f)) >= 0) { field = f; break; }
        if (field.empty()) return;
        bool ordinal = field == "box_dim" || field == "global_dim" || field == "global_stride" ||
                       field == "element_stride";
        bool wide = field == "global_address" || field == "global_stride";
        int type_at = word(wide ? "b32" : "b64");
        if (type_at >= 0)
            return fail(v_.word_pos[type_at], fmt::format("the .{} field of a tensor map is {}; 'tensormap.replace' "
                                                          "writes it with .{}", field, wide ? "64 bits" : "32 bits",
                                                          wide ? "b64" : "b32"));
        if (!counted(ordinal ? 3 : 2, ordinal ? "[addr], ordinal, value" : "[addr], value")) return;
        if (ordinal && (ops_[1].kind != operand_kind::integer || ops_[1].value < 0 || ops_[1].value > 4))
            return fail(ops_[1].pos, fmt::format("the ordinal of the .{} field is a constant dimension 0 .. 4", field));
        int64_t top = field == "elemtype"            ? (sm() >= 100 ? 15 : 12)
                      : field == "interleave_layout" ? 2
                      : field == "swizzle_mode" || field == "swizzle_atomicity" ? 3
                      : field == "fill_mode"          ? 1
                                                      : -1;
        if (top < 0) return;
        const operand& value = ops_.back();
        if (value.kind != operand_kind::integer || value.value < 0 || value.value > top)
            fail(value.pos, fmt::format("the .{} field takes a constant 0 .. {}{}", field, top,
                                        field == "elemtype" && top == 12 ? " (13 .. 15 need sm_100)" : ""));
    }

    void wait_group() {
        if (ops_.size() != 1) return;
        if (ops_[0].kind != operand_kind::integer)
            return fail(ops_[0].pos, fmt::format("the group count of '{}' is a constant", key_));
        if (key_ == "wgmma.wait_group" && ops_[0].value < 0)
            fail(ops_[0].pos, fmt::format("the group count of 'wgmma.wait_group' is not negative ({})", ops_[0].value));
    }

    // bar.sync a, b / bar.red.op d, a, b, c: b counts whole warps.
    void thread_count() {
        size_t at = has("red") ? 2 : 1;
        bool counted_form = has("red") ? ops_.size() == 4 : ops_.size() == 2;
        if (!counted_form || ops_[at].kind != operand_kind::integer) return;
        if (ops_[at].value % 32 != 0)
            fail(ops_[at].pos, fmt::format("the thread count of '{}' is a multiple of the warp size (32), not {}", key_,
                                           ops_[at].value));
    }

    // wgmma.mma_async d, a, b, scale-d, then constants: imm-scale-a and -b
    // (1 or -1) and, for .f16/.bf16, imm-trans-a (not with A in registers)
    // and imm-trans-b (0 or 1). The integer and .b1 forms end at scale-d.
    void wgmma_immediates() {
        std::string_view a;
        for (size_t i = 1, n = 0; i < v_.words.size(); ++i)
            if (data_type_from(v_.words[i]) != data_type::none || v_.words[i] == "b1")
                if (++n == 2) a = v_.words[i];
        if (a.empty() || ops_.size() < 2) return;
        bool half = a == "f16" || a == "bf16";
        bool a_regs = ops_[1].kind == operand_kind::vector;
        size_t want = a == "s8" || a == "u8" || a == "b1" ? 4 : half ? (a_regs ? 7 : 8) : 6;
        std::string shape = want == 4 ? "d, a, b, scale-d"
                            : want == 6 ? "d, a, b, scale-d, imm-scale-a, imm-scale-b"
                            : want == 7 ? "d, a, b, scale-d, imm-scale-a, imm-scale-b, imm-trans-b"
                                        : "d, a, b, scale-d, imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b";
        if (!counted(want, shape)) return;
        // scale-d: a predicate (!%p too) or the constant 0 or 1
        const operand& sd = ops_[3];
        size_t sd_node = 0;
        for (size_t k = 0; k < 3; ++k) sd_node += node_count(ops_[k]);
        data_type sdt = sd_node < v_.types.size() ? v_.types[sd_node] : data_type::none;
        if ((sd.kind == operand_kind::integer && sd.value != 0 && sd.value != 1) ||
            (sd.kind == operand_kind::name && sdt != data_type::none && sdt != data_type::pred) ||
            sd.kind == operand_kind::f32 || sd.kind == operand_kind::f64)
            return fail(sd.pos, "scale-d of 'wgmma.mma_async' is a predicate or the constant 0 or 1");
        for (size_t i = 4; i < ops_.size(); ++i) {
            bool scale = i < 6;
            const operand& c = ops_[i];
            bool ok = c.kind == operand_kind::integer && (scale ? c.value == 1 || c.value == -1 : c.value == 0 || c.value == 1);
            if (!ok)
                return fail(c.pos, fmt::format("operand {} of 'wgmma.mma_async' ({}) is the constant {}", i + 1,
                                               scale ? "a scale of A or B" : "a transpose flag", scale ? "1 or -1" : "0 or 1"));
        }
    }

    // An mbarrier in the generic space is addressed with 64 bits (ptxas
    // takes a 32-bit register as 32-bit addressing and stops).
    void generic_address() {
        for (std::string_view sp : {"shared", "shared::cta", "shared::cluster"})
            if (has(sp)) return;
        size_t node = 0;
        for (size_t i = 0; i < ops_.size(); node += node_count(ops_[i]), ++i) {
            if (ops_[i].kind != operand_kind::address || ops_[i].name == no_symbol) continue;
            data_type t = node < v_.types.size() ? v_.types[node] : data_type::none;
            if (t != data_type::none && info_of(t).bits != 64)
                return fail(ops_[i].pos + 1, fmt::format("'{}' without a state space takes a generic address of 64 bits, "
                                                         "but '{}' is .{}", key_, v_.m.str(ops_[i].name), to_string(t)));
        }
    }

    const instruction_view& v_;
    std::vector<located_problem>& out_;
    const std::string& key_;
    const list<operand>& ops_;
};

} // namespace

void check_async_operands(const instruction_view& v, std::vector<located_problem>& out) {
    async_checker(v, out).run();
}

} // namespace ptxsim::isa::detail
