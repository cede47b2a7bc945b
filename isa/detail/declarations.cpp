// Declaration and directive checks, each rule taken from what ptxas 13
// accepts and refuses (tests/malformed/cases/decl_*.ptx hold one case per
// rule, kernels/corpus/hand/hand_decl_*.ptx the odd forms that are legal).
#include "isa/detail/declarations.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "isa/op_table.hpp"

namespace ptxsim::isa::detail {
namespace {

using namespace parser;

bool is_float(data_type t) { return t == data_type::f32 || t == data_type::f64; }
bool is_bits(data_type t) {
    return t == data_type::b8 || t == data_type::b16 || t == data_type::b32 || t == data_type::b64 || t == data_type::b128;
}

// Types that name instruction operands only: ptxas has no variable of them.
bool instruction_only(data_type t) {
    switch (t) {
    case data_type::tf32: case data_type::bf16: case data_type::bf16x2: case data_type::e4m3:
    case data_type::e5m2: case data_type::e4m3x2: case data_type::e5m2x2:
        return true;
    default:
        return false;
    }
}

class initializer_check {
public:
    initializer_check(const module& m, const var_decl& v, const earlier_symbols& earlier, diagnostics& d)
        : m_(m), v_(v), earlier_(earlier), d_(d) {
        for (uint64_t n : v.dims) levels_.push_back(n);
        if (v.vec) levels_.push_back(v.vec);
        vector_level_ = v.vec ? levels_.size() - 1 : levels_.size();
    }

    void run() {
        const initializer& in = v_.init;
        if (v_.type == data_type::f16 || v_.type == data_type::f16x2)
            return error(fmt::format("'{}' cannot have an initial value: ptxas takes none for .{} variables", name(),
                                     to_string(v_.type)));
        if (levels_.empty()) {
            if (in.braced) return error(fmt::format("the initial value of the scalar '{}' is written without braces", name()));
        } else if (!in.braced) {
            return error(fmt::format("the initial value of '{}' needs braces: it is {}", name(),
                                     v_.dims.empty() ? "a vector" : "an array"));
        }
        if (!in.ints.empty()) {
            if (!levels_.empty() && !count_ok(0, in.ints.size())) return;
            if (levels_.size() > 1) return nesting_error(0);
            if (!is_float(v_.type) || in.ints.empty()) return;
            return error(integer_for_float());
        }
        if (levels_.empty()) {
            if (!in.items.empty()) item(in.items[0], 0);
            return;
        }
        list(in.items, 0);
    }

private:
    std::string_view name() const { return m_.str(v_.name); }
    void error(std::string msg) {
        if (!reported_) d_.error(*m_.source, v_.pos, std::move(msg));
        reported_ = true; // one message per declaration, as ptxas stops at the first
    }
    std::string integer_for_float() const {
        return fmt::format("an integer initial value for the .{} variable '{}': write floating-point values (1.0, 0f3F800000)",
                           to_string(v_.type), name());
    }

    bool count_ok(size_t level, size_t count) {
        uint64_t limit = levels_[level];
        if (level == vector_level_ && count != limit) {
            error(fmt::format("the vector initial value of '{}' has {} elements; .v{} takes {}", name(), count, limit, limit));
            return false;
        }
        if (limit != 0 && count > limit) {
            error(fmt::format("too many initial values for '{}': {} for {} elements", name(), count, limit));
            return false;
        }
        return true;
    }
    void nesting_error(size_t level) {
        error(fmt::format("the initial value of '{}' needs a {{ }} list for each element of its {}", name(),
                          level + 1 == vector_level_ ? std::string("vector type") : fmt::format("dimension {}", level + 2)));
    }

    // A { } list at `level` of the type's dimensions.
    void list(parser::list<init_item> items, size_t level) {
        if (!count_ok(level, items.size())) return;
        bool last = level + 1 == levels_.size();
        for (const auto& it : items) {
            if (reported_) return;
            if (it.kind == init_kind::nested) {
                if (last) return error(fmt::format("the initial value of '{}' has more levels of {{ }} than its type", name()));
                list(it.elems, level + 1);
            } else if (!last) {
                return nesting_error(level);
            } else {
                item(it, level);
            }
        }
    }

