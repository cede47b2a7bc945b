// Addresses and state spaces, as ptxas 13 (sm_90a) judges them; every rule
// here was confirmed with small probe files (docs/lint.md lists them):
//  - ld/ldu/st/atom/red/prefetch: a variable in [var] must live in the
//    space the instruction names (.shared, .shared::cta and
//    .shared::cluster all take a .shared variable; .param, .param::entry
//    and .param::func a .param one); with no space (generic) only .global,
//    .shared and .local variables can be reached.
//  - ld.param cannot read the function's own return parameter, st.param
//    cannot write its input parameters.
//  - [N], an absolute address, only in .local space.
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

#include <fmt/format.h>

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxsim::isa::detail {
namespace {

using namespace parser;

size_t node_count(const operand& op) {
    size_t n = 1;
    for (const auto& e : op.elems) n += node_count(e);
    return n;
}

std::optional<state_space> space_of_word(std::string_view w) {
    if (w == "global") return state_space::global;
    if (w == "shared" || w == "shared::cta" || w == "shared::cluster") return state_space::shared;
    if (w == "local") return state_space::local;
    if (w == "const") return state_space::const_;
    if (w == "param" || w == "param::entry" || w == "param::func") return state_space::param;
    return std::nullopt;
}

bool is_vector_sreg(std::string_view n) {
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
        takes_address_ = op_ == "mov" || (op_ == "cvta" && first != "to") || op_ == "mapa" || op_ == "getctarank";
        // Instructions whose operands name textures, surfaces or whole
        // parameter lists are left to their own rules.
        names_free_ = op_ == "call" || op_ == "tex" || op_ == "tld4" || op_ == "txq" || op_ == "suld" ||
                      op_ == "sust" || op_ == "sured" || op_ == "suq" || op_ == "istypep";
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

    void operands() {
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
            fail(op.pos, fmt::format("operand {} of 'cvta.{}' is the .{} variable '{}'; it needs a .{} variable", i + 1,
                                     space_word_, to_string(v.space), name, to_string(*space_)));
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
        if (op.name == no_symbol) {
            if (memory_op_ && op.elems.empty() && space_ != state_space::local)
                fail(at, fmt::format("operand {} of '{}': an absolute address [{}] is allowed only in .local space", index,
                                     op_, op.value));
            return;
        }
        std::string_view name = m_.str(op.name);
        if (is_vector_sreg(name)) {
            fail(at, fmt::format("the address in operand {} of '{}' cannot be the vector special register '{}'", index,
                                 op_, name));
            return;
        }
        data_type t = type_at(node);
        if (t == data_type::b128) {
            fail(at, fmt::format("the address in operand {} of '{}' must be a register of at most 64 bits, but '{}' is "
                                 ".b128", index, op_, name));
            return;
        }
        var_facts v = var_at(node);
        if (!v.is_var || is_handle(v)) return;
        if (op_ == "mbarrier" && v.space != state_space::shared) {
            fail(at, fmt::format("operand {} of 'mbarrier{}{}': '{}' is a .{} variable, but an mbarrier lives in .shared "
                                 "space", index, mods_.empty() ? "" : ".", mods_.empty() ? "" : mods_[0].first, name,
                                 to_string(v.space)));
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

    void modifiers() {
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
    std::vector<std::pair<std::string_view, pos_t>> mods_;
    std::optional<state_space> space_;
    std::string_view space_word_;
    bool memory_op_ = false;
    bool takes_address_ = false;
    bool names_free_ = false;
    std::optional<std::pair<pos_t, std::string>> problem_;
};

} // namespace

void check_addresses(const module& m, const instruction& ins, std::span<const var_facts> vars,
                     std::span<const data_type> types, diagnostics& d) {
    if (auto p = address_checker(m, ins, vars, types).run()) d.error(*m.source, p->first, std::move(p->second));
}

} // namespace ptxsim::isa::detail
