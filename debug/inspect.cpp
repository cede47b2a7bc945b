// Looking at the stopped machine: print, x, info, backtrace, list, and the
// location lines every stop prints.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "debug/session.hpp"
#include "isa/sem/mbarrier.hpp"
#include "sim/device.hpp"

namespace ptxsim::debug {
namespace {

std::string short_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

std::string lanes_text(uint32_t mask) { return fmt::format("{:#010x}", mask); }

} // namespace

// An array variable's elements as print shows them: {1, 2, 0 <repeats 14 times>}.
static std::string array_text(const value& v, const eval_context& c, char format) {
    constexpr uint64_t limit = 200; // as gdb's `print elements`
    std::vector<std::string> items;
    for (uint64_t i = 0; i < std::min(v.elements, limit); ++i)
        items.push_back(format_value(value_of_bits(c.read(v.space, v.bits + i * v.pointee.size, v.pointee.size), v.pointee), format));
    std::vector<std::string> parts;
    for (size_t i = 0; i < items.size();) {
        size_t j = i + 1;
        while (j < items.size() && items[j] == items[i]) ++j;
        if (j - i >= 10) parts.push_back(fmt::format("{} <repeats {} times>", items[i], j - i));
        else parts.insert(parts.end(), items.begin() + static_cast<long>(i), items.begin() + static_cast<long>(j));
        i = j;
    }
    if (v.elements > limit) parts.push_back("...");
    return fmt::format("{{{}}}", fmt::join(parts, ", "));
}

// A pointer to `pointee` at an address in a state space.
static value pointer_value(isa::space sp, uint64_t addr, scalar_type pointee) {
    value p;
    p.k = value::kind::pointer;
    p.bits = addr;
    p.type = {8, false, false, false};
    p.pointee = pointee;
    p.space = sp;
    return p;
}

// One lane's view for expressions: its registers in the function it is in,
// its special registers, and memory as it would address it.
class lane_context final : public eval_context {
public:
    // `frame`: 0 for the function the lane runs in, 1 for its caller, ...
    lane_context(const sim::machine_view& v, const source_map& m, sim::device* dev, sim::dim3 grid, sim::dim3 block, uint64_t cta,
                 uint32_t warp, uint32_t lane, uint32_t frame = 0)
        : v_(v), m_(m), dev_(dev), grid_(grid), block_(block), cta_(cta), warp_(warp), lane_(lane) {
        w_ = v.warp(cta, warp);
        if (!w_ || !(w_->alive >> lane & 1)) throw expr_error("that thread does not exist");
        const auto rets = v.return_pcs(cta, warp, lane);
        const uint32_t depth = static_cast<uint32_t>(rets.size());
        if (frame > depth) throw expr_error(fmt::format("that thread has no frame {} (it is {} call{} deep)", frame, depth, depth == 1 ? "" : "s"));
        depth_ = depth - frame;
        if (frame == 0) pc_ = w_->pc[lane], at_ = index_of(pc_);
        else pc_ = rets[depth - frame], at_ = index_of(pc_) ? index_of(pc_) - 1 : 0; // a caller: at its call instruction
        fn_ = m.function(function_of(pc_));
    }

    value reg(const std::string& name) const override {
        scalar_type t;
        const uint64_t bits = reg_bits(name, t);
        return value_of_bits(bits, t);
    }

