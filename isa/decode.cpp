// Decoding: three passes over a function body.
//  1. layout: parameters, .local and .shared variables get offsets;
//  2. labels: every label gets the index of the instruction that follows it,
//     per block (labels are block-scoped, inlined asm repeats them);
//  3. instructions: registers become slots (a new slot per declaration, so
//     shadowing works), operands are resolved, and the table row's decoder
//     from isa/sem fills in the handler.
#include "isa/decode.hpp"

#include <fmt/format.h>

#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include "isa/match.hpp"
#include "isa/memory_model.hpp"
#include "isa/shared_provenance.hpp"
#include "isa/sem/registry.hpp"

namespace ptxsim::isa {
namespace {

using namespace parser;

uint32_t align_up(uint32_t v, uint32_t a) { return a ? (v + a - 1) / a * a : v; }

uint32_t decl_bytes(const var_decl& v) {
    uint32_t n = size_of(v.type) * (v.vec ? v.vec : 1);
    for (uint64_t d : v.dims) n *= static_cast<uint32_t>(d ? d : 0);
    return n;
}

struct special_name {
    std::string_view name;
    special_reg reg;
};
constexpr special_name special_names[] = {
    {"%tid.x", special_reg::tid_x}, {"%tid.y", special_reg::tid_y}, {"%tid.z", special_reg::tid_z},
    {"%ntid.x", special_reg::ntid_x}, {"%ntid.y", special_reg::ntid_y}, {"%ntid.z", special_reg::ntid_z},
    {"%ctaid.x", special_reg::ctaid_x}, {"%ctaid.y", special_reg::ctaid_y}, {"%ctaid.z", special_reg::ctaid_z},
    {"%nctaid.x", special_reg::nctaid_x}, {"%nctaid.y", special_reg::nctaid_y}, {"%nctaid.z", special_reg::nctaid_z},
    {"%laneid", special_reg::laneid}, {"%warpid", special_reg::warpid}, {"%nwarpid", special_reg::nwarpid},
    {"%smid", special_reg::smid}, {"%nsmid", special_reg::nsmid}, {"%gridid", special_reg::gridid},
    {"%clock", special_reg::clock}, {"%clock_hi", special_reg::clock_hi}, {"%clock64", special_reg::clock64},
    {"%globaltimer", special_reg::globaltimer}, {"%globaltimer_lo", special_reg::globaltimer_lo},
    {"%globaltimer_hi", special_reg::globaltimer_hi}, {"%lanemask_eq", special_reg::lanemask_eq},
    {"%lanemask_le", special_reg::lanemask_le}, {"%lanemask_lt", special_reg::lanemask_lt},
    {"%lanemask_ge", special_reg::lanemask_ge}, {"%lanemask_gt", special_reg::lanemask_gt},
    {"%dynamic_smem_size", special_reg::dynamic_smem_size}, {"%total_smem_size", special_reg::total_smem_size},
    {"%clusterid.x", special_reg::clusterid_x}, {"%clusterid.y", special_reg::clusterid_y},
    {"%clusterid.z", special_reg::clusterid_z}, {"%nclusterid.x", special_reg::nclusterid_x},
    {"%nclusterid.y", special_reg::nclusterid_y}, {"%nclusterid.z", special_reg::nclusterid_z},
    {"%cluster_ctaid.x", special_reg::cluster_ctaid_x}, {"%cluster_ctaid.y", special_reg::cluster_ctaid_y},
    {"%cluster_ctaid.z", special_reg::cluster_ctaid_z}, {"%cluster_nctaid.x", special_reg::cluster_nctaid_x},
    {"%cluster_nctaid.y", special_reg::cluster_nctaid_y}, {"%cluster_nctaid.z", special_reg::cluster_nctaid_z},
    {"%cluster_ctarank", special_reg::cluster_ctarank}, {"%cluster_nctarank", special_reg::cluster_nctarank},
    {"%is_explicit_cluster", special_reg::is_explicit_cluster},
    {"%reserved_smem_offset_begin", special_reg::reserved_smem_begin}, {"%reserved_smem_offset_end", special_reg::reserved_smem_end},
    {"%reserved_smem_offset_cap", special_reg::reserved_smem_cap}, {"%reserved_smem_offset_0", special_reg::reserved_smem_0},
    {"%reserved_smem_offset_1", special_reg::reserved_smem_1}, {"%aggr_smem_size", special_reg::aggr_smem_size},
    // A plain %tid reads as %tid.x in 32-bit contexts; nvcc always writes the component.
};

std::optional<special_reg> special_of(std::string_view n) {
    for (const auto& s : special_names)
        if (s.name == n) return s.reg;
    if (n.substr(0, 7) == "%envreg" && n.size() > 7) {
        unsigned v = 0;
        for (char c : n.substr(7)) v = v * 10 + static_cast<unsigned>(c - '0');
        if (v < 32) return static_cast<special_reg>(static_cast<unsigned>(special_reg::envreg0) + v);
    }
    return std::nullopt;
}

struct reg_binding {
    uint32_t slot;
    bool pred;
    uint32_t width = 1; // slots per register: 2 for .b128
};

// A variable's place: its space and address (frame_param_tag + offset for
// call-frame .param variables), and its size in bytes.
struct var_place {
    space sp;
    uint64_t address;
    uint32_t size;
};

struct scope {
    std::unordered_map<symbol, reg_binding> names;
    // .param/.local/.shared variables declared in this block: nvcc's -G
    // output declares `retval0` afresh, with a different size, in each
    // call's { } block, so names resolve block by block like registers.
    std::unordered_map<symbol, var_place> vars;
    std::unordered_map<std::string_view, std::pair<reg_binding, uint32_t>> ranges; // prefix -> (first, count)
    const std::unordered_map<symbol, uint32_t>* labels = nullptr;
};

class decoder {
public:
    decoder(const decode_inputs& in, diagnostics& d) : in_(in), m_(*in.module), f_(*in.function), d_(d) {}

