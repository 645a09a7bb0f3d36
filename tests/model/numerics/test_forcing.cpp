// The large-scale forcings in the whole model (ls_forcing.yaml), on a resting column where
// they are all that changes the fields:
// - a prescribed tendency is constant, and any consistent Runge-Kutta scheme integrates it
//   exactly: th(z, t) = th0 + tendency(z) t to round-off, with the table interpolated
//   linearly here independently of the model's interpolation;
// - subsidence of a linear profile is a constant tendency too, -w_ls gamma, whichever side the
//   upwind gradient comes from (the wall ghost levels carry the gradient on);
// - nudging is linear, y' = -(y - target)/tau, so every step multiplies y - target by the
//   RK3 stability polynomial 1 + x + x^2/2 + x^3/6, x = -dt/tau.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "tests/support/model_run.h"

namespace squall::test {
namespace {

// The table at z: linear inside, its end values outside.
double table_at(const std::vector<double>& zs, const std::vector<double>& v, double z) {
    if (z <= zs.front()) return v.front();
    for (std::size_t n = 1; n < zs.size(); ++n)
        if (z <= zs[n]) return v[n - 1] + (v[n] - v[n - 1]) * (z - zs[n - 1]) / (zs[n] - zs[n - 1]);
    return v.back();
}

TEST(Forcing, ScalarTendencyIntegratedExactly) {
    const Config cfg =
        load_config(std::string(SQUALL_SOURCE_DIR) + "/tests/model/numerics/ls_forcing.yaml");
    ModelRun<double> run(cfg, MPI_COMM_WORLD);
    run.model->run();
    const double t = run.model->time();
    EXPECT_EQ(run.model->steps(), 100);
    const Grid<double>& g = run.model->grid();
    const GridDims& d = g.d;
    const auto& f = run.model->fields();
    double err = 0, moved = 0, speed = 0;
    int levels_below = 0, levels_between = 0, levels_above = 0;
    for (int k = d.kstart; k < d.kend; ++k) {
        const double z = g.z[k];
        const double want = cfg.init.th0 + table_at(cfg.forcing.z, cfg.forcing.th_tendency, z) * t;
        levels_below += z < cfg.forcing.z.front();
        levels_between += z > cfg.forcing.z.front() && z < cfg.forcing.z.back();
        levels_above += z > cfg.forcing.z.back();
        for (int j = d.jstart; j < d.jend; ++j)
            for (int i = d.istart; i < d.iend; ++i) {
                err = std::max(err, std::abs(f.s(i, j, k) - want));
                moved = std::max(moved, std::abs(f.s(i, j, k) - cfg.init.th0));
                speed = std::max({speed, std::abs(f.u(i, j, k)), std::abs(f.v(i, j, k)),
                                  std::abs(f.w(i, j, k))});
            }
    }
    std::printf("max |th - (th0 + tendency t)| = %.3e after %ld steps, t = %g s\n", err,
                run.model->steps(), t);
    EXPECT_LT(err, 1e-10); // round-off of 300 stage sums near 300 K
    EXPECT_GT(moved, 1.0); // the forcing really acted
    EXPECT_EQ(speed, 0.0);
    // The grid samples the table below, inside and above its ends.
    EXPECT_GT(levels_below, 0);
    EXPECT_GT(levels_between, 3);
    EXPECT_GT(levels_above, 0);
}

Config forcing_case(const std::vector<std::string>& overrides) {
    return load_config(std::string(SQUALL_SOURCE_DIR) + "/tests/model/numerics/ls_forcing.yaml",
                       overrides);
}

// Largest |a(i, j, k) - want(z_k)| over the interior.
template <class Want>
double max_error(const Model<double>& m, const Field3d<double>& a, Want want) {
    const GridDims& d = m.grid().d;
    double err = 0;
    for (int k = d.kstart; k < d.kend; ++k)
        for (int j = d.jstart; j < d.jend; ++j)
            for (int i = d.istart; i < d.iend; ++i)
                err = std::max(err, std::abs(a(i, j, k) - want(m.grid().z[k])));
    return err;
}

TEST(Forcing, SubsidenceOfALinearProfileIsExact) {
    const double gamma = 0.01;              // K/m
    for (const double w : {-0.02, 0.015}) { // sinking: gradient from above; rising: below
        const Config cfg =
            forcing_case({"forcing.z=[0, 400]", "forcing.th_tendency=[0, 0]",
                          fmt::format("forcing.w_ls=[{}, {}]", w, w), "init.type=profile",
                          "init.lapse_rate=0.01", "boundary.scalar_top_value=0.01",
                          "boundary.scalar_bot_value=0.01"});
        ModelRun<double> run(cfg, MPI_COMM_WORLD);
        run.model->run();
        const double t = run.model->time();
        const double err = max_error(*run.model, run.model->fields().s, [&](double z) {
            return cfg.init.th0 + gamma * z - w * gamma * t;
        });
        std::printf("w_ls %+.3f: max |th - (th0 + gamma z - w gamma t)| = %.3e at t = %g s\n", w,
                    err, t);
        EXPECT_LT(err, 1e-10);
        EXPECT_GT(std::abs(w * gamma * t), 0.1); // it moved
    }
}

TEST(Forcing, NudgingFollowsTheRk3Recurrence) {
    const double tau = 500, dt = 10;
    const Config cfg =
        forcing_case({"forcing.z=[0, 400]", "forcing.th_tendency=[0, 0]", "forcing.nudge_time=500",
                      "forcing.nudge_th=[301, 305]", "forcing.nudge_u=[2, 6]"});
    ModelRun<double> run(cfg, MPI_COMM_WORLD);
    run.model->run();
    const double x = -dt / tau, r = 1 + x + x * x / 2 + x * x * x / 6;
    const double factor = std::pow(r, double(run.model->steps()));
    auto target = [](double lo, double hi) {
        return [=](double z) { return lo + (hi - lo) * std::clamp(z / 400.0, 0.0, 1.0); };
    };
    const auto th_target = target(301, 305), u_target = target(2, 6);
    const double e_th = max_error(*run.model, run.model->fields().s, [&](double z) {
        return th_target(z) + (cfg.init.th0 - th_target(z)) * factor;
    });
    const double e_u = max_error(*run.model, run.model->fields().u,
                                 [&](double z) { return u_target(z) * (1 - factor); });
    std::printf("nudging: %ld steps, factor %.6f; errors th %.3e, u %.3e\n", run.model->steps(),
                factor, e_th, e_u);
    EXPECT_LT(e_th, 1e-10);
    EXPECT_LT(e_u, 1e-12);
    EXPECT_LT(factor, 0.2); // most of the way to the targets
    // v has no target and stays at rest.
    EXPECT_EQ(max_error(*run.model, run.model->fields().v, [](double) { return 0.0; }), 0.0);
}

// Subsidence of a passive scalar's linear profile, without a thermo scheme (the subsidence
// then has no thermo scalar to act on): the same exact tendency -w_ls gamma as th's.
TEST(Forcing, SubsidenceOfAPassiveScalarWithoutThermo) {
    const Config cfg = forcing_case(
        {"thermo={type: none}", "forcing={z: [0.0, 400.0], w_ls: [-0.01, -0.01]}",
         "scalars={c: {bot: neumann, bot_value: 0.001, top: neumann, top_value: 0.001}}",
         "init={type: profile, profiles: {z: [0.0, 400.0], c: [0.0, 0.4]}}"});
    ModelRun<double> run(cfg, MPI_COMM_WORLD);
    run.model->run();
    const double t = run.model->time();
    const double err = max_error(*run.model, run.model->fields().scalars[0].c,
                                 [&](double z) { return 0.001 * z + 0.01 * 0.001 * t; });
    std::printf("max |c - (c0 + w gamma t)| = %.3e at t = %g s\n", err, t);
    EXPECT_LT(err, 1e-12);
    EXPECT_GT(t, 900.0);
}

// A surface flux given in time (boundary.scalar_bot_times and _values, a passive scalar's
// bot_times and bot_values): on a resting column with constant diffusion and a closed top,
// each step adds dt F(t_n) to the column's content, F taken at the step's start, so after
// N steps the content has grown by the left Riemann sum of the table, here computed
// independently of the model's interpolation. The table changes slope inside the run.
TEST(Forcing, SurfaceFluxTableIntegratedStepByStep) {
    const std::string table = "[0.0, 300.0, 700.0], scalar_bot_values: [0.0, 0.1, -0.05]";
    const Config cfg = forcing_case(
        {"forcing={}", "diffusion={type: constant, nu: 0.1, kappa: 0.1}",
         "boundary={mom_bot: freeslip, mom_top: freeslip, scalar_bot: flux, scalar_bot_times: " +
             table + ", scalar_top: neumann}",
         "scalars={c: {bot: flux, bot_times: [0.0, 300.0, 700.0], bot_values: [0.0, 0.1, "
         "-0.05], init_value: 300.0}}"});
    ModelRun<double> run(cfg, MPI_COMM_WORLD);
    const Model<double>& m = *run.model;
    auto content = [&](const Field3d<double>& a) {
        const GridDims& d = m.grid().d;
        double s = 0;
        for (int k = d.kstart; k < d.kend; ++k)
            for (int j = d.jstart; j < d.jend; ++j)
                for (int i = d.istart; i < d.iend; ++i) s += (a(i, j, k) - 300.0) * m.grid().dz[k];
        return s / (double(d.itot) * d.jtot);
    };
    // F(t) written out: 0 -> 0.1 K m/s over 300 s, then down to -0.05 at 700 s, then constant.
    auto flux = [](double t) {
        if (t <= 300) return 0.1 * t / 300;
        if (t <= 700) return 0.1 - 0.15 * (t - 300) / 400;
        return -0.05;
    };
    double want = 0;
    for (long n = 0; n < 100; ++n) want += 10.0 * flux(10.0 * double(n));
    run.model->run();
    EXPECT_EQ(m.steps(), 100);
    const double th = content(run.model->fields().s), c = content(run.model->fields().scalars[0].c);
    std::printf("column content %.15g (th) and %.15g (c), the flux table's sum %.15g K m\n", th, c,
                want);
    EXPECT_NEAR(th, want, 1e-10 * std::abs(want));
    EXPECT_NEAR(c, want, 1e-10 * std::abs(want));
    EXPECT_GT(std::abs(want), 1.0);
}

} // namespace
} // namespace squall::test
