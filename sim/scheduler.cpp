#include "sim/scheduler.hpp"

#include <string_view>
#include <vector>

#include "isa/op_table.hpp"

namespace ptxsim::sim {
namespace {

int classify(std::string_view key) {
    static constexpr std::string_view reads[] = {"ld", "ldu", "tex", "tld4", "suld", "multimem.ld_reduce", "mbarrier.test_wait",
                                                 "mbarrier.try_wait"};
    static constexpr std::string_view writes[] = {
        "st", "st.async", "st.bulk", "red.async", "atom", "red", "multimem.st", "multimem.red", "sust", "sured",
        "mbarrier.arrive", "mbarrier.arrive_drop", "mbarrier.expect_tx", "mbarrier.complete_tx", "cp.async", "cp.async.bulk",
        "cp.async.bulk.tensor", "cp.reduce.async.bulk", "cp.reduce.async.bulk.tensor"};
    static constexpr std::string_view fences[] = {"membar", "fence", "fence.proxy"};
    for (auto k : reads)
        if (key == k) return static_cast<int>(schedule_point::read);
    for (auto k : writes)
        if (key == k) return static_cast<int>(schedule_point::write);
    for (auto k : fences)
        if (key == k) return static_cast<int>(schedule_point::fence);
    return -1;
}

bool splittable(std::string_view key) { return key == "ld" || key == "ldu" || key == "st" || key == "atom" || key == "red"; }

} // namespace

bool splittable_access(uint16_t row) {
    static const std::vector<bool> rows = [] {
        std::vector<bool> v;
        for (const auto& r : isa::op_table::get().rows()) v.push_back(splittable(r.key));
        return v;
    }();
    return row < rows.size() && rows[row];
}

bool reads_convergence(uint16_t row) {
    static const std::vector<bool> rows = [] {
        std::vector<bool> v;
        for (const auto& r : isa::op_table::get().rows()) v.push_back(r.key == "activemask");
        return v;
    }();
    return row < rows.size() && rows[row];
}

int schedule_point_of(uint16_t row) {
    // Computed once from the instruction table; read-only afterwards.
    static const std::vector<int8_t> points = [] {
        std::vector<int8_t> v;
        for (const auto& r : isa::op_table::get().rows()) v.push_back(static_cast<int8_t>(classify(r.key)));
        return v;
    }();
    return row < points.size() ? points[row] : -1;
}

} // namespace ptxsim::sim
