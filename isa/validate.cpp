// Module-level validation: .version/.target, declarations and their scopes,
// labels, and every instruction against the table (check_instruction.cpp).
// Names are resolved the way ptxas scopes them: module symbols, then the
// function's parameters and labels (labels are function-wide), then each
// enclosing { } block. A declaration is visible in its whole block, so
// order inside a block does not matter here (ptxas is as lenient).
#include "isa/validate.hpp"

#include <fmt/format.h>

#include <unordered_map>
#include <unordered_set>

#include "isa/detail/check_addresses.hpp"
#include "isa/detail/check_calls.hpp"
#include "isa/detail/check_instruction.hpp"
#include "isa/detail/declarations.hpp"
#include "isa/legacy_ptx.hpp"
#include "isa/special_registers.hpp"

namespace ptxsim::isa {
namespace {

using namespace parser;

// Lowest PTX ISA version (x10) that knows each target.
uint32_t min_version_for(uint32_t sm, const std::string& suffix) {
    struct entry { uint32_t sm; uint32_t ptx; uint32_t ptx_a; };
    static constexpr entry table[] = {
        {10, 10, 0},  {11, 10, 0},  {12, 12, 0},  {13, 12, 0},  {20, 20, 0},  {30, 31, 0},  {32, 40, 0},  {35, 31, 0},  {37, 41, 0},  {50, 40, 0},  {52, 41, 0},
        {53, 42, 0},  {60, 50, 0},  {61, 50, 0},  {62, 50, 0},  {70, 60, 0},  {72, 61, 0},  {75, 63, 0},
        {80, 70, 0},  {86, 71, 0},  {87, 74, 0},  {88, 90, 0},  {89, 78, 0},  {90, 78, 80}, {100, 86, 86},
        {101, 86, 86}, {103, 88, 88}, {110, 90, 90}, {120, 87, 87}, {121, 88, 88},
    };
    for (const auto& e : table)
        if (e.sm == sm) return suffix.empty() ? e.ptx : std::max(e.ptx, e.ptx_a ? e.ptx_a : e.ptx);
    return 0;
}

// Each name with its register type (data_type::none when it is no
// register: a variable, label, function), for the operand type checks.
struct scope {
    struct reg { data_type type; uint8_t vec; const var_decl* decl; }; // vec: 2, 4 for a vector register (.reg .v2 .f32)
    std::unordered_map<symbol, reg> names;
    std::unordered_map<symbol, const prototype_decl*> prototypes; // .callprototype labels, for calls
    struct range { uint32_t count; data_type type; uint8_t vec; };
    std::unordered_map<uint32_t, range> ranges; // %r<100>: id of "%r" -> {100, type}
    // Single names ending in a number (%r5), with where they are declared:
    // ptxas refuses one that a range of the same scope also declares.
    std::vector<std::pair<symbol, pos_t>> numbered;
    std::unordered_map<symbol, detail::var_facts> vars; // names declared in a space other than .reg
    std::unordered_map<uint32_t, detail::var_facts> var_ranges; // .const .b32 %c<4> and the like
};

// What a name's text says, worked out once per symbol: is it predefined,
// does it carry a component (%tid.x, %r1.b0), and its (base's) prefix and number (%r12).
struct name_info {
    bool computed = false;
    bool predefined = false;
    bool has_component = false;
    symbol base = no_symbol;  // %tid for %tid.x
    uint32_t prefix = 0;      // prefix id for %r12; 0 when the name has no number
    uint64_t number = 0;
};

class validator {
public:
    validator(const module& m, diagnostics& d, const validate_options& o) : m_(m), d_(d), options_(o) {}

