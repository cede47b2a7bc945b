#include "debug/dwarf.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "parser/parser.hpp"

namespace ptxsim::debug {
namespace {

using namespace parser;

// A debug section as bytes, with the symbols its data names: a label or
// symbol written as `.b64 $L__tmp3` or `.b32 .debug_loc+133` leaves its
// addend in the bytes and its name here, by byte offset.
struct section_bytes {
    std::vector<uint8_t> bytes;
    struct reloc {
        std::string symbol;
        int64_t addend = 0;
    };
    std::map<size_t, reloc> relocs;
};

uint32_t width_of(data_type t) {
    switch (t) {
    case data_type::b8: case data_type::u8: case data_type::s8: return 1;
    case data_type::b16: case data_type::u16: case data_type::s16: return 2;
    case data_type::b32: case data_type::u32: case data_type::s32: return 4;
    case data_type::b64: case data_type::u64: case data_type::s64: return 8;
    default: return 0;
    }
}

void put(section_bytes& s, uint64_t v, uint32_t w) {
    for (uint32_t i = 0; i < w; ++i) s.bytes.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

section_bytes collect(const module& m, const section_directive& sec) {
    section_bytes s;
    for (const auto& e : sec.entries) {
        const uint32_t w = width_of(e.type);
        if (e.label != no_symbol || !w) continue; // labels inside debug sections: nvcc writes none
        for (int64_t v : e.values.ints) put(s, static_cast<uint64_t>(v), w);
        for (const auto& it : e.values.items) {
            if (it.kind == init_kind::symbol) {
                std::string n(m.str(it.sym));
                if (!n.empty() && n[0] == '.') n.erase(0, 1);
                s.relocs[s.bytes.size()] = {n, it.value};
                put(s, 0, w);
            } else {
                put(s, static_cast<uint64_t>(it.value), w);
            }
        }
    }
    return s;
}

struct dwarf_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A cursor over a section's bytes.
struct cursor {
    const section_bytes* s = nullptr;
    size_t at = 0;
    size_t end = 0;

    bool done() const { return at >= end; }
    uint64_t fixed(uint32_t w) {
        if (at + w > end) throw dwarf_error("a debug section ends inside a value");
        uint64_t v = 0;
        for (uint32_t i = 0; i < w; ++i) v |= uint64_t(s->bytes[at + i]) << (8 * i);
        at += w;
        return v;
    }
    uint64_t uleb() {
        uint64_t v = 0;
        for (uint32_t shift = 0;; shift += 7) {
            if (at >= end) throw dwarf_error("a debug section ends inside a LEB128 number");
            const uint8_t b = s->bytes[at++];
            if (shift < 64) v |= uint64_t(b & 0x7f) << shift;
            if (!(b & 0x80)) return v;
        }
    }
    int64_t sleb() {
        int64_t v = 0;
        uint32_t shift = 0;
        uint8_t b = 0;
        do {
            if (at >= end) throw dwarf_error("a debug section ends inside a LEB128 number");
            b = s->bytes[at++];
            if (shift < 64) v |= int64_t(b & 0x7f) << shift;
            shift += 7;
        } while (b & 0x80);
        if (shift < 64 && (b & 0x40)) v |= -(int64_t(1) << shift);
        return v;
    }
    std::string cstring() {
        std::string r;
        while (true) {
            if (at >= end) throw dwarf_error("a debug section ends inside a string");
            const char c = static_cast<char>(s->bytes[at++]);
            if (!c) return r;
            r += c;
        }
    }
    // The symbol a fixed-size value at the cursor names, if any.
    const section_bytes::reloc* reloc_here() const {
        auto it = s->relocs.find(at);
        return it == s->relocs.end() ? nullptr : &it->second;
    }
};

// DWARF constants this reader uses (DWARF 2–5; NVIDIA's address classes).
namespace tag {
constexpr uint64_t array = 0x01, formal_parameter = 0x05, lexical_block = 0x0b, pointer = 0x0f, reference = 0x10,
                   compile_unit = 0x11, structure = 0x13, typedef_ = 0x16, union_ = 0x17, subrange = 0x21,
                   base = 0x24, const_ = 0x26, enumeration = 0x04, subprogram = 0x2e, variable = 0x34, volatile_ = 0x35,
                   class_ = 0x02, restrict_ = 0x37, rvalue_reference = 0x42;
}
namespace at {
constexpr uint64_t location = 0x02, name = 0x03, byte_size = 0x0b, low_pc = 0x11, high_pc = 0x12, upper_bound = 0x2f,
                   count = 0x37, address_class = 0x33, encoding = 0x3e, type = 0x49, linkage_name = 0x6e,
                   mips_linkage_name = 0x2007;
}
namespace form {
constexpr uint64_t addr = 0x01, block2 = 0x03, block4 = 0x04, data2 = 0x05, data4 = 0x06, data8 = 0x07, string = 0x08,
                   block = 0x09, block1 = 0x0a, data1 = 0x0b, flag = 0x0c, sdata = 0x0d, strp = 0x0e, udata = 0x0f,
                   ref_addr = 0x10, ref1 = 0x11, ref2 = 0x12, ref4 = 0x13, ref8 = 0x14, ref_udata = 0x15, indirect = 0x16,
                   sec_offset = 0x17, exprloc = 0x18, flag_present = 0x19, implicit_const = 0x21;
}

struct attr_spec {
    uint64_t name = 0, form = 0;
    int64_t implicit = 0;
};
struct abbrev {
    uint64_t tag = 0;
    bool children = false;
    std::vector<attr_spec> attrs;
};

// One attribute's value as read.
struct attr_value {
    uint64_t form = 0;
    uint64_t u = 0;                      // constants, references (CU-relative), offsets
    std::string str;                     // strings; a relocated value's symbol
    bool symbolic = false;               // `str` names the symbol (labels, params, sections)
    std::vector<uint8_t> block;          // location expressions
    std::map<size_t, section_bytes::reloc> block_relocs; // symbols inside the block, by offset in it
};

struct die {
    uint64_t offset = 0; // CU-relative
    uint64_t tag = 0;
    std::map<uint64_t, attr_value> attrs;
    std::vector<size_t> children; // indices into the unit's DIEs
    const attr_value* get(uint64_t a) const {
        auto it = attrs.find(a);
        return it == attrs.end() ? nullptr : &it->second;
    }
    std::string text(uint64_t a) const {
        const attr_value* v = get(a);
        return v ? v->str : std::string();
    }
};

} // namespace

class dwarf_reader {
public:
    dwarf_reader(const module& m, dwarf_info& out) : m_(m), out_(out) {}

