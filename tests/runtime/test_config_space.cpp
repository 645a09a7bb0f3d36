#include "runtime/config_space.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <set>

using namespace squall::rt;

namespace {

ConfigSpace small_space() {
    ConfigSpace s;
    s.add_param("bx", {16, 32, 64, 128, 256, 512}, 32);
    s.add_param("by", {1, 2, 4, 8}, 1);
    s.add_param("tile", {1, 2, 3, 4}, 1);
    s.add_param("order", {"xyz", "zyx"}, "xyz");
    s.add_param("unroll", {false, true}, false);
    s.add_restriction("bx * by >= 64");
    s.add_restriction("bx * by <= device.max_threads_per_block / 2");
    s.add_restriction("problem.x % (bx * tile) == 0 || order == 'zyx'");
    s.add_restriction("!unroll || tile > 1");
    return s;
}

// Counts by testing every raw point with the plain validity check.
uint64_t brute_force_count(const ConfigSpace& s, const ProblemSize& p, const DeviceInfo& d) {
    uint64_t n = 0;
    for (uint64_t i = 0; i < s.raw_size(); ++i) n += s.is_valid(s.raw_config(i), p, d);
    return n;
}

} // namespace

TEST(ConfigSpace, CountMatchesBruteForce) {
    ConfigSpace s = small_space();
    DeviceInfo d;
    EXPECT_EQ(s.raw_size(), 6u * 4 * 4 * 2 * 2);
    for (ProblemSize p : {ProblemSize(512), ProblemSize(96), ProblemSize(7)}) {
        uint64_t brute = brute_force_count(s, p, d);
        EXPECT_EQ(s.count_valid(p, d), brute) << p.to_string();
        EXPECT_EQ(s.enumerate(p, d).size(), brute);
    }
    // Device attributes matter: a smaller block limit removes configurations.
    DeviceInfo small = d;
    small.max_threads_per_block = 256;
    EXPECT_LT(s.count_valid(ProblemSize(512), small), s.count_valid(ProblemSize(512), d));
    EXPECT_EQ(s.count_valid(ProblemSize(512), small),
              brute_force_count(s, ProblemSize(512), small));
}

TEST(ConfigSpace, HandCountedSpace) {
    ConfigSpace s;
    s.add_param("a", {1, 2, 3}, 1);
    s.add_param("b", {1, 2, 3}, 1);
    s.add_restriction("a < b");
    EXPECT_EQ(s.count_valid({}, {}), 3u); // (1,2) (1,3) (2,3)
    auto all = s.enumerate({}, {});
    ASSERT_EQ(all.size(), 3u);
    EXPECT_EQ(all[0][0].as_int(), 1);
    EXPECT_EQ(all[0][1].as_int(), 2);
    EXPECT_EQ(all[2][0].as_int(), 2);
}

TEST(ConfigSpace, ContextOnlyRestrictionCanEmptyTheSpace) {
    ConfigSpace s;
    s.add_param("a", {1, 2}, 1);
    s.add_restriction("problem.x > 100");
    EXPECT_EQ(s.count_valid(ProblemSize(50), {}), 0u);
    EXPECT_EQ(s.count_valid(ProblemSize(500), {}), 2u);
    std::mt19937_64 rng(1);
    EXPECT_FALSE(s.sample(rng, ProblemSize(50), {}).has_value());
}

TEST(ConfigSpace, ValidityAndDefaults) {
    ConfigSpace s = small_space();
    DeviceInfo d;
    Config c = s.default_config();
    EXPECT_EQ(s.format(c), "bx=32, by=1, tile=1, order=xyz, unroll=false");
    std::string why;
    EXPECT_FALSE(s.is_valid(c, ProblemSize(512), d, &why)); // 32*1 < 64
    EXPECT_NE(why.find("bx * by >= 64"), std::string::npos) << why;
    Config bad = c;
    bad.values[0] = Value(33);
    EXPECT_FALSE(s.is_valid(bad, ProblemSize(512), d, &why));
    EXPECT_NE(why.find("not an allowed value"), std::string::npos);
    EXPECT_THROW(s.add_param("bx", {1}, 1), std::invalid_argument);
    EXPECT_THROW(s.add_param("q", {1, 2}, 3), std::invalid_argument);
    EXPECT_THROW(s.add_param("e", {}, 1), std::invalid_argument);
    EXPECT_THROW(s.add_restriction("nope > 1"), ExprError);
}