    std::optional<decoded_function> run() {
        out_.fn.name = std::string(m_.str(f_.name));
        out_.fn.is_entry = f_.is_entry;
        layout_params();
        shared_top_ = in_.shared_base;
        layout_variables(f_.body);
        uint32_t count = 0;
        index_labels(f_.body, count);
        for (const auto& pd : f_.directives) {
            auto name = m_.str(pd.name);
            uint32_t* dst = name == "reqntid"             ? out_.fn.reqntid
                            : name == "maxntid"           ? out_.fn.maxntid
                            : name == "reqnctapercluster" ? out_.fn.reqnctapercluster
                                                          : nullptr;
            if (name == "explicitcluster") out_.fn.explicitcluster = true;
            if (name == "maxclusterrank" && !pd.values.empty()) out_.fn.maxclusterrank = static_cast<uint32_t>(pd.values[0]);
            if (dst)
                for (uint32_t i = 0; i < pd.values.size() && i < 3; ++i) dst[i] = static_cast<uint32_t>(pd.values[i]);
            if (name == "maxnreg" && !pd.values.empty()) out_.fn.maxnreg = static_cast<uint32_t>(pd.values[0]);
            if (name == "minnctapersm" && !pd.values.empty()) out_.fn.minnctapersm = static_cast<uint32_t>(pd.values[0]);
        }
        out_.fn.code.reserve(count + 1);
        body(f_.body);
        // Falling off the end of a function returns.
        exec_instruction ret;
        ret.pos = f_.pos;
        sem::find_decoder("exit")(matched_instruction{}, ret);
        out_.fn.code.push_back(ret);
        out_.shared_static_bytes = shared_top_;
        out_.fn.reg_slots = next_reg_;
        out_.fn.pred_slots = next_pred_;
        region_operands_.resize(out_.fn.code.size());
        tag_shared_regions(out_.fn, region_operands_);
        if (failed_) return std::nullopt;
        return std::move(out_);
    }

private:
    void error(pos_t p, std::string msg) {
        d_.error(*m_.source, p, std::move(msg));
        failed_ = true;
    }

    void layout_params() {
        if (!f_.is_entry) { // formals live in the call frame
            for (const auto& p : f_.ret) out_.fn.formal_rets.push_back(frame_param(p));
            for (const auto& p : f_.params) out_.fn.formal_params.push_back(frame_param(p));
            return;
        }
        uint32_t off = 0;
        for (const auto& p : f_.params) {
            uint32_t size = decl_bytes(p);
            uint32_t align = p.align ? p.align : std::max<uint32_t>(1, size_of(p.type));
            off = align_up(off, align);
            out_.fn.params.push_back({std::string(m_.str(p.name)), off, size, align});
            vars_[p.name] = {space::param, off};
            off += size;
        }
        out_.fn.param_bytes = off;
    }

