// drycbl for 20 steps on 1, 2 (2x1), 4 (2x2) and 8 (2x4, 4x2) ranks gives bitwise the same
// fields. Run with 4 MPI ranks, and again with 8: sub-communicators of the sizes each run the
// case; rank 0 compares.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/support/model_run.h"

namespace squall::test {
namespace {

struct Result {
    std::vector<double> u, v, w, s;
};

Result run_on(int nranks, int npx, int npy) {
    MPI_Comm comm = first_ranks(nranks);
    Result r;
    if (comm != MPI_COMM_NULL) {
        Config cfg = load_case("drycbl", {"mpi.npx=" + std::to_string(npx),
                                          "mpi.npy=" + std::to_string(npy), "time.max_steps=20",
                                          "output.stats_every=0", "output.status_every=1000"});
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

double max_rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
    double diff = 0, scale = 0;
    for (std::size_t n = 0; n < a.size(); ++n) {
        diff = std::max(diff, std::abs(a[n] - b[n]));
        scale = std::max(scale, std::abs(a[n]));
    }
    return diff / scale;
}

TEST(MpiEquivalence, DryCblSameOn1And2And4Ranks) {
    int nprocs = 1, rank = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (nprocs != 4) GTEST_SKIP() << "run with 4 MPI ranks (numerics.mpi_equivalence)";
    const Result r1 = run_on(1, 1, 1);
    const Result r2 = run_on(2, 2, 1);
    const Result r4 = run_on(4, 2, 2);
    if (rank != 0) return;
    const char* names[4] = {"u", "v", "w", "th"};
    const std::vector<double>* f1[4] = {&r1.u, &r1.v, &r1.w, &r1.s};
    const std::vector<double>* f2[4] = {&r2.u, &r2.v, &r2.w, &r2.s};
    const std::vector<double>* f4[4] = {&r4.u, &r4.v, &r4.w, &r4.s};
    for (int n = 0; n < 4; ++n) {
        ASSERT_EQ(f1[n]->size(), f2[n]->size());
        ASSERT_EQ(f1[n]->size(), f4[n]->size());
        const double d2 = max_rel_diff(*f1[n], *f2[n]), d4 = max_rel_diff(*f1[n], *f4[n]);
        std::printf("%s: 1 vs 2x1 ranks %.3e, 1 vs 2x2 ranks %.3e (max relative)\n", names[n], d2,
                    d4);
        // Every kernel is per point, reductions use max, the sponge reference is analytic and
        // the pressure transposes move data without arithmetic: the result is bitwise equal.
        EXPECT_EQ(d2, 0.0) << names[n];
        EXPECT_EQ(d4, 0.0) << names[n];
    }
    // The run must have developed motion, or equality proves little.
    double wmax = 0;
    for (double x : r1.w) wmax = std::max(wmax, std::abs(x));
    EXPECT_GT(wmax, 1e-3);
}

// 8 ranks, both ways round (2 x 4 and 4 x 2), against 1.
TEST(MpiEquivalence, DryCblSameOn1And8Ranks) {
    int nprocs = 1, rank = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (nprocs != 8) GTEST_SKIP() << "run with 8 MPI ranks (numerics.mpi_equivalence_8)";
    const Result r1 = run_on(1, 1, 1);
    const Result r24 = run_on(8, 2, 4);
    const Result r42 = run_on(8, 4, 2);
    if (rank != 0) return;
    const char* names[4] = {"u", "v", "w", "th"};
    const std::vector<double>* f1[4] = {&r1.u, &r1.v, &r1.w, &r1.s};
    const std::vector<double>* f24[4] = {&r24.u, &r24.v, &r24.w, &r24.s};
    const std::vector<double>* f42[4] = {&r42.u, &r42.v, &r42.w, &r42.s};
    for (int n = 0; n < 4; ++n) {
        ASSERT_EQ(f1[n]->size(), f24[n]->size());
        ASSERT_EQ(f1[n]->size(), f42[n]->size());
        const double a = max_rel_diff(*f1[n], *f24[n]), b = max_rel_diff(*f1[n], *f42[n]);
        std::printf("%s: 1 vs 2x4 ranks %.3e, 1 vs 4x2 ranks %.3e (max relative)\n", names[n], a,
                    b);
        EXPECT_EQ(a, 0.0) << names[n];
        EXPECT_EQ(b, 0.0) << names[n];
    }
    double wmax = 0;
    for (double x : r1.w) wmax = std::max(wmax, std::abs(x));
    EXPECT_GT(wmax, 1e-3);
}

} // namespace
} // namespace squall::test
