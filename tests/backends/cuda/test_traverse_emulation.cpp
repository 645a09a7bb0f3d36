// Host emulation of the GPU traversal: the index mapping of src/backends/cuda/index_map.cuh
// (traverse_thread, the code the kernels run) is called with emulated block and thread
// indices for every block and thread of a launch, over corner cases and random samples of
// the tunable space, on awkward grids. Every point of the range must be visited exactly
// once; deliberately broken mappings show that the check catches misses and repeats.
#include "backends/cuda/index_map.cuh"
#include "backends/cuda/traverse_space.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace sp = squall::gpu::space;

struct Grid {
    int ni, nj, nk;
};
const Grid kGrids[] = {{37, 23, 19}, {64, 1, 48}, {5, 7, 3},   {1, 1, 1},
                       {1, 1, 70},   {33, 17, 2}, {256, 3, 5}, {17, 64, 33}};

// The traversal's visitor, emulated: value() and store() (deferred stores) and the
// per-point call each report the point; a store must receive the value its own point
// produced. z_interior() answers `interior`, so both tile paths run.
struct Emulated {
    using Point = std::array<int, 3>;
    std::function<void(int, int, int)> on_value, on_store;
    bool interior = false;
    std::string* error = nullptr;

    void operator()(int i, int j, int k) const { on_value(i, j, k), on_store(i, j, k); }
    bool z_interior(int, int) const { return interior; }
    void assume_z_interior(int) const {}
    Point value(int i, int j, int k) const {
        on_value(i, j, k);
        return {i, j, k};
    }
    void store(int i, int j, int k, const Point& v) const {
        if (v != Point{i, j, k} && error->empty())
            error->assign("a store got another point's value");
        on_store(i, j, k);
    }
};

// A mapping hook: (shape, block, thread, visitor) -> visits each point. The real ones:
// plain, and deferred stores (as many value slots as the largest tile).
using Mapping = std::function<void(const sq::TraverseShape&, int, int, int, int, const Emulated&)>;
const Mapping plain = [](const sq::TraverseShape& s, int b, int tx, int ty, int tz,
                         const Emulated& v) { sq::traverse_thread(s, b, tx, ty, tz, v); };
const Mapping deferred = [](const sq::TraverseShape& s, int b, int tx, int ty, int tz,
                            const Emulated& v) {
    sq::traverse_thread<sp::max_points_per_thread>(s, b, tx, ty, tz, v);
};

std::string describe(const sq::TraverseShape& s) {
    std::ostringstream o;
    o << "grid " << s.ni << "x" << s.nj << "x" << s.nk << " block " << s.bx << "x" << s.by << "x"
      << s.bz << " tile " << s.tx << "x" << s.ty << "x" << s.tz << " contiguous " << s.cx << s.cy
      << s.cz << " perm " << s.perm << " march " << s.my << "x" << s.mz << " group " << s.group;
    return o.str();
}

// Emulates the whole launch; returns an empty string when every point was computed and
// stored exactly once and nothing outside the range was visited, else the first problem.
std::string check(const sq::TraverseShape& s, const Mapping& map, bool interior = false) {
    const int64_t n = int64_t(s.ni) * s.nj * s.nk;
    std::vector<uint8_t> values(size_t(n), 0), stores(size_t(n), 0);
    std::string error;
    auto counter = [&](std::vector<uint8_t>& hits) {
        return [&](int i, int j, int k) {
            if (i < 0 || i >= s.ni || j < 0 || j >= s.nj || k < 0 || k >= s.nk) {
                if (error.empty())
                    error = "visited (" + std::to_string(i) + "," + std::to_string(j) + "," +
                            std::to_string(k) + ") outside the range";
                return;
            }
            uint8_t& h = hits[size_t(i + int64_t(s.ni) * (j + int64_t(s.nj) * k))];
            if (h < 255) ++h;
        };
    };
    const Emulated visit{counter(values), counter(stores), interior, &error};
    const int blocks = sq::trav_num_blocks(s);
    for (int b = 0; b < blocks; ++b)
        for (int tz = 0; tz < s.bz; ++tz)
            for (int ty = 0; ty < s.by; ++ty)
                for (int tx = 0; tx < s.bx; ++tx) map(s, b, tx, ty, tz, visit);
    if (!error.empty()) return error + " (" + describe(s) + ")";
    for (int64_t p = 0; p < n; ++p)
        if (values[size_t(p)] != 1 || stores[size_t(p)] != 1) {
            const int i = int(p % s.ni), j = int(p / s.ni % s.nj), k = int(p / s.ni / s.nj);
            return "point (" + std::to_string(i) + "," + std::to_string(j) + "," +
                   std::to_string(k) + ") computed " + std::to_string(values[size_t(p)]) +
                   " and stored " + std::to_string(stores[size_t(p)]) + " times (" + describe(s) +
                   ")";
        }
    return {};
}