    exec_param frame_param(const var_decl& p) {
        uint32_t size = decl_bytes(p);
        uint32_t align = p.align ? p.align : std::max<uint32_t>(1, size_of(p.type));
        uint32_t& top = out_.fn.frame_param_bytes;
        top = align_up(top, std::min<uint32_t>(align, 16));
        exec_param e{std::string(m_.str(p.name)), top, size, align};
        vars_[p.name] = {space::param, frame_param_tag + top};
        param_sizes_[p.name] = size;
        placed_[&p] = {space::param, frame_param_tag + top, size};
        top += size;
        return e;
    }

    // .local and .shared declarations anywhere in the body.
    void layout_variables(list<statement> stmts) {
        for (const auto& st : stmts) {
            if (auto b = std::get_if<const block_stmt*>(&st.node)) {
                layout_variables((*b)->body);
                continue;
            }
            auto ds = std::get_if<decl_stmt>(&st.node);
            if (!ds) continue;
            const var_decl& v = *ds->decl;
            uint32_t align = v.align ? v.align : std::max<uint32_t>(1, size_of(v.type));
            if (v.space == state_space::param) { // call-site variables: param0, retval0 ...
                frame_param(v);
                continue;
            }
            if (v.space == state_space::local) {
                out_.fn.local_bytes = align_up(out_.fn.local_bytes, align);
                vars_[v.name] = {space::local, out_.fn.local_bytes};
                placed_[&v] = {space::local, out_.fn.local_bytes, decl_bytes(v)};
                out_.fn.local_regions.push_back({out_.fn.local_bytes, decl_bytes(v), std::string(m_.str(v.name))});
                out_.fn.local_bytes += decl_bytes(v);
            } else if (v.space == state_space::shared) {
                if (v.link == linkage::extern_) {
                    extern_shared_.push_back(v.name);
                    extern_shared_align_ = std::max(extern_shared_align_, align);
                    continue;
                }
                shared_top_ = align_up(shared_top_, align);
                vars_[v.name] = {space::shared, shared_top_};
                placed_[&v] = {space::shared, shared_top_, decl_bytes(v)};
                if (decl_bytes(v) && out_.fn.shared_regions.size() < exec_instruction::no_region) {
                    region_by_offset_[shared_top_] = static_cast<uint16_t>(out_.fn.shared_regions.size());
                    out_.fn.shared_regions.push_back({shared_top_, decl_bytes(v), std::string(m_.str(v.name))});
                }
                shared_top_ += decl_bytes(v);
            }
        }
        // Dynamic shared memory starts after every static variable; nvcc
        // declares it at module scope (.extern .shared .align 16 .b8 smem[]).
        // Its start honours the largest alignment any declaration asks for
        // (__align__(128) for TMA and wgmma buffers), at least 16 bytes as
        // CUDA guarantees; the padding before it counts as static memory, as
        // ptxas counts it, so that the whole dynamic size fits after it.
        for (const auto& item : m_.items)
            if (auto vp = std::get_if<const var_decl*>(&item.node))
                if ((*vp)->space == state_space::shared && (*vp)->link == linkage::extern_) {
                    extern_shared_.push_back((*vp)->name);
                    extern_shared_align_ = std::max(extern_shared_align_, (*vp)->align ? (*vp)->align : 1u);
                }
        if (!extern_shared_.empty()) shared_top_ = align_up(shared_top_, extern_shared_align_);
        for (symbol s : extern_shared_) {
            vars_[s] = {space::shared, shared_top_};
            out_.fn.extern_shared.push_back({shared_top_, 0, std::string(m_.str(s))});
        }
    }

    void index_labels(list<statement> stmts, uint32_t& count) {
        auto& labels = labels_[stmts.begin()];
        for (const auto& st : stmts) {
            if (std::holds_alternative<instruction>(st.node)) ++count;
            else if (auto l = std::get_if<label_stmt>(&st.node)) labels[l->name] = count;
            else if (auto b = std::get_if<const block_stmt*>(&st.node)) index_labels((*b)->body, count);
            else if (auto p = std::get_if<const prototype_decl*>(&st.node)) prototypes_.insert((*p)->label);
            else if (auto t = std::get_if<const targets_decl*>(&st.node)) target_lists_[(*t)->label] = *t;
        }
    }

