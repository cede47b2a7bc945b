// Addresses and state spaces, as ptxas 13 (sm_90a) judges them; every rule
// here was confirmed with small probe files (docs/lint.md lists them):
//  - ld/ldu/st/atom/red/prefetch: a variable in [var] must live in the
//    space the instruction names (.shared, .shared::cta and
//    .shared::cluster all take a .shared variable; .param, .param::entry
//    and .param::func a .param one); with no space (generic) only .global,
//    .shared and .local variables can be reached.
//  - ld.param cannot read the function's own return parameter, st.param
//    cannot write its input parameters.
//  - [N], an absolute address, only in .local space (any instruction).
//  - cp.* and tensormap.cp_fenceproxy (not .tensor): the spaces name the
//    addresses in order, an mbarrier after them is .shared.
//  - atom/red .v2/.v4/.v8: .global or generic.
//  - cp.async.bulk{.tensor}.dst.src: only the space pairs ptxas knows, and
//    the completion of the destination (.bulk_group for .global).
//  - cvta.space var: the variable's space is the instruction's.
//  - mbarrier.*: an mbarrier variable is a .shared one.
//  - a variable name is no register: only mov, cvta, mapa and getctarank
//    take one as a source (its address), call as an argument (.param only);
//    the address of a .param declared in a body cannot be taken.
//  - the base of an address is no .b128 register and no vector special
//    register (%tid, %ctaid ...).
//  - on ld/st: .nc needs .global; .volatile and the memory orders refuse
//    .local, .const and .param; .mmio, the .L1:: eviction priorities and
//    the .L2::NNB prefetch sizes take .global or generic only.
#include "isa/detail/check_addresses.hpp"
#include "isa/detail/check_operands.hpp"
#include "isa/detail/operand_types.hpp"

