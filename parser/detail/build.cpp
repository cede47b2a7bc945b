#include "parser/detail/build.hpp"

#include <array>
#include <bit>
#include <fmt/format.h>

namespace ptxsim::parser::detail {

namespace {
const char* bad_integer_message(uint8_t flags) {
    return (flags & raw_bad_expr) ? "invalid constant expression: division by zero, or a literal that does not fit in 64 bits"
                                  : "integer literal does not fit in 64 bits";
}
} // namespace

operand builder::make_operand(const raw_operand& raw) {
    operand op;
    op.kind = raw.kind;
    op.flags = raw.flags & ~(raw_bad_number | raw_bad_expr);
    op.name = raw.name.empty() || (raw.flags & raw_bad_number) ? no_symbol : intern(raw.name);
    op.value = raw.value;
    op.pos = pos(raw.pos);
    if (raw.flags & raw_bad_number) {
        op.flags |= op_bad_literal;
        if (!raw.name.empty()) error(raw.pos, fmt::format("invalid numeric literal '{}'", raw.name));
        else if (raw.kind == operand_kind::f64 || raw.kind == operand_kind::f32) error(raw.pos, "invalid floating-point literal");
        else error(raw.pos, bad_integer_message(raw.flags));
    }
    op.elems = convert_all<operand>(raw.elems, [this](const raw_operand& e) { return make_operand(e); });
    return op;
}

instruction builder::make_instruction(const raw_instruction& raw) {
    instruction ins;
    ins.pos = pos(raw.pos);
    if (!raw.guard.empty()) ins.guard = intern(raw.guard);
    ins.guard_negated = raw.guard_negated;
    // Split "ld.global.nc.v4.u32" into the opcode word and its modifiers (once per distinct text).
    std::string_view text = raw.opcode;
    auto known = opcodes_.find(text);
    if (known == opcodes_.end()) {
        split_opcode split;
        size_t dot = text.find('.');
        split.opcode = intern(text.substr(0, dot));
        std::array<symbol, 32> mods;
        size_t n = 0;
        while (dot != std::string_view::npos) {
            size_t next = text.find('.', dot + 1);
            std::string_view word = text.substr(dot + 1, next == std::string_view::npos ? next : next - dot - 1);
            if (n == mods.size()) {
                error(raw.opcode_pos, "too many modifiers on one instruction");
                break;
            }
            mods[n++] = intern(word);
            dot = next;
        }
        split.modifiers = m_.nodes.copy(std::span<const symbol>(mods.data(), n));
        known = opcodes_.emplace(text, split).first;
    }
    ins.opcode = known->second.opcode;
    ins.modifiers = known->second.modifiers;
    ins.opcode_end = pos(raw.opcode_pos) + static_cast<pos_t>(raw.opcode.size());
    ins.operands = convert_all<operand>(raw.operands, [this](const raw_operand& o) { return make_operand(o); });
    return ins;
}

init_item builder::make_init_item(const raw_init& raw) {
    init_item it;
    it.kind = raw.kind;
    it.value = raw.value;
    if (!raw.sym.empty()) it.sym = intern(raw.sym);
    if (!raw.sym2.empty()) it.sym2 = intern(raw.sym2);
    if (raw.flags & raw_bad_number)
        error(raw.pos, raw.kind == init_kind::integer ? bad_integer_message(raw.flags) : "invalid floating-point literal");
    it.elems = convert_all<init_item>(raw.elems, [this](const raw_init& e) { return make_init_item(e); });
    return it;
}

initializer builder::make_initializer(const std::vector<raw_init>& items, bool braced, const char* where) {
    (void)where;
    initializer init;
    init.present = true;
    init.braced = braced;
    bool all_ints = true;
    for (const auto& i : items)
        if (i.kind != init_kind::integer) all_ints = false;
    if (all_ints) {
        std::vector<int64_t> values;
        values.reserve(items.size());
        for (const auto& i : items) {
            if (i.flags & raw_bad_number) error(i.pos, bad_integer_message(i.flags));
            values.push_back(i.value);
        }
        init.ints = m_.nodes.copy(values);
    } else {
        init.items = convert_all<init_item>(items, [this](const raw_init& i) { return make_init_item(i); });
    }
    return init;
}

namespace {
bool parse_space(std::string_view w, state_space& s, std::string_view& suffix) {
    std::string_view base = w.substr(0, w.find("::"));
    suffix = base.size() < w.size() ? w.substr(base.size() + 2) : std::string_view{};
    static constexpr std::array<std::pair<std::string_view, state_space>, 8> spaces{{
        {"reg", state_space::reg}, {"sreg", state_space::sreg}, {"const", state_space::const_},
        {"global", state_space::global}, {"local", state_space::local}, {"param", state_space::param},
        {"shared", state_space::shared}, {"tex", state_space::tex},
    }};
    for (auto [name, space] : spaces)
        if (base == name) {
            s = space;
            return true;
        }
    return false;
}

bool parse_linkage(std::string_view w, linkage& l) {
    if (w == "visible") l = linkage::visible;
    else if (w == "extern") l = linkage::extern_;
    else if (w == "weak") l = linkage::weak;
    else if (w == "common") l = linkage::common;
    else return false;
    return true;
}
} // namespace

void builder::make_decls(const raw_decl& raw, std::vector<var_decl>& out) {
    var_decl head;
    head.pos = pos(raw.pos);
    bool have_space = false, have_link = false;
    std::vector<symbol> attrs;
    for (const auto& w : raw.head) {
        state_space space;
        std::string_view suffix;
        linkage link;
        data_type type = data_type_from(w.word);
        if (w.word == "align") {
            uint64_t a = w.int_value;
            if (a == 0 || !std::has_single_bit(a) || a > (1u << 30)) {
                error(w.pos, fmt::format("alignment must be a power of two, not {}", a));
                a = 1;
            }
            (head.is_ptr ? head.ptr_align : head.align) = static_cast<uint32_t>(a);
        } else if (w.word == "attribute") {
            attrs.push_back(intern(w.paren));
        } else if (w.word == "ptr") {
            head.is_ptr = true;
        } else if (parse_space(w.word, space, suffix)) {
            if (head.is_ptr && !head.ptr_has_space) {
                head.ptr_space = space;
                head.ptr_has_space = true;
            } else if (have_space) {
                error(w.pos, fmt::format("a declaration has one state space; '.{}' is a second", w.word));
            } else {
                head.space = space;
                head.space_suffix = suffix.empty() ? no_symbol : intern(suffix);
                have_space = true;
            }
        } else if (parse_linkage(w.word, link)) {
            if (have_link) error(w.pos, fmt::format("a declaration has one linkage; '.{}' is a second", w.word));
            head.link = link;
            have_link = true;
        } else if (w.word == "v2" || w.word == "v4" || w.word == "v8") {
            if (head.vec) error(w.pos, fmt::format("a declaration has one vector width; '.{}' is a second", w.word));
            head.vec = static_cast<uint8_t>(w.word[1] - '0');
        } else if (type != data_type::none) {
            if (head.type != data_type::none)
                error(w.pos, fmt::format("a declaration has one type; '.{}' is a second", w.word));
            head.type = type;
        } else {
            error(w.pos, fmt::format("unknown declaration qualifier '.{}'", w.word));
        }
    }
    if (!have_space) error(raw.pos, "declaration needs a state space (.reg, .shared, .global, ...)");
    if (head.type == data_type::none) error(raw.pos, "declaration needs a type (.b32, .f32, .pred, ...)");
    head.attributes = m_.nodes.copy(attrs);
    for (const auto& d : raw.names) {
        var_decl v = head;
        v.pos = out.empty() ? head.pos : pos(d.pos);
        v.name = intern(d.name);
        v.is_range = d.is_range;
        v.range = static_cast<uint32_t>(d.range);
        if (d.is_range && d.range > (1u << 24)) // <0> is legal (ptxas takes it) and declares nothing
            error(d.pos, fmt::format("register range <{}> is larger than {}", d.range, 1u << 24));
        if (!d.dims.empty()) {
            std::vector<uint64_t> dims;
            for (size_t i = 0; i < d.dims.size(); ++i) {
                if (!d.dims[i].sized && i != 0) error(d.dims[i].pos, "only the first array dimension may be left empty");
                dims.push_back(d.dims[i].sized ? d.dims[i].size : 0);
            }
            v.dims = m_.nodes.copy(dims);
        }
        if (d.has_init) {
            // Only .global and .const variables start with a value; ptxas
            // refuses an initialiser anywhere else rather than ignore it.
            if (head.space == state_space::shared || head.space == state_space::local || head.space == state_space::reg ||
                head.space == state_space::param)
                error(d.init_pos, fmt::format("'{}' cannot have an initial value: only .global and .const variables can", d.name));
            v.init = make_initializer(d.init, d.braced, d.init_pos);
        }
        out.push_back(v);
    }
}

var_decl builder::make_param(const raw_decl& raw) {
    std::vector<var_decl> one;
    make_decls(raw, one);
    return one.empty() ? var_decl{} : one.front();
}

list<var_decl> builder::make_params(const std::vector<raw_decl>& raw) {
    return convert_all<var_decl>(raw, [this](const raw_decl& r) { return make_param(r); });
}

function builder::make_function_head(const raw_function_head& raw) {
    function f;
    f.pos = pos(raw.pos);
    bool kind_seen = false;
    std::vector<symbol> attrs;
    for (const auto& w : raw.words) {
        linkage link;
        if (w.word == "entry" || w.word == "func") {
            if (kind_seen) error(w.pos, "a function is either .entry or .func, once");
            f.is_entry = w.word == "entry";
            kind_seen = true;
        } else if (parse_linkage(w.word, link)) {
            f.link = link;
        } else if (w.word == "attribute") {
            attrs.push_back(intern(w.paren));
        } else {
            error(w.pos, fmt::format("unknown function qualifier '.{}'", w.word));
        }
    }
    if (raw.has_ret && f.is_entry) error(raw.name_pos, "an .entry has no return parameters");
    f.attributes = m_.nodes.copy(attrs);
    f.name = intern(raw.name);
    f.has_ret = raw.has_ret;
    f.ret = make_params(raw.ret);
    f.has_params = raw.has_params;
    f.params = make_params(raw.params);
    std::vector<perf_directive> perf;
    for (const auto& p : raw.perf) {
        perf_directive pd;
        pd.pos = pos(p.pos);
        pd.name = intern(p.name);
        pd.values = m_.nodes.copy(p.values);
        pd.strings = intern_all(p.strings);
        perf.push_back(pd);
    }
    f.directives = m_.nodes.copy(perf);
    return f;
}

prototype_decl builder::make_prototype(const raw_prototype& raw, symbol label, pos_t label_pos) {
    prototype_decl p;
    p.pos = label_pos;
    p.label = label;
    p.has_return = raw.has_ret;
    p.ret = make_params(raw.ret);
    p.params = make_params(raw.params);
    p.noreturn = raw.noreturn;
    return p;
}

loc_directive builder::make_loc(const raw_loc& raw) {
    loc_directive l;
    l.pos = pos(raw.pos);
    l.file = static_cast<uint32_t>(raw.file);
    l.line = static_cast<uint32_t>(raw.line);
    l.col = static_cast<uint32_t>(raw.col);
    l.has_function = raw.has_function;
    if (raw.has_function) l.function_name = intern(raw.function_name);
    l.function_offset = raw.function_offset;
    l.has_inlined_at = raw.has_inlined_at;
    l.inlined_file = static_cast<uint32_t>(raw.ifile);
    l.inlined_line = static_cast<uint32_t>(raw.iline);
    l.inlined_col = static_cast<uint32_t>(raw.icol);
    return l;
}

file_directive builder::make_file(const raw_file& raw) {
    file_directive f;
    f.pos = pos(raw.pos);
    f.index = static_cast<uint32_t>(raw.index);
    f.path = intern(raw.path);
    f.has_stamp = raw.has_stamp;
    f.timestamp = raw.timestamp;
    f.size = raw.size;
    return f;
}

section_entry builder::make_section_entry(const raw_section_entry& raw) {
    section_entry e;
    e.pos = pos(raw.pos);
    if (!raw.label.empty()) {
        e.label = intern(raw.label);
        return e;
    }
    e.type = data_type_from(raw.type);
    if (e.type == data_type::none) error(raw.pos, fmt::format("unknown data directive '.{}' in section", raw.type));
    e.values = make_initializer(raw.values, false, raw.pos);
    return e;
}

pragma_directive builder::make_pragma(const char* p, const std::vector<std::string_view>& strings) {
    pragma_directive d;
    d.pos = pos(p);
    d.strings = intern_all(strings);
    return d;
}

list<symbol> builder::intern_all(const std::vector<std::string_view>& names) {
    std::vector<symbol> out;
    out.reserve(names.size());
    for (auto n : names) out.push_back(intern(n));
    return m_.nodes.copy(out);
}

} // namespace ptxsim::parser::detail