    void item(const init_item& it, size_t) {
        data_type t = v_.type;
        switch (it.kind) {
        case init_kind::integer:
            if (is_float(t)) error(integer_for_float());
            break;
        case init_kind::f32:
        case init_kind::f64:
            if (!is_float(t) && !is_bits(t))
                error(fmt::format("a floating-point initial value for the .{} variable '{}'", to_string(t), name()));
            break;
        case init_kind::symbol:
        case init_kind::generic:
            address_of(it.sym);
            break;
        case init_kind::difference:
            error(fmt::format("the initial value of '{}' subtracts two addresses; ptxas takes an address plus a constant only",
                              name()));
            break;
        case init_kind::nested:
            error(fmt::format("the initial value of the scalar '{}' is written without braces", name()));
            break;
        }
    }

    void address_of(symbol s) {
        if (v_.type != data_type::u32 && v_.type != data_type::u64)
            return error(fmt::format("'{}' holds the address of '{}' and must be .u32 or .u64, not .{}", name(), m_.str(s),
                                     to_string(v_.type)));
        auto e = earlier_.find(s);
        if (e == earlier_.end())
            return error(fmt::format("'{}' in the initial value of '{}' is not a variable or function declared before it",
                                     m_.str(s), name()));
        if (e->second == addressable::other_space)
            error(fmt::format("'{}' in the initial value of '{}' is not in .global or .const; only their addresses and "
                              "functions' can be initial values",
                              m_.str(s), name()));
    }