    void declare(scope& s, const var_decl& v) {
        if (v.space != state_space::reg) return;
        bool pred = v.type == data_type::pred;
        uint32_t n = v.is_range ? v.range : 1;
        uint32_t width = v.type == data_type::b128 ? 2 : 1; // b128 takes two 64-bit slots
        uint32_t& next = pred ? next_pred_ : next_reg_;
        reg_binding first{next, pred, width};
        next += n * width;
        if (v.is_range) s.ranges[m_.str(v.name)] = {first, n};
        else s.names[v.name] = first;
        const uint32_t here = static_cast<uint32_t>(out_.fn.code.size());
        out_.fn.register_names.push_back(
            {std::string(m_.str(v.name)), v.is_range ? n : 0, first.slot, width, pred, v.type, here, here});
    }

    std::optional<reg_binding> find_reg(symbol name) {
        for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
            auto n = it->names.find(name);
            if (n != it->names.end()) return n->second;
        }
        return find_ranged_reg(m_.str(name));
    }

    // %r12 where %r<N> was declared.
    std::optional<reg_binding> find_ranged_reg(std::string_view text) {
        size_t d = text.size();
        while (d > 0 && text[d - 1] >= '0' && text[d - 1] <= '9') --d;
        if (d == text.size() || d == 0) return std::nullopt;
        uint32_t idx = 0;
        for (char c : text.substr(d)) idx = idx * 10 + static_cast<uint32_t>(c - '0');
        for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
            auto r = it->ranges.find(text.substr(0, d));
            if (r != it->ranges.end() && idx < r->second.second)
                return reg_binding{r->second.first.slot + idx * r->second.first.width, r->second.first.pred, r->second.first.width};
        }
        return std::nullopt;
    }

    // A register with a video selector (%r1.b0, %r2.h10, %r3.b3210): the
    // selector is part of the name, so it is split off here and encoded
    // as exec_operand::sel describes.
    std::optional<reg_binding> find_selected_reg(symbol name, uint16_t& sel) {
        std::string_view text = m_.str(name);
        size_t dot = text.rfind('.');
        if (dot == std::string_view::npos || dot + 2 > text.size()) return std::nullopt;
        char kind = text[dot + 1];
        std::string_view digits = text.substr(dot + 2);
        if ((kind != 'b' && kind != 'h') || digits.empty() || digits.size() > 4) return std::nullopt;
        uint16_t v = 0;
        for (size_t i = 0; i < digits.size(); ++i) {
            char c = digits[digits.size() - 1 - i];
            if (c < '0' || c > '7') return std::nullopt;
            v = static_cast<uint16_t>(v | (c - '0') << (3 * i));
        }
        std::string_view base = text.substr(0, dot);
        symbol bs = m_.symbols.find(base);
        auto r = bs != no_symbol ? find_reg(bs) : find_ranged_reg(base);
        if (!r || r->pred) return std::nullopt;
        sel = static_cast<uint16_t>(v | digits.size() << 12 | (kind == 'h' ? 0x8000u : 0u));
        return r;
    }

