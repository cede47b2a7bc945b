#pragma once
// A checker: an observer of the engine's events (sim/events.hpp) that adds
// findings to a report, and the fan-out that lets `ptxsim check --tool all`
// attach several to one run.
#include <memory>
#include <string>
#include <vector>

#include "check/report.hpp"
#include "sim/events.hpp"

namespace ptxsim::check {

class checker : public sim::observer {
public:
    // After the launch file's last launch (leaks, unfinished state).
    virtual void finish() {}
};

// The checkers `ptxsim check --tool` knows, in the order `all` runs them.
const std::vector<std::string>& tool_names();
// nullptr for a name that is not a tool.
std::unique_ptr<checker> make_checker(const std::string& name, report& r);

// Forwards every event to each checker, in order.
class fanout final : public checker {
public:
    void add(checker* c) { to_.push_back(c); }
    void launch_begin(const sim::launch_event& e) override { for (auto* c : to_) c->launch_begin(e); }
    void launch_end(const sim::launch_event& e, const sim::launch_result& r) override { for (auto* c : to_) c->launch_end(e, r); }
    void access(const sim::access_event& e) override { for (auto* c : to_) c->access(e); }
    void device_malloc(const sim::malloc_event& e) override { for (auto* c : to_) c->device_malloc(e); }
    void device_free(const sim::free_event& e) override { for (auto* c : to_) c->device_free(e); }
    void call(const sim::call_event& e) override { for (auto* c : to_) c->call(e); }
    void barrier(const sim::barrier_event& e) override { for (auto* c : to_) c->barrier(e); }
    void barrier_release(const sim::barrier_release_event& e) override { for (auto* c : to_) c->barrier_release(e); }
    void warp_sync(const sim::warp_sync_event& e) override { for (auto* c : to_) c->warp_sync(e); }
    void sync(const sim::sync_event& e) override { for (auto* c : to_) c->sync(e); }
    void pending_register(const sim::pending_register_event& e) override { for (auto* c : to_) c->pending_register(e); }
    void host_allocate(const sim::host_memory_event& e) override { for (auto* c : to_) c->host_allocate(e); }
    void host_write(const sim::host_memory_event& e) override { for (auto* c : to_) c->host_write(e); }
    void deadlock(const sim::deadlock_event& e) override { for (auto* c : to_) c->deadlock(e); }
    void finish() override { for (auto* c : to_) c->finish(); }

private:
    std::vector<checker*> to_;
};

} // namespace ptxsim::check