    void run() {
        module_header();
        scope globals;
        std::unordered_map<symbol, linkage> links; // of each module variable declared so far
        std::unordered_map<symbol, const var_decl*> first_decl; // and its first declaration
        std::unordered_map<symbol, const function*> functions; // the first declaration of each
        std::unordered_set<symbol> aliased;
        for (const auto& item : m_.items) {
            if (auto f = std::get_if<const function*>(&item.node)) {
                declare(globals, (*f)->name, (*f)->pos, /*allow_redeclare=*/true);
                earlier_.emplace((*f)->name, detail::addressable::function);
                auto [first, fresh_fn] = functions.emplace((*f)->name, *f);
                functions_.emplace((*f)->name, *f);
                if (!fresh_fn) detail::check_same_prototype(m_, *first->second, **f, (*f)->pos, "function", d_);
                if ((*f)->has_body) {
                    auto [it, fresh] = bodies_.emplace((*f)->name, (*f)->pos);
                    if (!fresh) error((*f)->pos, fmt::format("function '{}' is defined twice", m_.str((*f)->name)));
                }
                function_head(**f);
            } else if (auto v = std::get_if<const var_decl*>(&item.node)) {
                // An .extern declaration may meet the definition; any other
                // pair (.weak or .common ones included) is a duplicate to ptxas.
                auto [prev, fresh] = links.emplace((*v)->name, (*v)->link);
                bool redeclare = !fresh && (prev->second == linkage::extern_ || (*v)->link == linkage::extern_);
                if (!fresh && prev->second == linkage::extern_ && (*v)->link == linkage::none)
                    error((*v)->pos, fmt::format("'{}' is declared .extern above; its definition must be .visible, .weak or "
                                                 ".common, not file-local",
                                                 m_.str((*v)->name)));
                if (!fresh && (*v)->link != linkage::extern_) prev->second = (*v)->link;
                if (auto [first, fresh_decl] = first_decl.emplace((*v)->name, *v); !fresh_decl && redeclare)
                    same_shape(*first->second, **v);
                declare_var(globals, **v, redeclare);
                detail::check_declaration(m_, facts_, **v, detail::decl_place::module, earlier_, d_);
                earlier_.emplace((*v)->name, (*v)->space == state_space::global || (*v)->space == state_space::const_
                                                 ? detail::addressable::global_or_const
                                                 : detail::addressable::other_space);
            } else if (auto a = std::get_if<alias_directive>(&item.node)) {
                declare(globals, a->alias, a->pos, true);
                if (!aliased.insert(a->alias).second)
                    error(a->pos, fmt::format("'{}' is already an alias; it cannot be aliased again", m_.str(a->alias)));
                auto alias = functions.find(a->alias), target = functions.find(a->target);
                if (alias != functions.end() && target != functions.end())
                    detail::check_same_prototype(m_, *target->second, *alias->second, a->pos, "alias", d_);
            }
        }
        check_numbered(globals);
        scopes_.push_back(&globals);
        for (const auto& item : m_.items)
            if (auto f = std::get_if<const function*>(&item.node)) function_body(**f);
    }

private:
    void error(pos_t p, std::string msg) { d_.error(*m_.source, p, std::move(msg)); }

    // An .extern declaration and the other declarations of the variable
    // agree on type, vector and array sizes (an unsized [] meets any size);
    // ptxas: "Inconsistent redefinition of variable".
    void same_shape(const var_decl& a, const var_decl& b) {
        bool same = a.type == b.type && a.vec == b.vec && a.dims.size() == b.dims.size();
        for (size_t i = 0; same && i < a.dims.size(); ++i)
            same = a.dims[i] == b.dims[i] || a.dims[i] == 0 || b.dims[i] == 0;
        if (same) return;
        auto shape = [](const var_decl& v) {
            std::string s = v.vec ? fmt::format(".v{} .{}", v.vec, to_string(v.type)) : fmt::format(".{}", to_string(v.type));
            for (uint64_t d : v.dims) s += d ? fmt::format("[{}]", d) : "[]";
            return s;
        };
        error(b.pos, fmt::format("'{}' is declared {} above and {} here; the declarations of a variable must agree",
                                 m_.str(b.name), shape(a), shape(b)));
    }