    void run() {
        const section_directive *info = nullptr, *abbr = nullptr, *loc = nullptr;
        for (const auto& t : m_.items)
            if (auto s = std::get_if<const section_directive*>(&t.node)) {
                const std::string_view n = m_.str((*s)->name);
                if (n == "debug_info" || n == ".debug_info") info = *s;
                else if (n == "debug_abbrev" || n == ".debug_abbrev") abbr = *s;
                else if (n == "debug_loc" || n == ".debug_loc") loc = *s;
            }
        if (!info || !abbr) return;
        index_labels();
        info_ = collect(m_, *info);
        abbrev_ = collect(m_, *abbr);
        if (loc) loc_ = collect(m_, *loc);
        cursor c{&info_, 0, info_.bytes.size()};
        while (!c.done()) unit(c);
    }

private:
    // ---- positions of labels: the instruction after each, by name
    void index_labels() {
        for (const auto& t : m_.items)
            if (auto f = std::get_if<const function*>(&t.node)) {
                std::vector<symbol> pending;
                walk((*f)->body, pending);
                for (symbol s : pending) labels_[std::string(m_.str(s))] = UINT32_MAX; // end of the function
            }
    }
    void walk(const list<statement>& body, std::vector<symbol>& pending) {
        for (const auto& st : body) {
            if (auto l = std::get_if<label_stmt>(&st.node)) pending.push_back(l->name);
            else if (auto i = std::get_if<instruction>(&st.node)) {
                for (symbol s : pending) labels_[std::string(m_.str(s))] = i->pos;
                pending.clear();
            } else if (auto b = std::get_if<const block_stmt*>(&st.node)) walk((*b)->body, pending);
        }
    }
    std::optional<uint32_t> label_pos(const std::string& name) const {
        auto it = labels_.find(name);
        if (it == labels_.end()) return std::nullopt;
        return it->second;
    }