    // A register's bits and declared type.
    uint64_t reg_bits(const std::string& name, scalar_type& type) const {
        if (!fn_) throw expr_error("no function");
        const uint32_t at = at_;
        const isa::exec_register_name* best = nullptr;
        uint32_t slot = 0;
        for (const auto& r : fn_->register_names) {
            if (at < r.begin || at >= r.end) continue;
            if (r.count == 0 && r.name == name) best = &r, slot = r.slot;
            else if (r.count && name.size() > r.name.size() && name.compare(0, r.name.size(), r.name) == 0) {
                const std::string digits = name.substr(r.name.size());
                if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) || digits.size() > 9) continue;
                const uint32_t i = static_cast<uint32_t>(std::stoul(digits));
                if (i < r.count) best = &r, slot = r.slot + i * r.width;
            }
        }
        if (!best) throw expr_error(fmt::format("no register {} in {} here", name, fn_->name));
        type = scalar_type::of(best->type);
        if (best->pred) {
            auto p = v_.pred(cta_, warp_, lane_, slot, depth_);
            if (!p) throw expr_error("that lane has no frame");
            return *p;
        }
        auto r = v_.reg(cta_, warp_, lane_, slot, depth_);
        if (!r) throw expr_error("that lane has no frame");
        return *r;
    }

    value special(const std::string& n) const override {
        const uint32_t t = warp_ * 32 + lane_;
        const sim::dim3 tid{t % block_.x, t / block_.x % block_.y, t / (block_.x * block_.y)};
        const sim::dim3 cid{static_cast<uint32_t>(cta_ % grid_.x), static_cast<uint32_t>(cta_ / grid_.x % grid_.y),
                            static_cast<uint32_t>(cta_ / (uint64_t(grid_.x) * grid_.y))};
        auto comp = [&](const sim::dim3& d) -> uint32_t {
            const char c = n.back();
            return c == 'x' ? d.x : c == 'y' ? d.y : d.z;
        };
        uint64_t x = 0;
        if (n.rfind("%tid", 0) == 0 || n.rfind("threadIdx", 0) == 0) x = comp(tid);
        else if (n.rfind("%ntid", 0) == 0 || n.rfind("blockDim", 0) == 0) x = comp(block_);
        else if (n.rfind("%ctaid", 0) == 0 || n.rfind("blockIdx", 0) == 0) x = comp(cid);
        else if (n.rfind("%nctaid", 0) == 0 || n.rfind("gridDim", 0) == 0) x = comp(grid_);
        else if (n == "%laneid") x = lane_;
        else if (n == "%warpid") x = warp_;
        else if (n == "%nwarpid") x = (block_.count() + 31) / 32;
        else if (n == "warpSize") x = 32;
        else if (n == "%lanemask_eq") x = 1u << lane_;
        else if (n == "%lanemask_lt") x = (1u << lane_) - 1;
        else if (n == "%lanemask_le") x = (2ull << lane_) - 1;
        else if (n == "%lanemask_gt") x = ~((2ull << lane_) - 1) & 0xFFFFFFFFu;
        else if (n == "%lanemask_ge") x = ~((1ull << lane_) - 1) & 0xFFFFFFFFu;
        else throw expr_error(fmt::format("{} cannot be read in the debugger", n));
        return value_of_bits(x, {4, false, false, false});
    }

    value variable(const std::string& name, bool address_of) const override {
        auto typed = [](uint32_t size) -> scalar_type {
            if (size == 4) return {4, true, false, false};
            if (size == 2) return {2, true, false, false};
            if (size == 1) return {1, true, false, false};
            if (size == 8) return {8, false, false, false};
            return {1, false, false, false}; // an array or struct: its address counts bytes
        };
        auto give = [&](isa::space sp, uint64_t addr, uint32_t size) {
            scalar_type t = typed(size);
            if (address_of) return pointer_value(sp, addr, t);
            if (size != 1 && size != 2 && size != 4 && size != 8)
                throw expr_error(fmt::format("'{}' is {} bytes: read it with x/{}xb &{}", name, size, size, name));
            return value_of_bits(read(sp, addr, size), t);
        };
        // A CUDA variable of the function, when its PTX carries nvcc -G's DWARF.
        if (const dwarf_variable* dv = source_variable(name)) return dwarf_value(*dv, address_of);
        // The kernel's parameters, by PTX name or its _param_N ending.
        if (const isa::exec_function* k = kernel())
            for (const auto& p : k->params)
                if (p.name == name || (p.name.size() > name.size() && p.name.compare(p.name.size() - name.size(), name.size(), name) == 0 &&
                                       p.name[p.name.size() - name.size() - 1] == '_'))
                    return give(isa::space::param, p.offset, p.size);
        // A function-scope __shared__ variable keeps its C++ name at the end of
        // its mangled one (_ZZ9block_sumPKiPiE7partial: partial).
        auto mangled_local = [&](const std::string& full) {
            const std::string tail = std::to_string(name.size()) + name;
            return full.size() > tail.size() && full.compare(full.size() - tail.size(), tail.size(), tail) == 0 &&
                   full[full.size() - tail.size() - 1] == 'E';
        };
        if (fn_)
            for (const auto& r : fn_->shared_regions)
                if (r.name == name || mangled_local(r.name)) return give(isa::space::shared, r.offset, r.size);
        if (const isa::exec_function* k = kernel()) // extern __shared__: bytes, from the dynamic area's start
            for (const auto& r : k->extern_shared)
                if (r.name == name) {
                    if (address_of) return pointer_value(isa::space::shared, r.offset, typed(1));
                    throw expr_error(fmt::format("'{0}' is extern __shared__ memory (the launch sizes it): cast it, as in ((float*)&{0})[3], "
                                                 "or x/8xw &{0}", name));
                }
        if (dev_)
            if (auto s = dev_->symbol(name)) return give(isa::space::global, s->first, static_cast<uint32_t>(std::min<uint64_t>(s->second, 1u << 30)));
        throw expr_error(fmt::format("No symbol \"{}\" in the current context.", name));
    }

    uint64_t read(isa::space sp, uint64_t addr, uint32_t size) const override {
        if (size > 8) throw expr_error("reads of more than 8 bytes: use x");
        uint64_t v = 0;
        std::string why = v_.read(sp, addr, &v, size, cta_, warp_, lane_);
        if (!why.empty()) throw expr_error(fmt::format("Cannot access memory at address {:#x} ({}): {}", addr, space_name(sp), why));
        return v;
    }

    // The innermost CUDA variable of that name in scope here, if the PTX has DWARF.
    const dwarf_variable* source_variable(const std::string& name) const {
        const dwarf_variable* found = nullptr;
        for (const dwarf_variable* v : source_variables())
            if (v->name == name) found = v;
        return found;
    }

    // The CUDA variables in scope at this lane's instruction, outermost first.
    std::vector<const dwarf_variable*> source_variables() const {
        if (!fn_) return {};
        if (at_ >= fn_->code.size()) return {};
        return m_.dwarf(function_of(pc_)).in_scope(fn_->name, fn_->code[at_].pos);
    }

    // A variable's value where the DWARF says it is at this instruction.
    // Arrays read as a pointer to their first element, as in C.
    value dwarf_value(const dwarf_variable& v, bool address_of) const {
        const dwarf_location where = v.at(fn_->code[at_].pos);
        const dwarf_type& t = v.type;
        auto typed = [&](uint64_t bits) {
            if (t.pointer) return pointer_value(t.pointee_space, bits, t.pointee);
            return value_of_bits(bits, t.as);
        };
        switch (where.k) {
        case dwarf_location::kind::none:
            throw expr_error(fmt::format("'{}' is optimized out here (no location at this instruction)", v.name));
        case dwarf_location::kind::unknown:
            throw expr_error(fmt::format("'{}' lives where ptxsim cannot follow yet: {}", v.name, where.why));
        case dwarf_location::kind::reg: {
            if (address_of) throw expr_error(fmt::format("'{}' is in register {}: it has no address", v.name, where.name));
            if (!t.scalar) throw expr_error(fmt::format("'{}' ({}) is in register {}: print {}", v.name, t.name, where.name, where.name));
            scalar_type rt;
            uint64_t bits = reg_bits(where.name, rt);
            if (t.size < 8) bits &= (1ull << (8 * t.size)) - 1;
            return typed(bits);
        }
        case dwarf_location::kind::symbol: break;
        }
        isa::space sp = isa::space::global;
        uint64_t addr = 0;
        if (!symbol_address(where.name, sp, addr))
            throw expr_error(fmt::format("'{}' is at {}, which is not in this launch", v.name, where.name));
        addr += static_cast<uint64_t>(where.offset);
        if (t.array) {
            value p = pointer_value(sp, addr, t.pointee);
            if (!address_of && t.pointee_size == t.pointee.size) p.elements = t.count; // scalar elements: print shows them
            return p;
        }
        if (address_of) return pointer_value(sp, addr, t.scalar ? t.as : scalar_type{1, false, false, false});
        if (!t.scalar) throw expr_error(fmt::format("'{}' is {} ({} bytes): read it with x/{}xb &{}", v.name, t.name, t.size, t.size, v.name));
        return typed(read(sp, addr, t.as.size));
    }

    // Where a PTX symbol is for this lane: a kernel parameter, a .shared or
    // .local variable of its function, or a module variable.
    bool symbol_address(const std::string& name, isa::space& sp, uint64_t& addr) const {
        if (const isa::exec_function* k = kernel())
            for (const auto& p : k->params)
                if (p.name == name) return sp = isa::space::param, addr = p.offset, true;
        for (const auto& r : fn_->shared_regions)
            if (r.name == name) return sp = isa::space::shared, addr = r.offset, true;
        for (const auto& r : fn_->local_regions)
            if (r.name == name) return sp = isa::space::local, addr = v_.local_address(r.offset, depth_), true;
        if (const isa::exec_function* k = kernel()) // dynamic shared memory: the kernel's layout places it
            for (const auto& r : k->extern_shared)
                if (r.name == name) return sp = isa::space::shared, addr = r.offset, true;
        if (dev_)
            if (auto s = dev_->symbol(name)) return sp = isa::space::global, addr = s->first, true;
        return false;
    }