// The space's restrictions (traverse_space.h) on plain values, as the runtime applies them.
bool valid(int bx, int by, int bz, int tx, int ty, int tz, int cx, int cy, int cz, int bps) {
    const std::map<std::string_view, int> v = {
        {"block_x", bx},  {"block_y", by},       {"block_z", bz},  {"tile_x", tx},
        {"tile_y", ty},   {"tile_z", tz},        {"contig_x", cx}, {"contig_y", cy},
        {"contig_z", cz}, {"blocks_per_sm", bps}};
    const auto all = sp::restrictions([&](const char* name) { return v.at(name); });
    return std::all_of(all.begin(), all.end(), [](bool ok) { return ok; });
}

sq::TraverseShape shape(const Grid& g, int bx, int by, int bz, int tx, int ty, int tz, int cx,
                        int cy, int cz, int perm, int my = 1, int mz = 1, int group = 1) {
    return {g.ni, g.nj, g.nk, bx, by, bz, tx, ty, tz, cx, cy, cz, perm, my, mz, group};
}

// Corner cases: extreme and irregular block shapes, the largest tiles per axis, every
// tile kind and every block order.
std::vector<sq::TraverseShape> corner_cases(const Grid& g) {
    const int blocks[][3] = {{16, 1, 4},  {256, 1, 1}, {32, 2, 2},  {16, 16, 4},
                             {64, 16, 1}, {16, 4, 16}, {256, 4, 1}, {16, 16, 16}};
    const int tiles[][3] = {{1, 1, 1}, {8, 1, 1}, {1, 8, 1}, {1, 1, 32},
                            {2, 4, 4}, {4, 2, 4}, {8, 4, 1}, {1, 2, 16}};
    std::vector<sq::TraverseShape> out;
    for (const auto& b : blocks)
        for (const auto& t : tiles)
            for (int c = 0; c < 8; ++c)
                for (int perm = 0; perm < sp::permutations; ++perm) {
                    const int cx = c & 1, cy = (c >> 1) & 1, cz = (c >> 2) & 1;
                    if (valid(b[0], b[1], b[2], t[0], t[1], t[2], cx, cy, cz, 1))
                        out.push_back(
                            shape(g, b[0], b[1], b[2], t[0], t[1], t[2], cx, cy, cz, perm));
                }
    return out;
}

// Uniform samples of the valid space (rejection sampling, as the runtime does).
std::vector<sq::TraverseShape> random_cases(const Grid& g, int count, uint32_t seed) {
    std::mt19937 rng(seed);
    auto pick = [&](const auto& values) {
        return values[std::uniform_int_distribution<size_t>(0, values.size() - 1)(rng)];
    };
    std::uniform_int_distribution<int> bit(0, 1), perm(0, sp::permutations - 1);
    std::vector<sq::TraverseShape> out;
    while (int(out.size()) < count) {
        const int bx = pick(sp::block_x), by = pick(sp::block_y), bz = pick(sp::block_z);
        const int tx = pick(sp::tile_x), ty = pick(sp::tile_y), tz = pick(sp::tile_z);
        const int cx = bit(rng), cy = bit(rng), cz = bit(rng), bps = pick(sp::blocks_per_sm);
        const int my = pick(sp::march), mz = pick(sp::march), group = pick(sp::group);
        if (valid(bx, by, bz, tx, ty, tz, cx, cy, cz, bps))
            out.push_back(shape(g, bx, by, bz, tx, ty, tz, cx, cy, cz, perm(rng), my, mz, group));
    }
    return out;
}