    void module_header() {
        if (!m_.has_version) {
            error(first_pos(), "missing .version directive (for example .version 9.0) at the start of the module");
        } else if (m_.version.major != 0) { // 0.0: the directive was unreadable and is reported already
            facts_.ptx_version = m_.version.as_int();
            if (m_.version.minor > 9)
                error(m_.version_pos, fmt::format("invalid PTX ISA version {}.{}", m_.version.major, m_.version.minor));
            else if (facts_.ptx_version > newest_ptx_version && options_.allow_newer_version)
                d_.report(severity::warning, *m_.source, m_.version_pos,
                          fmt::format("PTX ISA {}.{} is newer than the 9.0 that ptxsim knows; checking as 9.0",
                                      m_.version.major, m_.version.minor));
            else if (facts_.ptx_version > newest_ptx_version) // ptxas 13.0: "Unsupported .version"
                error(m_.version_pos, fmt::format("PTX ISA {}.{} is newer than 9.0, the newest ptxsim and ptxas 13.0 know "
                                                  "(--allow-newer-version checks it as 9.0)",
                                                  m_.version.major, m_.version.minor));
        }
        // ptxas 13: "32-Bit compilation is no longer supported" (sm_90+: "32-Bit ABI ... is not supported").
        if (m_.address_size == 32)
            error(m_.address_size_pos, ".address_size 32: ptxas 13 no longer compiles 32-bit PTX; use .address_size 64");
        if (m_.target.empty()) {
            error(first_pos(), "missing .target directive (for example .target sm_90a)");
            return;
        }
        for (symbol t : m_.target) {
            std::string_view name = m_.str(t);
            uint32_t sm;
            std::string suffix;
            if (parse_target_name(name, sm, suffix)) {
                if (!facts_.target.empty()) { // ptxas takes this and compiles for the -arch it is given
                    d_.report(severity::warning, *m_.source, m_.target_pos,
                              fmt::format(".target names two architectures; checking against the first, {}", facts_.target));
                    continue;
                }
                uint32_t need = min_version_for(sm, suffix);
                if (need == 0) {
                    error(m_.target_pos, fmt::format("unknown target architecture '{}'", name));
                    continue;
                }
                facts_.target = std::string(name);
                facts_.sm1x = targets_sm1x(m_);
                if (facts_.ptx_version && need > facts_.ptx_version)
                    error(m_.target_pos, fmt::format("target {} needs PTX ISA {}.{} or later, but the file declares .version {}.{}",
                                                     name, need / 10, need % 10, m_.version.major, m_.version.minor));
            } else if (name == "map_f64_to_f32") {
                map_f64_ = true;
            } else if (name != "debug" && name != "texmode_unified" && name != "texmode_independent") {
                error(m_.target_pos, fmt::format("unknown target '{}'", name));
            }
        }
    }
    pos_t first_pos() const { return 0; }

    // .target map_f64_to_f32 (sm_10-sm_12 had no double precision): ptxas
    // runs .f64 instructions as .f32. ptxsim does not, so it refuses them
    // rather than give double-precision bits; modules without any run.
    void check_f64_mapping(const instruction& ins) {
        uint32_t sm = 0;
        std::string suffix;
        if (parse_target_name(facts_.target, sm, suffix) && sm >= 13) {
            error(m_.target_pos, fmt::format("map_f64_to_f32 is for sm_10 to sm_12; ptxas refuses it for {}", facts_.target));
            map_f64_ = false;
            return;
        }
        for (symbol w : ins.modifiers)
            if (m_.str(w) == "f64") {
                error(ins.pos, "ptxsim does not implement .target map_f64_to_f32: this .f64 instruction would run as .f32 "
                               "under ptxas (build the PTX for sm_13 or later to keep double precision)");
                map_f64_ = false;
                return;
            }
    }

    void declare(scope& s, symbol name, pos_t p, bool allow_redeclare, data_type type = data_type::none, uint8_t vec = 0,
                 const var_decl* decl = nullptr) {
        if (!s.names.emplace(name, scope::reg{type, vec, decl}).second && !allow_redeclare)
            error(p, fmt::format("'{}' is already declared in this scope", m_.str(name)));
    }
    uint32_t prefix_id(std::string_view prefix) {
        auto [it, fresh] = prefix_ids_.emplace(prefix, static_cast<uint32_t>(prefix_ids_.size() + 1));
        return it->second;
    }