#include <fmt/format.h>

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxsim::isa::detail {
namespace {

using namespace parser;

std::optional<state_space> space_of_word(std::string_view w) {
    if (w.empty() || (w[0] != 'g' && w[0] != 's' && w[0] != 'l' && w[0] != 'c' && w[0] != 'p')) return std::nullopt;
    if (w == "global") return state_space::global;
    if (w == "shared" || w == "shared::cta" || w == "shared::cluster") return state_space::shared;
    if (w == "local") return state_space::local;
    if (w == "const") return state_space::const_;
    if (w == "param" || w == "param::entry" || w == "param::func") return state_space::param;
    return std::nullopt;
}

bool is_vector_sreg(std::string_view n) {
    if (n.size() < 4 || n[0] != '%' || (n[1] != 't' && n[1] != 'n' && n[1] != 'c')) return false; // %rd1, %r2 ...
    static constexpr std::array<std::string_view, 8> names = {"%tid",       "%ntid",        "%ctaid",        "%nctaid",
                                                              "%clusterid", "%nclusterid",  "%cluster_ctaid", "%cluster_nctaid"};
    for (auto x : names)
        if (n == x) return true;
    return false;
}

// Texture, sampler and surface references are named by the texture
// instructions, not through addresses; their rules are not these.
bool is_handle(const var_facts& v) {
    return v.space == state_space::tex || v.type == data_type::texref || v.type == data_type::samplerref ||
           v.type == data_type::surfref;
}

// The modifiers of one instruction with where each starts (at its dot);
// fixed storage, as this runs on every instruction.
struct word_list {
    using word = std::pair<std::string_view, pos_t>;
    std::array<word, 16> items;
    size_t n = 0;
    void push_back(word w) {
        if (n < items.size()) items[n++] = w;
    }
    size_t size() const { return n; }
    bool empty() const { return n == 0; }
    const word& operator[](size_t i) const { return items[i]; }
    const word* begin() const { return items.data(); }
    const word* end() const { return items.data() + n; }
};

class address_checker {
public:
    address_checker(const module& m, const instruction& ins, std::span<const var_facts> vars,
                    std::span<const data_type> types)
        : m_(m), ins_(ins), vars_(vars), types_(types) {}

    std::optional<std::pair<pos_t, std::string>> run() {
        words();
        operands();
        if (!problem_) modifiers();
        return std::move(problem_);
    }
    // Something ptxas takes that the ISA gives no meaning (reported when
    // there is no error).
    const std::optional<std::pair<pos_t, std::string>>& warning() const { return warning_; }

private:
    void fail(pos_t p, std::string msg) {
        if (!problem_) problem_.emplace(p, std::move(msg));
    }
    var_facts var_at(size_t node) const { return node < vars_.size() ? vars_[node] : var_facts{}; }
    data_type type_at(size_t node) const { return node < types_.size() ? types_[node] : data_type::none; }

    void words() {
        op_ = m_.str(ins_.opcode);
        size_t text_len = op_.size();
        for (symbol s : ins_.modifiers) text_len += 1 + m_.str(s).size();
        pos_t p = ins_.opcode_end - static_cast<pos_t>(text_len) + static_cast<pos_t>(op_.size());
        for (symbol s : ins_.modifiers) {
            std::string_view w = m_.str(s);
            mods_.push_back({w, p});
            p += 1 + static_cast<pos_t>(w.size());
            if (auto sp = space_of_word(w); sp && !space_) {
                space_ = sp;
                space_word_ = w;
            }
        }
        std::string_view first = mods_.empty() ? std::string_view{} : mods_[0].first;
        bool compound = first == "async" || first == "bulk" || first == "tensormap";
        memory_op_ = !compound && (op_ == "ld" || op_ == "ldu" || op_ == "st" || op_ == "atom" || op_ == "red" ||
                                   op_ == "prefetch" || op_ == "prefetchu");
        for (auto& [w, wp] : mods_)
            if (w == "tensormap") memory_op_ = false;
        // Copies between spaces; the .tensor forms address a tensor map instead.
        copy_op_ = (op_ == "cp" || (op_ == "tensormap" && first == "cp_fenceproxy")) && !has("tensor");
        takes_address_ = op_ == "mov" || (op_ == "cvta" && first != "to") || op_ == "mapa" || op_ == "getctarank";
        // Instructions whose operands name textures, surfaces or whole
        // parameter lists are left to their own rules.
        names_free_ = op_ == "call" || op_ == "tex" || op_ == "tld4" || op_ == "txq" || op_ == "suld" ||
                      op_ == "sust" || op_ == "sured" || op_ == "suq" || op_ == "istypep";
    }

    // The name messages use: cp.async.bulk, mbarrier.init, not just cp.
    std::string name() const {
        std::string out(op_);
        if (op_ == "cp" || op_ == "mbarrier" || op_ == "multimem" || op_ == "tensormap")
            for (size_t i = 0; i < mods_.size() && i < 3; ++i) {
                std::string_view w = mods_[i].first;
                if (space_of_word(w) || data_type_from(w) != data_type::none || w.find("::") != std::string_view::npos ||
                    w == "ca" || w == "cg" || w == "L2" || (!w.empty() && w[0] >= '0' && w[0] <= '9'))
                    break;
                out += fmt::format(".{}", w);
            }
        return out;
    }

    bool has(std::string_view w) const {
        for (auto& [x, p] : mods_)
            if (x == w) return true;
        return false;
    }
    pos_t pos_of(std::string_view w) const {
        for (auto& [x, p] : mods_)
            if (x == w) return p;
        return ins_.pos;
    }

    // cp.async.bulk{.tensor}.dst.src: copies between global and shared
    // memory of the CTA, or into another CTA's shared memory; no pair else.
    void bulk_copy_spaces() {
        if (op_ != "cp" || mods_.size() < 2 || mods_[0].first != "async" || mods_[1].first != "bulk") return;
        bool tensor = mods_.size() > 2 && mods_[2].first == "tensor";
        std::array<std::string_view, 2> sp{};
        size_t n = 0;
        pos_t at = ins_.pos;
        for (auto& [w, p] : mods_) {
            if (!space_of_word(w) || w == "shared") continue; // plain .shared is the table's to refuse
            if (n == 0) at = p;
            if (n < 2) sp[n] = w;
            ++n;
        }
        if (n != 2) return;
        auto is = [&](std::string_view d, std::string_view s) { return sp[0] == d && sp[1] == s; };
        bool ok = is("shared::cluster", "global") || is("shared::cta", "global") || is("global", "shared::cta") ||
                  (!tensor && is("shared::cluster", "shared::cta"));
        std::string_view name = tensor ? "cp.async.bulk.tensor" : "cp.async.bulk";
        // The completion follows the destination: a bulk group for global
        // memory, an mbarrier for shared memory.
        if (ok && sp[0] == "global" && has("mbarrier::complete_tx::bytes"))
            fail(pos_of("mbarrier::complete_tx::bytes"),
                 fmt::format("'{}' into .global completes through .bulk_group, not an mbarrier", name));
        else if (ok && sp[0] != "global" && has("bulk_group"))
            fail(pos_of("bulk_group"),
                 fmt::format("'{}' into .{} completes through an mbarrier (.mbarrier::complete_tx::bytes), not "
                             ".bulk_group", name, sp[0]));
        else if (ok && sp[0] == "shared::cta" && m_.has_version && m_.version.as_int() < 86)
            fail(at, fmt::format("'{}.shared::cta.global' needs PTX ISA 8.6 or later, but the file declares .version "
                                 "{}.{}", name, m_.version.major, m_.version.minor));
        if (!ok)
            fail(at, fmt::format("'{}' cannot copy from .{} to .{}; the spaces are .shared::cluster.global, "
                                 ".shared::cta.global, .global.shared::cta{}", tensor ? "cp.async.bulk.tensor" : "cp.async.bulk",
                                 sp[1], sp[0], tensor ? "" : " or .shared::cluster.shared::cta"));
    }

    void operands() {
        bulk_copy_spaces();
        size_t node = 0;
        const auto& ops = ins_.operands;
        for (size_t i = 0; i < ops.size() && !problem_; ++i) {
            const operand& op = ops[i];
            if (op.kind == operand_kind::address) address(op, i + 1, node);
            else if (op.kind == operand_kind::list && op_ == "call") call_list(op, node);
            else name_nodes(op, i, node);
            node += node_count(op);
        }
    }

    // A name in a register's place: the operand itself or the elements of a vector.
    void name_nodes(const operand& op, size_t i, size_t node) {
        if (op.kind == operand_kind::vector || op.kind == operand_kind::pipe) {
            size_t child = node + 1;
            for (const auto& e : op.elems) {
                if (op.kind == operand_kind::vector && vector_element_variable(op, e, i, node, child)) {
                    child += node_count(e);
                    continue;
                }
                name_nodes(e, i, child);
                child += node_count(e);
            }
            return;
        }
        if (op.kind != operand_kind::name || names_free_) return;
        var_facts v = var_at(node);
        if (!v.is_var || is_handle(v)) return;
        std::string_view name = m_.str(op.name);
        if (!takes_address_ || i == 0) {
            fail(op.pos, fmt::format("operand {} of '{}' must be a register, but '{}' is a .{} variable", i + 1, op_,
                                     name, to_string(v.space)));
            return;
        }
        if (v.space == state_space::param && v.param == param_role::body) {
            fail(op.pos, fmt::format("operand {} of '{}': '{}' is a .param declared in a function body, whose address "
                                     "cannot be taken", i + 1, op_, name));
            return;
        }
        if (op_ == "cvta" && space_ && *space_ != v.space)
            return fail(op.pos, fmt::format("operand {} of 'cvta.{}' is the .{} variable '{}'; it needs a .{} variable",
                                            i + 1, space_word_, to_string(v.space), name, to_string(*space_)));
        // A .global address is 64 bits: ptxas takes mov.u32 of one as a
        // 32-bit ABI program and stops ("32-Bit compilation is no longer
        // supported"). With an offset (gv+4) it takes the low half.
        if (op_ == "mov" && v.space == state_space::global && !(op.flags & op_has_offset))
            for (auto& [w, wp] : mods_)
                if (data_type t = data_type_from(w); t != data_type::none && info_of(t).bits == 32)
                    return fail(op.pos, fmt::format("the address of the .global variable '{}' is 64 bits; 'mov.{}' "
                                                    "would make it a 32-bit address, which ptxas refuses (32-bit "
                                                    "addressing is not supported)", name, w));
    }

    // ptxas 13 takes a .global, .shared, .const or .local variable as an
    // element of a vector operand ({gv, %r1}, as destination too), sized by
    // its declared type like a register of that type, and refuses a .param
    // one. The ISA defines no such operand and ptxsim does not run it, so
    // lint agrees with ptxas and warns. True when `e` was such a variable.
    bool vector_element_variable(const operand& vec, const operand& e, size_t i, size_t vec_node, size_t node) {
        if (e.kind != operand_kind::name || names_free_) return false;
        var_facts v = var_at(node);
        // (ptxas refuses a parameter there but takes a .param declared in a body)
        if (!v.is_var || is_handle(v) || (v.space == state_space::param && v.param != param_role::body)) return false;
        std::string_view name = m_.str(e.name);
        uint32_t bits = info_of(v.type).bits;
        size_t child = vec_node + 1;
        for (const auto& other : vec.elems) { // "Incompatible elements of vector expression"
            data_type t = type_at(child);
            uint32_t w = t != data_type::none && t != data_type::pred ? info_of(t).bits : 0;
            if (w && bits && w != bits) {
                fail(e.pos, fmt::format("the elements of operand {} of '{}' must have one width, but the .{} variable "
                                        "'{}' is .{} and '{}' is .{}", i + 1, op_, to_string(v.space), name,
                                        to_string(v.type), m_.str(other.name), to_string(t)));
                return true;
            }
            child += node_count(other);
        }
        if (!warning_)
            warning_.emplace(e.pos, fmt::format("'{}' is a .{} variable, not a register; ptxas takes it as an element of "
                                                "operand {} of '{}', but the PTX ISA gives that no meaning and ptxsim "
                                                "cannot run it", name, to_string(v.space), i + 1, op_));
        return true;
    }

    void call_list(const operand& op, size_t node) {
        size_t child = node + 1;
        for (const auto& e : op.elems) {
            var_facts v = var_at(child);
            if (e.kind == operand_kind::name && v.is_var && v.space != state_space::param && !is_handle(v)) {
                fail(e.pos, fmt::format("call argument '{}' must be a .param variable or a register, but it is a .{} "
                                        "variable", m_.str(e.name), to_string(v.space)));
                return;
            }
            child += node_count(e);
        }
    }

    void address(const operand& op, size_t index, size_t node) {
        pos_t at = op.pos + 1;
        size_t copy_index = address_index_++;
        if (op.name == no_symbol) {
            if (op.elems.empty() && space_ != state_space::local)
                fail(at, fmt::format("operand {} of '{}': an absolute address [{}] is allowed only in .local space", index,
                                     name(), op.value));
            return;
        }
        std::string_view name = m_.str(op.name);
        if (is_vector_sreg(name)) {
            fail(at, fmt::format("the address in operand {} of '{}' cannot be the vector special register '{}'", index,
                                 op_, name));
            return;
        }
        data_type t = type_at(node);
        // (the instructions with operand roles have this judged with their types: check_operands.cpp)
        bool unroled = op_ == "mbarrier" || op_ == "cp" || op_ == "prefetch" || op_ == "prefetchu" ||
                       op_ == "applypriority" || op_ == "discard" || op_ == "tensormap" ||
                       (!mods_.empty() && mods_[0].first == "async");
        if (unroled && (t == data_type::pred || info_of(t).kind == type_kind::floating || info_of(t).kind == type_kind::half)) {
            fail(at, fmt::format("the address in operand {} of '{}' is an integer or bit-type register, but '{}' is .{}",
                                 index, op_, name, to_string(t)));
            return;
        }
        if (t == data_type::b128) {
            fail(at, fmt::format("the address in operand {} of '{}' must be a register of at most 64 bits, but '{}' is "
                                 ".b128", index, op_, name));
            return;
        }
        var_facts v = var_at(node);
        if (!v.is_var || is_handle(v)) return;
        if (op_ == "mbarrier" && v.space != state_space::shared) {
            fail(at, fmt::format("operand {} of '{}': '{}' is a .{} variable, but an mbarrier lives in .shared space",
                                 index, this->name(), name, to_string(v.space)));
            return;
        }
        if (copy_op_) {
            copy_address(op, index, copy_index, v, name);
            return;
        }
        if (!memory_op_) return;
        if (space_) {
            if (*space_ != v.space) {
                fail(at, fmt::format("operand {} of '{}.{}' is the .{} variable '{}'; it needs a .{} variable", index, op_,
                                     space_word_, to_string(v.space), name, to_string(*space_)));
                return;
            }
        } else if (v.space != state_space::global && v.space != state_space::shared && v.space != state_space::local) {
            fail(at, fmt::format("operand {} of '{}' is the .{} variable '{}', which a generic address cannot reach; "
                                 "name the space ('{}.{}')", index, op_, to_string(v.space), name, op_,
                                 to_string(v.space)));
            return;
        }
        if (v.space != state_space::param) return;
        if (op_ == "ld" && v.param == param_role::func_return)
            fail(at, fmt::format("operand {} of 'ld': '{}' is this function's return parameter, which cannot be read",
                                 index, name));
        else if (op_ == "st" && (v.param == param_role::entry_input || v.param == param_role::func_input))
            fail(at, fmt::format("operand {} of 'st': '{}' is an input parameter of this function, which cannot be "
                                 "written", index, name));
    }

    // cp.async.shared.global [dst], [src] and the like: the spaces name the
    // addresses in order; an address after them is the mbarrier (.shared).
    void copy_address(const operand& op, size_t index, size_t k, const var_facts& v, std::string_view name) {
        std::string_view want;
        size_t seen = 0;
        for (auto& [w, p] : mods_)
            if (space_of_word(w) && seen++ == k) want = w;
        if (want.empty() && has("mbarrier::complete_tx::bytes")) want = "shared";
        if (want.empty() || *space_of_word(want) == v.space) return;
        fail(op.pos + 1, fmt::format("operand {} of '{}' is the .{} variable '{}'; it needs a .{} variable", index, this->name(),
                                     to_string(v.space), name, want));
    }

    void modifiers() {
        // Vector atomics work on global memory only.
        if ((op_ == "atom" || op_ == "red") && memory_op_ && space_ && *space_ != state_space::global)
            for (auto& [w, p] : mods_)
                if (w == "v2" || w == "v4" || w == "v8") {
                    fail(p, fmt::format("'{}.{}' (a vector {}) needs .global space or a generic address, not .{}", op_, w,
                                        op_ == "atom" ? "atomic" : "reduction", space_word_));
                    return;
                }
        if (op_ != "ld" && op_ != "st") return;
        if (!mods_.empty() && (mods_[0].first == "async" || mods_[0].first == "bulk")) return;
        bool global_or_generic = !space_ || *space_ == state_space::global;
        for (auto& [w, p] : mods_) {
            if (w == "nc" && space_ != state_space::global) {
                fail(p, fmt::format("'.nc' on '{}' needs .global space ({}.global.nc)", op_, op_));
                return;
            }
            bool order = w == "volatile" || w == "relaxed" || w == "acquire" || w == "release";
            if (order && space_ &&
                (*space_ == state_space::local || *space_ == state_space::const_ || *space_ == state_space::param)) {
                fail(p, fmt::format("'.{}' on '{}' cannot be used with .{} space", w, op_, space_word_));
                return;
            }
            bool global_only = w == "mmio" || w.starts_with("L1::") || w == "L2::64B" || w == "L2::128B" ||
                               w == "L2::256B";
            if (global_only && !global_or_generic) {
                fail(p, fmt::format("'.{}' on '{}' needs .global space or a generic address, not .{}", w, op_,
                                    space_word_));
                return;
            }
        }
    }

    const module& m_;
    const instruction& ins_;
    std::span<const var_facts> vars_;
    std::span<const data_type> types_;
    std::string_view op_;
    word_list mods_;
    std::optional<state_space> space_;
    std::string_view space_word_;
    bool memory_op_ = false;
    bool copy_op_ = false;
    size_t address_index_ = 0; // of the next [...] operand, for copy_address()
    bool takes_address_ = false;
    bool names_free_ = false;
    std::optional<std::pair<pos_t, std::string>> problem_;
    std::optional<std::pair<pos_t, std::string>> warning_;
};

} // namespace

bool address_cache::contains(const instruction& ins) {
    key_.clear();
    auto put = [this](uint32_t v) { key_.append(reinterpret_cast<const char*>(&v), sizeof v); };
    put(ins.opcode);
    for (symbol s : ins.modifiers) put(s);
    return clean_.count(key_) != 0;
}

void check_addresses(const module& m, const instruction& ins, std::span<const var_facts> vars,
                     std::span<const data_type> types, diagnostics& d, address_cache& cache) {
    // Plain: no variable, no call list, every address a register of at most
    // 64 bits that is no vector special register. The verdict on a plain
    // instruction depends on its words only, so it is cached.
    bool plain = true, addresses = false;
    // (a .b128, predicate or float register is no plain address either)
    for (size_t i = 0; i < vars.size() && plain; ++i)
        plain = !vars[i].is_var && (i >= types.size() || (types[i] != data_type::b128 && types[i] != data_type::pred &&
                                                          info_of(types[i]).kind != type_kind::floating &&
                                                          info_of(types[i]).kind != type_kind::half));
    for (const auto& op : ins.operands) {
        if (op.kind == operand_kind::list) plain = false;
        if (op.kind != operand_kind::address) continue;
        addresses = true;
        if (op.name == no_symbol || is_vector_sreg(m.str(op.name))) plain = false;
    }
    if (plain && !addresses) {
        // Only these have rules on their words alone (ld/st modifiers, vector atomics, bulk copies).
        std::string_view op = m.str(ins.opcode);
        if (op != "ld" && op != "st" && op != "atom" && op != "red" && op != "cp") return;
    }
    if (plain && cache.contains(ins)) return;
    address_checker checker(m, ins, vars, types);
    if (auto p = checker.run()) d.error(*m.source, p->first, std::move(p->second));
    else if (const auto& w = checker.warning()) d.report(severity::warning, *m.source, w->first, w->second);
    else if (plain) cache.add();
}

} // namespace ptxsim::isa::detail