// The coordinate-search moves are exactly the valid configurations at Hamming distance 1,
// found independently by filtering the full enumeration.
TEST(ConfigSpace, NeighboursAreTheValidOneParameterMoves) {
    ConfigSpace s = small_space();
    DeviceInfo d;
    const ProblemSize p(96);
    const auto all = s.enumerate(p, d);
    ASSERT_GT(all.size(), 10u);
    for (const Config& c : {all.front(), all[all.size() / 2], all.back()}) {
        std::set<std::string> expect, got;
        for (const Config& o : all) {
            int diff = 0;
            for (size_t i = 0; i < o.values.size(); ++i) diff += !(o.values[i] == c.values[i]);
            if (diff == 1) expect.insert(s.format(o));
        }
        for (const Config& n : s.neighbours(c, p, d)) {
            EXPECT_TRUE(s.is_valid(n, p, d));
            EXPECT_TRUE(got.insert(s.format(n)).second) << "duplicate " << s.format(n);
        }
        EXPECT_EQ(got, expect) << s.format(c);
        EXPECT_FALSE(expect.empty());
    }
}

// The coupled moves, found independently in the full enumeration: valid configurations
// two parameters (i, j) away whose move of i alone is invalid, j at the nearest position
// that makes it valid (the lower on a tie); never a neighbour, never twice.
TEST(ConfigSpace, RepairedMovesFixABrokenMoveWithTheNearestValue) {
    ConfigSpace s = small_space();
    DeviceInfo d;
    const ProblemSize p(96);
    const auto all = s.enumerate(p, d);
    const auto pos = [&](size_t param, const Value& v) {
        const auto& vals = s.params()[param].values;
        return long(std::find(vals.begin(), vals.end(), v) - vals.begin());
    };
    size_t total = 0;
    for (const Config& c : all) {
        std::set<std::string> expect, got, near;
        for (const Config& n : s.neighbours(c, p, d)) near.insert(s.format(n));
        for (const Config& o : all) {
            std::vector<size_t> diff;
            for (size_t i = 0; i < o.values.size(); ++i)
                if (!(o.values[i] == c.values[i])) diff.push_back(i);
            if (diff.size() != 2) continue;
            for (const auto& [i, j] : {std::pair{diff[0], diff[1]}, std::pair{diff[1], diff[0]}}) {
                Config alone = c;
                alone.values[i] = o.values[i];
                if (s.is_valid(alone, p, d)) continue;
                const long here = pos(j, c.values[j]), at = pos(j, o.values[j]);
                bool nearest = true;
                for (const Config& q : all) { // same move of i, j nearer
                    if (!(q.values[i] == o.values[i])) continue;
                    bool rest_same = true;
                    for (size_t k = 0; k < q.values.size(); ++k)
                        if (k != i && k != j && !(q.values[k] == c.values[k])) rest_same = false;
                    const long w = pos(j, q.values[j]);
                    if (rest_same && w != here &&
                        (std::abs(w - here) < std::abs(at - here) ||
                         (std::abs(w - here) == std::abs(at - here) && w < at)))
                        nearest = false;
                }
                if (nearest) expect.insert(s.format(o));
            }
        }
        for (const Config& n : s.repaired_moves(c, p, d)) {
            EXPECT_TRUE(s.is_valid(n, p, d));
            EXPECT_FALSE(near.count(s.format(n))) << "a neighbour: " << s.format(n);
            EXPECT_TRUE(got.insert(s.format(n)).second) << "duplicate " << s.format(n);
        }
        EXPECT_EQ(got, expect) << s.format(c);
        total += got.size();
    }
    EXPECT_GT(total, 20u); // the restrictions do couple parameters here
}

