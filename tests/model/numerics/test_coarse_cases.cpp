// The intercomparison cases, coarse and short enough for every CI run, asserting their
// physics rather than that they run:
// - GABLS1 on 32^3 (12.5 m) for two hours: the cooled surface takes heat from the air
//   (a negative flux growing in magnitude), u* lies where the intercomparison's does, the
//   stable layer is 100-250 m deep, the wind turns towards low pressure near the ground,
//   and above the layer it becomes supergeostrophic: the low-level jet forms;
// - BOMEX on 32 x 32 columns for one hour makes clouds only above the lifting condensation
//   level of its surface air, which is found here independently, from the dew point of the
//   initial state.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "kernels/moist.cuh"
#include "tests/support/model_run.h"

namespace squall::test {
namespace {

// Horizontal mean of a at level k (all ranks).
double level_mean(const Model<double>& m, const Field3d<double>& a, int k) {
    const GridDims& d = m.grid().d;
    double s = 0;
    for (int j = d.jstart; j < d.jend; ++j)
        for (int i = d.istart; i < d.iend; ++i) s += a(i, j, k);
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, m.decomp().comm);
    return s / (double(d.itot) * d.jtot);
}

// Mean of a surface array over the interior columns (all ranks).
double surface_mean(const Model<double>& m, const DeviceArray<double>& a) {
    const GridDims& d = m.grid().d;
    double s = 0;
    for (int j = d.jstart; j < d.jend; ++j)
        for (int i = d.istart; i < d.iend; ++i) s += a[std::size_t(i + j * d.jj)];
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, m.decomp().comm);
    return s / (double(d.itot) * d.jtot);
}

TEST(Gabls1, CoarseSurfaceCoolsTheAirAndTheJetForms) {
    const Config cfg = load_case("gabls1", {"grid.itot=32", "grid.jtot=32", "grid.ktot=32",
                                            "time.endtime=7200.0", "output.stats_every=0"});
    ModelRun<double> run(cfg, MPI_COMM_WORLD);
    Model<double>& m = *run.model;
    while (m.time() < 3600.0) m.step();
    const double flux_1h = surface_mean(m, m.fields().s_fluxbot);
    m.run(); // on to two hours
    const Fields<double>& f = m.fields();
    const GridDims& d = m.grid().d;
    const double flux_2h = surface_mean(m, f.s_fluxbot), ustar = surface_mean(m, f.ustar);
    double jet = 0, jet_z = 0;
    for (int k = d.kstart; k < d.kend; ++k) {
        const double s = std::hypot(level_mean(m, f.u, k), level_mean(m, f.v, k));
        if (s > jet) jet = s, jet_z = m.grid().z[k];
    }
    const double v_low = level_mean(m, f.v, d.kstart);
    std::printf("surface flux %.5f K m/s after 1 h, %.5f after 2 h; u* %.3f m/s; jet %.3f m/s "
                "at %.0f m; v at the first level %.3f m/s\n",
                flux_1h, flux_2h, ustar, jet, jet_z, v_low);
    EXPECT_LT(flux_1h, -1e-3);
    EXPECT_LT(flux_2h, flux_1h); // the surface keeps cooling faster than the air
    EXPECT_GT(flux_2h, -0.03);
    EXPECT_GT(ustar, 0.15);
    EXPECT_LT(ustar, 0.4);
    EXPECT_GT(jet, 8.03);    // supergeostrophic (ug = 8 m/s)
    EXPECT_GT(jet_z, 100.0); // above the surface layer
    EXPECT_LT(jet_z, 300.0); // and below the sponge
    EXPECT_GT(v_low, 0.3);   // turned towards low pressure (to the left of ug, f > 0)
}

// The lifting condensation level of air at the surface with potential temperature th and
// water qt: lifted dry-adiabatically (th and qt kept) until its vapour pressure reaches
// saturation; with p(z) from the dry hydrostatic column of that th. Bisection on z.
double lifting_condensation_level(double th, double qt, double ps, double g) {
    const double cp = 1005.0, rd = 287.04, p0 = 1e5, ep = rd / 461.5;
    auto excess = [&](double z) { // e - es(T): positive when saturated
        const double exner = std::pow(ps / p0, rd / cp) - g * z / (cp * th);
        const double p = p0 * std::pow(exner, cp / rd), temp = th * exner;
        const double e = qt * p / (ep + (1 - ep) * qt);
        return e - 611.2 * std::exp(17.67 * (temp - 273.15) / (temp - 29.65));
    };
    double lo = 0, hi = 3000;
    for (int it = 0; it < 60; ++it) (excess(0.5 * (lo + hi)) > 0 ? hi : lo) = 0.5 * (lo + hi);
    return 0.5 * (lo + hi);
}

TEST(Moist, CoarseBomexMakesCloudsAboveTheCondensationLevel) {
    // 32 x 32 columns of the shipped case for one hour.
    const Config cfg =
        load_case("bomex", {"grid.itot=32", "grid.jtot=32", "grid.xsize=3200.0",
                            "grid.ysize=3200.0", "time.endtime=3600.0", "output.stats_every=0"});
    ModelRun<double> run(cfg, MPI_COMM_WORLD);
    run.model->run();
    const Model<double>& m = *run.model;
    const Fields<double>& f = run.model->fields();
    const GridDims& d = m.grid().d;
    const double lcl = lifting_condensation_level(298.7, 17.0e-3, cfg.pbot, cfg.gravity);
    std::printf("lifting condensation level of the surface air: %.0f m\n", lcl);
    double lowest_cloud = 1e9, ql_max = 0;
    long cloudy = 0;
    for (int k = d.kstart; k < d.kend; ++k) {
        const double p = m.reference_pressure()[std::size_t(k)];
        const double ex = m.reference_exner()[std::size_t(k)];
        for (int j = d.jstart; j < d.jend; ++j)
            for (int i = d.istart; i < d.iend; ++i) {
                const double ql =
                    sq::moist::saturation_adjust(f.s(i, j, k), f.scalars[0].c(i, j, k), p, ex).ql;
                if (ql > 0) {
                    ++cloudy;
                    lowest_cloud = std::min(lowest_cloud, double(m.grid().z[k]));
                    ql_max = std::max(ql_max, ql);
                }
            }
    }
    std::printf("after %g s: %ld cloudy points, lowest at %.0f m, largest ql %.2e kg/kg\n",
                m.time(), cloudy, lowest_cloud, ql_max);
    EXPECT_GT(cloudy, 10);               // cumulus formed
    EXPECT_GT(lowest_cloud, 0.75 * lcl); // none well below the condensation level
    EXPECT_LT(lowest_cloud, 2.0 * lcl);  // and their base near it
    EXPECT_GT(ql_max, 1e-4);             // with real liquid water (0.1 g/kg)
    EXPECT_LT(ql_max, 5e-3);
}

} // namespace
} // namespace squall::test
