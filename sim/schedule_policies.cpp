#include "sim/schedule_policies.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace ptxsim::sim {
namespace {

uint64_t splitmix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// xoshiro256**: small, fast and the same on every host.
class rng {
public:
    explicit rng(uint64_t seed) {
        for (auto& w : s_) w = seed = splitmix64(seed);
    }
    uint64_t next() {
        const uint64_t result = rotl(s_[1] * 5, 7) * 9, t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }
    // Uniform in [0, n), n > 0 (the tiny modulo bias does not matter here).
    uint64_t below(uint64_t n) { return next() % n; }
    template <class T>
    void shuffle(std::span<T> v) {
        for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[below(i)]);
    }

private:
    static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    uint64_t s_[4];
};

// What a seed fixes before the run starts.
struct random_shape {
    uint32_t preempt_one_in; // preempt after a memory operation or backward branch with probability 1/this
    uint32_t longest_turn;
    uint32_t split_one_in;   // split a converged warp at a load, store or atomic with probability 1/this (0: never)
};
// A quarter of the seeds never split warps, so that interleavings of whole
// warps stay as likely as before splitting existed.
uint32_t split_odds(rng& r) {
    static constexpr uint32_t odds[] = {0, 2, 8, 32};
    return odds[r.below(4)];
}
random_shape shape_of(uint64_t seed, uint32_t quantum) {
    rng r(seed ^ 0x5EED5EED5EED5EEDull);
    static constexpr uint32_t odds[] = {2, 4, 16, 64};
    static constexpr uint32_t turns[] = {8, 64, 512, 0};
    uint32_t t = turns[r.below(4)];
    const uint32_t preempt = odds[r.below(4)];
    return {preempt, t ? std::min(t, quantum) : quantum, split_odds(r)};
}

// Splitting a converged warp (scheduler::split) draws from a stream of its
// own, so a seed that never splits makes the same choices as before.
class warp_splitter {
public:
    warp_splitter(uint64_t seed, uint32_t one_in) : rng_(seed ^ 0x51A7C0DE51A7C0DEull), one_in_(one_in) {}
    // Half the time one lane runs ahead, otherwise a random half of them.
    uint32_t split(uint32_t lanes) {
        if (!one_in_ || rng_.below(one_in_) != 0) return lanes;
        const int n = __builtin_popcount(lanes);
        if (rng_.below(2)) {
            uint32_t k = static_cast<uint32_t>(rng_.below(static_cast<uint64_t>(n)));
            uint32_t l = lanes;
            while (k--) l &= l - 1;
            return l & -l;
        }
        return lanes & static_cast<uint32_t>(rng_.next());
    }

private:
    rng rng_;
    uint32_t one_in_;
};

class random_scheduler final : public scheduler {
public:
    random_scheduler(uint64_t seed, const schedule_params& p)
        : rng_(seed), shape_(shape_of(seed, p.quantum)), quantum_(p.quantum), splitter_(seed, shape_.split_one_in) {}
    void order_ctas(std::span<schedule_unit> ctas) override { rng_.shuffle(ctas); }
    // Half the time no more than one turn's worth, so that a warp preempted
    // after a store lets other CTAs run before its next turn, not only the
    // other warps of its CTA.
    uint64_t cta_budget(const schedule_unit&) override {
        return 1 + rng_.below(rng_.below(2) ? shape_.longest_turn : uint64_t(quantum_) * 4);
    }
    void order_warps(std::span<schedule_unit> warps) override { rng_.shuffle(warps); }
    uint32_t turn(const schedule_unit&) override { return 1 + static_cast<uint32_t>(rng_.below(shape_.longest_turn)); }
    void turn_ended(const schedule_unit&, uint32_t) override {}
    bool preempt(schedule_point, uint32_t) override { return rng_.below(shape_.preempt_one_in) == 0; }
    uint32_t pick_group(std::span<const uint32_t> pcs) override { return static_cast<uint32_t>(rng_.below(pcs.size())); }
    uint32_t split(uint32_t lanes) override { return splitter_.split(lanes); }

private:
    rng rng_;
    random_shape shape_;
    uint32_t quantum_;
    warp_splitter splitter_;
};

struct pct_shape {
    uint32_t depth;
    std::vector<uint64_t> change_points; // instruction counts, ascending
    uint32_t split_one_in = 0;           // as random_shape's
};
pct_shape pct_shape_of(uint64_t seed, uint64_t expected) {
    rng r(seed ^ 0x9C7D3E1A2B4F6081ull);
    pct_shape s;
    s.depth = 2 + static_cast<uint32_t>(r.below(2));
    for (uint32_t i = 1; i < s.depth; ++i) s.change_points.push_back(1 + r.below(std::max<uint64_t>(1, expected)));
    std::sort(s.change_points.begin(), s.change_points.end());
    s.split_one_in = split_odds(r);
    return s;
}

// Backward branches a warp takes in a row (no other warp running between)
// after which it counts as spinning. Writes do not reset it: a lock taken
// with atom.cas spins by writing.
constexpr uint32_t spin_limit = 64;

