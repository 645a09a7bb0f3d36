#include "tuner/strategy.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace squall::tuner {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
// Start temperature, as a relative slowdown accepted with probability 1/e.
constexpr double kHot = 0.3;
constexpr double kCold = 0.005;
// Share of the budget the first walk takes before the local search.
constexpr double kWalkShare = 0.5;
} // namespace

DualAnnealing::DualAnnealing(const rt::ConfigSpace& space, const rt::ProblemSize& problem,
                             const rt::DeviceInfo& device, const StrategyOptions& options)
    : LocalSearch(space, problem, device, options) {
    chain_ = std::max<size_t>(10, static_cast<size_t>(kWalkShare * double(options.budget)));
    temperature_ = kHot;
}

void DualAnnealing::reheat() {
    annealing_ = true;
    steps_ = 0;
    temperature_ = kHot;
    x_ = best();
    fx_ = x_ ? best_seconds() : kInf;
    // Later walks are shorter: the local search around the best pays off more.
    chain_ = std::max<size_t>(10, chain_ / 2);
}

std::optional<rt::Config> DualAnnealing::walk_proposal() {
    if (!x_) {
        x_ = start_config();
        fx_ = kInf;
        if (const auto* r = result(*x_)) fx_ = r->value_or(kInf);
        if (!seen(*x_) && valid(*x_)) return x_;
    }
    // Long jumps while hot: the number of changed parameters grows with the temperature.
    const double heat = temperature_ / kHot;
    std::geometric_distribution<int> extra(1.0 - 0.6 * heat);
    for (int attempt = 0; attempt < 64; ++attempt) {
        const int changes = 1 + extra(rng_);
        std::optional<rt::Config> c;
        if (changes == 1) {
            auto n = unseen_neighbours(*x_);
            if (!n.empty()) c = std::move(n.front());
        } else {
            c = mutate(*x_, changes);
        }
        if (c && !seen(*c)) return c;
    }
    return random_unseen();
}

std::optional<rt::Config> DualAnnealing::propose() {
    if (annealing_) {
        if (steps_ < chain_) return walk_proposal();
        if (num_pending() > 0) return std::nullopt;
        annealing_ = false;
        if (best()) climb_from(*best(), best_seconds());
    }
    return LocalSearch::propose();
}

std::optional<rt::Config> DualAnnealing::restart() {
    reheat();
    return walk_proposal();
}

void DualAnnealing::on_tell(const rt::Config& c, std::optional<double> seconds) {
    if (!annealing_) return LocalSearch::on_tell(c, seconds);
    ++steps_;
    const double f = seconds.value_or(kInf);
    if (x_ && c == *x_) {
        fx_ = f;
    } else if (f < fx_) {
        x_ = c, fx_ = f;
    } else if (std::isfinite(f)) {
        const double worse = f / fx_ - 1.0;
        if (std::uniform_real_distribution<double>(0, 1)(rng_) < std::exp(-worse / temperature_))
            x_ = c, fx_ = f;
    }
    // Geometric cooling from hot to cold over one chain.
    temperature_ = kHot * std::pow(kCold / kHot, double(steps_) / double(chain_));
}

} // namespace squall::tuner