    // ---- units
    void unit(cursor& c) {
        const size_t start = c.at;
        uint64_t length = c.fixed(4);
        if (length == 0xffffffffu) throw dwarf_error("64-bit DWARF is not read");
        const size_t end = c.at + length;
        if (end > c.end) throw dwarf_error("a compilation unit runs past the end of .debug_info");
        const uint64_t version = c.fixed(2);
        uint64_t abbrev_off = 0;
        if (version >= 2 && version <= 4) {
            abbrev_off = c.fixed(4);
            c.fixed(1); // address size
        } else if (version == 5) {
            c.fixed(1); // unit type
            c.fixed(1);
            abbrev_off = c.fixed(4);
        } else {
            throw dwarf_error(fmt::format("DWARF version {} is not read", version));
        }
        read_abbrevs(abbrev_off);
        dies_.clear();
        cursor u{&info_, c.at, end};
        std::vector<size_t> parents;
        while (!u.done()) {
            const uint64_t off = u.at - start;
            const uint64_t code = u.uleb();
            if (code == 0) {
                if (!parents.empty()) parents.pop_back();
                continue;
            }
            auto a = abbrevs_.find(code);
            if (a == abbrevs_.end()) throw dwarf_error(fmt::format("abbreviation {} is not in .debug_abbrev", code));
            die d;
            d.offset = off;
            d.tag = a->second.tag;
            for (const auto& spec : a->second.attrs) d.attrs[spec.name] = value(u, spec.form, spec.implicit);
            const size_t index = dies_.size();
            by_offset_[off] = index;
            if (!parents.empty()) dies_[parents.back()].children.push_back(index);
            dies_.push_back(std::move(d));
            if (a->second.children) parents.push_back(index);
            if (parents.size() > 512) throw dwarf_error("DIEs nested more than 512 deep");
        }
        c.at = end;
        for (size_t i = 0; i < dies_.size(); ++i)
            if (dies_[i].tag == tag::subprogram) subprogram(dies_[i]);
            else if (dies_[i].tag == tag::compile_unit) scope(dies_[i], 0, UINT32_MAX, 0, out_.module_, false);
        by_offset_.clear();
    }

    void read_abbrevs(uint64_t offset) {
        abbrevs_.clear();
        cursor a{&abbrev_, offset, abbrev_.bytes.size()};
        while (!a.done()) {
            const uint64_t code = a.uleb();
            if (code == 0) break;
            abbrev ab;
            ab.tag = a.uleb();
            ab.children = a.fixed(1) != 0;
            while (true) {
                attr_spec s;
                s.name = a.uleb();
                s.form = a.uleb();
                if (s.name == 0 && s.form == 0) break;
                if (s.form == form::implicit_const) s.implicit = a.sleb();
                ab.attrs.push_back(s);
            }
            abbrevs_[code] = std::move(ab);
        }
    }

    attr_value value(cursor& u, uint64_t f, int64_t implicit) {
        while (f == form::indirect) f = u.uleb();
        attr_value v;
        v.form = f;
        auto fixed = [&](uint32_t w) {
            if (auto r = u.reloc_here()) v.str = r->symbol, v.symbolic = true, v.u = static_cast<uint64_t>(r->addend);
            const uint64_t x = u.fixed(w);
            if (!v.symbolic) v.u = x;
        };
        auto block = [&](uint64_t n) {
            if (u.at + n > u.end) throw dwarf_error("a location block runs past its unit");
            v.block.assign(info_.bytes.begin() + static_cast<long>(u.at), info_.bytes.begin() + static_cast<long>(u.at + n));
            for (auto it = info_.relocs.lower_bound(u.at); it != info_.relocs.end() && it->first < u.at + n; ++it)
                v.block_relocs[it->first - u.at] = it->second;
            u.at += n;
        };
        switch (f) {
        case form::addr: fixed(8); break;
        case form::data1: case form::ref1: case form::flag: fixed(1); break;
        case form::data2: case form::ref2: fixed(2); break;
        case form::data4: case form::ref4: case form::sec_offset: case form::strp: case form::ref_addr: fixed(4); break;
        case form::data8: case form::ref8: fixed(8); break;
        case form::udata: case form::ref_udata: v.u = u.uleb(); break;
        case form::sdata: v.u = static_cast<uint64_t>(u.sleb()); break;
        case form::string: v.str = u.cstring(); break;
        case form::block1: block(u.fixed(1)); break;
        case form::block2: block(u.fixed(2)); break;
        case form::block4: block(u.fixed(4)); break;
        case form::block: case form::exprloc: block(u.uleb()); break;
        case form::flag_present: v.u = 1; break;
        case form::implicit_const: v.u = static_cast<uint64_t>(implicit); break;
        default: throw dwarf_error(fmt::format("DWARF form {:#x} is not read", f));
        }
        if (f == form::strp) v.str = fmt::format("(string at {:#x} of .debug_str)", v.u);
        return v;
    }