// Two parameters that must change together (a == b): from (0, 0) each one's move is
// broken and the other repairs it: the same configuration both ways, listed once.
TEST(ConfigSpace, RepairedMovesOfATwoWayCouplingAreListedOnce) {
    ConfigSpace s;
    s.add_param("a", {0, 1}, 0);
    s.add_param("b", {0, 1}, 0);
    s.add_param("c", {1, 2, 3}, 1);
    s.add_restriction("a == b");
    DeviceInfo d;
    const ProblemSize p(8);
    const Config start = s.default_config();
    const auto moves = s.repaired_moves(start, p, d);
    ASSERT_EQ(moves.size(), 1u);
    EXPECT_EQ(s.format(moves[0]), s.format(s.config_from_json({{"a", 1}, {"b", 1}})));
}

TEST(ConfigSpace, SamplingIsValidAndCoversTheSpace) {
    ConfigSpace s = small_space();
    DeviceInfo d;
    ProblemSize p(512);
    const uint64_t n = s.count_valid(p, d);
    std::mt19937_64 rng(42);
    std::map<std::string, int> hits;
    const int draws = static_cast<int>(n) * 200;
    for (int i = 0; i < draws; ++i) {
        auto c = s.sample(rng, p, d);
        ASSERT_TRUE(c.has_value());
        ASSERT_TRUE(s.is_valid(*c, p, d));
        hits[s.format(*c)]++;
    }
    EXPECT_EQ(hits.size(), n);        // every valid configuration drawn
    for (const auto& [k, v] : hits) { // uniform: each near 200 (loose 5-sigma bounds)
        EXPECT_GT(v, 130) << k;
        EXPECT_LT(v, 270) << k;
    }
}

// A raw space too large to enumerate: sparse but reachable valid points are still drawn
// (and valid); with practically none the call returns nullopt instead of enumerating
// 10^12 points (which once left a GPU test running for hours).
TEST(ConfigSpace, HugeSparseSpaceSamplesWithoutEnumerating) {
    ConfigSpace s;
    std::vector<Value> vals;
    for (int i = 0; i < 1000; ++i) vals.push_back(i);
    for (const char* n : {"a", "b", "c", "d"}) s.add_param(n, vals, 0);
    s.add_restriction("a < 10 || (a == 500 && b == 7)"); // 1 in 100 reachable
    std::mt19937_64 rng(5);
    for (int n = 0; n < 20; ++n) {
        auto c = s.sample(rng, {}, {});
        ASSERT_TRUE(c.has_value());
        EXPECT_TRUE(s.is_valid(*c, {}, {}));
    }
    ConfigSpace t;
    for (const char* n : {"a", "b", "c", "d"}) t.add_param(n, vals, 0);
    t.add_restriction("a == 7 && b == 11 && c == 13 && d == 17"); // 1 in 10^12
    EXPECT_FALSE(t.sample(rng, {}, {}).has_value());
}

TEST(ConfigSpace, SparseSpaceSamplingFallsBackToExact) {
    ConfigSpace s;
    std::vector<Value> vals;
    for (int i = 0; i < 200; ++i) vals.push_back(i);
    s.add_param("a", vals, 0);
    s.add_param("b", vals, 0);
    s.add_param("c", vals, 0);
    s.add_restriction("a == 7 && b == 11 && c == 13"); // 1 in 8 million
    std::mt19937_64 rng(3);
    auto c = s.sample(rng, {}, {});
    ASSERT_TRUE(c.has_value());
    EXPECT_EQ(s.format(*c), "a=7, b=11, c=13");
}