private:
    const isa::exec_function* kernel() const {
        for (const auto* f : m_.functions())
            if (f && f->is_entry && fn_ == f) return f;
        // In a called function, parameters are the kernel's: the outermost frame's.
        auto ret = v_.return_pcs(cta_, warp_, lane_);
        if (!ret.empty()) return m_.function(function_of(ret.front()));
        return fn_ && fn_->is_entry ? fn_ : nullptr;
    }

    const sim::machine_view& v_;
    const source_map& m_;
    sim::device* dev_;
    sim::dim3 grid_, block_;
    uint64_t cta_;
    uint32_t warp_, lane_;
    std::optional<sim::warp_view> w_;
    uint32_t pc_ = 0, at_ = 0;  // the frame's PC, and the instruction its scope is read at
    uint32_t depth_ = 0;        // the frame's call depth in the engine
    const isa::exec_function* fn_ = nullptr;
};

std::unique_ptr<eval_context> session::context_in(uint64_t cta, uint32_t warp, uint32_t lane) const {
    // The selected frame (frame, up, down) counts for the focused warp only.
    return context_at(cta, warp, lane, cta == focus_.cta && warp == focus_.warp() ? frame_ : 0);
}

std::unique_ptr<eval_context> session::context_at(uint64_t cta, uint32_t warp, uint32_t lane, uint32_t frame) const {
    return std::make_unique<lane_context>(*view_, *map_, device_, grid_, block_, cta, warp, lane, frame);
}

std::vector<session::local_ref> session::locals(uint64_t cta, uint32_t warp, uint32_t lane, uint32_t frame) const {
    std::vector<local_ref> out;
    if (!running()) return out;
    std::unique_ptr<lane_context> c;
    try {
        c = std::make_unique<lane_context>(*view_, *map_, device_, grid_, block_, cta, warp, lane, frame);
    } catch (const expr_error&) {
        return out;
    }
    // Innermost first, as gdb lists them; an inner name hides an outer one.
    auto vars = c->source_variables();
    std::vector<std::string> seen;
    for (auto it = vars.rbegin(); it != vars.rend(); ++it) {
        const dwarf_variable& v = **it;
        if (v.depth == 0) continue; // the module's variables are globals, not locals (print still finds them)
        if (std::find(seen.begin(), seen.end(), v.name) != seen.end()) continue;
        seen.push_back(v.name);
        local_ref r{v.name, v.type.name, "", v.parameter};
        try {
            value x = c->dwarf_value(v, false);
            r.value = x.k == value::kind::pointer && x.elements ? array_text(x, *c, 0) : format_value(x, 0);
        } catch (const expr_error& e) {
            r.value = std::string("<") + e.what() + ">";
        }
        out.push_back(std::move(r));
    }
    return out;
}

bool session::has_source_variables(uint32_t pc) const { return !map_->dwarf(function_of(pc)).empty(); }

std::unique_ptr<eval_context> session::context_for(uint32_t lane) const { return context_in(focus_.cta, focus_.warp(), lane); }

// ---- names and places

sim::dim3 session::thread_index(uint32_t t) const { return {t % block_.x, t / block_.x % block_.y, t / (block_.x * block_.y)}; }

sim::dim3 session::block_index(uint64_t c) const {
    return {static_cast<uint32_t>(c % grid_.x), static_cast<uint32_t>(c / grid_.x % grid_.y),
            static_cast<uint32_t>(c / (uint64_t(grid_.x) * grid_.y))};
}

std::string session::block_text(sim::dim3 b) const { return fmt::format("({},{},{})", b.x, b.y, b.z); }

std::string session::thread_text(sim::dim3 b, sim::dim3 t) const {
    return fmt::format("block ({},{},{}) thread ({},{},{})", b.x, b.y, b.z, t.x, t.y, t.z);
}

std::string session::focus_text() const {
    return fmt::format("{} (warp {}, lane {})", thread_text(block_index(focus_.cta), thread_index(focus_.thread)), focus_.warp(),
                       focus_.lane());
}

