// Taylor-Green vortex with scheme 2: L1 errors of u, w and p against the analytic decaying
// solution must converge at second order (docs/validation.md).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "tests/support/model_run.h"

namespace squall::test {
namespace {

struct Errors {
    double u, w, p;
};

Errors taylorgreen_errors(int itot) {
    const Config cfg = load_case("taylorgreen", {"grid.itot=" + std::to_string(itot),
                                                 "grid.ktot=" + std::to_string(itot / 2)});
    ModelRun<double> run(cfg, MPI_COMM_WORLD);
    Model<double>& m = *run.model;
    m.run();
    EXPECT_DOUBLE_EQ(m.time(), cfg.endtime);

    constexpr double pi = std::numbers::pi;
    const double F = std::exp(-8 * pi * pi * cfg.nu * m.time());
    const Grid<double>& g = m.grid();
    const GridDims& d = g.d;
    const auto& f = m.fields();
    // Pressure is defined up to a constant: compare deviations from the horizontal-mean-free
    // volume mean of each.
    double p_mean = 0, pa_mean = 0, vol = 0;
    auto p_exact = [&](int i, int k) {
        return (std::cos(4 * pi * g.x[i]) + std::cos(4 * pi * g.z[k]) - 1) * F * F / 4;
    };
    for (int k = d.kstart; k < d.kend; ++k)
        for (int i = d.istart; i < d.iend; ++i) {
            p_mean += f.p(i, d.jstart, k) * g.dz[k];
            pa_mean += p_exact(i, k) * g.dz[k];
            vol += g.dz[k];
        }
    p_mean /= vol;
    pa_mean /= vol;

    Errors e{0, 0, 0};
    double n_c = 0, n_w = 0;
    for (int k = d.kstart; k < d.kend; ++k)
        for (int i = d.istart; i < d.iend; ++i) {
            const int j = d.jstart;
            const double u_exact = std::sin(2 * pi * g.xh[i]) * std::cos(2 * pi * g.z[k]) * F;
            e.u += std::abs(f.u(i, j, k) - u_exact);
            e.p += std::abs((f.p(i, j, k) - p_mean) - (p_exact(i, k) - pa_mean));
            n_c += 1;
            if (k > d.kstart) {
                const double w_exact = -std::cos(2 * pi * g.x[i]) * std::sin(2 * pi * g.zh[k]) * F;
                e.w += std::abs(f.w(i, j, k) - w_exact);
                n_w += 1;
            }
        }
    return {e.u / n_c, e.w / n_w, e.p / n_c};
}

TEST(TaylorGreen, SecondOrderConvergence) {
    const Errors e16 = taylorgreen_errors(16);
    const Errors e32 = taylorgreen_errors(32);
    const Errors e64 = taylorgreen_errors(64);
    auto order = [](double coarse, double fine) { return std::log2(coarse / fine); };
    const double orders[3][2] = {{order(e16.u, e32.u), order(e32.u, e64.u)},
                                 {order(e16.w, e32.w), order(e32.w, e64.w)},
                                 {order(e16.p, e32.p), order(e32.p, e64.p)}};
    const char* names[3] = {"u", "w", "p"};
    for (int v = 0; v < 3; ++v)
        for (int r = 0; r < 2; ++r) {
            SCOPED_TRACE(std::string(names[v]) + (r == 0 ? " 16->32" : " 32->64"));
            EXPECT_NEAR(orders[v][r], 2.0, 0.1);
        }
    std::printf("L1 errors u: %.3e %.3e %.3e  w: %.3e %.3e %.3e  p: %.3e %.3e %.3e\n", e16.u, e32.u,
                e64.u, e16.w, e32.w, e64.w, e16.p, e32.p, e64.p);
    // The scheme must actually be accurate, not merely convergent.
    EXPECT_LT(e64.u, 1e-2);
}

} // namespace
} // namespace squall::test