    std::optional<uint32_t> find_label(symbol name) {
        for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
            auto l = it->labels->find(name);
            if (l != it->labels->end()) return l->second;
        }
        return std::nullopt;
    }

    // The innermost block's variable of that name.
    const var_place* find_scoped_var(symbol name) const {
        for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
            if (auto v = it->vars.find(name); v != it->vars.end()) return &v->second;
        return nullptr;
    }

    std::optional<symbol_address> find_var(symbol name) {
        if (const var_place* p = find_scoped_var(name)) return symbol_address{p->sp, p->address, false};
        auto v = vars_.find(name);
        if (v != vars_.end()) return symbol_address{v->second.first, v->second.second, false};
        return in_.resolve ? in_.resolve(m_.str(name)) : std::nullopt;
    }

    void body(list<statement> stmts) {
        const size_t first_name = out_.fn.register_names.size();
        scope s;
        s.labels = &labels_[stmts.begin()];
        for (const auto& st : stmts)
            if (auto ds = std::get_if<decl_stmt>(&st.node)) {
                declare(s, *ds->decl);
                if (auto p = placed_.find(ds->decl); p != placed_.end()) s.vars[ds->decl->name] = p->second;
            }
        if (scopes_.empty()) // parameters declared as .reg (in .func)
            for (const auto& p : f_.params) declare(s, p);
        scopes_.push_back(std::move(s));
        for (const auto& st : stmts) {
            if (auto ins = std::get_if<instruction>(&st.node)) decode_instruction(*ins);
            else if (auto b = std::get_if<const block_stmt*>(&st.node)) body((*b)->body);
        }
        // The block's names are in scope up to its last instruction; the
        // function's own, also at the exit that falling off its end adds.
        const uint32_t end = static_cast<uint32_t>(out_.fn.code.size()) + (scopes_.size() == 1 ? 1 : 0);
        for (size_t i = first_name; i < out_.fn.register_names.size(); ++i)
            if (out_.fn.register_names[i].end == out_.fn.register_names[i].begin) out_.fn.register_names[i].end = end;
        scopes_.pop_back();
    }

    // A literal element of a vector operand ({%r1, 0}): its value goes into
    // the tail of elems that a vector of at most four elements leaves free
    // (64 bits each for two elements; for three or four, 32 bits that zero-
    // or sign-extend, as consts' bit 4 + i says).
    static bool vector_constant(exec_operand& o, uint32_t i, const exec_operand& lit) {
        if (lit.kind != opnd::imm || o.count > 4) return false;
        const uint64_t v = static_cast<uint64_t>(lit.imm);
        o.elems[i] = no_slot;
        o.consts |= static_cast<uint8_t>(1u << i);
        if (o.count <= 2) {
            o.elems[4 + 2 * i] = static_cast<uint32_t>(v);
            o.elems[5 + 2 * i] = static_cast<uint32_t>(v >> 32);
            return true;
        }
        o.elems[4 + i] = static_cast<uint32_t>(v);
        if ((v >> 32) == 0) o.consts |= static_cast<uint8_t>(0x10u << i); // zero-extends
        return (v >> 32) == 0 || static_cast<int64_t>(static_cast<int32_t>(v)) == lit.imm;
    }

    // An operand that is the address of one of the function's .shared
    // variables, for shared_provenance: recorded against the instruction
    // being decoded (its index is the code's size) and operand.
    void note_region(const symbol_address& v) {
        if (v.sp != space::shared) return;
        auto it = region_by_offset_.find(static_cast<uint32_t>(v.address));
        if (it == region_by_offset_.end()) return;
        const size_t at = out_.fn.code.size();
        if (region_operands_.size() <= at) region_operands_.resize(at + 1);
        region_operands_[at].push_back({operand_index_, it->second});
    }

    exec_operand operand(const parser::operand& op, const instruction& ins, data_type type) {
        exec_operand o;
        switch (op.kind) {
        case operand_kind::integer:
            o.kind = opnd::imm;
            o.imm = op.value;
            break;
        case operand_kind::f32:
        case operand_kind::f64: {
            o.kind = opnd::imm;
            o.imm = op.value;
            // A 0d literal where the instruction is .f32 is rounded to f32 (to nearest, as ptxas does).
            if (op.kind == operand_kind::f64 && type == data_type::f32) {
                double dv;
                uint64_t bits = static_cast<uint64_t>(op.value);
                std::memcpy(&dv, &bits, 8);
                float fv = static_cast<float>(dv);
                uint32_t fb;
                std::memcpy(&fb, &fv, 4);
                o.imm = fb;
            } else if (op.kind == operand_kind::f32 && type == data_type::f64) {
                float fv;
                uint32_t fb = static_cast<uint32_t>(op.value);
                std::memcpy(&fv, &fb, 4);
                double dv = fv;
                std::memcpy(&o.imm, &dv, 8);
            }
            break;
        }
        case operand_kind::name: {
            if (auto r = find_reg(op.name)) {
                o.kind = r->pred ? opnd::pred : opnd::reg;
                o.slot = r->slot;
                o.negate = op.flags & (r->pred ? op_negated : op_minus);
            } else if (auto rs = find_selected_reg(op.name, o.sel)) {
                o.kind = opnd::reg;
                o.slot = rs->slot;
                o.negate = op.flags & op_minus;
            } else if (m_.str(op.name) == "WARP_SZ") {
                o.kind = opnd::imm;  // PTX's constant for the warp size (nvcc emits it for warpSize)
                o.imm = 32;
            } else if (auto sp = special_of(m_.str(op.name))) {
                o.kind = opnd::special;
                o.special = *sp;
                if (*sp >= special_reg::reserved_smem_begin && *sp <= special_reg::reserved_smem_1) out_.fn.uses_reserved_shared = true;
            } else if (auto l = find_label(op.name)) {
                o.kind = opnd::label;
                o.imm = *l;
            } else if (auto v = find_var(op.name)) {
                o.kind = opnd::imm; // the address of a variable
                o.imm = static_cast<int64_t>(v->address) + op.value;
                note_region(*v);
            } else if (prototypes_.count(op.name) || target_lists_.count(op.name) ||
                       (in_.function_id && in_.function_id(m_.str(op.name)))) {
                o.kind = opnd::none; // a call's prototype or a function without a body (vprintf): the call site has it
            } else if (m_.str(op.name).starts_with("__cudaCDP2")) {
                // A device-runtime function ptxsim does not serve (sim/device_runtime.cpp lists those it does).
                error(op.pos, fmt::format("'{}': ptxsim's device runtime does not serve cuda{} in device code", m_.str(op.name),
                                          m_.str(op.name).substr(10)));
            } else {
                error(op.pos, fmt::format("cannot resolve '{}'", m_.str(op.name)));
            }
            break;
        }
        case operand_kind::address: {
            o.kind = opnd::addr;
            o.imm = op.value;
            if (op.name != no_symbol) {
                if (auto r = find_reg(op.name)) {
                    o.slot = r->slot;
                } else if (auto v = find_var(op.name)) {
                    o.imm += static_cast<int64_t>(v->address);
                    note_region(*v);
                } else {
                    error(op.pos, fmt::format("cannot resolve '{}'", m_.str(op.name)));
                }
            }
            break;
        }
        case operand_kind::vector: {
            o.kind = opnd::vec;
            if (op.elems.size() > 8) { // wgmma accumulators: slots kept beside the function
                if (op.elems.size() > 255) {
                    error(op.pos, "a vector operand has more than 255 elements");
                    break;
                }
                auto slots = std::make_shared<std::vector<uint32_t>>();
                for (const auto& e : op.elems) {
                    std::optional<reg_binding> r;
                    if (e.kind == operand_kind::name) r = find_reg(e.name);
                    if (e.kind == operand_kind::name && !r) error(e.pos, fmt::format("cannot resolve '{}'", m_.str(e.name)));
                    slots->push_back(r ? r->slot : no_slot); // a sink or constant reads as nothing
                }
                o.count = static_cast<uint8_t>(slots->size());
                o.imm = static_cast<int64_t>(reinterpret_cast<intptr_t>(slots->data()));
                out_.fn.long_vectors.push_back(std::move(slots));
                break;
            }
            o.count = static_cast<uint8_t>(op.elems.size());
            for (uint32_t i = 0; i < o.count; ++i) {
                const auto& e = op.elems[i];
                if (e.kind == operand_kind::sink) {
                    o.elems[i] = no_slot;
                } else if (e.kind == operand_kind::name) {
                    auto r = find_reg(e.name);
                    if (r) o.elems[i] = r->slot;
                    else if (find_var(e.name)) // ptxas takes it; lint warns (isa/detail/check_addresses.cpp)
                        error(e.pos, fmt::format("'{}' is a variable, not a register: an element of a vector operand "
                                                 "must be a register or '_' to run", m_.str(e.name)));
                    else error(e.pos, fmt::format("cannot resolve '{}'", m_.str(e.name)));
                } else if (!vector_constant(o, i, operand(e, ins, type))) {
                    o.kind = opnd::none; // a constant that does not fit beside the elements: handlers fault
                }
            }
            break;
        }
        case operand_kind::sink:
            o.kind = opnd::none;
            break;
        default:
            o.kind = opnd::none;
            break;
        }
        return o;
    }

    void decode_instruction(const instruction& ins) {
        exec_instruction e;
        e.pos = ins.pos;
        if (ins.guard != no_symbol) {
            auto r = find_reg(ins.guard);
            if (!r || !r->pred) {
                error(ins.pos, fmt::format("'{}' is not a predicate register", m_.str(ins.guard)));
            } else {
                e.guard = r->slot;
                e.guard_negated = ins.guard_negated;
            }
        }
        auto matched = match(m_, ins);
        std::string why;
        if (!matched) {
            why = "an instruction the table does not match";
        } else {
            e.row = matched->row->id;
            e.type = sem::type_of(matched->get("type"));
            e.type2 = sem::type_of(matched->get("type", 1));
        }
        // Sources of cvt, set and slct have the second type (cvt.f32.f64: an 0d constant stays f64).
        data_type source_type = e.type;
        if (matched && e.type2 != data_type::none) {
            std::string_view key = matched->row->key;
            if (key == "cvt" || key == "set" || key == "slct") source_type = e.type2;
        }
        // Pipes (setp p|q, shfl d|p) expand into their two destinations.
        uint32_t n = 0;
        bool dropped = false; // operands past the eight an exec_instruction holds
        for (const auto& op : ins.operands) {
            if (n >= e.ops.size()) {
                dropped = true;
                break;
            }
            data_type t = n == 0 ? e.type : source_type;
            if (op.kind == operand_kind::pipe) {
                if (n == 0) e.dest_pair = true;
                e.ops[n++] = operand(op.elems[0], ins, t);
                if (n < e.ops.size()) e.ops[n++] = operand(op.elems[1], ins, t);
                continue;
            }
            operand_index_ = static_cast<uint8_t>(n);
            e.ops[n++] = operand(op, ins, t);
            if (e.ops[n - 1].kind == opnd::label) e.target = static_cast<uint32_t>(e.ops[n - 1].imm);
            // The parts after an address's base (the coordinates of
            // [tex, {x, y}]) follow it as operands of their own.
            if (op.kind == operand_kind::address)
                for (const auto& part : op.elems) {
                    if (n >= e.ops.size()) {
                        dropped = true;
                        break;
                    }
                    e.ops[n++] = operand(part, ins, t);
                }
        }
        e.nops = static_cast<uint8_t>(n);
        // The family decoder runs once the operands are resolved, so that it
        // can check them (video selectors, pipes).
        if (matched) {
            auto dec = sem::find_decoder(matched->row->key);
            if (!dec) why = fmt::format("'{}' is not implemented yet", matched->row->key);
            else why = dec(*matched, e);
            // Only decoders that read the parsed instruction themselves may
            // see more operands than the eight kept here; anywhere else a
            // dropped operand would be silently ignored.
            if (why.empty() && dropped && matched->row->key != "wgmma.mma_async.sp")
                why = fmt::format("'{}' with more than {} operands is not implemented yet", matched->row->key, e.ops.size());
        }
        // CC.CF of the carry forms (add.cc, addc, madc ...) is per thread:
        // one hidden predicate slot per function, in the frame like any predicate.
        if (why.empty() && matched && sem::uses_carry_flag(*matched)) {
            if (carry_slot_ == no_slot) carry_slot_ = next_pred_++;
            e.ops[sem::carry_operand].kind = opnd::pred;
            e.ops[sem::carry_operand].slot = carry_slot_;
        }
        if (why.empty() && matched) fill_memory_model(*matched, e, m_.origins.at(ins.pos));
        if (why.empty() && matched && matched->row->key == "call") why = decode_call(ins, e);
        if (why.empty() && matched && matched->row->key == "brx.idx") why = decode_branch_table(ins, e);
        if (!why.empty()) {
            e.run = sem::not_implemented;
            e.control = true;
            unsupported_.push_back(why);
            e.target = static_cast<uint32_t>(unsupported_.size() - 1);
        }
        out_.fn.code.push_back(e);
    }

    // call[.uni] [(rets),] f, [(args)][, proto]: the site records where the
    // caller's param variables are, for copying into and out of the callee's frame.
    std::string decode_call(const instruction& ins, exec_instruction& e) {
        exec_call_site site;
        const parser::operand* callee = nullptr;
        std::vector<const parser::operand*> lists;
        for (const auto& op : ins.operands) {
            if (op.kind == operand_kind::list) lists.push_back(&op);
            else if (!callee && op.kind == operand_kind::name) callee = &op;
        }
        if (!callee) return "call without a function";
        // The list before the callee holds return values, the one after the arguments.
        const parser::operand* rets = nullptr;
        const parser::operand* args = nullptr;
        for (const auto* l : lists) (l->pos < callee->pos ? rets : args) = l;
        auto collect = [&](const parser::operand* l, std::vector<std::pair<uint32_t, uint32_t>>& out) -> std::string {
            if (!l) return {};
            for (const auto& e2 : l->elems) {
                const var_place* v = find_scoped_var(e2.name);
                var_place formal{};
                if (!v) // the function's own formal .param variables
                    if (auto f = vars_.find(e2.name); f != vars_.end()) {
                        formal = {f->second.first, f->second.second, param_sizes_[e2.name]};
                        v = &formal;
                    }
                if (!v || v->sp != space::param || v->address < frame_param_tag)
                    return fmt::format("call argument '{}' is not a .param variable", m_.str(e2.name));
                out.push_back({static_cast<uint32_t>(v->address - frame_param_tag), v->size});
            }
            return {};
        };
        if (auto err = collect(rets, site.rets); !err.empty()) return err;
        if (auto err = collect(args, site.args); !err.empty()) return err;
        if (auto r = find_reg(callee->name)) {
            site.indirect_slot = r->slot;
        } else {
            auto id = in_.function_id ? in_.function_id(m_.str(callee->name)) : std::nullopt;
            if (!id) return fmt::format("call to '{}', which no loaded module defines", m_.str(callee->name));
            site.callee = *id;
        }
        e.target = static_cast<uint32_t>(out_.fn.calls.size());
        out_.fn.calls.push_back(std::move(site));
        return {};
    }

    // brx.idx index, tlist: the .branchtargets labels as instruction indices
    std::string decode_branch_table(const instruction& ins, exec_instruction& e) {
        if (ins.operands.size() < 2 || ins.operands[1].kind != operand_kind::name) return "brx.idx needs a .branchtargets list";
        auto it = target_lists_.find(ins.operands[1].name);
        if (it == target_lists_.end()) return "brx.idx needs a .branchtargets list";
        std::vector<uint32_t> table;
        for (symbol label : it->second->targets) {
            auto l = find_label(label);
            if (!l) return fmt::format("branch target '{}' is not a label", m_.str(label));
            table.push_back(*l);
        }
        e.target = static_cast<uint32_t>(out_.fn.branch_tables.size());
        out_.fn.branch_tables.push_back(std::move(table));
        return {};
    }