std::optional<uint32_t> session::focus_pc() const {
    if (!view_) return std::nullopt;
    auto w = view_->warp(focus_.cta, focus_.warp());
    if (!w || !((w->alive & ~w->exited) >> focus_.lane() & 1)) return std::nullopt;
    return w->pc[focus_.lane()];
}

std::string session::where(uint32_t pc) const {
    if (!map_) return "?";
    const source_line& l = map_->at(pc);
    if (l.cuda_line) return fmt::format("{}:{} ({}:{})", short_name(l.cuda_file), l.cuda_line, short_name(l.ptx_file), l.ptx_line);
    return fmt::format("{}:{}", short_name(l.ptx_file), l.ptx_line);
}

std::string session::where_pos(int32_t fn, uint32_t pos) const {
    const isa::exec_function* f = map_ ? map_->function(fn) : nullptr;
    if (!f) return "?";
    for (uint32_t i = 0; i < f->code.size(); ++i)
        if (f->code[i].pos == pos) return where(make_pc(fn, i));
    return "?";
}

const std::string* session::source_text(const std::string& file, uint32_t line) {
    auto it = sources_.find(file);
    if (it == sources_.end()) {
        std::vector<std::string> lines;
        std::ifstream in(file);
        // A relative CUDA path (.file "k.cu") is beside the module that names it.
        const auto mods = modules();
        for (size_t m = 0; !in && std::filesystem::path(file).is_relative() && m < mods.size(); ++m) {
            in.clear();
            in.open(std::filesystem::path(mods[m]).parent_path() / file);
        }
        for (std::string l; std::getline(in, l);) lines.push_back(l);
        it = sources_.emplace(file, std::move(lines)).first;
    }
    if (line == 0 || line > it->second.size()) return nullptr;
    return &it->second[line - 1];
}

void session::print_location(uint32_t pc) {
    const source_line& l = map_->at(pc);
    if (l.cuda_line)
        if (const std::string* t = source_text(l.cuda_file, l.cuda_line)) out_ << fmt::format("{}:{}\t{}\n", short_name(l.cuda_file), l.cuda_line, *t);
    const std::string* t = source_text(l.ptx_file, l.ptx_line);
    out_ << fmt::format("{}:{}\t{}\n", short_name(l.ptx_file), l.ptx_line, t ? *t : std::string());
    list_file_ = l.cuda_line && source_text(l.cuda_file, l.cuda_line) ? l.cuda_file : l.ptx_file;
    list_line_ = l.cuda_line && list_file_ == l.cuda_file ? l.cuda_line : l.ptx_line;
    list_line_ = list_line_ > 5 ? list_line_ - 5 : 1;
}

std::string session::bytes_text(const std::vector<uint8_t>& b, const scalar_type& t) const {
    if (b.size() == t.size && t.size <= 8) {
        uint64_t bits = 0;
        std::memcpy(&bits, b.data(), b.size());
        return format_value(value_of_bits(bits, t), 0);
    }
    std::string s;
    for (uint8_t x : b) s += fmt::format("{}{:02x}", s.empty() ? "" : " ", x);
    return "{" + s + "}";
}

// ---- print: one value per lane of the focused warp, folded

void session::cmd_print(const std::string& args, char format) {
    std::string v = print_value(args, format);
    out_ << fmt::format("${} = {}\n", ++value_number_, v);
}

std::string session::print_value(const std::string& args, char format) {
    expression e = expression::parse(args);
    std::vector<std::pair<uint32_t, std::string>> lanes; // lane, text
    std::vector<value> values;
    if (!running()) {
        const idle_context c;
        return format_value(e.evaluate(c), format);
    }
    auto w = view_->warp(focus_.cta, focus_.warp());
    if (!w) throw command_error("The focused block is not running.");
    const uint32_t live = w->alive & ~w->exited;
    if (!live) throw command_error("Every thread of the focused warp has exited.");
    std::string first_error;
    std::map<std::string, uint32_t> failed; // why -> lanes
    for (uint32_t l = live; l; l &= l - 1) {
        const uint32_t lane = static_cast<uint32_t>(__builtin_ctz(l));
        try {
            auto ctx = context_for(lane);
            value v = e.evaluate(*ctx);
            lanes.push_back({lane, v.k == value::kind::pointer && v.elements ? array_text(v, *ctx, format) : format_value(v, format)});
            values.push_back(v);
        } catch (const expr_error& x) {
            if (first_error.empty() || lane == focus_.lane()) first_error = x.what(); // the focused lane's reason when all fail
            failed[x.what()] |= 1u << lane;
        }
    }
    if (lanes.empty()) throw command_error(first_error);
    // Lanes where it does not evaluate (another line, a variable out of scope there): one note each reason.
    std::string tail;
    for (const auto& [why, mask] : failed) tail += fmt::format(" (lanes {:#010x}: {})", mask, why);
    // Runs of lanes with one value, or whose integer values step evenly.
    std::vector<std::string> parts;
    bool all_same = true;
    for (const auto& [l, t] : lanes) all_same &= t == lanes.front().second;
    if (all_same) return lanes.front().second + tail;
    // Arrays that differ by lane: the focused lane's, as cuda-gdb prints them.
    for (size_t i = 0; i < lanes.size(); ++i)
        if (lanes[i].first == focus_.lane() && values[i].k == value::kind::pointer && values[i].elements)
            return fmt::format("{} (lane {}; other lanes differ: cuda lane N to see one)", lanes[i].second, lanes[i].first);
    for (size_t i = 0; i < lanes.size();) {
        size_t j = i + 1;
        while (j < lanes.size() && lanes[j].first == lanes[j - 1].first + 1 && lanes[j].second == lanes[i].second) ++j;
        // An even step between neighbouring lanes (integers, or floats whose differences are exact).
        auto ok = [&](size_t k) { return values[k].k != value::kind::pointer; };
        auto step_of = [&](size_t k) { return values[k + 1].as_real() - values[k].as_real(); };
        auto even = [&](size_t k, double step) {
            if (values[k].k == value::kind::integer && values[k + 1].k == value::kind::integer)
                return static_cast<double>(static_cast<int64_t>(values[k + 1].bits - values[k].bits)) == step;
            return step_of(k) == step && values[k].as_real() + step == values[k + 1].as_real();
        };
        if (j == i + 1 && i + 2 < lanes.size() && ok(i) && ok(i + 1) && lanes[i + 1].first == lanes[i].first + 1) {
            const double step = values[i].k == value::kind::integer && values[i + 1].k == value::kind::integer
                                    ? static_cast<double>(static_cast<int64_t>(values[i + 1].bits - values[i].bits))
                                    : step_of(i);
            size_t k = i + 1;
            while (k + 1 < lanes.size() && lanes[k + 1].first == lanes[k].first + 1 && ok(k + 1) && even(k, step)) ++k;
            if (k >= i + 2 && step != 0) {
                parts.push_back(fmt::format("{}-{}: {}, {}, ..., {}", lanes[i].first, lanes[k].first, lanes[i].second, lanes[i + 1].second,
                                            lanes[k].second));
                i = k + 1;
                continue;
            }
        }
        if (j - i == 1) parts.push_back(fmt::format("{}: {}", lanes[i].first, lanes[i].second));
        else parts.push_back(fmt::format("{}-{}: {}", lanes[i].first, lanes[j - 1].first, lanes[i].second));
        i = j;
    }
    return fmt::format("{{{}}}{}", fmt::join(parts, ", "), tail);
}

