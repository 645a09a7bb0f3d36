// Analytic properties of the advection kernels (kernels/advec.cuh), part 1: exact tendencies.
// A constant scalar (minus c times the divergence; unchanged in a divergence-free flow),
// polynomial scalars and linear momentum fields for which scheme 2 and 2i5 are exact,
// horizontally and at the near-wall levels of 2i5.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/advec.cuh"
#include "kernels/pressure.cuh"
#include "sanity_advec_support.h"
#include "sanity_box.h"

namespace sanity {
namespace {

// Velocities used by most tests: random, impermeable walls.
template <typename T>
struct Wind {
    std::vector<T> u, v, w;
    Wind(const Box<T>& b, std::uint32_t seed)
        : u(b.random(seed)), v(b.random(seed + 1)), w(b.random(seed + 2)) {
        b.zero_w_walls(w);
    }
};

// A constant scalar is transported by the (density-weighted) velocity divergence only:
// s_t = -c div(u), for both schemes, including the near-wall levels of 2i5.
TYPED_TEST(AdvecSanity, ConstantScalarGivesMinusCTimesDivergence) {
    using T = TypeParam;
    const Box<T> b(1.5, 0.7);
    const Wind<T> wind(b, 11);
    const T c = T(2.5);
    const auto s = b.field(c);
    auto st2 = b.field(), st5 = b.field();
    b.apply_c(sq::AdvecS2<T>{.st = st2.data(),
                             .s = s.data(),
                             .u = wind.u.data(),
                             .v = wind.v.data(),
                             .w = wind.w.data(),
                             .dzi = b.dzi.data(),
                             .rho = b.rho.data(),
                             .rhoh = b.rhoh.data(),
                             .dxi = b.dxi,
                             .dyi = b.dyi,
                             .jj = b.jj,
                             .kk = b.kk});
    b.apply_c(sq::AdvecS2i5<T>{.st = st5.data(),
                               .s = s.data(),
                               .u = wind.u.data(),
                               .v = wind.v.data(),
                               .w = wind.w.data(),
                               .dzi = b.dzi.data(),
                               .rho = b.rho.data(),
                               .rhoh = b.rhoh.data(),
                               .dxi = b.dxi,
                               .dyi = b.dyi,
                               .jj = b.jj,
                               .kk = b.kk,
                               .kstart = b.kstart,
                               .kend = b.kend});
    const sq::Divergence<T> div{.u = wind.u.data(),
                                .v = wind.v.data(),
                                .w = wind.w.data(),
                                .dzi = b.dzi.data(),
                                .rho = b.rho.data(),
                                .rhoh = b.rhoh.data(),
                                .dxi = b.dxi,
                                .dyi = b.dyi,
                                .jj = b.jj,
                                .kk = b.kk};
    const double scale = 2.5 * 4 * 40; // c * a few velocity differences * max inverse spacing
    for (int k = b.kstart; k < b.kend; ++k)
        for (int j = b.jstart; j < b.jend; ++j)
            for (int i = b.istart; i < b.iend; ++i) {
                const double expect = -double(c) * double(div(i, j, k));
                ASSERT_NEAR(st2[b.idx(i, j, k)], expect, tol<T>(scale))
                    << i << " " << j << " " << k;
                ASSERT_NEAR(st5[b.idx(i, j, k)], expect, tol<T>(scale))
                    << i << " " << j << " " << k;
            }
}

// A discretely divergence-free field (two stream functions, psi = 0 on the walls) leaves a
// constant scalar unchanged.
TYPED_TEST(AdvecSanity, DivergenceFreeFlowKeepsConstantScalar) {
    using T = TypeParam;
    const Box<T> b(1.5, 0.0);
    const auto psi_xy = b.random(21), psi_xz0 = b.random(22);
    auto psi_xz = psi_xz0; // at (xh, zh) corners, zero on both walls
    b.zero_w_walls(psi_xz);
    auto u = b.field(), v = b.field(), w = b.field();
    for (int k = 0; k < b.kcells - 1; ++k)
        for (int j = 0; j < b.jcells - 1; ++j)
            for (int i = 0; i < b.icells - 1; ++i) {
                const int n = b.idx(i, j, k);
                u[n] = -(psi_xy[n + b.jj] - psi_xy[n]) * b.dyi +
                       (psi_xz[n + b.kk] - psi_xz[n]) * b.dzi[k];
                v[n] = (psi_xy[n + 1] - psi_xy[n]) * b.dxi;
                w[n] = -(psi_xz[n + 1] - psi_xz[n]) * b.dxi;
            }
    const T c = T(-1.25);
    const auto s = b.field(c);
    auto st2 = b.field(), st5 = b.field();
    b.apply_c(sq::AdvecS2<T>{.st = st2.data(),
                             .s = s.data(),
                             .u = u.data(),
                             .v = v.data(),
                             .w = w.data(),
                             .dzi = b.dzi.data(),
                             .rho = b.rho.data(),
                             .rhoh = b.rhoh.data(),
                             .dxi = b.dxi,
                             .dyi = b.dyi,
                             .jj = b.jj,
                             .kk = b.kk});
    b.apply_c(sq::AdvecS2i5<T>{.st = st5.data(),
                               .s = s.data(),
                               .u = u.data(),
                               .v = v.data(),
                               .w = w.data(),
                               .dzi = b.dzi.data(),
                               .rho = b.rho.data(),
                               .rhoh = b.rhoh.data(),
                               .dxi = b.dxi,
                               .dyi = b.dyi,
                               .jj = b.jj,
                               .kk = b.kk,
                               .kstart = b.kstart,
                               .kend = b.kend});
    const double scale = 1.25 * 4 * 40 * 40;
    for (int k = b.kstart; k < b.kend; ++k)
        for (int j = b.jstart; j < b.jend; ++j)
            for (int i = b.istart; i < b.iend; ++i) {
                ASSERT_NEAR(st2[b.idx(i, j, k)], 0, tol<T>(scale));
                ASSERT_NEAR(st5[b.idx(i, j, k)], 0, tol<T>(scale));
            }
}

// Scheme 2, uniform wind (U0, V0, W0), s = x^2 + y^2 + z on the stretched grid: the central
// flux difference is exact, s_t = -(2 U0 x + 2 V0 y + W0).
TYPED_TEST(AdvecSanity, Scheme2ScalarPolynomialExact) {
    using T = TypeParam;
    const Box<T> b(1.5, 0.0);
    const double U0 = 0.7, V0 = -1.3, W0 = 0.4;
    const auto u = b.field(T(U0)), v = b.field(T(V0)), w = b.field(T(W0));
    const auto s =
        b.make([&](int i, int j, int k) { return b.x(i) * b.x(i) + b.y(j) * b.y(j) + b.zd[k]; });
    auto st = b.field();
    b.apply_c(sq::AdvecS2<T>{.st = st.data(),
                             .s = s.data(),
                             .u = u.data(),
                             .v = v.data(),
                             .w = w.data(),
                             .dzi = b.dzi.data(),
                             .rho = b.rho.data(),
                             .rhoh = b.rhoh.data(),
                             .dxi = b.dxi,
                             .dyi = b.dyi,
                             .jj = b.jj,
                             .kk = b.kk});
    for (int k = b.kstart; k < b.kend; ++k)
        for (int j = b.jstart; j < b.jend; ++j)
            for (int i = b.istart; i < b.iend; ++i)
                ASSERT_NEAR(st[b.idx(i, j, k)], -(2 * U0 * b.x(i) + 2 * V0 * b.y(j) + W0),
                            tol<T>(40));
}

// Scheme 2 momentum, linear fields: u = a x + c y, v = V0 gives -(d(uu)/dx + d(uv)/dy)
// = -(2 a u + V0 c); v = a y gives -2 a^2 y; w = a zh (uniform grid) gives -2 a^2 zh.
// For linear fields the 5th-order interpolations are exact too, so 2i5 must agree
// (away from the walls, where 2i5 drops the wall flux).
TYPED_TEST(AdvecSanity, MomentumLinearFieldsExactBothSchemes) {
    using T = TypeParam;
    const Box<T> b(0.0, 0.0);
    const double a = 1.7, c = -0.6, V0 = 0.9;
    const auto zero = b.field();
    {
        const auto u = b.make([&](int i, int j, int) { return a * b.xh(i) + c * b.y(j); });
        const auto v = b.field(T(V0));
        auto ut2 = b.field(), ut5 = b.field();
        b.apply_c(sq::AdvecU2<T>{.tend = ut2.data(),
                                 .u = u.data(),
                                 .v = v.data(),
                                 .w = zero.data(),
                                 .dzi = b.dzi.data(),
                                 .dzhi = b.dzhi.data(),
                                 .rho = b.rho.data(),
                                 .rhoh = b.rhoh.data(),
                                 .dxi = b.dxi,
                                 .dyi = b.dyi,
                                 .jj = b.jj,
                                 .kk = b.kk});
        b.apply_c(sq::AdvecU2i5<T>{.tend = ut5.data(),
                                   .u = u.data(),
                                   .v = v.data(),
                                   .w = zero.data(),
                                   .dzi = b.dzi.data(),
                                   .dzhi = b.dzhi.data(),
                                   .rho = b.rho.data(),
                                   .rhoh = b.rhoh.data(),
                                   .dxi = b.dxi,
                                   .dyi = b.dyi,
                                   .jj = b.jj,
                                   .kk = b.kk,
                                   .kstart = b.kstart,
                                   .kend = b.kend});
        for (int k = b.kstart; k < b.kend; ++k)
            for (int j = b.jstart; j < b.jend; ++j)
                for (int i = b.istart; i < b.iend; ++i) {
                    const double uu = a * b.xh(i) + c * b.y(j);
                    ASSERT_NEAR(ut2[b.idx(i, j, k)], -(2 * a * uu + V0 * c), tol<T>(20));
                    ASSERT_NEAR(ut5[b.idx(i, j, k)], -(2 * a * uu + V0 * c), tol<T>(20));
                }
    }
    {
        const auto v = b.make([&](int, int j, int) { return a * b.yh(j); });
        auto vt2 = b.field(), vt5 = b.field();
        b.apply_c(sq::AdvecV2<T>{.tend = vt2.data(),
                                 .u = zero.data(),
                                 .v = v.data(),
                                 .w = zero.data(),
                                 .dzi = b.dzi.data(),
                                 .dzhi = b.dzhi.data(),
                                 .rho = b.rho.data(),
                                 .rhoh = b.rhoh.data(),
                                 .dxi = b.dxi,
                                 .dyi = b.dyi,
                                 .jj = b.jj,
                                 .kk = b.kk});
        b.apply_c(sq::AdvecV2i5<T>{.tend = vt5.data(),
                                   .u = zero.data(),
                                   .v = v.data(),
                                   .w = zero.data(),
                                   .dzi = b.dzi.data(),
                                   .dzhi = b.dzhi.data(),
                                   .rho = b.rho.data(),
                                   .rhoh = b.rhoh.data(),
                                   .dxi = b.dxi,
                                   .dyi = b.dyi,
                                   .jj = b.jj,
                                   .kk = b.kk,
                                   .kstart = b.kstart,
                                   .kend = b.kend});
        for (int k = b.kstart; k < b.kend; ++k)
            for (int j = b.jstart; j < b.jend; ++j)
                for (int i = b.istart; i < b.iend; ++i) {
                    ASSERT_NEAR(vt2[b.idx(i, j, k)], -2 * a * a * b.yh(j), tol<T>(20));
                    ASSERT_NEAR(vt5[b.idx(i, j, k)], -2 * a * a * b.yh(j), tol<T>(20));
                }
    }
    {
        const auto w = b.make([&](int, int, int k) { return a * b.zhd[k]; });
        auto wt2 = b.field(), wt5 = b.field();
        b.apply_w(sq::AdvecW2<T>{.tend = wt2.data(),
                                 .u = zero.data(),
                                 .v = zero.data(),
                                 .w = w.data(),
                                 .dzi = b.dzi.data(),
                                 .dzhi = b.dzhi.data(),
                                 .rho = b.rho.data(),
                                 .rhoh = b.rhoh.data(),
                                 .dxi = b.dxi,
                                 .dyi = b.dyi,
                                 .jj = b.jj,
                                 .kk = b.kk});
        b.apply_w(sq::AdvecW2i5<T>{.tend = wt5.data(),
                                   .u = zero.data(),
                                   .v = zero.data(),
                                   .w = w.data(),
                                   .dzi = b.dzi.data(),
                                   .dzhi = b.dzhi.data(),
                                   .rho = b.rho.data(),
                                   .rhoh = b.rhoh.data(),
                                   .dxi = b.dxi,
                                   .dyi = b.dyi,
                                   .jj = b.jj,
                                   .kk = b.kk,
                                   .kstart = b.kstart,
                                   .kend = b.kend});
        for (int k = b.kstart + 1; k < b.kend; ++k)
            for (int j = b.jstart; j < b.jend; ++j)
                for (int i = b.istart; i < b.iend; ++i) {
                    ASSERT_NEAR(wt2[b.idx(i, j, k)], -2 * a * a * b.zhd[k], tol<T>(20));
                    ASSERT_NEAR(wt5[b.idx(i, j, k)], -2 * a * a * b.zhd[k], tol<T>(20));
                }
    }
}

// 2i5 horizontally: with a uniform wind of either sign the 5th-order upwind flux difference
// is exact for polynomials up to degree 4 (the central part is the 6th-order central
// difference; the dissipation part is a 6th difference, zero for quartics):
// s_t = -(U0 ds/dx + V0 ds/dy).
TYPED_TEST(AdvecSanity, Scheme2i5HorizontalQuarticExact) {
    using T = TypeParam;
    const Box<T> b(1.5, 0.0);
    for (const double U0 : {0.8, -0.8}) {
        const double V0 = -0.5 * U0;
        const auto u = b.field(T(U0)), v = b.field(T(V0)), w = b.field();
        const auto s = b.make([&](int i, int j, int) {
            const double x = b.x(i), y = b.y(j);
            return x * x * x * x - 2 * x * x * x + y * y * y * y + 0.5 * y * y;
        });
        auto st = b.field();
        b.apply_c(sq::AdvecS2i5<T>{.st = st.data(),
                                   .s = s.data(),
                                   .u = u.data(),
                                   .v = v.data(),
                                   .w = w.data(),
                                   .dzi = b.dzi.data(),
                                   .rho = b.rho.data(),
                                   .rhoh = b.rhoh.data(),
                                   .dxi = b.dxi,
                                   .dyi = b.dyi,
                                   .jj = b.jj,
                                   .kk = b.kk,
                                   .kstart = b.kstart,
                                   .kend = b.kend});
        for (int k = b.kstart; k < b.kend; ++k)
            for (int j = b.jstart; j < b.jend; ++j)
                for (int i = b.istart; i < b.iend; ++i) {
                    const double x = b.x(i), y = b.y(j);
                    const double dsdx = 4 * x * x * x - 6 * x * x, dsdy = 4 * y * y * y + y;
                    ASSERT_NEAR(st[b.idx(i, j, k)], -(U0 * dsdx + V0 * dsdy), tol<T>(200));
                }
    }
}

// 2i5 vertically on a uniform grid with w = W0 inside and 0 on the walls, s = z:
// every order (F2, F3, F5) is exact for a linear field, so all cells with two open faces
// give -W0; the bottom cell too (its wall flux is 0 and zh[kstart] = 0); the top cell
// gets +W0 zh[kend-1] / dz. For a quartic the interior cells (F5 on both faces) are exact.
TYPED_TEST(AdvecSanity, Scheme2i5VerticalNearWallLevels) {
    using T = TypeParam;
    const Box<T> b(0.0, 0.0);
    const double W0 = 0.6;
    const auto zero = b.field();
    auto w = b.field(T(W0));
    b.zero_w_walls(w);
    const double dz = b.zhd[b.kstart + 1];
    for (const int power : {1, 4}) {
        const auto s = b.make([&](int, int, int k) { return std::pow(b.zd[k], power); });
        auto st = b.field();
        b.apply_c(sq::AdvecS2i5<T>{.st = st.data(),
                                   .s = s.data(),
                                   .u = zero.data(),
                                   .v = zero.data(),
                                   .w = w.data(),
                                   .dzi = b.dzi.data(),
                                   .rho = b.rho.data(),
                                   .rhoh = b.rhoh.data(),
                                   .dxi = b.dxi,
                                   .dyi = b.dyi,
                                   .jj = b.jj,
                                   .kk = b.kk,
                                   .kstart = b.kstart,
                                   .kend = b.kend});
        for (int k = b.kstart; k < b.kend; ++k) {
            const double z = b.zd[k];
            double expect;
            if (power == 1)
                expect = k == b.kend - 1 ? W0 * b.zhd[k] / dz : -W0;
            else if (k >= b.kstart + 3 && k < b.kend - 3)
                expect = -W0 * 4 * z * z * z;
            else
                continue;
            for (int j = b.jstart; j < b.jend; ++j)
                for (int i = b.istart; i < b.iend; ++i)
                    ASSERT_NEAR(st[b.idx(i, j, k)], expect, tol<T>(20)) << "k=" << k;
        }
    }
}

} // namespace
} // namespace sanity
