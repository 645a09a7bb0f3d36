// The tuner's search strategies on a synthetic objective over the real configuration
// spaces of advec_u_2i5 and diff_uvw_smag (sm_90, a 512^3 grid). No GPU: the "time" is a
// known function of the configuration with its minimum at a chosen valid configuration.
#include "tests/tuner/synthetic.h"
#include "tuner/strategy.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <set>

namespace {

using namespace squall;
using namespace squall::gpu::testing;
using namespace squall::tuner::testing;
using tuner::ConfigKey;

constexpr size_t kBudget = 200;
const uint64_t kSeeds[] = {1, 2, 3};
const char* const kStrategies[] = {"random", "local", "annealing", "forest"};

struct Outcome {
    double best_ratio = 0; // true objective of the strategy's best / the optimum's
    std::vector<rt::Config> proposals;
    std::optional<rt::Config> best;
};

// Asks in batches of `batch`, measures with 2 % multiplicative noise (fixed seed) and
// tells; `fails` marks configurations whose measurement fails.
Outcome search(const Case& c, std::string_view strategy, uint64_t seed, size_t batch = 1,
               const std::function<bool(const rt::Config&)>& fails = {}) {
    const Objective f(c);
    tuner::StrategyOptions o;
    o.seed = seed;
    o.budget = kBudget;
    auto s = tuner::make_strategy(strategy, c.space(), c.problem, c.device, o);
    std::mt19937_64 noise_rng(seed + 1000);
    std::normal_distribution<double> noise(1.0, 0.02);
    std::set<ConfigKey> seen;
    Outcome out;
    while (s->num_told() < kBudget) {
        const auto asked = s->ask(std::min(batch, kBudget - s->num_told()));
        EXPECT_FALSE(asked.empty()) << strategy << " stopped after " << s->num_told();
        if (asked.empty()) break;
        for (const rt::Config& x : asked) {
            EXPECT_TRUE(c.space().is_valid(x, c.problem, c.device)) << c.space().format(x);
            EXPECT_TRUE(seen.insert(s->key(x)).second) << "proposed twice: " << c.space().format(x);
            out.proposals.push_back(x);
        }
        for (const rt::Config& x : asked) {
            if (fails && fails(x))
                s->tell(x, std::nullopt);
            else
                s->tell(x, f(x) * noise(noise_rng));
        }
    }
    EXPECT_EQ(s->num_told(), kBudget);
    EXPECT_EQ(s->num_pending(), 0u);
    out.best = s->best();
    if (out.best) out.best_ratio = f(*out.best) / f(f.optimum());
    return out;
}

double median_ratio(const Case& c, std::string_view strategy) {
    std::vector<double> r;
    for (uint64_t seed : kSeeds) r.push_back(search(c, strategy, seed).best_ratio);
    std::sort(r.begin(), r.end());
    std::printf("  %-14s %-9s ratios min %.4f med %.4f max %.4f\n", c.kernel.c_str(),
                std::string(strategy).c_str(), r[0], r[r.size() / 2], r.back());
    return r[r.size() / 2];
}

TEST(TunerObjective, OptimumIsValidAndMinimal) {
    for (const Case& c : cases()) {
        const Objective f(c);
        ASSERT_TRUE(c.space().is_valid(f.optimum(), c.problem, c.device)) << c.kernel;
        EXPECT_DOUBLE_EQ(f(f.optimum()), 1.0);
        EXPECT_FALSE(f.optimum() == c.space().default_config());
        EXPECT_GT(f(c.space().default_config()), 1.5) << c.kernel;
        for (const rt::Config& n : c.space().neighbours(f.optimum(), c.problem, c.device))
            EXPECT_GT(f(n), 1.0) << c.space().format(n);
    }
}

TEST(TunerStrategies, UnknownNameThrows) {
    const Case& c = cases()[0];
    EXPECT_THROW(tuner::make_strategy("gradient", c.space(), c.problem, c.device, {}),
                 std::invalid_argument);
}

// The median over three seeds of the best found at 200 evaluations, relative to the
// optimum. The default configuration is at 1.87x and uniform sampling at ~1.4x; the bounds
// hold with margin for the strategies as they are, and fail when a guided strategy's
// proposals are replaced by uniform samples.
TEST(TunerStrategies, ReachNearTheOptimum) {
    const std::pair<const char*, double> bounds[] = {
        {"random", 1.6}, {"local", 1.15}, {"annealing", 1.15}, {"forest", 1.1}};
    for (const Case& c : cases())
        for (const auto& [name, bound] : bounds)
            EXPECT_LE(median_ratio(c, name), bound) << c.kernel << " " << name;
}

// Batches of 8 asked before any is told: still valid, never repeated (search checks).
TEST(TunerStrategies, BatchesAreValidAndNeverRepeat) {
    for (const char* name : kStrategies) {
        const Outcome o = search(cases()[1], name, 7, 8);
        EXPECT_EQ(o.proposals.size(), kBudget) << name;
        ASSERT_TRUE(o.best) << name;
        EXPECT_LT(o.best_ratio, 1.6) << name;
    }
}

// Every configuration within 40 % of the optimum fails to measure: none is kept as the
// best, and the search goes on past them.
TEST(TunerStrategies, FailuresAreNeverBest) {
    for (const Case& c : cases())
        for (const char* name : kStrategies) {
            const Objective f(c);
            const auto fails = [&](const rt::Config& x) { return f(x) < 1.4; };
            const Outcome o = search(c, name, 5, 1, fails);
            size_t failed = 0;
            for (const rt::Config& x : o.proposals) failed += fails(x) ? 1 : 0;
            EXPECT_GT(failed, 0u) << name << ": the test should reach failing configurations";
            ASSERT_TRUE(o.best) << name;
            EXPECT_FALSE(fails(*o.best)) << name << " " << c.space().format(*o.best);
            EXPECT_GE(o.best_ratio, 1.4) << name;
        }
}

TEST(TunerStrategies, DeterministicForASeed) {
    for (const char* name : kStrategies) {
        const auto a = search(cases()[0], name, 11).proposals;
        const auto b = search(cases()[0], name, 11).proposals;
        const auto other = search(cases()[0], name, 12).proposals;
        EXPECT_TRUE(a == b) << name;
        EXPECT_FALSE(a == other) << name;
    }
}

// Local search, annealing and the model-based search measure the given start first.
TEST(TunerStrategies, StartFromTheGivenConfiguration) {
    const Case& c = cases()[0];
    const rt::Config start = c.space().config_from_json({{"block_x", 128}, {"block_y", 2}});
    ASSERT_TRUE(c.space().is_valid(start, c.problem, c.device));
    for (const char* name : {"local", "annealing", "forest"}) {
        tuner::StrategyOptions o;
        o.start = start;
        auto s = tuner::make_strategy(name, c.space(), c.problem, c.device, o);
        const auto first = s->ask(1);
        ASSERT_EQ(first.size(), 1u) << name;
        EXPECT_TRUE(first[0] == start) << name;
    }
}

// A landscape of two modes, like the planes traversal against the tiled one: every
// tiled configuration costs 0.4 more than its distance from a planes optimum, and a
// planes configuration with one row per block 0.8 more. From the default (tiled, one row)
// the planes move is a slowdown, so a search must take the declared start point to get
// there; the uniform baseline never proposes it on purpose.
TEST(TunerStrategies, StartPointsAreProposedFirstAndFollowed) {
    const Case& c = cases()[1];
    const rt::ConfigSpace& space = c.space();
    const auto is_planes = [&](const rt::Config& x) {
        return x[size_t(space.param_index("planes"))].as_int() == 1;
    };
    const auto it = std::find_if(space.starts().begin(), space.starts().end(), is_planes);
    ASSERT_NE(it, space.starts().end());
    const rt::Config& start = *it;
    const size_t starts = space.starts().size();
    ASSERT_TRUE(space.is_valid(start, c.problem, c.device));
    const rt::Config optimum = space.config_from_json({{"planes", 1},
                                                       {"block_x", 32},
                                                       {"block_y", 8},
                                                       {"blocks_per_sm", 3},
                                                       {"plane_levels", 256}});
    ASSERT_TRUE(space.is_valid(optimum, c.problem, c.device));
    const int planes = space.param_index("planes"), rows = space.param_index("block_y");
    const auto f = [&](const rt::Config& x) {
        double t = 1.0;
        for (size_t p = 0; p < x.values.size(); ++p) t += x[p] == optimum[p] ? 0.0 : 0.02;
        if (x[size_t(planes)].as_int() == 0) return t + 0.4;
        return t + (x[size_t(rows)].as_int() == 1 ? 0.8 : 0.0);
    };
    for (const char* name : kStrategies) {
        std::vector<double> ratios;
        for (uint64_t seed : kSeeds) {
            tuner::StrategyOptions o;
            o.seed = seed, o.budget = 100;
            auto s = tuner::make_strategy(name, space, c.problem, c.device, o);
            s->tell(space.default_config(), f(space.default_config())); // as tune() does
            size_t position = 0, at = 0;
            while (s->num_told() < 100) {
                const auto asked = s->ask(4);
                ASSERT_FALSE(asked.empty()) << name;
                for (const rt::Config& x : asked) {
                    ++position;
                    if (x == start) at = position;
                }
                for (const rt::Config& x : asked) s->tell(x, f(x));
            }
            if (std::string_view(name) == "random") {
                EXPECT_TRUE(at == 0 || at > 1 + starts) << "the baseline takes no start points";
            } else {
                EXPECT_GE(at, 2u) << name << ": right after the strategy's own start";
                EXPECT_LE(at, 1 + starts) << name << ": right after the strategy's own start";
            }
            ratios.push_back(s->best_seconds() / f(optimum));
        }
        std::sort(ratios.begin(), ratios.end());
        std::printf("  two modes   %-9s median best %.4f of the optimum\n", name, ratios[1]);
        if (std::string_view(name) == "local" || std::string_view(name) == "annealing") {
            EXPECT_LE(ratios[1], 1.1) << name; // 1.46 when the start point is ignored
        }
    }
}

// Under planes a tile in y is valid only with contiguous rows (planes_def.cpp), so from
// the planes start point neither move alone exists. Planes without the tile cost 0.3 more,
// tiled configurations (not planes) 0.7 more whatever their tile and rows: the optimum is
// reached only by the coupled move (ConfigSpace::repaired_moves), which the local search
// tries once its one-parameter moves are spent: at the 53rd measurement with it; without
// it, a kick of three random changes found it at the 79th and 89th on two seeds of three
// (annealing: not in 150 without it).
TEST(TunerStrategies, LocalSearchTakesTheMovesARestrictionCouples) {
    const Case& c = cases()[1];
    const rt::ConfigSpace& space = c.space();
    const rt::Config optimum = space.config_from_json({{"planes", 1},
                                                       {"block_x", 64},
                                                       {"block_y", 4},
                                                       {"blocks_per_sm", 2},
                                                       {"tile_y", 2},
                                                       {"contig_y", 1}});
    ASSERT_TRUE(space.is_valid(optimum, c.problem, c.device));
    const int planes = space.param_index("planes"), tile_y = space.param_index("tile_y");
    const int rows = space.param_index("contig_y");
    const auto f = [&](const rt::Config& x) {
        double t = 1.0;
        for (int p = 0; p < int(x.values.size()); ++p)
            if (p != tile_y && p != rows) t += x[size_t(p)] == optimum[size_t(p)] ? 0.0 : 0.02;
        if (x[size_t(planes)].as_int() == 0) return t + 0.7;
        return t + (x[size_t(tile_y)] == optimum[size_t(tile_y)] ? 0.0 : 0.3);
    };
    // Annealing's walk takes half its budget first.
    for (const auto& [name, budget] :
         {std::pair{"local", size_t(70)}, {"annealing", size_t(150)}}) {
        std::vector<double> ratios;
        for (uint64_t seed : kSeeds) {
            tuner::StrategyOptions o;
            o.seed = seed, o.budget = budget;
            auto s = tuner::make_strategy(name, space, c.problem, c.device, o);
            s->tell(space.default_config(), f(space.default_config()));
            while (s->num_told() < budget) {
                const auto asked = s->ask(4);
                ASSERT_FALSE(asked.empty()) << name;
                for (const rt::Config& x : asked) s->tell(x, f(x));
            }
            ratios.push_back(s->best_seconds() / f(optimum));
        }
        std::sort(ratios.begin(), ratios.end());
        std::printf("  coupled     %-9s median best %.4f of the optimum\n", name, ratios[1]);
        EXPECT_LE(ratios[1], 1.1) << name;
    }
}

TEST(TunerStrategies, TellBookkeeping) {
    const Case& c = cases()[0];
    tuner::RandomSearch s(c.space(), c.problem, c.device, {});
    const auto asked = s.ask(3);
    ASSERT_EQ(asked.size(), 3u);
    EXPECT_EQ(s.num_pending(), 3u);
    s.tell(asked[0], 2.0);
    s.tell(asked[1], std::nullopt);
    s.tell(asked[2], std::numeric_limits<double>::quiet_NaN()); // a failure
    EXPECT_THROW(s.tell(asked[0], 1.0), std::invalid_argument);
    ASSERT_TRUE(s.best());
    EXPECT_TRUE(*s.best() == asked[0]);
    EXPECT_EQ(s.best_seconds(), 2.0);
    // A measurement not asked for (e.g. the wisdom's) counts and is never proposed.
    const rt::Config d = c.space().default_config();
    s.tell(d, 1.0);
    EXPECT_TRUE(*s.best() == d);
    EXPECT_EQ(s.num_told(), 4u);
    EXPECT_EQ(s.num_pending(), 0u);
    for (const rt::Config& x : s.ask(50)) EXPECT_FALSE(x == d || x == asked[0]);
}

} // namespace