// ---- x/NFU ADDR

// x/Ni [$pc | FUNCTION | FILE:LINE]: N PTX instructions from the selected
// frame's PC (or the first instruction of a function or line), as the PTX
// file writes them; `=>` marks where the focused thread is.
void session::x_instructions(uint64_t count, const std::string& where_text) {
    if (count == 0 || count > 4096) throw command_error("x: give between 1 and 4096 instructions.");
    if (!running()) throw command_error("x/i: the kernel is not running.");
    std::optional<uint32_t> here = focus_pc();
    uint32_t start = 0;
    if (where_text.empty() || where_text == "$pc" || where_text == "%pc") {
        const auto frames = focus_frames();
        start = frames[std::min<size_t>(frame_, frames.size() - 1)];
    } else {
        std::vector<uint32_t> pcs;
        const size_t colon = where_text.rfind(':');
        uint32_t moved = 0;
        if (colon != std::string::npos && colon + 1 < where_text.size() &&
            where_text.find_first_not_of("0123456789", colon + 1) == std::string::npos)
            pcs = map_->pcs_at(where_text.substr(0, colon), static_cast<uint32_t>(std::stoul(where_text.substr(colon + 1))), moved);
        else
            pcs = map_->pcs_of_function(where_text);
        if (pcs.empty()) throw command_error(fmt::format("x/i: no code at '{}' (give $pc, a function or FILE:LINE).", where_text));
        start = pcs.front();
    }
    const int32_t fn = function_of(start);
    const isa::exec_function* f = map_->function(fn);
    if (!f) throw command_error("x/i: no function there.");
    for (uint64_t k = 0; k < count && index_of(start) + k < f->code.size(); ++k) {
        const uint32_t pc = make_pc(fn, static_cast<uint32_t>(index_of(start) + k));
        const source_line& l = map_->at(pc);
        const std::string* t = source_text(l.ptx_file, l.ptx_line);
        std::string text = t ? *t : std::string();
        while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.erase(0, 1);
        // An instruction written over several lines (a call's operand lists): joined up to its ';'.
        for (uint32_t more = 1; text.find(';') == std::string::npos && more <= 16; ++more) {
            const std::string* next = source_text(l.ptx_file, l.ptx_line + more);
            if (!next) break;
            std::string piece = *next;
            while (!piece.empty() && (piece.front() == ' ' || piece.front() == '\t')) piece.erase(0, 1);
            text += (text.empty() || text.back() == ' ' ? "" : " ") + piece;
        }
        out_ << fmt::format("{} <{}+{}>  {}:{}\t{}\n", here && *here == pc ? "=>" : "  ", base_name(f->name), index_of(pc),
                            short_name(l.ptx_file), l.ptx_line, text);
    }
}

void session::cmd_x(const std::string& format, const std::string& args) {
    uint64_t count = 1;
    char f = 'x', unit = 'w';
    size_t i = 0;
    if (i < format.size() && std::isdigit(static_cast<unsigned char>(format[i]))) {
        size_t used = 0;
        count = std::stoull(format.substr(i), &used);
        i += used;
    }
    if (i < format.size() && format[i] == 'i') {
        if (i + 1 != format.size()) throw command_error("x/Ni takes no unit.");
        return x_instructions(count, args);
    }
    for (; i < format.size(); ++i) {
        char c = format[i];
        if (std::string("bhwg").find(c) != std::string::npos) unit = c;
        else if (std::string("xduf").find(c) != std::string::npos) f = c;
        else throw command_error(fmt::format("x: unknown format letter '{}' (formats x d u f, units b h w g).", c));
    }
    if (count == 0 || count > 4096) throw command_error("x: give between 1 and 4096 units.");
    if (!running()) throw command_error("x: the kernel is not running: no memory to examine.");
    expression e = expression::parse(args);
    value a = e.evaluate(*context_for(focus_.lane()));
    if (a.k == value::kind::real) throw command_error("x: an address is an integer or a pointer.");
    const isa::space sp = a.k == value::kind::pointer ? a.space : isa::space::generic;
    uint32_t size = unit == 'b' ? 1 : unit == 'h' ? 2 : unit == 'w' ? 4 : 8;
    if (f == 'f' && size < 4) size = 4;
    const uint32_t per_line = size == 8 ? 2 : size == 4 ? 4 : 8;
    const scalar_type t{size, f == 'd', f == 'f', false};
    for (uint64_t k = 0; k < count; ++k) {
        const uint64_t addr = a.bits + k * size;
        if (k % per_line == 0) out_ << fmt::format("{}{:#x} <{}>:", k ? "\n" : "", addr, space_name(sp));
        uint64_t bits = 0;
        std::string why = view_->read(sp, addr, &bits, size, focus_.cta, focus_.warp(), focus_.lane());
        if (!why.empty()) {
            out_ << '\n';
            throw command_error(fmt::format("Cannot access memory at address {:#x}: {}", addr, why));
        }
        value v = value_of_bits(bits, t);
        std::string text = f == 'x' ? fmt::format("{:#0{}x}", bits, 2 + 2 * size) : format_value(v, f == 'f' ? 0 : f);
        out_ << '\t' << text;
    }
    out_ << '\n';
}