    const name_info& info(symbol name) {
        if (name >= infos_.size()) infos_.resize(m_.symbols.size());
        name_info& in = infos_[name];
        if (in.computed) return in;
        in.computed = true;
        std::string_view text = m_.str(name);
        size_t dot = text.find('.');
        std::string_view base = text.substr(0, dot);
        in.predefined = is_predefined(base);
        if (dot != std::string_view::npos) { // %tid.x, or a video selector (%r1.b0, whose %r1 may come from %r<N>)
            in.has_component = true;
            in.base = m_.symbols.find(base);
        }
        size_t d = base.size();
        while (d > 0 && base[d - 1] >= '0' && base[d - 1] <= '9') --d;
        std::string_view digits = base.substr(d);
        if (d == base.size() || d == 0 || digits.size() > 18) return in;
        // %r01 is %r1 to ptxas, so leading zeros are fine.
        for (char c : digits) in.number = in.number * 10 + static_cast<uint64_t>(c - '0');
        in.prefix = prefix_id(base.substr(0, d));
        return in;
    }

    void declare_var(scope& s, const var_decl& v, bool allow_redeclare,
                     detail::param_role role = detail::param_role::none) {
        if (v.space != state_space::reg) {
            detail::var_facts facts{true, v.space, v.space == state_space::param ? role : detail::param_role::none, v.type};
            if (v.is_range) s.var_ranges[prefix_id(m_.str(v.name))] = facts;
            else s.vars[v.name] = facts;
        }
        // A scalar register's type; vector registers (.reg .v2 .f32) are not judged.
        data_type type = v.space == state_space::reg && v.vec == 0 ? v.type : data_type::none;
        uint8_t vec = v.space == state_space::reg ? static_cast<uint8_t>(v.vec) : 0;
        if (v.is_range) { // ptxas: one range per name and scope, whatever the sizes or types
            auto [it, fresh] = s.ranges.emplace(prefix_id(m_.str(v.name)), scope::range{v.range, type, vec});
            if (!fresh) {
                error(v.pos, fmt::format("registers '{}<...>' are already declared in this scope", m_.str(v.name)));
                it->second.count = std::max(it->second.count, v.range);
            }
        } else if (m_.str(v.name) != "_") {
            declare(s, v.name, v.pos, allow_redeclare, type, vec, &v);
            if (info(v.name).prefix) s.numbered.emplace_back(v.name, v.pos);
        }
    }

    // %r2 beside %r<4> in one scope, in either order, is declared twice.
    void check_numbered(const scope& s) {
        if (s.ranges.empty()) return;
        for (const auto& [name, p] : s.numbered) {
            const name_info& in = info(name);
            auto r = s.ranges.find(in.prefix);
            if (r != s.ranges.end() && in.number < r->second.count)
                error(p, fmt::format("'{}' is already declared in this scope by a register range", m_.str(name)));
        }
    }

    void function_head(const function& f) {
        auto place = f.is_entry ? detail::decl_place::entry_param : detail::decl_place::func_param;
        for (const auto& p : f.ret) detail::check_declaration(m_, facts_, p, place, earlier_, d_);
        for (const auto& p : f.params) detail::check_declaration(m_, facts_, p, place, earlier_, d_);
        detail::check_parameter_list(m_, f, d_);
        detail::check_directives(m_, facts_, f, d_);
    }