class pct_scheduler final : public scheduler {
public:
    pct_scheduler(uint64_t seed, const schedule_params& p)
        : rng_(seed), shape_(pct_shape_of(seed, p.expected_instructions)), quantum_(p.quantum), splitter_(seed, shape_.split_one_in) {}

    void launch_begins(uint64_t, uint32_t) override { priority_.clear(); }
    bool whole_grid_order() const override { return true; }
    void order_ctas(std::span<schedule_unit>) override {} // not asked: whole_grid_order
    uint64_t cta_budget(const schedule_unit&) override { return uint64_t(quantum_) * 4; }
    void order_warps(std::span<schedule_unit> warps) override { // a pass over every live warp
        moved_ = false;
        keyed_.clear();
        for (const auto& w : warps) keyed_.push_back({priority(w), w});
        std::stable_sort(keyed_.begin(), keyed_.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        for (size_t i = 0; i < warps.size(); ++i) warps[i] = keyed_[i].second;
    }
    // Only the first warp of a pass that can move runs (the highest-priority
    // one); it keeps running until it blocks, spins or reaches the next
    // change point, where its turn ends exactly.
    uint32_t turn(const schedule_unit& w) override {
        if (moved_) return 0;
        running_ = key(w);
        if (running_ != spinner_) spinner_ = running_, spins_ = 0;
        uint64_t left = quantum_;
        if (next_change_ < shape_.change_points.size())
            left = shape_.change_points[next_change_] > executed_ ? shape_.change_points[next_change_] - executed_ : 1;
        return static_cast<uint32_t>(std::clamp<uint64_t>(left, 1, quantum_));
    }
    void turn_ended(const schedule_unit& w, uint32_t ran) override {
        if (!ran) return;
        moved_ = true;
        executed_ += ran;
        if (next_change_ < shape_.change_points.size() && executed_ >= shape_.change_points[next_change_]) {
            // Change point i (1-based) sets the priority to i: below every
            // starting priority, above the spinners.
            priority_[key(w)] = static_cast<int64_t>(++next_change_);
        }
    }
    bool preempt(schedule_point what, uint32_t) override {
        if (what == schedule_point::backward_branch) {
            if (++spins_ >= spin_limit) { // a spin loop, or a long one: let the others run
                spins_ = 0;
                priority_[running_] = --lowest_;
                return true;
            }
        }
        return false;
    }
    uint32_t pick_group(std::span<const uint32_t> pcs) override { return static_cast<uint32_t>(rng_.below(pcs.size())); }
    uint32_t split(uint32_t lanes) override { return splitter_.split(lanes); }

private:
    using warp_key = std::pair<uint64_t, uint32_t>;
    static warp_key key(const schedule_unit& u) { return {u.cta, u.warp}; }
    // Starting priorities are random and above `depth`, given on first sight.
    int64_t priority(const schedule_unit& u) {
        auto [it, fresh] = priority_.try_emplace(key(u), 0);
        if (fresh) it->second = static_cast<int64_t>(shape_.depth) + static_cast<int64_t>(rng_.below(uint64_t(1) << 40));
        return it->second;
    }

    rng rng_;
    pct_shape shape_;
    uint32_t quantum_;
    warp_splitter splitter_;
    struct key_hash {
        size_t operator()(const warp_key& k) const { return std::hash<uint64_t>()(k.first * 0x9E3779B97F4A7C15ull ^ k.second); }
    };
    std::unordered_map<warp_key, int64_t, key_hash> priority_;
    std::vector<std::pair<int64_t, schedule_unit>> keyed_;
    warp_key running_{}, spinner_{UINT64_MAX, 0};
    uint32_t spins_ = 0;
    bool moved_ = false;
    uint64_t executed_ = 0; // instructions run so far in the launch file
    size_t next_change_ = 0;
    int64_t lowest_ = 0;    // spinners go below every other priority
};

} // namespace

std::unique_ptr<scheduler> make_scheduler(uint64_t seed, const schedule_params& params) {
    if (kind_of_seed(seed) == schedule_kind::pct) return std::make_unique<pct_scheduler>(seed, params);
    return std::make_unique<random_scheduler>(seed, params);
}

namespace {
std::string split_text(uint32_t one_in) { return one_in ? fmt::format(", warps split 1 in {} at loads, stores and atomics", one_in) : ""; }
} // namespace

std::string describe_schedule(uint64_t seed, const schedule_params& params) {
    if (kind_of_seed(seed) == schedule_kind::pct) {
        pct_shape s = pct_shape_of(seed, params.expected_instructions);
        std::string at;
        for (uint64_t c : s.change_points) at += fmt::format("{}{}", at.empty() ? "" : ", ", c);
        return fmt::format("pct (depth {}, priority change after instruction {} of about {}{})", s.depth, at,
                           params.expected_instructions, split_text(s.split_one_in));
    }
    random_shape s = shape_of(seed, params.quantum);
    return fmt::format("random (preempt 1 in {} at memory operations and backward branches, turns up to {} instructions{})",
                       s.preempt_one_in, s.longest_turn, split_text(s.split_one_in));
}

uint64_t derive_seed(uint64_t base, uint64_t i) { return (splitmix64(splitmix64(base) + i) & ~1ull) | (i & 1); }

} // namespace ptxsim::sim