    const module& m_;
    const var_decl& v_;
    const earlier_symbols& earlier_;
    diagnostics& d_;
    std::vector<uint64_t> levels_;  // dimensions, then the vector width
    size_t vector_level_;           // index of the vector level; levels_.size() when scalar elements
    bool reported_ = false;
};

struct directive_rule {
    std::string_view name;
    uint8_t min_values, max_values;
    bool entry, func;      // where it may stand
    bool positive;         // 0 is refused ("Positive non-zero value expected")
    uint32_t min_sm;       // 0: any target
    uint32_t min_ptx;      // x10
};

constexpr directive_rule directive_rules[] = {
    {"maxntid", 1, 3, true, false, true, 0, 0},
    {"reqntid", 1, 3, true, false, true, 0, 21},
    {"minnctapersm", 1, 1, true, false, true, 0, 20},
    {"maxnreg", 1, 1, true, false, true, 0, 13},
    {"reqnctapercluster", 1, 3, true, false, false, 90, 78},
    {"maxclusterrank", 1, 1, true, false, false, 90, 78},
    {"explicitcluster", 0, 0, true, false, false, 90, 78},
    {"blocksareclusters", 0, 0, true, false, false, 90, 90},
    {"noreturn", 0, 0, false, true, false, 0, 64},
    {"abi_preserve", 1, 1, false, true, false, 0, 90},
    {"abi_preserve_control", 1, 1, false, true, false, 0, 90},
};

} // namespace

void check_declaration(const module& m, const module_facts& facts, const var_decl& v, decl_place place,
                       const earlier_symbols& earlier, diagnostics& d) {
    (void)facts;
    auto error = [&](std::string msg) { d.error(*m.source, v.pos, std::move(msg)); };
    std::string_view name = m.str(v.name);
    std::string_view space = to_string(v.space);
    if (v.space_suffix != no_symbol)
        return error(fmt::format("a variable is declared in .{}, without '::{}'", space, m.str(v.space_suffix)));
    switch (place) {
    case decl_place::module:
        if (v.space == state_space::reg || v.space == state_space::local)
            return error(fmt::format("'{}' cannot be declared in .{} at module scope; declare it inside a function", name, space));
        if (v.space == state_space::param)
            return error(fmt::format("'{}': .param variables are declared in a function's parameter list or body, not at module "
                                     "scope",
                                     name));
        break;
    case decl_place::entry_param:
        if (v.space != state_space::param)
            return error(fmt::format("kernel parameter '{}' must be in .param, not .{}", name, space));
        break;
    case decl_place::func_param:
        if (v.space != state_space::param && v.space != state_space::reg)
            return error(fmt::format("function parameter '{}' must be in .param or .reg, not .{}", name, space));
        break;
    case decl_place::body:
        break;
    }
    if (v.is_ptr && v.ptr_has_space && v.ptr_space != state_space::global && v.ptr_space != state_space::shared &&
        v.ptr_space != state_space::const_ && v.ptr_space != state_space::local)
        return error(fmt::format("'{}' points to .{}; a .ptr names .global, .shared, .const or .local", name,
                                 to_string(v.ptr_space)));
    if (instruction_only(v.type))
        return error(fmt::format(".{} is an instruction type only; declare '{}' as .b{}", to_string(v.type), name,
                                 8 * size_of(v.type)));
    if (v.type == data_type::pred) {
        if (v.space != state_space::reg)
            return error(fmt::format("predicate '{}' must be declared in .reg, not .{}", name, space));
        if (v.vec) return error(fmt::format("predicate '{}' cannot be a vector", name));
    }
    if (v.space == state_space::reg && !v.dims.empty())
        return error(fmt::format("'{}' is an array and cannot live in registers; declare it in .local", name));
    // ptxas limits a .func parameter (and a call argument) to 128; a kernel parameter may be aligned further.
    if (v.space == state_space::param && v.align > 128 && place != decl_place::entry_param)
        return error(fmt::format("parameter '{}' is aligned to {} bytes; a parameter's alignment is at most 128", name, v.align));
    // ptxas allocates a vector (or .f16x2) parameter only as an array (.v2.u32 p[1] is fine).
    if ((v.vec || v.type == data_type::f16x2) && v.space == state_space::param && v.dims.empty())
        return error(fmt::format("parameter '{}' cannot be a single vector; declare it as an array ({}[1]) or as .align {} "
                                 ".b8 {}[{}]",
                                 name, name, std::max<uint32_t>(1, v.vec) * size_of(v.type), name, std::max<uint32_t>(1, v.vec) * size_of(v.type)));
    // ptxas: "Non-external variable has incomplete type" (parameters aside).
    if (place == decl_place::module || place == decl_place::body) {
        for (size_t i = 0; i < v.dims.size(); ++i)
            if (v.dims[i] == 0 && (i > 0 || (v.link != linkage::extern_ && !v.init.present)))
                return error(fmt::format("array '{}' has no size: only an .extern array or one with an initial value may "
                                         "leave it out, and a dimension is never 0",
                                         name));
    }
    if (v.vec == 8) return error(fmt::format("a variable is .v2 or .v4; '{}' is declared .v8", name));
    if (v.vec && v.vec * size_of(v.type) > 16)
        return error(fmt::format("'{}' is a vector of {} bits; a vector variable holds at most 128", name,
                                 8 * v.vec * size_of(v.type)));
    if (v.init.present) initializer_check(m, v, earlier, d).run();
}

namespace {
const char* parameter_difference(const var_decl& a, const var_decl& b) {
    if (a.space != b.space) return "state space";
    if (a.type != b.type || a.vec != b.vec || a.dims.size() != b.dims.size()) return "type";
    for (size_t i = 0; i < a.dims.size(); ++i)
        if (a.dims[i] != b.dims[i]) return "type";
    uint32_t natural = a.vec ? a.vec * size_of(a.type) : size_of(a.type);
    if ((a.align ? a.align : natural) != (b.align ? b.align : natural)) return "alignment";
    return nullptr;
}
} // namespace

void check_same_prototype(const module& m, const function& first, const function& again, pos_t where, std::string_view what,
                          diagnostics& d) {
    auto compare = [&](parser::list<var_decl> a, parser::list<var_decl> b, const char* role) {
        if (a.size() != b.size()) {
            d.error(*m.source, where, fmt::format("{} '{}' has {} {} parameters, but '{}' above has {}", what,
                                                  m.str(again.name), b.size(), role, m.str(first.name), a.size()));
            return false;
        }
        for (size_t i = 0; i < a.size(); ++i)
            if (const char* diff = parameter_difference(a[i], b[i])) {
                d.error(*m.source, b[i].pos, fmt::format("{} parameter {} of {} '{}' differs in {} from '{}' above", role, i + 1,
                                                         what, m.str(again.name), diff, m.str(first.name)));
                return false;
            }
        return true;
    };
    if (compare(first.ret, again.ret, "return")) compare(first.params, again.params, "input");
}

void check_parameter_list(const module& m, const function& f, diagnostics& d) {
    auto unsized = [](const var_decl& v) { return !v.dims.empty() && v.dims[0] == 0; };
    for (const auto& r : f.ret)
        if (unsized(r)) d.error(*m.source, r.pos, fmt::format("return parameter '{}' cannot be an array without a size", m.str(r.name)));
    for (size_t i = 0; i + 1 < f.params.size(); ++i)
        if (unsized(f.params[i]))
            d.error(*m.source, f.params[i].pos,
                    fmt::format("only the last parameter may be an array without a size, not '{}'", m.str(f.params[i].name)));
}

void check_directives(const module& m, const module_facts& facts, const function& f, diagnostics& d) {
    uint32_t sm = 0;
    std::string suffix;
    if (!facts.target.empty()) parse_target_name(facts.target, sm, suffix);
    const perf_directive* seen_maxntid = nullptr;
    const perf_directive* seen_reqntid = nullptr;
    const perf_directive* seen_cluster = nullptr;
    const perf_directive* seen_rank = nullptr;
    const perf_directive* seen_blocks = nullptr;
    const char* kind = f.is_entry ? ".entry" : ".func";
    for (const auto& p : f.directives) {
        auto error = [&](std::string msg) { d.error(*m.source, p.pos, std::move(msg)); };
        std::string_view name = m.str(p.name);
        if (name == "pragma") {
            if (!f.is_entry) error("a .func takes no .pragma before its body; put it inside the body");
            continue;
        }
        const directive_rule* rule = nullptr;
        for (const auto& r : directive_rules)
            if (r.name == name) rule = &r;
        if (!rule) {
            error(fmt::format("unknown directive '.{}' in the head of '{}'", name, m.str(f.name)));
            continue;
        }
        if (!(f.is_entry ? rule->entry : rule->func)) {
            error(fmt::format("'.{}' applies to {}, not to a {}", name, rule->entry ? "an .entry" : "a .func", kind));
            continue;
        }
        size_t n = p.values.size();
        if (!p.strings.empty() || n < rule->min_values || n > rule->max_values) {
            if (rule->max_values == 0) error(fmt::format("'.{}' takes no value", name));
            else if (rule->min_values == rule->max_values) error(fmt::format("'.{}' takes one number", name));
            else error(fmt::format("'.{}' takes {} to {} numbers, not {}", name, rule->min_values, rule->max_values, n));
            continue;
        }
        if (rule->positive)
            for (uint64_t v : p.values)
                if (v == 0) error(fmt::format("'.{}' needs numbers greater than 0", name));
        if (rule->min_sm && sm && sm < rule->min_sm)
            error(fmt::format("'.{}' needs target sm_{} or newer, but the module's target is {}", name, rule->min_sm,
                              facts.target));
        else if (rule->min_ptx && facts.ptx_version && facts.ptx_version < rule->min_ptx)
            error(fmt::format("'.{}' needs PTX ISA {}.{} or later, but the file declares .version {}.{}", name,
                              rule->min_ptx / 10, rule->min_ptx % 10, facts.ptx_version / 10, facts.ptx_version % 10));
        if (name == "maxntid") seen_maxntid = &p;
        if (name == "reqntid") seen_reqntid = &p;
        if (name == "reqnctapercluster") seen_cluster = &p;
        if (name == "maxclusterrank") seen_rank = &p;
        if (name == "blocksareclusters") seen_blocks = &p;
    }
    auto conflict = [&](const perf_directive* a, const perf_directive* b) {
        const perf_directive* later = a->pos > b->pos ? a : b;
        d.error(*m.source, later->pos, fmt::format("'.{}' and '.{}' cannot both be given", m.str(a->name), m.str(b->name)));
    };
    if (seen_maxntid && seen_reqntid) conflict(seen_maxntid, seen_reqntid);
    if (seen_cluster && seen_rank) conflict(seen_cluster, seen_rank);
    if (seen_blocks && (!seen_reqntid || !seen_cluster))
        d.error(*m.source, seen_blocks->pos, "'.blocksareclusters' needs '.reqntid' and '.reqnctapercluster' too");
}

} // namespace ptxsim::isa::detail