    const die* ref(const die& d, uint64_t a) const {
        const attr_value* v = d.get(a);
        if (!v || v->symbolic) return nullptr;
        auto it = by_offset_.find(v->u);
        return it == by_offset_.end() ? nullptr : &dies_[it->second];
    }

    // ---- types
    static isa::space space_of_class(uint64_t c) {
        switch (c) { // NVIDIA's DWARF address classes
        case 4: return isa::space::const_;
        case 5: return isa::space::global;
        case 6: return isa::space::local;
        case 7: return isa::space::param;
        case 8: return isa::space::shared;
        default: return isa::space::generic;
        }
    }

    dwarf_type type_of(const die* t, int depth = 0) const {
        dwarf_type r;
        if (!t) {
            r.name = "void";
            return r;
        }
        if (depth > 32) return r;
        switch (t->tag) {
        case tag::base: {
            r.name = t->text(at::name);
            r.size = t->get(at::byte_size) ? t->get(at::byte_size)->u : 0;
            const uint64_t enc = t->get(at::encoding) ? t->get(at::encoding)->u : 0;
            r.scalar = r.size == 1 || r.size == 2 || r.size == 4 || r.size == 8;
            r.as.size = static_cast<uint32_t>(r.size);
            r.as.is_float = enc == 0x04;
            r.as.is_signed = enc == 0x05 || enc == 0x06 || enc == 0x0d;
            return r;
        }
        case tag::pointer: case tag::reference: case tag::rvalue_reference: {
            const die* p = ref(*t, at::type);
            const dwarf_type to = type_of(p, depth + 1);
            r.name = to.name + (t->tag == tag::pointer ? " *" : " &");
            r.size = 8;
            r.scalar = true;
            r.as = {8, false, false, false};
            r.pointer = true;
            r.pointee = to.scalar ? to.as : to.array ? to.pointee : scalar_type{1, false, false, false};
            r.pointee_size = to.size;
            if (const attr_value* c = t->get(at::address_class)) r.pointee_space = space_of_class(c->u);
            return r;
        }
        case tag::const_: case tag::volatile_: case tag::restrict_: {
            r = type_of(ref(*t, at::type), depth + 1);
            const char* q = t->tag == tag::const_ ? "const " : t->tag == tag::volatile_ ? "volatile " : "";
            if (!r.pointer) r.name = q + r.name;
            else if (*q) r.name += std::string(" ") + (q[0] == 'c' ? "const" : "volatile");
            return r;
        }
        case tag::typedef_: {
            r = type_of(ref(*t, at::type), depth + 1);
            r.name = t->text(at::name);
            return r;
        }
        case tag::array: {
            const dwarf_type e = type_of(ref(*t, at::type), depth + 1);
            uint64_t n = 1;
            std::string dims;
            for (size_t ci : t->children) {
                const die& s = dies_[ci];
                if (s.tag != tag::subrange) continue;
                uint64_t k = 0;
                if (auto c = s.get(at::count)) k = c->u;
                else if (auto ub = s.get(at::upper_bound)) k = ub->u + 1;
                n *= k;
                dims += k ? fmt::format("[{}]", k) : std::string("[]"); // extern __shared__ float s[]: no bound
            }
            r.name = e.name + " " + (dims.empty() ? "[]" : dims);
            r.array = true;
            r.count = n;
            r.pointee = e.scalar ? e.as : scalar_type{1, false, false, false};
            r.pointee_size = e.size;
            r.size = n * e.size;
            return r;
        }
        case tag::structure: case tag::union_: case tag::class_: case tag::enumeration: {
            const char* kw = t->tag == tag::structure ? "struct " : t->tag == tag::union_ ? "union " : t->tag == tag::class_ ? "class " : "enum ";
            r.name = kw + t->text(at::name);
            r.size = t->get(at::byte_size) ? t->get(at::byte_size)->u : 0;
            if (t->tag == tag::enumeration && (r.size == 1 || r.size == 2 || r.size == 4 || r.size == 8)) {
                r.scalar = true;
                r.as = {static_cast<uint32_t>(r.size), true, false, false};
            }
            return r;
        }
        default:
            r.name = t->text(at::name).empty() ? "?" : t->text(at::name);
            return r;
        }
    }

