// Pressure, buoyancy and time-integration kernels (kernels/pressure.cuh, thermo.cuh,
// timeint.cuh): hand-computed values and consistency between the pressure kernels.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/pressure.cuh"
#include "kernels/thermo.cuh"
#include "kernels/timeint.cuh"
#include "sanity_box.h"

namespace {

using sanity::Box;
using sanity::tol;

template <typename T>
class MiscSanity : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(MiscSanity, Precisions);

// PresOut with p = x^2 + y^2 + z^2 (stretched grid) subtracts the exact gradient at the faces:
// 2 xh, 2 yh, 2 zh (zh lies midway between the centres); w at the bottom wall is untouched.
TYPED_TEST(MiscSanity, PresOutSubtractsDiscreteGradient) {
    using T = TypeParam;
    const Box<T> b(1.5, 0.0);
    // The ghost level below the wall holds junk: w at kstart must not see it.
    const auto p = b.make([&](int i, int j, int k) {
        return k < b.kstart ? 100.0 : b.x(i) * b.x(i) + b.y(j) * b.y(j) + b.zd[k] * b.zd[k];
    });
    const auto ut0 = b.random(81), vt0 = b.random(82), wt0 = b.random(83);
    auto ut = ut0, vt = vt0, wt = wt0;
    b.apply_c(sq::PresOut<T>{.ut = ut.data(),
                             .vt = vt.data(),
                             .wt = wt.data(),
                             .p = p.data(),
                             .dzhi = b.dzhi.data(),
                             .dxi = b.dxi,
                             .dyi = b.dyi,
                             .kstart = b.kstart,
                             .jj = b.jj,
                             .kk = b.kk});
    for (int k = b.kstart; k < b.kend; ++k)
        for (int j = b.jstart; j < b.jend; ++j)
            for (int i = b.istart; i < b.iend; ++i) {
                const int n = b.idx(i, j, k);
                ASSERT_NEAR(ut[n], ut0[n] - 2 * b.xh(i), tol<T>(10));
                ASSERT_NEAR(vt[n], vt0[n] - 2 * b.yh(j), tol<T>(10));
                const double wexp = k == b.kstart ? double(wt0[n]) : wt0[n] - 2 * b.zhd[k];
                ASSERT_NEAR(wt[n], wexp, tol<T>(10));
            }
}

// PresIn is the density-weighted divergence of (tendency + velocity / dts): compare with the
// Divergence reduction applied to that combined field (rho != 1, stretched).
TYPED_TEST(MiscSanity, PresInIsRhoTimesDivergenceOfPredictedVelocity) {
    using T = TypeParam;
    const Box<T> b(1.5, 0.7);
    auto u = b.random(91), v = b.random(92), w = b.random(93);
    auto ut = b.random(94), vt = b.random(95), wt = b.random(96);
    const T dtsi = T(4);
    std::vector<T> uc(b.ncells), vc(b.ncells), wc(b.ncells);
    for (int n = 0; n < b.ncells; ++n) {
        uc[n] = ut[n] + u[n] * dtsi;
        vc[n] = vt[n] + v[n] * dtsi;
        wc[n] = wt[n] + w[n] * dtsi;
    }
    auto p = b.field(T(123)); // PresIn writes, so the old value must not survive
    b.apply_c(sq::PresIn<T>{.p = p.data(),
                            .u = u.data(),
                            .v = v.data(),
                            .w = w.data(),
                            .ut = ut.data(),
                            .vt = vt.data(),
                            .wt = wt.data(),
                            .dzi = b.dzi.data(),
                            .rho = b.rho.data(),
                            .rhoh = b.rhoh.data(),
                            .dxi = b.dxi,
                            .dyi = b.dyi,
                            .dtsi = dtsi,
                            .jj = b.jj,
                            .kk = b.kk});
    const sq::Divergence<T> div{.u = uc.data(),
                                .v = vc.data(),
                                .w = wc.data(),
                                .dzi = b.dzi.data(),
                                .rho = b.rho.data(),
                                .rhoh = b.rhoh.data(),
                                .dxi = b.dxi,
                                .dyi = b.dyi,
                                .jj = b.jj,
                                .kk = b.kk};
    for (int k = b.kstart; k < b.kend; ++k)
        for (int j = b.jstart; j < b.jend; ++j)
            for (int i = b.istart; i < b.iend; ++i)
                ASSERT_NEAR(p[b.idx(i, j, k)], double(b.rho[k]) * div(i, j, k),
                            tol<T>(5 * 200 * 4));
}

// Divergence of u = a xh, v = c yh, w = e zh / rhoh is a + c + e / rho (stretched, rho != 1).
TYPED_TEST(MiscSanity, DivergenceOfLinearField) {
    using T = TypeParam;
    const Box<T> b(1.5, 0.7);
    const double a = 0.7, c = -1.1, e = 0.45;
    const auto u = b.make([&](int i, int, int) { return a * b.xh(i); });
    const auto v = b.make([&](int, int j, int) { return c * b.yh(j); });
    const auto w = b.make([&](int, int, int k) { return e * b.zhd[k] / double(b.rhoh[k]); });
    const sq::Divergence<T> div{.u = u.data(),
                                .v = v.data(),
                                .w = w.data(),
                                .dzi = b.dzi.data(),
                                .rho = b.rho.data(),
                                .rhoh = b.rhoh.data(),
                                .dxi = b.dxi,
                                .dyi = b.dyi,
                                .jj = b.jj,
                                .kk = b.kk};
    for (int k = b.kstart; k < b.kend; ++k)
        for (int j = b.jstart; j < b.jend; ++j)
            for (int i = b.istart; i < b.iend; ++i)
                ASSERT_NEAR(div(i, j, k), a + c + e / double(b.rho[k]), tol<T>(50));
}

// CFL per unit dt at a point: |interp2(u)| dxi + |interp2(v)| dyi + |interp2(w)| dzi[k].
TYPED_TEST(MiscSanity, CflHandComputed) {
    using T = TypeParam;
    // One column with jj = 2, kk = 4: index i + 2 j + 4 k, point (0, 0, 1) = 4.
    T u[12] = {}, v[12] = {}, w[12] = {};
    u[4] = T(-1), u[5] = T(-3);      // centre -2
    v[4] = T(0.5), v[6] = T(1.5);    // centre 1
    w[4] = T(0.25), w[8] = T(-0.75); // centre -0.25
    const T dzi[3] = {T(0), T(8), T(0)};
    const sq::Cfl<T> cfl{
        .u = u, .v = v, .w = w, .dzi = dzi, .dxi = T(2), .dyi = T(4), .jj = 2, .kk = 4};
    EXPECT_NEAR(cfl(0, 0, 1), 2 * 2 + 1 * 4 + 0.25 * 8, tol<T>(10));
}

TYPED_TEST(MiscSanity, BuoyancyHandComputed) {
    using T = TypeParam;
    T th[12] = {}, b[12] = {}, wt[12] = {};
    th[0] = T(301), th[4] = T(303); // k-1 = 0 and k = 1 at (0,0): mean 302
    b[0] = T(0.25), b[4] = T(-0.75);
    wt[4] = T(1);
    sq::BuoyancyTh<T>{
        .wt = wt, .th = th, .g_over_thref = T(9.81 / 300), .thref = T(300), .jj = 2, .kk = 4}(0, 0,
                                                                                              1);
    EXPECT_NEAR(wt[4], 1 + 9.81 / 300 * 2, tol<T>(1));
    sq::BuoyancyTh<T>{.wt = wt, .th = b, .g_over_thref = T(1), .thref = T(0), .jj = 2, .kk = 4}(
        0, 0, 1); // "buoy" mode
    EXPECT_NEAR(wt[4], 1 + 9.81 / 300 * 2 - 0.25, tol<T>(1));
}

// RK3 second stage: a += b dt at, then at *= a_next.
TYPED_TEST(MiscSanity, RkUpdateArithmetic) {
    using T = TypeParam;
    T a[8] = {}, at[8] = {};
    a[7] = T(2), at[7] = T(3);
    const sq::RkUpdate<T> rk{.a = a,
                             .at = at,
                             .b_dt = T(0.5),
                             .a_next = T(-5. / 9.),
                             .jj = 2,
                             .kk = 4,
                             .drop_tendency = 0};
    rk(1, 1, 1);
    EXPECT_NEAR(a[7], 3.5, tol<T>(4));
    EXPECT_NEAR(at[7], -5. / 3., tol<T>(2));
    // The last stage with the tendency dropped: a advances, at is left as it was (kept, it
    // would be zero).
    sq::RkUpdate<T> last = rk;
    last.a_next = T(0), last.drop_tendency = 1;
    const T at_before = at[7];
    last(1, 1, 1);
    EXPECT_NEAR(a[7], 3.5 + 0.5 * (-5. / 3.), tol<T>(4));
    EXPECT_EQ(at[7], at_before);
    last.drop_tendency = 0;
    last(1, 1, 1);
    EXPECT_EQ(at[7], T(0));
    EXPECT_EQ(a[0], T(0));
}

TYPED_TEST(MiscSanity, SpongeRelaxesTowardsProfile) {
    using T = TypeParam;
    T at[8] = {}, a[8] = {};
    a[6] = T(2.5), at[6] = T(0.5);
    const T aref[2] = {T(0), T(1.5)}, coef[2] = {T(0), T(0.2)};
    sq::Sponge<T>{.at = at, .a = a, .aref = aref, .coef = coef, .jj = 2, .kk = 4}(0, 1, 1);
    EXPECT_NEAR(at[6], 0.5 - 0.2 * (2.5 - 1.5), tol<T>(1));
}

} // namespace
