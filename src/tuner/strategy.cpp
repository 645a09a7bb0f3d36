#include "tuner/strategy.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>

namespace squall::tuner {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

Strategy::Strategy(const rt::ConfigSpace& space, const rt::ProblemSize& problem,
                   const rt::DeviceInfo& device, const StrategyOptions& options)
    : space_(&space), problem_(problem), device_(device), options_(options), rng_(options.seed) {}

ConfigKey Strategy::key(const rt::Config& c) const {
    const auto& params = space_->params();
    if (c.values.size() != params.size())
        throw std::invalid_argument("tuner: configuration has the wrong number of values");
    ConfigKey k(params.size());
    for (size_t p = 0; p < params.size(); ++p) {
        const auto& vals = params[p].values;
        const auto it = std::find(vals.begin(), vals.end(), c.values[p]);
        if (it == vals.end())
            throw std::invalid_argument("tuner: value not allowed for " + params[p].name);
        k[p] = static_cast<uint16_t>(it - vals.begin());
    }
    return k;
}

std::vector<rt::Config> Strategy::ask(size_t n) {
    std::vector<rt::Config> out;
    if (!opened_ && uses_start_points())
        openers_.assign(space_->starts().rbegin(), space_->starts().rend());
    opened_ = true;
    // A strategy may return a seen candidate now and then (the base filters them); many
    // in a row mean it has nothing new.
    int misses = 0;
    while (out.size() < n && misses < 256) {
        // The strategy's own first proposal (its start), then the start points.
        std::optional<rt::Config> c;
        if (openers_.empty() || out.empty()) c = propose();
        if (!c && !openers_.empty()) {
            c = std::move(openers_.back());
            openers_.pop_back();
        }
        if (!c) break;
        auto [it, fresh] = results_.try_emplace(key(*c));
        if (!fresh || !valid(*c)) {
            ++misses;
            continue;
        }
        misses = 0;
        ++pending_;
        out.push_back(std::move(*c));
    }
    return out;
}

void Strategy::tell(const rt::Config& c, std::optional<double> seconds) {
    if (seconds && !(std::isfinite(*seconds) && *seconds >= 0)) seconds.reset();
    auto [it, fresh] = results_.try_emplace(key(c));
    if (it->second.told) throw std::invalid_argument("tuner: configuration told twice");
    if (!fresh) --pending_;
    it->second = {true, seconds};
    ++told_;
    if (seconds && (!best_ || *seconds < best_seconds_)) {
        best_ = c;
        best_seconds_ = *seconds;
    }
    on_tell(c, seconds);
}

const std::optional<double>* Strategy::result(const rt::Config& c) const {
    const auto it = results_.find(key(c));
    return it != results_.end() && it->second.told ? &it->second.seconds : nullptr;
}

std::optional<rt::Config> Strategy::random_unseen() {
    for (int attempt = 0; attempt < 32; ++attempt) {
        auto c = space_->sample(rng_, problem_, device_);
        if (c && !seen(*c)) return c;
    }
    // A small space (a 2-D kernel, a reduction) is listed, so that every valid
    // configuration is reached; a large one never is.
    if (space_->raw_size() > (1u << 16)) return std::nullopt;
    std::vector<rt::Config> unseen;
    for (rt::Config& c : space_->enumerate(problem_, device_))
        if (!seen(c)) unseen.push_back(std::move(c));
    if (unseen.empty()) return std::nullopt;
    return unseen[std::uniform_int_distribution<size_t>(0, unseen.size() - 1)(rng_)];
}

std::vector<rt::Config> Strategy::unseen_neighbours(const rt::Config& c) {
    std::vector<rt::Config> out;
    for (auto& n : space_->neighbours(c, problem_, device_))
        if (!seen(n)) out.push_back(std::move(n));
    std::shuffle(out.begin(), out.end(), rng_);
    return out;
}

std::optional<rt::Config> Strategy::mutate(const rt::Config& c, int changes) {
    const auto& params = space_->params();
    rt::Config m = c;
    for (int n = 0; n < changes; ++n) {
        const size_t p = std::uniform_int_distribution<size_t>(0, params.size() - 1)(rng_);
        const auto& vals = params[p].values;
        m.values[p] = vals[std::uniform_int_distribution<size_t>(0, vals.size() - 1)(rng_)];
    }
    if (m == c || !valid(m)) return std::nullopt;
    return m;
}

rt::Config Strategy::start_config() const {
    return options_.start ? *options_.start : space_->default_config();
}

// ---- local search ----

void LocalSearch::climb_from(const rt::Config& c, std::optional<double> t) {
    const std::optional<rt::Config> from = current_;
    current_ = c;
    current_seconds_ = t.value_or(kInf);
    queue_ = unseen_neighbours(c);
    // Values next to the current ones first (the queue is taken from the back): a time is
    // usually smooth in each parameter's ordered values.
    const ConfigKey here = key(c);
    const auto step = [&](const rt::Config& n) {
        const ConfigKey k = key(n);
        for (size_t p = 0; p < k.size(); ++p)
            if (k[p] != here[p]) return std::abs(int(k[p]) - int(here[p]));
        return 0;
    };
    std::stable_sort(queue_.begin(), queue_.end(),
                     [&](const rt::Config& a, const rt::Config& b) { return step(a) > step(b); });
    // Last (the queue's front), the moves a restriction couples, which no single move
    // reaches: a climb stuck on the one-parameter moves tries them before a restart.
    std::vector<rt::Config> coupled;
    for (rt::Config& n : space_->repaired_moves(c, problem_, device_))
        if (!seen(n)) coupled.push_back(std::move(n));
    queue_.insert(queue_.begin(), std::make_move_iterator(coupled.begin()),
                  std::make_move_iterator(coupled.end()));
    // After a move, one more step the same way is tried first.
    if (!from) return;
    const ConfigKey before = key(*from);
    for (size_t p = 0; p < here.size(); ++p) {
        if (before[p] == here[p]) continue;
        const int next = 2 * int(here[p]) - int(before[p]);
        const auto& vals = space_->params()[p].values;
        if (next < 0 || next >= int(vals.size())) break;
        rt::Config further = c;
        further.values[p] = vals[size_t(next)];
        if (!seen(further) && valid(further)) queue_.push_back(std::move(further));
        break;
    }
}

std::optional<rt::Config> LocalSearch::propose() {
    if (!current_) {
        const rt::Config s = start_config();
        const auto* r = result(s);
        climb_from(s, r ? *r : std::nullopt);
        if (!seen(s) && valid(s)) return s;
    }
    while (!queue_.empty()) {
        rt::Config c = std::move(queue_.back());
        queue_.pop_back();
        if (!seen(c)) return c;
    }
    // Stuck, unless a pending proposal may still move the climb.
    if (num_pending() > 0) return std::nullopt;
    return restart();
}

std::optional<rt::Config> LocalSearch::restart() {
    // Mostly a kick: a few random changes to the best; every third a uniform sample.
    std::optional<rt::Config> r;
    if (best() && ++restarts_ % 3 != 0)
        for (int attempt = 0; attempt < 64 && !(r && !seen(*r)); ++attempt) r = mutate(*best(), 3);
    if (!r || seen(*r)) r = random_unseen();
    if (r) climb_from(*r, std::nullopt);
    return r;
}

void LocalSearch::on_tell(const rt::Config& c, std::optional<double> seconds) {
    if (!current_) return;
    if (c == *current_) {
        current_seconds_ = seconds.value_or(kInf);
    } else if (seconds && *seconds < current_seconds_) {
        climb_from(c, seconds);
    }
}

std::unique_ptr<Strategy> make_strategy(std::string_view name, const rt::ConfigSpace& space,
                                        const rt::ProblemSize& problem,
                                        const rt::DeviceInfo& device,
                                        const StrategyOptions& options) {
    if (name == "random") return std::make_unique<RandomSearch>(space, problem, device, options);
    if (name == "local") return std::make_unique<LocalSearch>(space, problem, device, options);
    if (name == "annealing")
        return std::make_unique<DualAnnealing>(space, problem, device, options);
    if (name == "forest") return std::make_unique<ForestSearch>(space, problem, device, options);
    throw std::invalid_argument("tuner: unknown strategy '" + std::string(name) +
                                "' (random, local, annealing, forest)");
}

} // namespace squall::tuner