    // ---- locations
    // A location expression: DW_OP_regx "%r5", DW_OP_addr SYMBOL
    // [DW_OP_plus_uconst N], or something ptxsim does not follow.
    static dwarf_location expression_of(const std::vector<uint8_t>& b, const std::map<size_t, section_bytes::reloc>& relocs) {
        dwarf_location l;
        section_bytes s;
        s.bytes = b;
        s.relocs = relocs;
        cursor c{&s, 0, b.size()};
        try {
            if (c.done()) return l; // empty: optimised away
            const uint8_t op = static_cast<uint8_t>(c.fixed(1));
            if (op == 0x90) { // DW_OP_regx: NVIDIA packs the register's name, big-endian ASCII
                uint64_t n = c.uleb();
                std::string name;
                while (n) name.insert(name.begin(), static_cast<char>(n & 0xff)), n >>= 8;
                l.k = dwarf_location::kind::reg;
                l.name = name;
            } else if (op == 0x03) { // DW_OP_addr
                const section_bytes::reloc* r = c.reloc_here();
                const uint64_t raw = c.fixed(8);
                if (!r) {
                    l.k = dwarf_location::kind::unknown;
                    l.why = fmt::format("a numeric address {:#x}", raw);
                    return l;
                }
                l.k = dwarf_location::kind::symbol;
                l.name = r->symbol;
                l.offset = r->addend;
            } else {
                l.k = dwarf_location::kind::unknown;
                l.why = fmt::format("DW_OP {:#x}", op);
                return l;
            }
            while (!c.done()) {
                const uint8_t more = static_cast<uint8_t>(c.fixed(1));
                if (more == 0x23 && l.k == dwarf_location::kind::symbol) l.offset += static_cast<int64_t>(c.uleb());
                else if (more == 0x9f) continue; // DW_OP_stack_value after a register: the value itself
                else {
                    l.k = dwarf_location::kind::unknown;
                    l.why = fmt::format("DW_OP {:#x} after the first operation", more);
                    return l;
                }
            }
        } catch (const dwarf_error& e) {
            l.k = dwarf_location::kind::unknown;
            l.why = e.what();
        }
        return l;
    }

    // A .debug_loc list: (start label, end label, 2-byte length, expression)... 0 0.
    void location_list(const attr_value& v, dwarf_variable& var) {
        uint64_t offset = v.u;
        if (v.symbolic && v.str != "debug_loc") {
            var.single.k = dwarf_location::kind::unknown;
            var.single.why = "a location list at symbol " + v.str;
            return;
        }
        var.listed = true;
        cursor c{&loc_, offset, loc_.bytes.size()};
        while (!c.done()) {
            const section_bytes::reloc* rs = c.reloc_here();
            const uint64_t s = c.fixed(8);
            const section_bytes::reloc* re = c.reloc_here();
            const uint64_t e = c.fixed(8);
            if (!rs && !re && s == 0 && e == 0) break;
            if (!rs && s == ~0ull) continue; // a base address selection: nvcc's lists are absolute labels
            const uint64_t n = c.fixed(2);
            std::vector<uint8_t> expr;
            std::map<size_t, section_bytes::reloc> relocs;
            for (uint64_t i = 0; i < n; ++i) {
                if (auto r = c.reloc_here()) relocs[i] = *r;
                expr.push_back(static_cast<uint8_t>(c.fixed(1)));
            }
            auto from = rs ? label_pos(rs->symbol) : std::nullopt;
            auto to = re ? label_pos(re->symbol) : std::nullopt;
            if (!from || !to) continue; // numeric ranges: not relative to anything ptxsim knows
            var.pieces.push_back({*from, *to, expression_of(expr, relocs)});
        }
    }

