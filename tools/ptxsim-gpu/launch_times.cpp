#include "tools/ptxsim-gpu/launch_times.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

namespace ptxsim::gpu {

launch_times::launch_times(const cuda_driver& cu, std::string path) : cu_(cu), path_(std::move(path)), temp_(path_ + ".tmp") {
    std::ofstream probe(temp_, std::ios::binary | std::ios::trunc);
    if (!probe) error_ = fmt::format("cannot write {}: {}", temp_, std::strerror(errno));
}

launch_times::~launch_times() {
    for (CUevent e : events_) cu_.event_destroy(e);
    std::remove(temp_.c_str()); // renamed away when written; a leftover otherwise
}

CUresult launch_times::record(CUevent& e) {
    if (CUresult r = cu_.event_create(&e, CU_EVENT_DEFAULT)) return r;
    events_.push_back(e);
    return cu_.event_record(e, nullptr);
}

CUresult launch_times::origin() { return record(origin_); }

CUresult launch_times::before(const std::string& kernel, const std::string& where) {
    runs_.push_back({kernel, where});
    return record(runs_.back().start);
}

CUresult launch_times::after() { return record(runs_.back().end); }

std::string launch_times::write(const std::string& device_name) {
    auto since_origin = [&](CUevent e, double& us) -> std::string {
        if (CUresult r = cu_.event_synchronize(e)) return "cuEventSynchronize: " + cu_.describe(r);
        float ms = 0;
        if (CUresult r = cu_.event_elapsed_time(&ms, origin_, e)) return "cuEventElapsedTime: " + cu_.describe(r);
        us = double(ms) * 1e3;
        return "";
    };
    nlohmann::ordered_json runs = nlohmann::ordered_json::array();
    for (const run_events& r : runs_) {
        double start = 0, end = 0;
        if (std::string why = since_origin(r.start, start); !why.empty()) return why;
        if (std::string why = since_origin(r.end, end); !why.empty()) return why;
        runs.push_back({{"kernel", r.kernel}, {"where", r.where}, {"start_us", start}, {"end_us", end},
                        {"us", end - start}});
    }
    nlohmann::ordered_json all = {{"device", device_name},
                                  {"clock", "CUDA events (cuEventElapsedTime), microseconds from an event before the first launch"},
                                  {"launches", runs}};
    {
        std::ofstream out(temp_, std::ios::binary | std::ios::trunc);
        out << all.dump(2) << '\n';
        out.flush();
        if (!out) return fmt::format("cannot write {}: {}", temp_, std::strerror(errno));
    }
    if (std::rename(temp_.c_str(), path_.c_str()) != 0) return fmt::format("cannot write {}: {}", path_, std::strerror(errno));
    return "";
}

} // namespace ptxsim::gpu