// ---- info

void session::cmd_info(const std::string& args) {
    std::string what = args, rest;
    if (size_t sp = args.find(' '); sp != std::string::npos) what = args.substr(0, sp), rest = args.substr(sp + 1);
    while (!rest.empty() && rest[0] == ' ') rest.erase(0, 1);
    if (what == "breakpoints" || what == "break" || what == "b" || what == "watchpoints") return info_breakpoints();
    if (what == "registers" || what == "reg" || what == "r") return info_registers(rest);
    if (what == "cuda") return info_cuda(rest);
    if (what == "findings") {
        if (!report_ || report_->findings().empty()) {
            out_ << (opt_.tools.empty() ? "No checker runs (start ptxsim debug with --tool).\n" : "No findings so far.\n");
            return;
        }
        report_->print_text(out_, 0);
        return;
    }
    if (what == "locals" || what == "args") {
        if (!running()) throw command_error("No frame selected.");
        auto pc = focus_pc();
        if (!pc) throw command_error("The focused thread has exited.");
        const bool args_only = what == "args";
        if (const std::string& p = map_->dwarf(function_of(*pc)).problem(); !p.empty()) out_ << "Note: " << p << '\n';
        if (!has_source_variables(*pc)) {
            out_ << "No symbol table info available (the PTX has no DWARF: build it with nvcc -G; registers: info registers).\n";
            return;
        }
        size_t n = 0;
        for (const auto& l : locals(focus_.cta, focus_.warp(), focus_.lane(), frame_))
            if (l.parameter == args_only) out_ << fmt::format("{} = {}\n", l.name, l.value), ++n;
        if (!n) out_ << (args_only ? "No arguments.\n" : "No locals.\n");
        return;
    }
    if (what == "line" || what == "frame" || what == "program") {
        if (!running()) throw command_error("The program is not stopped in a kernel.");
        auto pc = focus_pc();
        if (!pc) throw command_error("The focused thread has exited.");
        out_ << fmt::format("{} is at {} in {} (instruction {} of the run)\n", focus_text(), where(*pc),
                            base_name(map_->function(function_of(*pc))->name), stop_ordinal_);
        return;
    }
    throw command_error(fmt::format("Undefined info command: \"{}\".  Try \"help info\".", args));
}

void session::cmd_whatis(const std::string& args) {
    if (args.empty()) throw command_error("whatis needs an expression.");
    if (running() && focus_pc()) { // a CUDA variable (module ones too): its DWARF type
        try {
            lane_context c(*view_, *map_, device_, grid_, block_, focus_.cta, focus_.warp(), focus_.lane(), frame_);
            if (const dwarf_variable* v = c.source_variable(args)) {
                out_ << "type = " << v->type.name << '\n';
                return;
            }
        } catch (const expr_error&) {
        }
    }
    expression e = expression::parse(args);
    const std::string t = running() ? type_of(e.evaluate(*context_for(focus_.lane()))) : type_of(e.evaluate(idle_context()));
    out_ << "type = " << t << '\n';
}

void session::info_breakpoints() {
    if (breakpoints_.empty() && watchpoints_.empty()) {
        out_ << "No breakpoints or watchpoints.\n";
        return;
    }
    out_ << "Num     Type            Enb  Hits  What\n";
    for (const auto& b : breakpoints_) {
        std::string what = b.spec;
        if (!b.pcs.empty()) what += " at " + where(b.pcs.front());
        else what += " (pending)";
        if (b.condition) what += " if " + b.condition->text();
        out_ << fmt::format("{:<8}{:<16}{:<5}{:<6}{}\n", b.id, b.temporary ? "tbreakpoint" : "breakpoint", b.enabled ? "y" : "n", b.hits, what);
    }
    for (const auto& w : watchpoints_) {
        const char* type = w.kind == 'w' ? "hw watchpoint" : w.kind == 'r' ? "read watchpoint" : "acc watchpoint";
        out_ << fmt::format("{:<8}{:<16}{:<5}{:<6}{}\n", w.id, type, "y", w.hits, w.text);
    }
}

void session::info_registers(const std::string& names) {
    if (!running()) throw command_error("The kernel is not running: no registers.");
    const auto frames = focus_frames();
    const std::optional<uint32_t> pc = frames[std::min<size_t>(frame_, frames.size() - 1)]; // the selected frame's
    const isa::exec_function* fn = map_->function(function_of(*pc));
    auto c = context_for(focus_.lane());
    std::vector<std::string> want;
    for (size_t i = 0; i < names.size();) {
        size_t j = names.find(' ', i);
        std::string n = names.substr(i, j == std::string::npos ? std::string::npos : j - i);
        if (!n.empty()) want.push_back(n[0] == '$' ? "%" + n.substr(1) : n);
        if (j == std::string::npos) break;
        i = j + 1;
    }
    auto show = [&](const std::string& n) {
        value v = c->reg(n);
        out_ << fmt::format("{:<10}{:<22}{}\n", n, format_value(v, 'x'), format_value(v, 0));
    };
    out_ << fmt::format("Registers of {} in {}{}:\n", focus_text(), base_name(fn->name), frame_ ? fmt::format(" (frame {})", frame_) : "");
    if (!want.empty()) {
        for (const auto& n : want) show(n);
        return;
    }
    const uint32_t at = index_of(*pc);
    for (const auto& r : fn->register_names) {
        if (at < r.begin || at >= r.end) continue;
        if (r.count == 0) show(r.name);
        else
            for (uint32_t i = 0; i < r.count; ++i) show(r.name + std::to_string(i));
    }
}