    // Whether `name` is declared here; `type` is its register type (none for
    // anything else, predefined registers and %r1.b0 selectors included).
    bool resolve(symbol name, data_type& type) {
        uint8_t flags;
        return resolve(name, type, flags);
    }
    // Also what check_operand_rules wants to know of the name (detail::node_flags).
    bool resolve(symbol name, data_type& type, uint8_t& flags) {
        type = data_type::none;
        flags = 0;
        const name_info& in = info(name);
        // Innermost scope first: a name declared in a block hides an outer
        // range (%p1 declared .b128 inside a block beside an outer %p<4>).
        for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
            if (auto n = (*it)->names.find(name); n != (*it)->names.end()) {
                type = n->second.type;
                flags = in.has_component ? (n->second.vec ? 0 : detail::node_selector) : n->second.vec;
                return true;
            }
            if (!in.prefix) continue;
            auto r = (*it)->ranges.find(in.prefix);
            if (r != (*it)->ranges.end() && in.number < r->second.count) {
                type = r->second.type;
                flags = in.has_component ? (r->second.vec ? 0 : detail::node_selector) : r->second.vec;
                return true;
            }
        }
        if (in.predefined) {
            if (m_.str(name) != "WARP_SZ") flags = detail::node_special;
            return true;
        }
        if (!in.has_component || in.base == no_symbol) return false;
        data_type base_type;
        uint8_t base_flags;
        if (!resolve(in.base, base_type, base_flags)) return false;
        // %tid.x is a scalar special register; %r1.b0 a register with a (video) selector
        // (%v.x of a vector register %v is one element)
        flags = (base_flags & detail::node_special) ? detail::node_special
                : (base_flags & detail::node_vec_mask) ? 0
                                                       : detail::node_selector;
        if (!(base_flags & detail::node_special) && (base_flags & detail::node_vec_mask)) // one element: its type
            for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
                if (auto n = (*it)->names.find(in.base); n != (*it)->names.end()) {
                    if (n->second.decl) type = n->second.decl->type;
                    break;
                }
        return true;
    }
    // What the innermost declaration of `name` says when it is a variable.
    detail::var_facts var_of(symbol name) {
        const name_info& in = info(name);
        for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) { // innermost first, as resolve
            if ((*it)->names.count(name)) {
                auto v = (*it)->vars.find(name);
                return v != (*it)->vars.end() ? v->second : detail::var_facts{};
            }
            if (!in.prefix) continue;
            auto r = (*it)->ranges.find(in.prefix);
            if (r == (*it)->ranges.end() || in.number >= r->second.count) continue;
            auto v = (*it)->var_ranges.find(in.prefix);
            return v != (*it)->var_ranges.end() ? v->second : detail::var_facts{};
        }
        return {};
    }
    bool defined(symbol name) {
        data_type ignored;
        return resolve(name, ignored);
    }

    // Resolves every name of `op` (and its elements, in pre-order) into
    // types_, the operand types check_instruction wants; undeclared names
    // are reported after the instruction's own problems, in operand order.
    void use(const operand& op) {
        data_type type = data_type::none;
        uint8_t flags = 0;
        if ((op.kind == operand_kind::name || op.kind == operand_kind::address) && op.name != no_symbol &&
            !resolve(op.name, type, flags))
            undeclared_.push_back(&op);
        types_.push_back(type);
        vars_.push_back(type == data_type::none && op.name != no_symbol ? var_of(op.name) : detail::var_facts{});
        flags_.push_back(flags);
        for (const auto& e : op.elems) use(e);
    }
    void report_undeclared() {
        for (const operand* op : undeclared_)
            error(op->pos + (op->kind == operand_kind::address ? 1 : 0) + ((op->flags & op_negated) ? 1 : 0),
                  fmt::format("'{}' is not declared", m_.str(op->name)));
    }

    // `@%r1 bra L`: ptxas wants a predicate expression.
    void guard(const instruction& ins) {
        data_type type;
        uint8_t flags;
        pos_t p = ins.pos + 1 + (ins.guard_negated ? 1 : 0);
        if (!resolve(ins.guard, type, flags))
            error(p, fmt::format("'{}' is not declared", m_.str(ins.guard)));
        else if ((flags & detail::node_special) && m_.str(ins.guard) != "%is_explicit_cluster")
            error(p, fmt::format("the guard '{}' must be a predicate register, but it is a special register",
                                 m_.str(ins.guard)));
        else if (type != data_type::none && type != data_type::pred)
            error(p, fmt::format("the guard '{}' must be a predicate register, but it is declared .{}", m_.str(ins.guard),
                                 to_string(type)));
    }

    // Labels are visible in their whole block and the blocks inside it; the
    // same label may appear in sibling blocks (inlined asm does this).
    void collect_labels(list<statement> body, scope& s) {
        for (const auto& st : body) {
            if (auto l = std::get_if<label_stmt>(&st.node)) {
                declare(s, l->name, l->pos, false);
            } else if (auto p = std::get_if<const prototype_decl*>(&st.node)) {
                declare(s, (*p)->label, (*p)->pos, false);
                s.prototypes.emplace((*p)->label, *p);
                for (const auto* params : {&(*p)->ret, &(*p)->params}) // as a function's: .param or .reg
                    for (const auto& v : *params)
                        if (v.space != state_space::param && v.space != state_space::reg)
                            error(v.pos, fmt::format("a .callprototype parameter is in .param or .reg, not .{}",
                                                     to_string(v.space)));
            } else if (auto t = std::get_if<const targets_decl*>(&st.node)) {
                declare(s, (*t)->label, (*t)->pos, false);
            }
        }
    }

