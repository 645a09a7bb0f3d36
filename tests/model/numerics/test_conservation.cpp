// Inviscid box with scheme 2: momentum and tracer mass conserved to round-off, divergence at
// round-off, and the kinetic-energy loss converging with dt at the RK order.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/support/model_run.h"

namespace squall::test {
namespace {

struct Budget {
    Diagnostics start, end;
    double ke_start, ke_end;
};

// Kinetic energy in the form the 2nd-order flux-form scheme conserves: velocity components
// squared at their own (face) locations, weighted with their own cell volumes.
double staggered_ke(Model<double>& m) {
    const Grid<double>& g = m.grid();
    const GridDims& d = g.d;
    const auto& f = m.fields();
    double ke = 0;
    for (int k = d.kstart; k < d.kend; ++k)
        for (int j = d.jstart; j < d.jend; ++j)
            for (int i = d.istart; i < d.iend; ++i) {
                ke += 0.5 * (f.u(i, j, k) * f.u(i, j, k) + f.v(i, j, k) * f.v(i, j, k)) * g.dz[k];
                if (k > d.kstart) ke += 0.5 * f.w(i, j, k) * f.w(i, j, k) * g.dzh[k];
            }
    return ke * g.dx * g.dy;
}

Budget run_conservation(int rk, double dt, double endtime, std::vector<std::string> extra = {}) {
    std::vector<std::string> ov = {"time.rk=" + std::to_string(rk),
                                   "time.endtime=" + std::to_string(endtime),
                                   "init.perturb_amplitude=0.1"};
    ov.insert(ov.end(), extra.begin(), extra.end());
    ModelRun<double> run(load_case("conservation", ov), MPI_COMM_WORLD);
    run.model->set_fixed_dt(dt);
    Budget b;
    b.start = run.model->diagnostics();
    b.ke_start = staggered_ke(*run.model);
    run.model->run();
    EXPECT_NEAR(run.model->time(), endtime, 1e-12);
    b.end = run.model->diagnostics();
    b.ke_end = staggered_ke(*run.model);
    return b;
}

TEST(Conservation, MomentumAndMassToRoundOff) {
    const Budget b = run_conservation(3, 0.01, 0.5);
    // Scales: total momentum magnitude ~ amplitude * volume, tracer mean ~ 1.
    EXPECT_NEAR(b.end.mom_u, b.start.mom_u, 1e-13);
    EXPECT_NEAR(b.end.mom_v, b.start.mom_v, 1e-13);
    EXPECT_NEAR(b.end.s_mean, b.start.s_mean, 1e-13);
    // Divergence after the projection, relative to U/dx with U = 0.1 and dx = 1/16.
    EXPECT_LT(b.end.div / (0.1 * 16), 1e-12);
    EXPECT_LT(b.start.div / (0.1 * 16), 1e-12);
    // The flow must actually have evolved.
    EXPECT_GT(std::abs(b.end.ke - b.start.ke), 0.0);
}

double ke_loss_order(int rk) {
    const double T = 1.0;
    double loss[3];
    const double dts[3] = {0.02, 0.01, 0.005};
    for (int n = 0; n < 3; ++n) {
        // Energy conservation of the spatial scheme needs a uniform grid; then all loss is
        // from the time integration.
        const Budget b = run_conservation(rk, dts[n], T, {"grid.stretch=uniform"});
        loss[n] = b.ke_start - b.ke_end;
        EXPECT_GT(loss[n], 0.0) << "RK schemes must dissipate energy";
    }
    std::printf("RK%d KE loss: %.4e %.4e %.4e\n", rk, loss[0], loss[1], loss[2]);
    const double o1 = std::log2(loss[0] / loss[1]), o2 = std::log2(loss[1] / loss[2]);
    std::printf("RK%d orders: %.3f %.3f\n", rk, o1, o2);
    return o2;
}

// The Runge-Kutta scheme and how far the measured order may be from it.
struct RkOrder {
    int rk;
    double tolerance;
};
void PrintTo(const RkOrder& o, std::ostream* os) {
    *os << "RK" << o.rk;
}

class EnergyLossOrder : public ::testing::TestWithParam<RkOrder> {};

TEST_P(EnergyLossOrder, IsTheRkOrder) {
    EXPECT_NEAR(ke_loss_order(GetParam().rk), GetParam().rk, GetParam().tolerance);
}
INSTANTIATE_TEST_SUITE_P(Conservation, EnergyLossOrder,
                         ::testing::Values(RkOrder{3, 0.2}, RkOrder{4, 0.3}));

} // namespace
} // namespace squall::test
