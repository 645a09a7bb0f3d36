// Laminar Couette flow converges to the linear profile, which 2nd-order differences
// represent exactly on any (stretched) grid: the error must reach round-off.
// Also: a float and a double run of the same case agree to float accuracy.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/support/model_run.h"

namespace squall::test {
namespace {

TEST(Couette, SteadyStateExactToRoundOff) {
    const Config cfg = load_case("couette");
    ModelRun<double> run(cfg, MPI_COMM_WORLD);
    run.model->run();
    const Grid<double>& g = run.model->grid();
    const GridDims& d = g.d;
    const auto& f = run.model->fields();
    double err = 0, err_v = 0, err_w = 0;
    for (int k = d.kstart; k < d.kend; ++k)
        for (int j = d.jstart; j < d.jend; ++j)
            for (int i = d.istart; i < d.iend; ++i) {
                err =
                    std::max(err, std::abs(f.u(i, j, k) - cfg.bc.u_top * g.z[k] / cfg.grid.zsize));
                err_v = std::max(err_v, std::abs(f.v(i, j, k)));
                err_w = std::max(err_w, std::abs(f.w(i, j, k)));
            }
    std::printf("Couette max error %.3e after %ld steps\n", err, run.model->steps());
    EXPECT_LT(err, 1e-13);
    EXPECT_LT(err_v, 1e-13);
    EXPECT_LT(err_w, 1e-13);
    // The stretched grid must really be stretched, or the test proves less.
    EXPECT_GT(g.dz[d.kend - 1] / g.dz[d.kstart], 1.5);
}

TEST(Precision, FloatMatchesDoubleToFloatAccuracy) {
    const std::vector<std::string> ov = {"grid.itot=32", "grid.ktot=16", "time.endtime=0.25"};
    auto fl = ov, db = ov;
    fl.push_back("model.precision=float");
    db.push_back("model.precision=double");
    ModelRun<float> rf(load_case("taylorgreen", fl), MPI_COMM_WORLD);
    ModelRun<double> rd(load_case("taylorgreen", db), MPI_COMM_WORLD);
    rf.model->set_fixed_dt(0.005);
    rd.model->set_fixed_dt(0.005);
    rf.model->run();
    rd.model->run();
    const GridDims& d = rd.model->grid().d;
    double max_diff = 0, max_val = 0;
    for (int k = d.kstart; k < d.kend; ++k)
        for (int i = d.istart; i < d.iend; ++i) {
            const double a = rd.model->fields().u(i, d.jstart, k);
            max_diff =
                std::max(max_diff, std::abs(double(rf.model->fields().u(i, d.jstart, k)) - a));
            max_val = std::max(max_val, std::abs(a));
        }
    std::printf("float vs double: max |du| / max |u| = %.3e\n", max_diff / max_val);
    EXPECT_LT(max_diff / max_val, 1e-5);
    EXPECT_GT(max_diff, 0.0); // the float run really ran in float
}

TEST(Divergence, RoundOffAfterProjectionOnStretchedGrid) {
    // Random, strongly non-solenoidal initial field on a stretched, non-cubic grid; the initial
    // projection must leave the divergence at round-off relative to U/dx.
    for (const char* prec : {"double"}) {
        const Config cfg =
            load_case("conservation",
                      {"grid.itot=24", "grid.jtot=20", "grid.ktot=16", "grid.stretch_factor=2.0",
                       "init.perturb_amplitude=1.0", std::string("model.precision=") + prec});
        ModelRun<double> run(cfg, MPI_COMM_WORLD);
        const Diagnostics dg = run.model->diagnostics();
        const double dxi = 24.0, U = 1.0;
        std::printf("divergence after projection: %.3e (relative %.3e)\n", dg.div,
                    dg.div / (U * dxi));
        EXPECT_LT(dg.div / (U * dxi), 1e-12);
        // And after a full time step.
        run.model->set_fixed_dt(0.002);
        run.model->step();
        EXPECT_LT(run.model->diagnostics().div / (U * dxi), 1e-12);
    }
}

} // namespace
} // namespace squall::test
