// The Coriolis force in the whole model (cases/inertial.yaml): a uniform wind on the f-plane
// turns as an inertial oscillation, w = u + i v = U exp(-i f t). With uniform fields the
// model integrates the linear ODE dw/dt = -i f w, so after n steps of any 3-stage
// 3rd-order Runge-Kutta scheme w is exactly U R(-i f dt)^n, R(z) = 1 + z + z^2/2 + z^3/6:
// the model must give that to round-off, and converge to the analytic solution at 3rd
// order, its speed kept to the scheme's accuracy over a period.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>

#include "tests/support/model_run.h"

namespace squall::test {
namespace {

struct Oscillation {
    std::complex<double> w;               // u + i v after the run (uniform: any point)
    std::complex<double> discrete, exact; // the RK3 recurrence's and the analytic
    double spread = 0;                    // max deviation from uniformity
};

// One run of `steps_per_period` steps over a period; with `trans`, in a frame moving with
// (utrans, vtrans): the wind returned is the ground frame's, u + utrans + i (v + vtrans).
Oscillation run_period(int steps_per_period, std::complex<double> trans = 0) {
    const Config cfg = load_case("inertial");
    const double f = cfg.coriolis.f, period = 2 * std::numbers::pi / f;
    const double dt = std::round(period / steps_per_period); // whole seconds: exact in ns
    const double endtime = dt * steps_per_period;
    ModelRun<double> run(load_case("inertial", {"time.endtime=" + std::to_string(endtime),
                                                "grid.utrans=" + std::to_string(trans.real()),
                                                "grid.vtrans=" + std::to_string(trans.imag())}),
                         MPI_COMM_WORLD);
    run.model->set_fixed_dt(dt);
    run.model->run();
    EXPECT_EQ(run.model->steps(), steps_per_period);
    const GridDims& d = run.model->grid().d;
    const auto& fl = run.model->fields();
    Oscillation o;
    o.w = std::complex<double>(fl.u(d.istart, d.jstart, d.kstart),
                               fl.v(d.istart, d.jstart, d.kstart)) +
          trans;
    for (int k = d.kstart; k < d.kend; ++k)
        for (int j = d.jstart; j < d.jend; ++j)
            for (int i = d.istart; i < d.iend; ++i)
                o.spread = std::max({o.spread, std::abs(fl.u(i, j, k) + trans.real() - o.w.real()),
                                     std::abs(fl.v(i, j, k) + trans.imag() - o.w.imag())});
    const double u0 = cfg.init.u0;
    const std::complex<double> z(0, -f * dt);
    o.discrete = u0 * std::pow(1.0 + z + z * z / 2.0 + z * z * z / 6.0, steps_per_period);
    o.exact = u0 * std::exp(std::complex<double>(0, -f * run.model->time()));
    return o;
}

TEST(Coriolis, InertialOscillationIsTheRk3RecurrenceAndThirdOrder) {
    const Oscillation coarse = run_period(48), fine = run_period(96);
    const Config cfg = load_case("inertial");
    const double u0 = cfg.init.u0, f = cfg.coriolis.f;
    for (const Oscillation* o : {&coarse, &fine}) {
        std::printf("w = %.15f %+.15fi; RK3 recurrence %.15f %+.15fi; exact %.15f %+.15fi\n",
                    o->w.real(), o->w.imag(), o->discrete.real(), o->discrete.imag(),
                    o->exact.real(), o->exact.imag());
        EXPECT_LT(std::abs(o->w - o->discrete), 1e-12 * u0);
        EXPECT_LT(o->spread, 1e-12 * u0);
    }
    // After one period the wind is back where it started, to 3rd order in dt: halving dt
    // divides the error by 8. Its speed: RK3 damps by (f dt)^4 / 24 per step.
    const double e_coarse = std::abs(coarse.w - coarse.exact);
    const double e_fine = std::abs(fine.w - fine.exact);
    std::printf("error after one period: %.3e (48 steps), %.3e (96 steps), ratio %.3f\n", e_coarse,
                e_fine, e_coarse / e_fine);
    EXPECT_NEAR(e_coarse / e_fine, 8.0, 0.4);
    EXPECT_LT(e_fine, 1e-4 * u0);
    const double fdt = f * std::round(2 * std::numbers::pi / f / 96);
    const double damping = 96 * std::pow(fdt, 4) / 24;
    EXPECT_NEAR(std::abs(fine.w) / u0, 1 - damping, 0.01 * damping);
}

// A Galilean translation (grid.utrans, vtrans) changes the frame, not the flow: the
// geostrophic wind is translated with it, so the ground-frame wind is the same recurrence.
TEST(Coriolis, TranslatedFrameKeepsTheGroundWind) {
    const std::complex<double> trans(7.0, -3.0);
    const Oscillation plain = run_period(48), moving = run_period(48, trans);
    std::printf("ground wind: plain %.15f %+.15fi, translated %.15f %+.15fi\n", plain.w.real(),
                plain.w.imag(), moving.w.real(), moving.w.imag());
    EXPECT_LT(std::abs(moving.w - moving.discrete), 1e-12 * 10.0);
    EXPECT_LT(std::abs(moving.w - plain.w), 1e-12 * 10.0);
    EXPECT_LT(moving.spread, 1e-12 * 10.0);
}

} // namespace
} // namespace squall::test