TEST(ConfigSpace, JsonRoundTrip) {
    ConfigSpace s = small_space();
    auto j = s.to_json();
    ConfigSpace t = ConfigSpace::from_json(j);
    EXPECT_EQ(t.to_json(), j);
    EXPECT_EQ(t.count_valid(ProblemSize(512), {}), s.count_valid(ProblemSize(512), {}));
    Config c = s.raw_config(77);
    EXPECT_EQ(s.config_from_json(s.config_to_json(c)), c);
    EXPECT_THROW(s.config_from_json(nlohmann::json{{"nope", 1}}), std::invalid_argument);
    EXPECT_THROW(s.config_from_json(nlohmann::json{{"bx", 33}}), std::invalid_argument);
    EXPECT_THROW(s.config_from_json(nlohmann::json{{"bx", "32"}}), std::invalid_argument);
}

// A space shaped like the paper's: millions of raw points must enumerate in seconds.
TEST(ConfigSpace, MillionsOfRawPointsInSeconds) {
    ConfigSpace s;
    s.add_param("block_x", {16, 32, 64, 128, 256, 512, 1024}, 256);
    s.add_param("block_y", {1, 2, 4, 8, 16}, 1);
    s.add_param("block_z", {1, 2, 4, 8}, 1);
    s.add_param("tile_x", {1, 2, 3, 4}, 1);
    s.add_param("tile_y", {1, 2, 3, 4}, 1);
    s.add_param("tile_z", {1, 2, 3, 4}, 1);
    s.add_param("unroll_x", {false, true}, false);
    s.add_param("unroll_y", {false, true}, false);
    s.add_param("unroll_z", {false, true}, false);
    s.add_param("stride_x", {false, true}, false);
    s.add_param("stride_y", {false, true}, false);
    s.add_param("stride_z", {false, true}, false);
    s.add_param("permutation", {0, 1, 2, 3, 4, 5}, 0);
    s.add_param("blocks_per_sm", {1, 2, 3, 4, 5, 6}, 1);
    s.add_restriction("block_x * block_y * block_z >= 64");
    s.add_restriction("block_x * block_y * block_z <= 1024");
    s.add_restriction("tile_x * tile_y * tile_z <= 32");
    s.add_restriction(
        "block_x * block_y * block_z * blocks_per_sm <= device.max_threads_per_multiprocessor");
    EXPECT_GT(s.raw_size(), 10'000'000u);
    auto t0 = std::chrono::steady_clock::now();
    uint64_t n = s.count_valid(ProblemSize(512, 512, 512), DeviceInfo{});
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_GT(n, 1'000'000u);
    EXPECT_LT(secs, 10.0) << n << " valid of " << s.raw_size() << " raw in " << secs << " s";
    RecordProperty("valid_configs", std::to_string(n));
    RecordProperty("seconds", std::to_string(secs));
}

TEST(ConfigSpace, StartPointsKeepDefaultsAndSurviveJson) {
    ConfigSpace s;
    s.add_param("block_x", {32, 64, 128}, 128);
    s.add_param("planes", {0, 1}, 0);
    s.add_start({{"planes", 1}, {"block_x", 64}});
    s.add_start({{"block_x", 64}, {"planes", 1}}); // the same point: kept once
    s.add_param("ring", {4, 5}, 5);                // declared later: the start takes its default
    ASSERT_EQ(s.starts().size(), 1u);
    EXPECT_EQ(s.format(s.starts()[0]), "block_x=64, planes=1, ring=5");
    const ConfigSpace t = ConfigSpace::from_json(s.to_json());
    ASSERT_EQ(t.starts().size(), 1u);
    EXPECT_TRUE(t.starts()[0] == s.starts()[0]);
    EXPECT_THROW(s.add_start({{"tile", 2}}), std::invalid_argument);
    EXPECT_THROW(s.add_start({{"block_x", 48}}), std::invalid_argument);
    ConfigSpace none;
    none.add_param("a", {1, 2}, 1);
    EXPECT_FALSE(none.to_json().contains("starts")); // older readers see the same JSON
}