TEST(TraverseEmulation, CornerCasesVisitEveryPointOnce) {
    int checked = 0;
    for (const Grid& g : kGrids)
        for (auto s : corner_cases(g)) {
            ASSERT_EQ(check(s, plain), "");
            // Deferred stores, marching through chunks along y and z, swizzled block orders.
            const int marches[][2] = {{1, 1}, {2, 1}, {1, 4}, {8, 8}, {4, 2}, {1, 8}};
            s.my = marches[checked % 6][0], s.mz = marches[checked % 6][1];
            s.group = sp::group[size_t(checked / 6 % sp::group.size())];
            ASSERT_EQ(check(s, deferred, true), "");
            ++checked;
        }
    EXPECT_GT(checked, 8 * 500);
}

// The other grids (degenerate and power-of-two extents) get fewer random samples.
TEST(TraverseEmulation, RandomConfigsOnOtherGrids) {
    uint32_t seed = 1;
    for (const Grid& g : kGrids) {
        if (g.ni * g.nj * g.nk == 37 * 23 * 19 || g.ni * g.nj * g.nk == 64 * 48 ||
            g.ni * g.nj * g.nk == 5 * 7 * 3)
            continue;
        int n = 0;
        for (const auto& s : random_cases(g, 1500, seed++)) {
            ASSERT_EQ(check(s, n % 2 ? deferred : plain, n / 2 % 2), "");
            ++n;
        }
    }
}

// The three grids of the issue get the full 10,000 random configurations each.
TEST(TraverseEmulation, TenThousandRandomConfigsOnIssueGrids) {
    uint32_t seed = 100;
    for (const Grid& g : {Grid{37, 23, 19}, Grid{64, 1, 48}, Grid{5, 7, 3}}) {
        int n = 0; // alternating plain and deferred stores, tile paths near and off the walls
        for (const auto& s : random_cases(g, 10000, seed++)) {
            ASSERT_EQ(check(s, n % 2 ? deferred : plain, n / 2 % 2), "");
            ++n;
        }
    }
}

// Every permutation and swizzle is a bijection between block indices and block
// coordinates, with full and partial groups (3 x 12 x 19 blocks; groups up to 32).
TEST(TraverseEmulation, UnravelIsABijection) {
    for (int perm = 0; perm < sp::permutations; ++perm)
        for (int group : {1, 2, 3, 4, 5, 8, 16, 32}) {
            const sq::TraverseShape s{37, 23, 19, 16, 2, 1, 1, 1, 1, 0, 0, 0, perm, 1, 1, group};
            const int nx = sq::trav_blocks_x(s), ny = sq::trav_blocks_y(s),
                      nz = sq::trav_blocks_z(s);
            std::vector<int> seen(size_t(nx * ny * nz), 0);
            for (int b = 0; b < sq::trav_num_blocks(s); ++b) {
                int bi, bj, bk;
                sq::trav_unravel(s, b, bi, bj, bk);
                ASSERT_TRUE(bi >= 0 && bi < nx && bj >= 0 && bj < ny && bk >= 0 && bk < nz);
                ++seen[size_t(bi + nx * (bj + ny * bk))];
            }
            for (int v : seen) EXPECT_EQ(v, 1) << "perm " << perm << " group " << group;
        }
}

