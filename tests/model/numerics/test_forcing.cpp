// The large-scale forcing of the scalar in the whole model (ls_forcing.yaml): on a resting
// column the tendency is all that changes th, and any consistent Runge-Kutta scheme
// integrates a constant tendency exactly, so th(z, t) = th0 + tendency(z) t to round-off,
// with the table interpolated linearly here independently of the model's interpolation.
#include <gtest/gtest.h>

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

} // namespace
} // namespace squall::test
