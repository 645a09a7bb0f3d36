// Moist thermodynamics (kernels/moist.cuh) against independent references: tabulated
// saturation vapour pressures, finite differences of the functions, and the saturation
// adjustment against a bisection of its defining equation written out here.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/moist.cuh"

namespace {

namespace moist = sq::moist;
using C = moist::Constants<double>;

TEST(Moist, SaturationPressureMatchesTables) {
    // Saturation vapour pressure over water (Pa), from the standard tables (Wexler 1976,
    // as tabulated in the CRC handbook): Magnus' fit is within 0.2 % from 0 to 35 deg C.
    const double table[][2] = {{0, 611.2}, {10, 1228.1}, {20, 2339.3}, {30, 4246.0}, {35, 5628.1}};
    for (const auto& [tc, es] : table)
        EXPECT_NEAR(moist::esat(C::t0 + tc), es, 2e-3 * es) << tc << " deg C";
    // The fit is not the table: it must differ somewhere (the test can fail).
    EXPECT_GT(std::abs(moist::esat(C::t0 + 20) - 2339.3), 0.1);
}

TEST(Moist, DerivativesMatchFiniteDifferences) {
    const double h = 1e-4;
    for (const double t : {265.0, 280.0, 295.0, 305.0}) {
        const double dlnes =
            (std::log(moist::esat(t + h)) - std::log(moist::esat(t - h))) / (2 * h);
        EXPECT_NEAR(moist::dlnesat_dt(t), dlnes, 1e-8 * dlnes) << t;
        for (const double p : {60000.0, 85000.0, 101500.0}) {
            const double dq = (moist::qsat(p, t + h) - moist::qsat(p, t - h)) / (2 * h);
            EXPECT_NEAR(moist::dqsat_dt(p, t), dq, 1e-7 * dq) << t << " " << p;
        }
    }
    // qsat from its definition: the vapour's partial pressure is es at saturation.
    const double p = 95000, t = 290, q = moist::qsat(p, t);
    const double e = q * p / (C::ep + (1 - C::ep) * q); // partial pressure of q
    EXPECT_NEAR(e, moist::esat(t), 1e-9 * e);
}

// The adjusted temperature by bisection of T = T_l + Lv/cp (qt - qsat(p, T)).
double bisect_temperature(double thl, double qt, double p, double exner) {
    const double tl = thl * exner;
    double lo = tl, hi = tl + C::lv / C::cp * qt; // f(lo) <= 0 <= f(hi)
    for (int it = 0; it < 200; ++it) {
        const double mid = 0.5 * (lo + hi);
        (mid - tl - C::lv / C::cp * (qt - moist::qsat(p, mid)) < 0 ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

TEST(Moist, SaturationAdjustment) {
    int saturated = 0, unsaturated = 0;
    for (const double p : {101500.0, 90000.0, 80000.0, 70000.0})
        for (const double thl : {295.0, 298.7, 302.0, 308.0})
            for (const double qt : {0.004, 0.010, 0.0163, 0.017, 0.022}) {
                const double ex = moist::exner(p);
                const auto a = moist::saturation_adjust(thl, qt, p, ex);
                // thl and qt are conserved: rebuilt from (T, ql) they are the inputs.
                EXPECT_NEAR(a.temp / ex - C::lv / (C::cp * ex) * a.ql, thl, 1e-9);
                if (qt <= moist::qsat(p, thl * ex)) {
                    EXPECT_EQ(a.ql, 0.0);
                    EXPECT_EQ(a.temp, thl * ex);
                    ++unsaturated;
                } else {
                    const double t_ref = bisect_temperature(thl, qt, p, ex);
                    EXPECT_NEAR(a.temp, t_ref, 1e-9) << p << " " << thl << " " << qt;
                    EXPECT_NEAR(a.ql, qt - moist::qsat(p, t_ref), 1e-12);
                    EXPECT_GT(a.ql, 0.0);
                    ++saturated;
                }
                // Float: within float's accuracy of the double result.
                const auto f = moist::saturation_adjust(float(thl), float(qt), float(p), float(ex));
                EXPECT_NEAR(f.temp, a.temp, 2e-3);
                EXPECT_NEAR(f.ql, a.ql, 2e-6);
            }
    EXPECT_GT(saturated, 10);
    EXPECT_GT(unsaturated, 10);
}

TEST(Moist, VirtualTemperatureAndExner) {
    EXPECT_DOUBLE_EQ(moist::exner(C::p0), 1.0);
    EXPECT_NEAR(moist::exner(85000.0), std::pow(0.85, C::rd / C::cp), 1e-14);
    // Dry: thv = th. Vapour makes air lighter (thv > th), liquid heavier.
    EXPECT_DOUBLE_EQ(moist::thv(300.0, 0.0, 0.0), 300.0);
    EXPECT_NEAR(moist::thv(300.0, 0.01, 0.0), 300.0 * (1 + 0.01 * (C::rv / C::rd - 1)), 1e-12);
    EXPECT_LT(moist::thv(300.0, 0.01, 0.001), moist::thv(300.0, 0.01, 0.0));
    // From the prognostic state: an unsaturated point is thl (1 + 0.608 qt).
    const double ex = moist::exner(100000.0);
    EXPECT_NEAR(moist::thv_from_thl(300.0, 0.005, 100000.0, ex),
                300.0 * (1 + (C::rv / C::rd - 1) * 0.005), 1e-12);
}

} // namespace