    // ---- functions and their variables
    void range_of(const die& d, uint32_t& from, uint32_t& to) const {
        const attr_value* lo = d.get(at::low_pc);
        const attr_value* hi = d.get(at::high_pc);
        if (lo && lo->symbolic)
            if (auto p = label_pos(lo->str)) from = *p;
        if (hi && hi->symbolic)
            if (auto p = label_pos(hi->str)) to = *p;
    }

    void subprogram(const die& d) {
        std::string name = d.text(at::mips_linkage_name);
        if (name.empty()) name = d.text(at::linkage_name);
        if (name.empty()) name = d.text(at::name);
        if (name.empty() || !d.get(at::low_pc)) return; // a declaration
        auto& vars = out_.functions_[name];
        uint32_t from = 0, to = UINT32_MAX;
        range_of(d, from, to);
        scope(d, from, to, 1, vars, true);
    }

    // The variables directly under `d` (and, with `blocks`, in its lexical blocks).
    void scope(const die& d, uint32_t from, uint32_t to, uint32_t depth, std::vector<dwarf_variable>& vars, bool blocks) {
        if (depth > 512) return; // (the reader refuses deeper nesting; a guard all the same)
        for (size_t ci : d.children) {
            const die& c = dies_[ci];
            if (c.tag == tag::lexical_block && blocks) {
                uint32_t f = from, t = to;
                range_of(c, f, t);
                scope(c, f, t, depth + 1, vars, true);
                continue;
            }
            if (c.tag != tag::variable && c.tag != tag::formal_parameter) continue;
            dwarf_variable v;
            v.name = c.text(at::name);
            if (v.name.empty() || (!blocks && !c.get(at::location))) continue; // a module-level declaration without a home
            v.parameter = c.tag == tag::formal_parameter;
            v.type = type_of(ref(c, at::type));
            v.from = from, v.to = to, v.depth = depth;
            if (const attr_value* l = c.get(at::location)) {
                const bool block = l->form == form::block1 || l->form == form::block2 || l->form == form::block4 ||
                                   l->form == form::block || l->form == form::exprloc;
                if (block)
                    v.single = expression_of(l->block, l->block_relocs);
                else
                    location_list(*l, v);
            }
            vars.push_back(std::move(v));
        }
    }

    const module& m_;
    dwarf_info& out_;
    std::map<std::string, uint32_t> labels_;
    section_bytes info_, abbrev_, loc_;
    std::map<uint64_t, abbrev> abbrevs_;
    std::vector<die> dies_;
    std::map<uint64_t, size_t> by_offset_;
};

dwarf_location dwarf_variable::at(uint32_t pos) const {
    if (!listed) return single;
    for (const auto& p : pieces)
        if (pos >= p.from && pos < p.to) return p.where;
    return {};
}

dwarf_info dwarf_info::read(const std::string& ptx_path) {
    dwarf_info out;
    diagnostics diags;
    module m = parse_file(ptx_path, diags);
    dwarf_reader r(m, out);
    try {
        r.run();
    } catch (const dwarf_error& e) {
        out.problem_ = fmt::format("{}: its DWARF is read only in part: {}", ptx_path, e.what());
    }
    return out;
}

std::vector<const dwarf_variable*> dwarf_info::in_scope(const std::string& function, uint32_t pos) const {
    std::vector<const dwarf_variable*> r;
    for (const auto& v : module_) r.push_back(&v);
    auto it = functions_.find(function);
    if (it == functions_.end()) return r;
    for (const auto& v : it->second)
        if (pos >= v.from && pos < v.to) r.push_back(&v);
    std::stable_sort(r.begin(), r.end(), [](const dwarf_variable* a, const dwarf_variable* b) { return a->depth < b->depth; });
    return r;
}

} // namespace ptxsim::debug
