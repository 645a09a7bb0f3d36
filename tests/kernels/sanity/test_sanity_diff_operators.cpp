// Analytic properties of the diffusion kernels (kernels/diff.cuh), part 1: the operators.
// Constant diffusion of a quadratic is exact, the stress divergence is the Laplacian plus
// grad(div), and a uniform eddy viscosity reduces the Smagorinsky kernels to constant
// diffusion.
#include <gtest/gtest.h>

#include "kernels/diff.cuh"
#include "kernels/pressure.cuh"
#include "sanity_box.h"
#include "sanity_diff_support.h"

namespace sanity {
namespace {

// Constant diffusion of x^2 + y^2 + z^2: the second differences are exact, on the stretched
// grid too for the centred variables (the faces lie midway between the centres), so
// a_t = 6 K. w lives on faces, whose centres are not midway on a stretched grid: test it
// on a uniform grid (6 K) and with a linear z-profile on the stretched grid (4 K).
TYPED_TEST(DiffSanity, ConstantDiffusionOfQuadraticIsExact) {
    using T = TypeParam;
    const double K = 0.35;
    const Box<T> b(1.5, 0.0);
    const auto u = b.make([&](int i, int j, int k) {
        return b.xh(i) * b.xh(i) + b.y(j) * b.y(j) + b.zd[k] * b.zd[k];
    });
    const auto v = b.make([&](int i, int j, int k) {
        return b.x(i) * b.x(i) + b.yh(j) * b.yh(j) + b.zd[k] * b.zd[k];
    });
    const auto s = b.make(
        [&](int i, int j, int k) { return b.x(i) * b.x(i) + b.y(j) * b.y(j) + b.zd[k] * b.zd[k]; });
    const auto w = b.make(
        [&](int i, int j, int k) { return b.x(i) * b.x(i) + b.y(j) * b.y(j) + 3 * b.zhd[k]; });
    auto ut = b.field(T(1)), vt = b.field(), st = b.field(), wt = b.field();
    const T *dzi = b.dzi.data(), *dzhi = b.dzhi.data(), *rho = b.rho.data(), *rhoh = b.rhoh.data();
    b.apply_c(sq::DiffU2<T>{.at = ut.data(),
                            .a = u.data(),
                            .dzi = dzi,
                            .dzhi = dzhi,
                            .rho = rho,
                            .rhoh = rhoh,
                            .dxi = b.dxi,
                            .dyi = b.dyi,
                            .K = T(K),
                            .jj = b.jj,
                            .kk = b.kk});
    b.apply_c(sq::DiffV2<T>{.at = vt.data(),
                            .a = v.data(),
                            .dzi = dzi,
                            .dzhi = dzhi,
                            .rho = rho,
                            .rhoh = rhoh,
                            .dxi = b.dxi,
                            .dyi = b.dyi,
                            .K = T(K),
                            .jj = b.jj,
                            .kk = b.kk});
    b.apply_c(sq::DiffC2<T>{.at = st.data(),
                            .a = s.data(),
                            .dzi = dzi,
                            .dzhi = dzhi,
                            .rho = rho,
                            .rhoh = rhoh,
                            .dxi = b.dxi,
                            .dyi = b.dyi,
                            .K = T(K),
                            .jj = b.jj,
                            .kk = b.kk});
    b.apply_w(sq::DiffW2<T>{.at = wt.data(),
                            .a = w.data(),
                            .dzi = dzi,
                            .dzhi = dzhi,
                            .rho = rho,
                            .rhoh = rhoh,
                            .dxi = b.dxi,
                            .dyi = b.dyi,
                            .K = T(K),
                            .jj = b.jj,
                            .kk = b.kk});
    const double scale = 200 * 0.5; // ~ K * |a| * max dzi^2
    for (int k = b.kstart; k < b.kend; ++k)
        for (int j = b.jstart; j < b.jend; ++j)
            for (int i = b.istart; i < b.iend; ++i) {
                const int n = b.idx(i, j, k);
                ASSERT_NEAR(ut[n], 1 + 6 * K, tol<T>(scale)); // += onto 1
                ASSERT_NEAR(vt[n], 6 * K, tol<T>(scale));
                ASSERT_NEAR(st[n], 6 * K, tol<T>(scale));
                if (k > b.kstart) {
                    ASSERT_NEAR(wt[n], 4 * K, tol<T>(scale));
                }
            }

    const Box<T> bu(0.0, 0.0);
    const auto wu = bu.make([&](int i, int j, int k) {
        return bu.x(i) * bu.x(i) + bu.y(j) * bu.y(j) + bu.zhd[k] * bu.zhd[k];
    });
    auto wtu = bu.field();
    bu.apply_w(sq::DiffW2<T>{.at = wtu.data(),
                             .a = wu.data(),
                             .dzi = bu.dzi.data(),
                             .dzhi = bu.dzhi.data(),
                             .rho = bu.rho.data(),
                             .rhoh = bu.rhoh.data(),
                             .dxi = bu.dxi,
                             .dyi = bu.dyi,
                             .K = T(K),
                             .jj = bu.jj,
                             .kk = bu.kk});
    for (int k = bu.kstart + 1; k < bu.kend; ++k)
        for (int j = bu.jstart; j < bu.jend; ++j)
            for (int i = bu.istart; i < bu.iend; ++i)
                ASSERT_NEAR(wtu[bu.idx(i, j, k)], 6 * K, tol<T>(scale));
}

// The stress divergence differs from the Laplacian by grad(div): for K = nu everywhere
// (evisc = 0), DiffUSmag - DiffU2 = nu d/dx(div) = nu (D[i] - D[i-1]) dxi with D the
// discrete divergence, exactly, for any field (here random, stretched, rho != 1 for u, v;
// rho = 1 for w, whose normal term is not density weighted like the divergence).
TYPED_TEST(DiffSanity, StressDivergenceIsLaplacianPlusGradDiv) {
    using T = TypeParam;
    const double nu = 0.02;
    for (const double rho_scale : {0.7, 0.0}) {
        const Box<T> b(1.5, rho_scale);
        const auto u = b.random(51), v = b.random(52), w = b.random(53), ev = b.field();
        const T *dzi = b.dzi.data(), *dzhi = b.dzhi.data(), *rho = b.rho.data(),
                *rhoh = b.rhoh.data();
        auto us = b.field(), ul = b.field(), vs = b.field(), vl = b.field(), ws = b.field(),
             wl = b.field();
        b.apply_c(sq::DiffUSmag<T>{.tend = us.data(),
                                   .u = u.data(),
                                   .v = v.data(),
                                   .w = w.data(),
                                   .evisc = ev.data(),
                                   .dzi = dzi,
                                   .dzhi = dzhi,
                                   .rho = rho,
                                   .rhoh = rhoh,
                                   .dxi = b.dxi,
                                   .dyi = b.dyi,
                                   .nu = T(nu),
                                   .fluxbot = nullptr,
                                   .fluxtop = nullptr,
                                   .kstart = b.kstart,
                                   .kend = b.kend,
                                   .jj = b.jj,
                                   .kk = b.kk});
        b.apply_c(sq::DiffVSmag<T>{.tend = vs.data(),
                                   .u = u.data(),
                                   .v = v.data(),
                                   .w = w.data(),
                                   .evisc = ev.data(),
                                   .dzi = dzi,
                                   .dzhi = dzhi,
                                   .rho = rho,
                                   .rhoh = rhoh,
                                   .dxi = b.dxi,
                                   .dyi = b.dyi,
                                   .nu = T(nu),
                                   .fluxbot = nullptr,
                                   .fluxtop = nullptr,
                                   .kstart = b.kstart,
                                   .kend = b.kend,
                                   .jj = b.jj,
                                   .kk = b.kk});
        b.apply_w(sq::DiffWSmag<T>{.wt = ws.data(),
                                   .u = u.data(),
                                   .v = v.data(),
                                   .w = w.data(),
                                   .evisc = ev.data(),
                                   .dzi = dzi,
                                   .dzhi = dzhi,
                                   .rho = rho,
                                   .rhoh = rhoh,
                                   .dxi = b.dxi,
                                   .dyi = b.dyi,
                                   .nu = T(nu),
                                   .kstart = b.kstart,
                                   .kend = b.kend,
                                   .jj = b.jj,
                                   .kk = b.kk});
        b.apply_c(sq::DiffU2<T>{.at = ul.data(),
                                .a = u.data(),
                                .dzi = dzi,
                                .dzhi = dzhi,
                                .rho = rho,
                                .rhoh = rhoh,
                                .dxi = b.dxi,
                                .dyi = b.dyi,
                                .K = T(nu),
                                .jj = b.jj,
                                .kk = b.kk});
        b.apply_c(sq::DiffV2<T>{.at = vl.data(),
                                .a = v.data(),
                                .dzi = dzi,
                                .dzhi = dzhi,
                                .rho = rho,
                                .rhoh = rhoh,
                                .dxi = b.dxi,
                                .dyi = b.dyi,
                                .K = T(nu),
                                .jj = b.jj,
                                .kk = b.kk});
        b.apply_w(sq::DiffW2<T>{.at = wl.data(),
                                .a = w.data(),
                                .dzi = dzi,
                                .dzhi = dzhi,
                                .rho = rho,
                                .rhoh = rhoh,
                                .dxi = b.dxi,
                                .dyi = b.dyi,
                                .K = T(nu),
                                .jj = b.jj,
                                .kk = b.kk});
        const sq::Divergence<T> div{.u = u.data(),
                                    .v = v.data(),
                                    .w = w.data(),
                                    .dzi = dzi,
                                    .rho = rho,
                                    .rhoh = rhoh,
                                    .dxi = b.dxi,
                                    .dyi = b.dyi,
                                    .jj = b.jj,
                                    .kk = b.kk};
        const double scale = nu * 4 * 200 * 50;
        for (int k = b.kstart; k < b.kend; ++k)
            for (int j = b.jstart; j < b.jend; ++j)
                for (int i = b.istart; i < b.iend; ++i) {
                    const int n = b.idx(i, j, k);
                    const double d = div(i, j, k);
                    ASSERT_NEAR(us[n] - ul[n], nu * (d - div(i - 1, j, k)) * b.dxi, tol<T>(scale));
                    ASSERT_NEAR(vs[n] - vl[n], nu * (d - div(i, j - 1, k)) * b.dyi, tol<T>(scale));
                    if (rho_scale == 0 && k > b.kstart) {
                        ASSERT_NEAR(ws[n] - wl[n], nu * (d - div(i, j, k - 1)) * b.dzhi[k],
                                    tol<T>(scale));
                    }
                }
    }
}

// With a uniform eddy viscosity E the scalar kernel is the Laplacian with
// K = E / Pr_t + kappa, and the momentum kernels depend only on E + nu.
TYPED_TEST(DiffSanity, UniformEviscReducesToConstantDiffusion) {
    using T = TypeParam;
    const Box<T> b(1.5, 0.7);
    const double E = 0.03, pr_inv = 3.0, kappa = 0.004, nu = 0.01;
    const auto s = b.random(61), u = b.random(62), v = b.random(63), w = b.random(64);
    const auto ev = b.field(T(E)), ev0 = b.field();
    const T *dzi = b.dzi.data(), *dzhi = b.dzhi.data(), *rho = b.rho.data(), *rhoh = b.rhoh.data();
    auto st = b.field(), sl = b.field(), u1 = b.field(), u2 = b.field();
    b.apply_c(sq::DiffCSmag<T>{.st = st.data(),
                               .s = s.data(),
                               .evisc = ev.data(),
                               .dzi = dzi,
                               .dzhi = dzhi,
                               .rho = rho,
                               .rhoh = rhoh,
                               .dxi = b.dxi,
                               .dyi = b.dyi,
                               .prandtl_t_inv = T(pr_inv),
                               .kappa = T(kappa),
                               .fluxbot = nullptr,
                               .fluxtop = nullptr,
                               .kstart = b.kstart,
                               .kend = b.kend,
                               .jj = b.jj,
                               .kk = b.kk});
    b.apply_c(sq::DiffC2<T>{.at = sl.data(),
                            .a = s.data(),
                            .dzi = dzi,
                            .dzhi = dzhi,
                            .rho = rho,
                            .rhoh = rhoh,
                            .dxi = b.dxi,
                            .dyi = b.dyi,
                            .K = T(E * pr_inv + kappa),
                            .jj = b.jj,
                            .kk = b.kk});
    b.apply_c(sq::DiffUSmag<T>{.tend = u1.data(),
                               .u = u.data(),
                               .v = v.data(),
                               .w = w.data(),
                               .evisc = ev.data(),
                               .dzi = dzi,
                               .dzhi = dzhi,
                               .rho = rho,
                               .rhoh = rhoh,
                               .dxi = b.dxi,
                               .dyi = b.dyi,
                               .nu = T(nu),
                               .fluxbot = nullptr,
                               .fluxtop = nullptr,
                               .kstart = b.kstart,
                               .kend = b.kend,
                               .jj = b.jj,
                               .kk = b.kk});
    b.apply_c(sq::DiffUSmag<T>{.tend = u2.data(),
                               .u = u.data(),
                               .v = v.data(),
                               .w = w.data(),
                               .evisc = ev0.data(),
                               .dzi = dzi,
                               .dzhi = dzhi,
                               .rho = rho,
                               .rhoh = rhoh,
                               .dxi = b.dxi,
                               .dyi = b.dyi,
                               .nu = T(E + nu),
                               .fluxbot = nullptr,
                               .fluxtop = nullptr,
                               .kstart = b.kstart,
                               .kend = b.kend,
                               .jj = b.jj,
                               .kk = b.kk});
    for (int k = b.kstart; k < b.kend; ++k)
        for (int j = b.jstart; j < b.jend; ++j)
            for (int i = b.istart; i < b.iend; ++i) {
                const int n = b.idx(i, j, k);
                ASSERT_NEAR(st[n], sl[n], tol<T>(0.1 * 4 * 200 * 10));
                ASSERT_NEAR(u1[n], u2[n], tol<T>(0.04 * 4 * 200 * 10));
            }
}

} // namespace
} // namespace sanity