void session::info_cuda(const std::string& what) {
    if (what == "kernels") {
        out_ << "  Launch  Kernel                          Grid            Block           State\n";
        const auto specs = launch_specs();
        for (size_t i = 0; i < specs.size(); ++i) {
            const auto& l = *specs[i];
            const char* state = !started_ ? "not started" : static_cast<int>(i) < launch_ ? "finished"
                                : static_cast<int>(i) == launch_ && running()             ? "running"
                                : static_cast<int>(i) == launch_                          ? "finished"
                                                                                          : "not started";
            out_ << fmt::format("{} {:<8}{:<32}{:<16}{:<16}{}\n", static_cast<int>(i) == launch_ && running() ? "*" : " ", i + 1, l.kernel,
                                fmt::format("({},{},{})", l.grid.x, l.grid.y, l.grid.z), fmt::format("({},{},{})", l.block.x, l.block.y, l.block.z), state);
        }
        return;
    }
    if (!running()) throw command_error("The kernel is not running.");
    if (what == "blocks") {
        out_ << "  Block       Warps  Live threads  At a barrier\n";
        for (uint64_t c : view_->live_ctas()) {
            uint32_t live = 0, waiting = 0, warps = view_->warp_count(c);
            for (uint32_t w = 0; w < warps; ++w)
                if (auto v = view_->warp(c, w)) {
                    live += static_cast<uint32_t>(__builtin_popcount(v->alive & ~v->exited));
                    waiting += static_cast<uint32_t>(__builtin_popcount(v->waiting));
                }
            out_ << fmt::format("{} {:<12}{:<7}{:<14}{}\n", c == focus_.cta ? "*" : " ", block_text(block_index(c)), warps, live, waiting);
        }
        return;
    }
    if (what == "warps") {
        out_ << fmt::format("Warps of block {}:\n", block_text(block_index(focus_.cta)));
        out_ << "  Warp  Live lanes  Exited      Waiting     PC of the first live lane\n";
        for (uint32_t w = 0; w < view_->warp_count(focus_.cta); ++w) {
            auto v = view_->warp(focus_.cta, w);
            if (!v) continue;
            const uint32_t live = v->alive & ~v->exited;
            std::string at = live ? where(v->pc[static_cast<uint32_t>(__builtin_ctz(live))]) : "exited";
            out_ << fmt::format("{} {:<6}{:<12}{:<12}{:<12}{}\n", w == focus_.warp() ? "*" : " ", w, lanes_text(live), lanes_text(v->exited),
                                lanes_text(v->waiting | v->sync_wait), at);
        }
        return;
    }
    if (what == "lanes") {
        auto v = view_->warp(focus_.cta, focus_.warp());
        if (!v) throw command_error("The focused warp is not running.");
        out_ << fmt::format("Lanes of block {} warp {}:\n", block_text(block_index(focus_.cta)), focus_.warp());
        out_ << "  Lane  Thread      State     Depth  PC\n";
        for (uint32_t l = 0; l < 32; ++l) {
            if (!(v->alive >> l & 1)) continue;
            const char* state = v->exited >> l & 1 ? "exited" : v->waiting >> l & 1 ? "barrier" : v->sync_wait >> l & 1 ? "warp-sync" : "active";
            const sim::dim3 t = thread_index(focus_.warp() * 32 + l);
            out_ << fmt::format("{} {:<6}{:<12}{:<10}{:<7}{}\n", l == focus_.lane() ? "*" : " ", l, fmt::format("({},{},{})", t.x, t.y, t.z), state,
                                v->depth[l], v->exited >> l & 1 ? "" : where(v->pc[l]));
        }
        return;
    }
    if (what == "barriers") {
        auto bars = view_->barriers(focus_.cta);
        if (bars.empty()) {
            out_ << fmt::format("No barrier of block {} has arrivals.\n", block_text(block_index(focus_.cta)));
            return;
        }
        out_ << fmt::format("Barriers of block {}:\n", block_text(block_index(focus_.cta)));
        for (const auto& b : bars) {
            std::vector<std::string> ws;
            for (const auto& [w, lanes] : b.waiters) ws.push_back(fmt::format("warp {} lanes {}", w, lanes_text(lanes)));
            out_ << fmt::format("  barrier {}: {} threads arrived of {}; waiting: {}\n", b.id, b.arrived,
                                b.expected ? std::to_string(b.expected) : std::string("all live"), ws.empty() ? "none" : fmt::format("{}", fmt::join(ws, ", ")));
        }
        return;
    }
    if (what == "mbarriers") {
        // Every mbarrier the block has initialised, with its state (ptxsim's
        // packing of the ISA's fields, isa/sem/mbarrier.hpp), and who sleeps on it.
        std::map<uint64_t, std::vector<std::string>> sleeping;
        for (const auto& m : view_->mbarriers(focus_.cta))
            for (const auto& [w, lanes] : m.sleepers) sleeping[m.offset].push_back(fmt::format("warp {} lanes {}", w, lanes_text(lanes)));
        std::set<uint64_t> offsets;
        if (auto it = mbarriers_.find(focus_.cta); it != mbarriers_.end()) offsets = it->second;
        for (const auto& [o, _] : sleeping) offsets.insert(o);
        if (offsets.empty()) {
            out_ << fmt::format("Block {} has initialised no mbarrier.\n", block_text(block_index(focus_.cta)));
            return;
        }
        out_ << fmt::format("mbarriers of block {}:\n", block_text(block_index(focus_.cta)));
        const uint32_t first = focus_.warp();
        for (uint64_t o : offsets) {
            uint64_t word = 0;
            const std::string why = view_->read(isa::space::shared, o, &word, 8, focus_.cta, first, 0);
            std::string state;
            if (!why.empty()) state = why;
            else if (word == 0) state = "invalidated (or never initialised)";
            else {
                const auto s = isa::sem::mbar::state::unpack(word);
                state = fmt::format("phase parity {}, {} of {} arrivals pending, tx-count {}", s.parity, s.pending, s.expected, s.tx);
            }
            auto sl = sleeping.find(o);
            out_ << fmt::format("  shared offset {:#x}: {}{}\n", o, state,
                                sl == sleeping.end() ? "" : fmt::format("; waiting: {}", fmt::join(sl->second, ", ")));
        }
        return;
    }
    throw command_error(fmt::format("info cuda: expected kernels, blocks, warps, lanes, barriers or mbarriers, not '{}'.", what));
}

