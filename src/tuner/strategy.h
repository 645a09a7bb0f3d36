// Search strategies over a tunable kernel's configuration space (ask/tell).
//
// A strategy proposes valid configurations (ask), receives each one's measured time or
// its failure (tell), and keeps the fastest. ask(n) may hand out a batch before any of it
// is told, so a caller can compile a batch ahead of measuring. A strategy never proposes
// the same configuration twice, and for one seed and one sequence of tells it proposes
// the same configurations.
#pragma once

#include "runtime/config_space.h"
#include "runtime/device_info.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string_view>
#include <vector>

namespace squall::tuner {

struct StrategyOptions {
    uint64_t seed = 1;
    // Where local search and annealing start (the current wisdom's configuration);
    // the space's default when unset. Model-based search measures it first too.
    std::optional<rt::Config> start;
    // Evaluations the caller plans to spend; annealing fits its cooling to it.
    size_t budget = 200;
};

// A configuration as the positions of its values in each parameter's value list.
using ConfigKey = std::vector<uint16_t>;

class Strategy {
public:
    // space must outlive the strategy.
    Strategy(const rt::ConfigSpace& space, const rt::ProblemSize& problem,
             const rt::DeviceInfo& device, const StrategyOptions& options);
    virtual ~Strategy() = default;
    Strategy(const Strategy&) = delete;
    Strategy& operator=(const Strategy&) = delete;

    virtual std::string_view name() const = 0;
    // Whether the space's start points (ConfigSpace::starts) are proposed first, so that
    // the search moves to the best of them as soon as it is told.
    virtual bool uses_start_points() const { return true; }

    // Up to n valid configurations never proposed before. Fewer (maybe none) when the
    // strategy waits for tells of its pending proposals or finds nothing new.
    std::vector<rt::Config> ask(size_t n);
    // The measured time of a configuration, or nullopt when it failed (did not compile,
    // launch or verify). Non-finite or negative times count as failures. A configuration
    // not asked for is accepted (e.g. a known measurement); telling one twice throws
    // std::invalid_argument.
    void tell(const rt::Config& c, std::optional<double> seconds);

    // The fastest configuration told so far (never a failure); nullopt before any success.
    const std::optional<rt::Config>& best() const { return best_; }
    double best_seconds() const { return best_seconds_; }
    size_t num_told() const { return told_; }
    size_t num_pending() const { return pending_; }

    const rt::ConfigSpace& space() const { return *space_; }
    ConfigKey key(const rt::Config& c) const;

protected:
    // One new candidate; the base discards ones already proposed. nullopt: none now.
    virtual std::optional<rt::Config> propose() = 0;
    virtual void on_tell(const rt::Config& c, std::optional<double> seconds) = 0;

    bool seen(const rt::Config& c) const { return results_.count(key(c)) != 0; }
    // The told result of c: nullptr when not told (or still pending).
    const std::optional<double>* result(const rt::Config& c) const;
    // A uniformly sampled valid configuration not seen yet (a few draws).
    std::optional<rt::Config> random_unseen();
    // The valid neighbours of c (one parameter changed) not seen yet, shuffled.
    std::vector<rt::Config> unseen_neighbours(const rt::Config& c);
    // c with `changes` parameters set to random other values, if that is valid.
    std::optional<rt::Config> mutate(const rt::Config& c, int changes);
    rt::Config start_config() const;
    bool valid(const rt::Config& c) const { return space_->is_valid(c, problem_, device_); }

    const rt::ConfigSpace* space_;
    rt::ProblemSize problem_;
    rt::DeviceInfo device_;
    StrategyOptions options_;
    std::mt19937_64 rng_;

private:
    struct Entry {
        bool told = false;
        std::optional<double> seconds;
    };
    std::map<ConfigKey, Entry> results_;
    std::optional<rt::Config> best_;
    double best_seconds_ = 0;
    size_t told_ = 0, pending_ = 0;
    bool opened_ = false;
    std::vector<rt::Config> openers_; // start points still to propose, last first
};

// Uniform random sampling of valid configurations (ConfigSpace::sample).
class RandomSearch : public Strategy {
public:
    using Strategy::Strategy;
    std::string_view name() const override { return "random"; }
    bool uses_start_points() const override { return false; } // the unbiased baseline

protected:
    std::optional<rt::Config> propose() override { return random_unseen(); }
    void on_tell(const rt::Config&, std::optional<double>) override {}
};

// Hill climbing over ConfigSpace::neighbours from the start configuration: neighbours
// (values next to the current ones first, then in random order), moving to the first one
// faster than the current configuration and trying one more step the same way; when every
// neighbour is slower, a restart from a random kick of the best (a few parameters
// changed), every third restart from a uniform sample.
class LocalSearch : public Strategy {
public:
    using Strategy::Strategy;
    std::string_view name() const override { return "local"; }

protected:
    std::optional<rt::Config> propose() override;
    void on_tell(const rt::Config& c, std::optional<double> seconds) override;
    // Climbs from c next (told time t, or pending / unknown).
    void climb_from(const rt::Config& c, std::optional<double> t);
    // When every neighbour is slower: the next proposal, from elsewhere.
    virtual std::optional<rt::Config> restart();

private:
    std::optional<rt::Config> current_;
    double current_seconds_ = 0;    // +inf while unknown or failed
    std::vector<rt::Config> queue_; // neighbours of current_ still to propose
    size_t restarts_ = 0;
};

// Dual annealing: a simulated-annealing walk with long jumps while hot (several
// parameters changed), then a local search from the best configuration it found; when
// that local search is stuck the walk reheats from the best.
class DualAnnealing : public LocalSearch {
public:
    DualAnnealing(const rt::ConfigSpace& space, const rt::ProblemSize& problem,
                  const rt::DeviceInfo& device, const StrategyOptions& options);
    std::string_view name() const override { return "annealing"; }

protected:
    std::optional<rt::Config> propose() override;
    void on_tell(const rt::Config& c, std::optional<double> seconds) override;
    std::optional<rt::Config> restart() override;

private:
    std::optional<rt::Config> walk_proposal();
    void reheat();

    bool annealing_ = true;
    std::optional<rt::Config> x_; // the walk's state
    double fx_ = 0;               // its time; +inf while unknown
    size_t steps_ = 0, chain_ = 0;
    double temperature_ = 0;
};

// Model-based search: a random forest of regression trees over the value positions
// predicts log time; each proposal is the candidate (random samples plus neighbours of
// the best measured ones) with the lowest optimistic prediction (mean minus spread),
// with some purely random proposals for exploration.
class ForestSearch : public Strategy {
public:
    using Strategy::Strategy;
    std::string_view name() const override { return "forest"; }

protected:
    std::optional<rt::Config> propose() override;
    void on_tell(const rt::Config& c, std::optional<double> seconds) override;

private:
    struct Sample {
        ConfigKey x;
        std::optional<double> log_seconds;
        rt::Config config;
    };
    std::vector<Sample> data_;
    bool started_ = false;
};

// "random", "local", "annealing" or "forest"; throws std::invalid_argument otherwise.
std::unique_ptr<Strategy> make_strategy(std::string_view name, const rt::ConfigSpace& space,
                                        const rt::ProblemSize& problem,
                                        const rt::DeviceInfo& device,
                                        const StrategyOptions& options);

} // namespace squall::tuner
