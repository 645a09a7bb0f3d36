// Passive scalars and moist thermodynamics in the whole model:
// - a passive scalar given th's boundary conditions, initial profile and forcing follows th
//   (passive with gravity 0) bit for bit, through the separate and the fused th kernels;
// - a scalar is bitwise the same whether it runs alone or among others;
// - with zero surface and top fluxes and no forcing, the volume integral of qt is conserved
//   to round-off while the moist boundary layer convects;
// - the moist reference pressure of a dry isentropic column is the analytic hydrostatic one,
//   exner(z) = exner(ps) - g z / (cp th).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "kernels/moist.cuh"
#include "tests/support/model_run.h"

namespace squall::test {
namespace {

Config scalars_case(std::vector<std::string> overrides = {}) {
    return load_config(std::string(SQUALL_SOURCE_DIR) + "/tests/model/numerics/scalars.yaml",
                       overrides);
}

// The number of interior points where a and b differ in any bit.
long differing(const Model<double>& m, const Field3d<double>& a, const Field3d<double>& b) {
    const GridDims& d = m.grid().d;
    long n = 0;
    for (int k = d.kstart; k < d.kend; ++k)
        for (int j = d.jstart; j < d.jend; ++j)
            for (int i = d.istart; i < d.iend; ++i) n += a(i, j, k) != b(i, j, k);
    return n;
}

// The spread of a field's interior: how far the flow moved it from uniform levels.
double spread(const Model<double>& m, const Field3d<double>& a) {
    const GridDims& d = m.grid().d;
    double r = 0;
    for (int k = d.kstart; k < d.kend; ++k)
        for (int j = d.jstart; j < d.jend; ++j)
            for (int i = d.istart; i < d.iend; ++i)
                r = std::max(r, std::abs(a(i, j, k) - a(d.istart, d.jstart, k)));
    return r;
}

TEST(Scalars, PassiveScalarFollowsPassiveThBitwise) {
    // With a sponge: the fused kernels damp the passive scalar where they damp th.
    for (const char* tendencies : {"separate", "fused"}) {
        SCOPED_TRACE(tendencies);
        ModelRun<double> run(scalars_case({std::string("model.tendencies=") + tendencies,
                                           "sponge={enabled: true, zstart: 250.0, sigma: 0.01}"}),
                             MPI_COMM_WORLD);
        run.model->run();
        const Fields<double>& f = run.model->fields();
        ASSERT_EQ(f.scalars.size(), 1u);
        EXPECT_EQ(differing(*run.model, f.s, f.scalars[0].c), 0);
        EXPECT_GT(spread(*run.model, f.s), 1e-3); // the flow really mixed it
    }
}

TEST(Scalars, BitwiseTheSameAloneOrAmongOthers) {
    ModelRun<double> alone(scalars_case(), MPI_COMM_WORLD);
    alone.model->run();
    // c between two others with their own conditions and values.
    ModelRun<double> among(
        scalars_case({"scalars={a: {bot: flux, bot_value: 1.0, init_value: 5.0}, c: {bot: flux, "
                      "bot_value: 0.05, top: neumann, top_value: 0.003}, e: {init_value: 1.0, "
                      "perturb_amplitude: 0.5}}",
                      "forcing.nudge_time=100.0", "forcing.nudge_e=[0.0, 0.0, 0.0]"}),
        MPI_COMM_WORLD);
    among.model->run();
    ASSERT_EQ(among.model->fields().scalars.size(), 3u);
    EXPECT_EQ(differing(*alone.model, alone.model->fields().scalars[0].c,
                        among.model->fields().scalars[1].c),
              0);
    EXPECT_GT(spread(*among.model, among.model->fields().scalars[0].c), 1e-3);
}

// Volume integral of a field over all ranks.
double volume_integral(const Model<double>& m, const Field3d<double>& a) {
    const GridDims& d = m.grid().d;
    double s = 0;
    for (int k = d.kstart; k < d.kend; ++k)
        for (int j = d.jstart; j < d.jend; ++j)
            for (int i = d.istart; i < d.iend; ++i) s += a(i, j, k) * m.grid().dz[k];
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, m.decomp().comm);
    return s;
}

// A small BOMEX (16 x 16 columns), its qt fluxes and forcings off.
Config small_bomex(std::vector<std::string> more = {}) {
    std::vector<std::string> o = {"grid.itot=16", "grid.jtot=16", "grid.xsize=1600.0",
                                  "grid.ysize=1600.0", "output.stats_every=0"};
    o.insert(o.end(), more.begin(), more.end());
    return load_case("bomex", o);
}

TEST(Moist, QtConservedWithoutFluxes) {
    ModelRun<double> run(
        small_bomex({"scalars={qt: {bot: flux, bot_value: 0.0, top: neumann, top_value: 0.0, "
                     "perturb_amplitude: 2.5e-5}}",
                     "forcing={}", "sponge={enabled: false}", "time.max_steps=60"}),
        MPI_COMM_WORLD);
    const Field3d<double>& qt = run.model->fields().scalars[0].c;
    const double before = volume_integral(*run.model, qt);
    run.model->run();
    const double after = volume_integral(*run.model, qt);
    std::printf("qt integral %.17g -> %.17g, relative change %.2e\n", before, after,
                (after - before) / before);
    EXPECT_LT(std::abs(after - before) / before, 1e-13);
    EXPECT_GT(spread(*run.model, qt), 1e-5); // it was mixed
}

TEST(Moist, ReferencePressureOfAnIsentropicColumnIsHydrostatic) {
    // thl = 300 K everywhere and no water: th = thv = 300 K.
    const Config cfg =
        small_bomex({"init.profiles={z: [0.0, 3000.0], thl: [300.0, 300.0], qt: [0.0, 0.0]}"});
    ModelRun<double> run(cfg, MPI_COMM_WORLD);
    const Grid<double>& g = run.model->grid();
    const double cp = 1005.0, rd = 287.04, p0 = 1e5, th = 300.0;
    const double exner_s = std::pow(cfg.pbot / p0, rd / cp);
    double err = 0;
    for (int k = g.d.kstart - 1; k <= g.d.kend; ++k) {
        const double exner = exner_s - cfg.gravity * g.z[k] / (cp * th);
        const double p = p0 * std::pow(exner, cp / rd);
        err = std::max(err, std::abs(run.model->reference_pressure()[std::size_t(k)] - p) / p);
    }
    std::printf("largest relative error of the reference pressure: %.2e\n", err);
    // The trapezoidal rule's error in ln p over the column: (g/Rd) sum h^3/12 (1/T)'' with
    // (1/T)'' = 2 (g/cp)^2 / T^3, about 2.4e-8 for 150 half-levels of 20 m here.
    double bound = 0;
    for (int k = g.d.kstart; k < g.d.kend; ++k) {
        const double h = 0.5 * g.dz[k],
                     temp = th * (exner_s - cfg.gravity * g.zh[k + 1] / (cp * th));
        bound += 2 * h * h * h / 12 * 2 * std::pow(cfg.gravity / cp, 2) / std::pow(temp, 3);
    }
    bound *= cfg.gravity / rd;
    std::printf("trapezoidal error estimate: %.2e\n", bound);
    EXPECT_LT(err, 1.5 * bound);
    EXPECT_GT(err, 0.1 * bound); // else the test measures nothing
}

} // namespace
} // namespace squall::test
