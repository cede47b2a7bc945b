// What front ends other than the command line (the DAP server) ask of a
// session: the same machine and commands, as data.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "debug/session.hpp"

namespace ptxsim::debug {

bool session::start() {
    try {
        if (!execute("run")) return true;
    } catch (quit_request&) {
        return false;
    }
    return true;
}

bool session::command(const std::string& line) { return execute(line); }

std::vector<session::warp_ref> session::live_warps() const {
    std::vector<warp_ref> out;
    if (!running()) return out;
    for (uint64_t c : view_->live_ctas())
        for (uint32_t w = 0; w < view_->warp_count(c); ++w) {
            auto v = view_->warp(c, w);
            if (!v || !(v->alive & ~v->exited)) continue;
            out.push_back({c, w, fmt::format("block {} warp {}", block_text(block_index(c)), w)});
        }
    return out;
}

std::vector<session::frame_ref> session::frames(uint64_t cta, uint32_t warp, uint32_t& lane) const {
    std::vector<frame_ref> out;
    if (!running()) return out;
    auto v = view_->warp(cta, warp);
    if (!v) return out;
    const uint32_t live = v->alive & ~v->exited;
    if (!live) return out;
    if (lane >= 32 || !(live >> lane & 1)) lane = static_cast<uint32_t>(__builtin_ctz(live));
    std::vector<uint32_t> pcs{v->pc[lane]};
    auto ret = view_->return_pcs(cta, warp, lane);
    for (auto it = ret.rbegin(); it != ret.rend(); ++it) pcs.push_back(*it - 1);
    for (uint32_t pc : pcs) {
        const source_line& l = map_->at(pc);
        const isa::exec_function* f = map_->function(function_of(pc));
        frame_ref r;
        r.function = f ? base_name(f->name) : "?";
        r.ptx_file = l.ptx_file;
        r.ptx_line = l.ptx_line;
        r.file = l.cuda_line ? l.cuda_file : l.ptx_file;
        r.line = l.cuda_line ? l.cuda_line : l.ptx_line;
        out.push_back(std::move(r));
    }
    return out;
}

std::vector<std::pair<std::string, std::string>> session::registers(uint64_t cta, uint32_t warp, uint32_t lane, uint32_t frame) const {
    std::vector<std::pair<std::string, std::string>> out;
    if (!running()) return out;
    auto v = view_->warp(cta, warp);
    if (!v || !((v->alive & ~v->exited) >> lane & 1)) return out;
    const auto rets = view_->return_pcs(cta, warp, lane);
    if (frame > rets.size()) return out;
    const uint32_t pc = frame == 0 ? v->pc[lane] : rets[rets.size() - frame] - 1; // a caller: its call instruction
    const isa::exec_function* fn = map_->function(function_of(pc));
    if (!fn) return out;
    auto c = context_at(cta, warp, lane, frame);
    auto add = [&](const std::string& n) {
        try {
            value x = c->reg(n);
            out.push_back({n, format_value(x, 0) + " (" + format_value(x, 'x') + ")"});
        } catch (const expr_error& e) {
            out.push_back({n, e.what()});
        }
    };
    for (const auto& r : fn->register_names) {
        if (index_of(pc) < r.begin || index_of(pc) >= r.end) continue;
        if (r.count == 0) add(r.name);
        else
            for (uint32_t i = 0; i < r.count; ++i) add(r.name + std::to_string(i));
    }
    return out;
}

std::vector<std::pair<std::string, std::string>> session::lane_states(uint64_t cta, uint32_t warp) const {
    std::vector<std::pair<std::string, std::string>> out;
    if (!running()) return out;
    auto v = view_->warp(cta, warp);
    if (!v) return out;
    for (uint32_t l = 0; l < 32; ++l) {
        if (!(v->alive >> l & 1)) continue;
        const sim::dim3 t = thread_index(warp * 32 + l);
        const char* state = v->exited >> l & 1 ? "exited" : v->waiting >> l & 1 ? "at a barrier" : v->sync_wait >> l & 1 ? "at a warp sync" : "active";
        std::string at = v->exited >> l & 1 ? "" : " at " + where(v->pc[l]);
        out.push_back({fmt::format("lane {}", l), fmt::format("thread ({},{},{}) {}{}", t.x, t.y, t.z, state, at)});
    }
    return out;
}

void session::focus_warp(uint64_t cta, uint32_t warp) {
    if (!running()) return;
    auto v = view_->warp(cta, warp);
    if (!v) return;
    const uint32_t live = v->alive & ~v->exited;
    uint32_t lane = focus_.lane();
    if (!(live >> lane & 1) && live) lane = static_cast<uint32_t>(__builtin_ctz(live));
    focus_ = {cta, warp * 32 + lane};
    focus_set_ = true;
}

std::string session::evaluate(const std::string& expr, char format) { return print_value(expr, format); }

std::vector<std::pair<uint32_t, int>> session::set_line_breakpoints(const std::string& file,
                                                                     const std::vector<std::pair<uint32_t, std::string>>& lines) {
    breakpoints_.erase(std::remove_if(breakpoints_.begin(), breakpoints_.end(),
                                      [&](const breakpoint& b) { return !b.file.empty() && same_file(b.file, file); }),
                       breakpoints_.end());
    std::vector<std::pair<uint32_t, int>> out;
    for (const auto& [line, condition] : lines) {
        breakpoint b;
        b.file = file;
        b.line = line;
        b.spec = fmt::format("{}:{}", file, line);
        if (!condition.empty()) b.condition = expression::parse(condition);
        b.id = next_id_++;
        breakpoints_.push_back(std::move(b));
        breakpoint& nb = breakpoints_.back();
        if (map_) resolve(nb, true);
        uint32_t placed = 0;
        if (!nb.pcs.empty()) {
            const source_line& l = map_->at(nb.pcs.front());
            placed = same_file(file, l.cuda_file) ? l.cuda_line : l.ptx_line;
        }
        out.push_back({placed, nb.id});
    }
    return out;
}

std::string session::resolved_source(const std::string& file) {
    namespace fs = std::filesystem;
    if (fs::exists(file)) return fs::absolute(file).string();
    for (const auto& m : modules()) {
        fs::path p = fs::path(m).parent_path() / file;
        if (fs::exists(p)) return fs::absolute(p).string();
    }
    return file;
}

std::vector<std::pair<std::string, std::string>> session::shared_variables(uint64_t cta, uint32_t warp) const {
    std::vector<std::pair<std::string, std::string>> out;
    if (!running()) return out;
    const isa::exec_function* k = nullptr;
    for (const auto* f : map_->functions())
        if (f && f->is_entry && f->name == kernel_) k = f;
    if (!k) return out;
    // Each static .shared variable as 32-bit words (its type is the PTX's
    // bytes; with nvcc -G, Locals shows it typed).
    constexpr uint32_t shown = 64;
    for (const auto& r : k->shared_regions) {
        std::string text = fmt::format("{} bytes:", r.size);
        for (uint32_t i = 0; i + 4 <= r.size && i < shown * 4; i += 4) {
            uint32_t w = 0;
            const std::string why = view_->read(isa::space::shared, r.offset + i, &w, 4, cta, warp, 0);
            if (!why.empty()) {
                text += " <" + why + ">";
                break;
            }
            text += fmt::format(" {:#010x}", w);
        }
        if (r.size > shown * 4) text += " ...";
        out.push_back({r.name, text});
    }
    return out;
}

} // namespace ptxsim::debug