// ---- backtrace and list

std::vector<uint32_t> session::focus_frames() const {
    if (!running()) throw command_error("No stack: the kernel is not running.");
    auto pc = focus_pc();
    if (!pc) throw command_error("The focused thread has exited.");
    auto ret = view_->return_pcs(focus_.cta, focus_.warp(), focus_.lane());
    // Innermost first: where it is, then each call site (the instruction before its return point).
    std::vector<uint32_t> frames{*pc};
    for (auto it = ret.rbegin(); it != ret.rend(); ++it) frames.push_back(*it - 1);
    return frames;
}

std::string session::frame_text(size_t i, uint32_t pc) const {
    const isa::exec_function* f = map_->function(function_of(pc));
    return fmt::format("#{}  {} at {}", i, f ? base_name(f->name) : std::string("?"), where(pc));
}

void session::cmd_backtrace() {
    const auto frames = focus_frames();
    for (size_t i = 0; i < frames.size(); ++i) out_ << frame_text(i, frames[i]) << '\n';
}

// frame [N], up [N], down [N]: which of the focused thread's frames print,
// x, info locals|args|registers and conditions read (0: where it runs).
void session::cmd_frame(const std::string& cmd, const std::string& args) {
    const auto frames = focus_frames();
    int64_t n = 1;
    if (!args.empty()) {
        size_t used = 0;
        try {
            n = std::stoll(args, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != args.size() || n < 0) throw command_error(fmt::format("{}: '{}' is not a frame count.", cmd, args));
    }
    int64_t target = frame_;
    if (cmd == "frame") target = args.empty() ? frame_ : n;
    else if (cmd == "up") target = frame_ + n;
    else target = frame_ - n;
    if (target >= static_cast<int64_t>(frames.size()))
        throw command_error(cmd == "up" ? "Initial frame selected; you cannot go up." : fmt::format("No frame {}: the stack has {}.", target, frames.size()));
    if (target < 0) throw command_error("Bottom (innermost) frame selected; you cannot go down.");
    frame_ = static_cast<uint32_t>(target);
    out_ << frame_text(frame_, frames[frame_]) << '\n';
    print_location(frames[frame_]);
}

void session::cmd_list(const std::string& args) {
    std::string file = list_file_;
    uint32_t first = list_line_;
    if (!args.empty()) {
        const size_t colon = args.rfind(':');
        auto all_digits = [](const std::string& t) {
            return !t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
        };
        uint32_t line = 0;
        if (colon != std::string::npos && all_digits(args.substr(colon + 1))) {
            std::string given = args.substr(0, colon);
            line = static_cast<uint32_t>(std::stoul(args.substr(colon + 1)));
            file.clear();
            // A file the program's code names (a full path), else the name as given.
            if (map_)
                for (size_t f = 0; f < map_->functions().size() && file.empty(); ++f)
                    for (uint32_t i = 0; map_->function(static_cast<int32_t>(f)) && i < map_->function(static_cast<int32_t>(f))->code.size(); ++i) {
                        const source_line& l = map_->at(make_pc(static_cast<int32_t>(f), i));
                        if (same_file(given, l.cuda_file)) file = l.cuda_file;
                        else if (same_file(given, l.ptx_file)) file = l.ptx_file;
                        if (!file.empty()) break;
                    }
            if (file.empty())
                for (const auto& m : modules())
                    if (same_file(given, m)) file = m;
            if (file.empty()) file = given;
        } else if (all_digits(args)) {
            line = static_cast<uint32_t>(std::stoul(args));
        } else if (map_) {
            auto pcs = map_->pcs_of_function(args);
            if (pcs.empty()) throw command_error(fmt::format("Function \"{}\" not defined.", args));
            const source_line& l = map_->at(pcs.front());
            file = l.cuda_line && source_text(l.cuda_file, l.cuda_line) ? l.cuda_file : l.ptx_file;
            line = file == l.cuda_file ? l.cuda_line : l.ptx_line;
        } else {
            throw command_error(fmt::format("list: no launch has run yet to find \"{}\" in.", args));
        }
        first = line > 5 ? line - 5 : 1;
    }
    if (file.empty() && !modules().empty()) file = modules().front(), first = first ? first : 1;
    if (!source_text(file, first)) throw command_error(fmt::format("Line number {} out of range; \"{}\" has {} lines.", first, short_name(file), sources_[file].size()));
    for (uint32_t l = first; l < first + 10; ++l) {
        const std::string* t = source_text(file, l);
        if (!t) break;
        out_ << fmt::format("{}\t{}\n", l, *t);
    }
    list_file_ = file;
    list_line_ = first + 10;
}

} // namespace ptxsim::debug
