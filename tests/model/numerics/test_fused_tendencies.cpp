// model.tendencies: drycbl (2i5 advection, Smagorinsky closure, surface layer, sponge),
// drycbl_dns (2nd-order advection, constant diffusion, stretched grid, sponge) and bomex
// (moist thermodynamics, qt as a passive scalar, forcings, sponge) on small grids for a few steps
// give bitwise the same fields and time steps with the fused tendency kernels as with the separate
// ones, in float and double, on 1 rank and on 2 (2x1), the fused ones also taking the first stage
// from zero and (drycbl) the scalar's RK stage. Run with 2 MPI ranks: a 1-rank sub-communicator,
// then both ranks.
#include <gtest/gtest.h>

#include <cstring>

#include "tests/support/model_run.h"

namespace squall::test {
namespace {

constexpr int kSteps = 6;

struct Result {
    std::vector<double> u, v, w, s, evisc, c; // c: the first passive scalar (bomex: qt)
    double time = 0;
};

template <typename T>
Result run_on(const std::string& name, int nranks, const std::string& tendencies) {
    MPI_Comm comm = first_ranks(nranks);
    Result r;
    if (comm != MPI_COMM_NULL) {
        const bool dns = name == "drycbl_dns"; // lengths in model units, no evisc
        const Config cfg = load_case(
            name, {"model.tendencies=" + tendencies, "model.backend=cpu",
                   std::string("model.precision=") + (sizeof(T) == 4 ? "float" : "double"),
                   "grid.itot=24", "grid.jtot=16", "grid.ktot=20",
                   dns ? "grid.xsize=2.4" : "grid.xsize=2400",
                   dns ? "grid.ysize=1.6" : "grid.ysize=1600", "mpi.npx=" + std::to_string(nranks),
                   "mpi.npy=1", "time.max_steps=" + std::to_string(kSteps), "output.stats_every=0",
                   "output.status_every=1000"});
        {
            ModelRun<T> run(cfg, comm);
            EXPECT_EQ(run.model->fused_tendencies(), tendencies == "fused");
            // The fused closure passes the strain rate in registers: no strain2 array.
            const bool les = !dns;
            EXPECT_EQ(run.model->fields().strain2.size() > 0, les && tendencies != "fused");
            // The scalar's RK stage joins the fused scalar kernel unless a sponge kernel still
            // adds to its tendency after it (drycbl_dns: constant diffusion with a sponge) or
            // a forcing does (bomex).
            EXPECT_EQ(run.model->fields().s_next.size() > 0,
                      les && name != "bomex" && tendencies == "fused");
            run.model->run();
            EXPECT_EQ(run.model->steps(), kSteps);
            const auto& f = run.model->fields();
            r = {gather_global(f.u, run.decomp),
                 gather_global(f.v, run.decomp),
                 gather_global(f.w, run.decomp),
                 gather_global(f.s, run.decomp),
                 dns ? std::vector<double>{} : gather_global(f.evisc, run.decomp),
                 f.scalars.empty() ? std::vector<double>{}
                                   : gather_global(f.scalars[0].c, run.decomp),
                 run.model->time()};
        }
        MPI_Comm_free(&comm);
    }
    return r;
}

// Elements whose bits differ.
long differing(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size()) return -1;
    long n = 0;
    for (std::size_t p = 0; p < a.size(); ++p) n += std::memcmp(&a[p], &b[p], sizeof(double)) != 0;
    return n;
}

template <typename T>
void check(const std::string& name, int nranks) {
    SCOPED_TRACE(name + ", " + std::to_string(nranks) + " rank(s), " +
                 (sizeof(T) == 4 ? "float" : "double"));
    const Result separate = run_on<T>(name, nranks, "separate");
    const Result fused = run_on<T>(name, nranks, "fused");
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0) return;
    ASSERT_FALSE(separate.u.empty());
    EXPECT_EQ(separate.time, fused.time);
    const std::vector<double> Result::*fields[] = {&Result::u, &Result::v,     &Result::w,
                                                   &Result::s, &Result::evisc, &Result::c};
    const char* names[] = {"u", "v", "w", "s", "evisc", "c"};
    for (int n = 0; n < 6; ++n)
        EXPECT_EQ(differing(separate.*fields[n], fused.*fields[n]), 0) << names[n];
    // Not trivially equal: the convection has started.
    double wmax = 0;
    for (double x : fused.w) wmax = std::max(wmax, std::abs(x));
    EXPECT_GT(wmax, 0.0);
}

TEST(FusedTendencies, DryCblDnsAndBomexBitwiseEqualToSeparateOn1And2Ranks) {
    int nprocs = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    ASSERT_EQ(nprocs, 2) << "run this test with 2 MPI ranks";
    for (const char* name : {"drycbl", "drycbl_dns", "bomex"}) {
        check<double>(name, 1);
        check<double>(name, 2);
        check<float>(name, 1);
        check<float>(name, 2);
    }
}

} // namespace
} // namespace squall::test