    // Parameters and the body's outermost declarations share one scope:
    // ptxas refuses a .reg named like a parameter there (not in a nested block).
    void function_body(const function& f) {
        scope params;
        for (const auto& p : f.ret) declare_var(params, p, false, detail::param_role::func_return);
        for (const auto& p : f.params)
            declare_var(params, p, false, f.is_entry ? detail::param_role::entry_input : detail::param_role::func_input);
        block(f.body, &params);
    }

    void block(list<statement> body, scope* outer = nullptr) {
        scope nested;
        scope& local = outer ? *outer : nested;
        for (const auto& st : body)
            if (auto d = std::get_if<decl_stmt>(&st.node)) {
                declare_var(local, *d->decl, false, detail::param_role::body);
                detail::check_declaration(m_, facts_, *d->decl, detail::decl_place::body, earlier_, d_);
            }
        collect_labels(body, local);
        check_numbered(local);
        scopes_.push_back(&local);
        for (const auto& st : body) {
            if (auto ins = std::get_if<instruction>(&st.node)) {
                if (ins->guard != no_symbol) guard(*ins);
                if (map_f64_) check_f64_mapping(*ins);
                types_.clear();
                vars_.clear();
                flags_.clear();
                undeclared_.clear();
                for (const auto& op : ins->operands) use(op);
                if (detail::check_instruction(m_, facts_, *ins, types_, flags_, d_, checked_) && m_.str(ins->opcode) == "call")
                    detail::check_call(m_, *ins, call_lookup_, d_);
                detail::check_addresses(m_, *ins, vars_, types_, d_, addresses_checked_);
                report_undeclared();
            } else if (auto b = std::get_if<const block_stmt*>(&st.node)) {
                block((*b)->body);
            } else if (auto t = std::get_if<const targets_decl*>(&st.node)) {
                for (symbol target : (*t)->targets)
                    if (!defined(target)) error((*t)->pos, fmt::format("'{}' is not declared", m_.str(target)));
            }
        }
        scopes_.pop_back();
    }

    const module& m_;
    diagnostics& d_;
    validate_options options_;
    detail::module_facts facts_;
    bool map_f64_ = false; // .target map_f64_to_f32, until its one error
    detail::earlier_symbols earlier_;
    std::vector<scope*> scopes_;
    std::unordered_map<symbol, pos_t> bodies_;
    std::vector<name_info> infos_;
    std::unordered_map<std::string_view, uint32_t> prefix_ids_;
    detail::instruction_cache checked_;
    detail::address_cache addresses_checked_;
    std::unordered_map<symbol, const function*> functions_; // the first declaration of each, for calls
    // What check_call asks of the names in scope.
    detail::call_lookup call_lookup_{
        [this](symbol s) -> const function* {
            auto f = functions_.find(s);
            return f == functions_.end() ? nullptr : f->second;
        },
        [this](symbol s) -> const prototype_decl* {
            for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
                if (auto p = (*it)->prototypes.find(s); p != (*it)->prototypes.end()) return p->second;
            return nullptr;
        },
        [this](symbol s) -> const var_decl* {
            for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
                if (auto n = (*it)->names.find(s); n != (*it)->names.end()) return n->second.decl;
            return nullptr;
        },
        [this](symbol s) {
            data_type t;
            return resolve(s, t) ? t : data_type::none;
        },
    };
    std::vector<data_type> types_;           // of the instruction being checked, see use()
    std::vector<detail::var_facts> vars_;    // likewise, what each operand node names
    std::vector<uint8_t> flags_;             // detail::node_flags of each operand node, see use()
    std::vector<const operand*> undeclared_;
};

} // namespace

void validate(const module& m, diagnostics& d, const validate_options& options) { validator(m, d, options).run(); }

} // namespace ptxsim::isa