public:
    std::vector<std::string> unsupported_; // reasons, indexed by `target` of not_implemented instructions

private:
    const decode_inputs& in_;
    const module& m_;
    const function& f_;
    diagnostics& d_;
    decoded_function out_;
    bool failed_ = false;
    uint32_t next_reg_ = 0, next_pred_ = 0, shared_top_ = 0;
    std::unordered_map<uint32_t, uint16_t> region_by_offset_; // a .shared variable's offset -> its shared_regions index
    region_operands region_operands_;                         // by instruction: operands naming a .shared variable
    uint8_t operand_index_ = 0;                               // of the operand being decoded
    uint32_t carry_slot_ = no_slot; // CC.CF, allocated on first use
    std::vector<scope> scopes_;
    std::unordered_map<const statement*, std::unordered_map<symbol, uint32_t>> labels_;
    std::unordered_map<symbol, std::pair<space, uint64_t>> vars_;
    std::vector<symbol> extern_shared_;
    uint32_t extern_shared_align_ = 16;
    std::unordered_map<symbol, uint32_t> param_sizes_;
    std::unordered_map<const var_decl*, var_place> placed_; // block-declared variables, by declaration
    std::unordered_set<symbol> prototypes_;
    std::unordered_map<symbol, const targets_decl*> target_lists_;
};

} // namespace

std::optional<decoded_function> decode(const decode_inputs& in, parser::diagnostics& d) {
    decoder dec(in, d);
    auto out = dec.run();
    if (out) out->fn.unsupported = std::move(dec.unsupported_);
    return out;
}

} // namespace ptxsim::isa