// The swizzle does what it is for: with perm 0 and groups of 4 along z, the first
// 3 x 4 x 2 block indices cover x fastest, then 4 z-blocks, then the next y-block.
TEST(TraverseEmulation, GroupSweepsTheSlowAxisBeforeTheMiddleOne) {
    const sq::TraverseShape s{37, 23, 19, 16, 2, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 4};
    int b = 0;
    for (int bj = 0; bj < 2; ++bj)
        for (int bk = 0; bk < 4; ++bk)
            for (int bi = 0; bi < 3; ++bi, ++b) {
                int i, j, k;
                sq::trav_unravel(s, b, i, j, k);
                EXPECT_EQ(i, bi);
                EXPECT_EQ(j, bj);
                EXPECT_EQ(k, bk);
            }
}

// The check must fail for mappings that miss a point or visit one twice.
TEST(TraverseEmulation, BrokenMappingsAreCaught) {
    // Drops the last point along x: missed points.
    const Mapping drop_last = [](const sq::TraverseShape& s, int b, int tx, int ty, int tz,
                                 const Emulated& v) {
        Emulated w = v;
        w.on_value = [&](int i, int j, int k) {
            if (i != s.ni - 1) v.on_value(i, j, k);
        };
        w.on_store = [&](int i, int j, int k) {
            if (i != s.ni - 1) v.on_store(i, j, k);
        };
        sq::traverse_thread(s, b, tx, ty, tz, w);
    };
    // Sends the last point along x to its neighbour: one missed, one visited twice.
    const Mapping off_by_one = [](const sq::TraverseShape& s, int b, int tx, int ty, int tz,
                                  const Emulated& v) {
        Emulated w = v;
        w.on_store = [&](int i, int j, int k) { v.on_store(i == s.ni - 1 ? i - 1 : i, j, k); };
        sq::traverse_thread<4>(s, b, tx, ty, tz, w);
    };
    // Unravels with the wrong permutation for the block count along y: repeats.
    const Mapping wrong_unravel = [](const sq::TraverseShape& s, int b, int tx, int ty, int tz,
                                     const Emulated& v) {
        sq::TraverseShape t = s;
        t.perm = (s.perm + 1) % sp::permutations;
        sq::traverse_thread(t,
                            b % (sq::trav_num_blocks(s) - 1 > 0 ? sq::trav_num_blocks(s) - 1 : 1),
                            tx, ty, tz, v);
    };
    // Deferred stores that hand each point its tile neighbour's value.
    const Mapping swapped_values = [](const sq::TraverseShape& s, int b, int tx, int ty, int tz,
                                      const Emulated& v) {
        struct Swapped : Emulated {
            Point value(int i, int j, int k) const { return Emulated::value(i ^ 1, j, k); }
        };
        sq::traverse_thread<4>(s, b, tx, ty, tz, Swapped{v});
    };
    for (const Grid& g : {Grid{37, 23, 19}, Grid{64, 1, 48}, Grid{5, 7, 3}}) {
        const auto s = shape(g, 16, 2, 2, 4, 1, 1, 0, 0, 0, 0);
        EXPECT_EQ(check(s, plain), "");
        EXPECT_EQ(check(s, deferred), "");
        EXPECT_NE(check(s, drop_last), "");

        EXPECT_NE(check(s, off_by_one), "");
        EXPECT_NE(check(s, wrong_unravel), "");
    }
    // Marches one chunk fewer along z than the launch grid assumes: missed points.
    const Mapping short_march = [](const sq::TraverseShape& s, int b, int tx, int ty, int tz,
                                   const Emulated& v) {
        sq::TraverseShape t = s;
        t.mz = s.mz - 1;
        sq::traverse_thread(t, b, tx, ty, tz, v);
    };
    const auto marching = shape(Grid{37, 23, 19}, 16, 2, 2, 1, 2, 2, 0, 1, 1, 0, 2, 2);
    EXPECT_EQ(check(marching, plain), "");
    EXPECT_NE(check(marching, short_march), "");
    // Whole blocks only, so that every point takes the deferred tile path.
    const auto whole = shape(Grid{64, 4, 4}, 16, 2, 2, 4, 1, 1, 1, 0, 0, 0);
    EXPECT_EQ(check(whole, deferred), "");
    EXPECT_NE(check(whole, swapped_values), "");
}

} // namespace
