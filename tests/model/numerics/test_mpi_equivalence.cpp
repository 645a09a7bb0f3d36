// drycbl for 20 steps on 1, 2 (2x1), 4 (2x2) and 8 (2x4, 4x2) ranks gives bitwise the same
// fields; GABLS1 with subsidence and nudging (horizontal means summed per rank, then
// allreduced) the same to round-off. Each test runs with its own number of MPI ranks (4 or 8; ctest
// filters): sub- communicators of the sizes each run the case; rank 0 compares.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "tests/support/model_run.h"

namespace squall::test {
namespace {

struct Result {
    std::vector<double> u, v, w, s;
};

// A case and overrides of its own, run on each layout.
struct Case {
    std::string name = "drycbl";
    std::vector<std::string> overrides;
};

Result run_on(int nranks, int npx, int npy, const Case& c = {}) {
    MPI_Comm comm = first_ranks(nranks);
    Result r;
    if (comm != MPI_COMM_NULL) {
        std::vector<std::string> o = {"mpi.npx=" + std::to_string(npx),
                                      "mpi.npy=" + std::to_string(npy), "time.max_steps=20",
                                      "output.stats_every=0", "output.status_every=1000"};
        o.insert(o.end(), c.overrides.begin(), c.overrides.end());
        Config cfg = load_case(c.name, o);
        {
            ModelRun<double> run(cfg, comm);
            run.model->run();
            EXPECT_EQ(run.model->steps(), 20);
            const auto& f = run.model->fields();
            r = {gather_global(f.u, run.decomp), gather_global(f.v, run.decomp),
                 gather_global(f.w, run.decomp), gather_global(f.s, run.decomp)};
        }
        MPI_Comm_free(&comm);
    }
    return r;
}

double max_abs(const std::vector<double>& a) {
    double m = 0;
    for (double x : a) m = std::max(m, std::abs(x));
    return m;
}

// max |a - b| / scale
double max_rel_diff(const std::vector<double>& a, const std::vector<double>& b, double scale) {
    double diff = 0;
    for (std::size_t n = 0; n < a.size(); ++n) diff = std::max(diff, std::abs(a[n] - b[n]));
    return diff / scale;
}

// Runs the case on 1 rank and on each layout (ranks, npx, npy) with a world of `world`
// ranks; on rank 0 expects every layout's u, v, w and th within `tol` (relative; 0:
// bitwise) of the 1-rank run's.
void expect_same_as_one_rank(int world, const std::vector<std::array<int, 3>>& layouts,
                             const Case& c = {}, double tol = 0) {
    int nprocs = 1, rank = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    ASSERT_EQ(nprocs, world) << "run this test with " << world << " MPI ranks";
    const Result r1 = run_on(1, 1, 1, c);
    std::vector<Result> rs;
    for (const auto& [n, npx, npy] : layouts) rs.push_back(run_on(n, npx, npy, c));
    if (rank != 0) return;
    const char* names[4] = {"u", "v", "w", "th"};
    const auto field = [](const Result& r, int n) {
        return n == 0 ? &r.u : n == 1 ? &r.v : n == 2 ? &r.w : &r.s;
    };
    for (size_t l = 0; l < layouts.size(); ++l)
        for (int n = 0; n < 4; ++n) {
            const std::vector<double>&one = *field(r1, n), &many = *field(rs[l], n);
            ASSERT_EQ(one.size(), many.size());
            // Velocities relative to the largest speed (v and w are small where u carries a
            // geostrophic wind), th to itself.
            const double scale =
                n < 3 ? std::max({max_abs(r1.u), max_abs(r1.v), max_abs(r1.w)}) : max_abs(one);
            const double d = max_rel_diff(one, many, scale);
            std::printf("%s: 1 vs %dx%d ranks %.3e (max relative)\n", names[n], layouts[l][1],
                        layouts[l][2], d);
            // Every kernel is per point, reductions use max, the sponge reference is analytic
            // and the pressure transposes move data without arithmetic: bitwise equal.
            EXPECT_LE(d, tol) << names[n] << " on " << layouts[l][1] << " x " << layouts[l][2];
        }
    // The run must have developed motion, or equality proves little.
    double wmax = 0;
    for (double x : r1.w) wmax = std::max(wmax, std::abs(x));
    EXPECT_GT(wmax, 1e-3);
}

TEST(MpiEquivalence, DryCblSameOn1And2And4Ranks) {
    expect_same_as_one_rank(4, {{2, 2, 1}, {4, 2, 2}});
}

// GABLS1 (surface value, Coriolis, sponge, tables) with subsidence of the scalar and the
// momentum and nudging of u: the horizontal means are sums over each rank's columns, then
// an allreduce, so they differ from the 1-rank sums in the last bits, and so do the fields.
TEST(MpiEquivalence, Gabls1MeanForcingsSameOn1And2And4Ranks) {
    const Case gabls1{"gabls1",
                      {"grid.itot=32", "grid.jtot=32", "grid.ktot=32", "forcing.z=[0, 400]",
                       "forcing.w_ls=[0, -0.002]", "forcing.subsidence_momentum=true",
                       "forcing.nudge_time=1800", "forcing.nudge_u=[8, 8]"}};
    expect_same_as_one_rank(4, {{2, 2, 1}, {4, 2, 2}}, gabls1, 1e-12);
}

// 8 ranks, both ways round.
TEST(MpiEquivalence, DryCblSameOn1And8Ranks) {
    expect_same_as_one_rank(8, {{8, 2, 4}, {8, 4, 2}});
}

} // namespace
} // namespace squall::test
