#include "isa/memory_model.hpp"

namespace ptxsim::isa {
namespace {

mem_scope scope_of(std::string_view s, mem_scope otherwise) {
    if (s == "cta") return mem_scope::cta;
    if (s == "cluster") return mem_scope::cluster;
    if (s == "gpu") return mem_scope::gpu;
    if (s == "sys") return mem_scope::sys;
    return otherwise;
}

mem_order order_of(std::string_view s, mem_order otherwise) {
    if (s == "volatile") return mem_order::volatile_;
    if (s == "relaxed") return mem_order::relaxed;
    if (s == "acquire") return mem_order::acquire;
    if (s == "release") return mem_order::release;
    if (s == "acq_rel") return mem_order::acq_rel;
    if (s == "sc") return mem_order::sc;
    if (s == "weak") return mem_order::weak;
    return otherwise;
}

} // namespace

void fill_memory_model(const matched_instruction& m, exec_instruction& out, parser::code_origin origin) {
    if (!m.row) return;
    const std::string_view key = m.row->key;
    if (key == "ld" || key == "st") {
        // ld.volatile is relaxed at system scope; ld.relaxed/.acquire name
        // their scope (the ISA requires one; .gpu if a module leaves it out).
        if (m.has_mod("mmio")) {
            out.order = mem_order::mmio;
            out.scope = mem_scope::sys;
            return;
        }
        out.order = order_of(m.get("sem"), mem_order::weak);
        if (out.order == mem_order::volatile_) {
            out.scope = mem_scope::sys;
            if (origin == parser::code_origin::compiled) out.order = mem_order::volatile_cuda;
        }
        else if (out.order != mem_order::weak) out.scope = scope_of(m.get("scope"), mem_scope::gpu);
        return;
    }
    if (key == "atom" || key == "red" || key == "multimem.red" || key == "multimem.ld_reduce") {
        // Atomics are relaxed at .gpu scope unless they say otherwise.
        out.order = order_of(m.get("sem"), mem_order::relaxed);
        out.scope = scope_of(m.get("scope"), mem_scope::gpu);
        return;
    }
    if (key == "fence") {
        if (m.has("restrict")) { // fence.mbarrier_init, sync_restrict: orderings of their own
            out.order = order_of(m.get("sem"), mem_order::release);
            out.scope = scope_of(m.get("scope"), mem_scope::cluster);
            return;
        }
        out.order = order_of(m.get("sem"), mem_order::acq_rel);
        out.scope = scope_of(m.get("scope"), mem_scope::gpu);
        return;
    }
    if (key == "membar") { // membar.cta/.gl/.sys is fence.sc at .cta/.gpu/.sys
        std::string_view level = m.get("level");
        if (level == "proxy") return;
        out.order = mem_order::sc;
        out.scope = level == "cta" ? mem_scope::cta : level == "sys" ? mem_scope::sys : mem_scope::gpu;
        return;
    }
    if (key == "barrier.cluster.arrive") { // release unless .relaxed
        out.order = m.has_mod("relaxed") ? mem_order::relaxed : mem_order::release;
        out.scope = mem_scope::cluster;
        return;
    }
    if (key == "barrier.cluster.wait") {
        out.order = mem_order::acquire;
        out.scope = mem_scope::cluster;
        return;
    }
    if (key == "bar.warp.sync") { // orders memory among the participating lanes
        out.order = mem_order::acq_rel;
        out.scope = mem_scope::cta;
    }
}

} // namespace ptxsim::isa
