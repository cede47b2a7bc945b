#pragma once
// Runs a one-CTA tensor-core test kernel again under a do-nothing observer.
// The engine then lends no host memory spans, so wgmma reads its operands
// element by element (isa/sem/wgmma_slice.cpp: load_matrix's other path);
// both paths must give the same bits.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/device.hpp"
#include "sim/events.hpp"

namespace ptxsim::test {

// Zeroes the `first.size()` words at `out`, launches `k` on one CTA of 128
// threads with `params` and an observer, and returns "" when the words
// then equal `first`, else what went wrong.
inline std::string rerun_observed(sim::device& dev, const sim::kernel_ref& k, const std::vector<uint8_t>& params, uint64_t out,
                                  const std::vector<uint32_t>& first) {
    sim::observer watching;
    sim::launch_options opts;
    opts.observer = &watching;
    std::vector<uint32_t> again(first.size(), 0);
    dev.write(out, again.data(), again.size() * 4);
    parser::diagnostics d;
    auto r = dev.launch(k, {1}, {128}, 0, params, opts, d);
    if (r.fault) return "under an observer: " + r.fault->message;
    dev.read(out, again.data(), again.size() * 4);
    return again == first ? "" : "the observed run's results differ";
}

} // namespace ptxsim::test
