// Analytic properties of the diffusion kernels (kernels/diff.cuh), part 3: the point
// functions. The strain rate of linear fields, the Smagorinsky eddy viscosity and the
// diffusion numbers at hand-computed points.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/diff.cuh"
#include "sanity_box.h"
#include "sanity_diff_support.h"

namespace sanity {
namespace {

// S2 = 2 S_ij S_ij of a linear velocity field on the stretched grid, term by term:
// u = a x + b y + c z, v = d x + e y + f z, w = g x + h y + m z gives
// 2 (a^2 + e^2 + m^2) + (b + d)^2 + (c + g)^2 + (f + h)^2 (+ 1e-9).
TYPED_TEST(DiffSanity, Strain2OfLinearFields) {
    using T = TypeParam;
    const Box<T> b(1.5, 0.0);
    struct Case {
        double a, bb, c, d, e, f, g, h, m, expect;
    };
    const double s = 0.8;
    const Case cases[] = {
        {0, 0, s, 0, 0, 0, 0, 0, 0, s * s},     // pure shear u = s z
        {0, s, 0, 0, 0, 0, 0, 0, 0, s * s},     // u = s y
        {0, 0, 0, 0, 0, 0, 0, s, 0, s * s},     // w = s y
        {s, 0, 0, 0, 0, 0, 0, 0, 0, 2 * s * s}, // u = s x
        {0, -s, 0, s, 0, 0, 0, 0, 0, 0},        // solid-body rotation: no strain
        {0.3, -0.2, 0.5, 0.7, -0.4, 0.25, -0.6, 0.15, 0.1,
         2 * (0.09 + 0.16 + 0.01) + 0.25 + 0.01 + 0.16},
    };
    for (const Case& cs : cases) {
        const auto u = b.make(
            [&](int i, int j, int k) { return cs.a * b.xh(i) + cs.bb * b.y(j) + cs.c * b.zd[k]; });
        const auto v = b.make(
            [&](int i, int j, int k) { return cs.d * b.x(i) + cs.e * b.yh(j) + cs.f * b.zd[k]; });
        const auto w = b.make(
            [&](int i, int j, int k) { return cs.g * b.x(i) + cs.h * b.y(j) + cs.m * b.zhd[k]; });
        auto s2 = b.field(T(-1));
        b.apply_c(sq::Strain2<T>{.strain2 = s2.data(),
                                 .u = u.data(),
                                 .v = v.data(),
                                 .w = w.data(),
                                 .dzi = b.dzi.data(),
                                 .dzhi = b.dzhi.data(),
                                 .dxi = b.dxi,
                                 .dyi = b.dyi,
                                 .jj = b.jj,
                                 .kk = b.kk});
        for (int k = b.kstart; k < b.kend; ++k)
            for (int j = b.jstart; j < b.jend; ++j)
                for (int i = b.istart; i < b.iend; ++i) {
                    const double got = s2[b.idx(i, j, k)];
                    ASSERT_NEAR(got, cs.expect + 1e-9, tol<T>(1) + 1e-12) << i << j << k;
                    ASSERT_GT(got, 0.0);
                }
    }
}

// Eddy viscosity at hand-computed points: dx dy dz = 4 * 4 * 0.5 = 8, so L0 = 2 cs = 0.46,
// L0^2 = 0.2116; S2 = 0.04 (sqrt 0.2).
TYPED_TEST(DiffSanity, EviscSmagHandComputed) {
    using T = TypeParam;
    const int jj = 1, kk = 1; // a single column
    T s2[3] = {T(0.04), T(0.04), T(0.04)};
    T z[3] = {T(-0.25), T(0.25), T(0.75)}, dz[3] = {T(0.5), T(0.5), T(0.5)};
    // N2 = g/thref dth/dz = 0.08 * 0.125 = 0.01 = 0.75 Pr_t S2 with Pr_t = 1/3 (exact in
    // binary, so float sees the same point).
    T th[3] = {T(1), T(7), T(1.125)};
    T ev[3] = {};
    auto run = [&](const T* thp, int mason, T z0m, T g_over_thref) {
        T mlen2[3] = {};
        for (int k = 0; k < 3; ++k)
            mlen2[k] = sq::smag_mixing_length2(T(0.23), T(4), T(4), dz[k], z[k], z0m, mason != 0);
        sq::EviscSmag<T>{.evisc = ev,
                         .strain2 = s2,
                         .th = thp,
                         .g_over_thref = g_over_thref,
                         .z = z,
                         .mlen2 = mlen2,
                         .prandtl_t = T(1. / 3.),
                         .jj = jj,
                         .kk = kk}(0, 0, 1);
        return double(ev[1]);
    };
    const double t = tol<T>(0.05);
    EXPECT_NEAR(run(nullptr, 0, T(0.1), T(0.08)), 0.2116 * 0.2, t);  // neutral, no damping
    EXPECT_NEAR(run(th, 0, T(0.1), T(0.08)), 0.2116 * 0.2 * 0.5, t); // sqrt(1 - 0.75) = 0.5
    EXPECT_NEAR(run(th, 0, T(0.1), T(-0.08)), 0.2116 * 0.2 * std::sqrt(1.75), t); // unstable
    // Mason: 0.4 (z + z0m) = 0.46 = L0, so L^2 = L0^2 / 2.
    EXPECT_NEAR(run(nullptr, 1, T(0.9), T(0.1)), 0.1058 * 0.2, t);
    // Strongly stable: Ri / Pr_t capped at 1 - 1e-6 keeps a tiny positive viscosity.
    const double capped = run(th, 0, T(0.1), T(100));
    EXPECT_GT(capped, 0.0);
    EXPECT_NEAR(capped, 0.2116 * 0.2 * 1e-3, 0.2116 * 0.2 * 1e-3 * (sizeof(T) == 4 ? 0.05 : 1e-6));
}

TYPED_TEST(DiffSanity, DiffusionNumbersHandComputed) {
    using T = TypeParam;
    const T dzi[2] = {T(0), T(4)};
    const T ev[2] = {T(0), T(0.5)};
    // (dxi^2 + dyi^2 + dzi^2) = 4 + 9 + 16 = 29
    EXPECT_NEAR((sq::DnConst<T>{.K = T(0.1), .dzi = dzi, .dxi = T(2), .dyi = T(3)}(0, 0, 1)), 2.9,
                tol<T>(3));
    EXPECT_NEAR((sq::DnSmag<T>{.evisc = ev,
                               .dzi = dzi,
                               .dxi = T(2),
                               .dyi = T(3),
                               .prandtl_t = T(1. / 3.),
                               .jj = 1,
                               .kk = 1}(0, 0, 1)),
                0.5 * 3 * 29, tol<T>(50));
    EXPECT_NEAR(
        (sq::DnSmag<T>{
            .evisc = ev, .dzi = dzi, .dxi = T(2), .dyi = T(3), .prandtl_t = T(2), .jj = 1, .kk = 1}(
            0, 0, 1)),
        0.5 * 29, tol<T>(20));
}

} // namespace
} // namespace sanity
