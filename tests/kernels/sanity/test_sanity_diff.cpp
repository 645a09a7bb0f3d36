// Analytic properties of the diffusion kernels (kernels/diff.cuh).
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/diff.cuh"
#include "kernels/pressure.cuh"
#include "sanity_box.h"

namespace {

using sanity::Box;
using sanity::tol;

template <typename T>
class DiffSanity : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(DiffSanity, Precisions);

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
        b.apply_c(sq::DiffUSmag<T>{.ut = us.data(),
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
        b.apply_c(sq::DiffVSmag<T>{.vt = vs.data(),
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
    b.apply_c(sq::DiffUSmag<T>{.ut = u1.data(),
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
    b.apply_c(sq::DiffUSmag<T>{.ut = u2.data(),
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

// Full 3-D budget with random, doubly periodic fields and random evisc: horizontal faces and
// interior vertical faces telescope (each face/edge diffusivity is the same from both sides),
// so the density-weighted domain sum is the wall fluxes only.
TYPED_TEST(DiffSanity, SmagorinskyDomainBudget) {
    using T = TypeParam;
    const Box<T> b(1.5, 0.7);
    auto u = b.random(111), v = b.random(112), w = b.random(113), s = b.random(114);
    auto ev = b.random(115, 0.0, 0.05);
    b.zero_w_walls(w);
    for (auto* a : {&u, &v, &w, &s, &ev}) b.periodic(*a);
    std::vector<T> fbot(b.icells * b.jcells), ftop(b.icells * b.jcells);
    for (size_t n = 0; n < fbot.size(); ++n) {
        fbot[n] = T(0.01 * double(n % 7) - 0.02);
        ftop[n] = T(0.005 * double(n % 5) + 0.001);
    }
    const T nu = T(0.01);
    const T *dzi = b.dzi.data(), *dzhi = b.dzhi.data(), *rho = b.rho.data(), *rhoh = b.rhoh.data();
    auto ut = b.field(), vt = b.field(), wt = b.field(), st = b.field();
    b.apply_c(sq::DiffUSmag<T>{.ut = ut.data(),
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
                               .nu = nu,
                               .fluxbot = fbot.data(),
                               .fluxtop = ftop.data(),
                               .kstart = b.kstart,
                               .kend = b.kend,
                               .jj = b.jj,
                               .kk = b.kk});
    b.apply_c(sq::DiffVSmag<T>{.vt = vt.data(),
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
                               .nu = nu,
                               .fluxbot = fbot.data(),
                               .fluxtop = ftop.data(),
                               .kstart = b.kstart,
                               .kend = b.kend,
                               .jj = b.jj,
                               .kk = b.kk});
    b.apply_w(sq::DiffWSmag<T>{.wt = wt.data(),
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
                               .nu = nu,
                               .kstart = b.kstart,
                               .kend = b.kend,
                               .jj = b.jj,
                               .kk = b.kk});
    b.apply_c(sq::DiffCSmag<T>{.st = st.data(),
                               .s = s.data(),
                               .evisc = ev.data(),
                               .dzi = dzi,
                               .dzhi = dzhi,
                               .rho = rho,
                               .rhoh = rhoh,
                               .dxi = b.dxi,
                               .dyi = b.dyi,
                               .prandtl_t_inv = T(3),
                               .kappa = T(0.001),
                               .fluxbot = fbot.data(),
                               .fluxtop = ftop.data(),
                               .kstart = b.kstart,
                               .kend = b.kend,
                               .jj = b.jj,
                               .kk = b.kk});
    double su = 0, sv = 0, sw = 0, ss = 0, expect = 0, expect_w = 0, mag = 0;
    for (int j = b.jstart; j < b.jend; ++j)
        for (int i = b.istart; i < b.iend; ++i) {
            const int ij = i + j * b.jj;
            expect += double(b.rhoh[b.kstart]) * fbot[ij] - double(b.rhoh[b.kend]) * ftop[ij];
            // w: the normal stress through the centres kstart and kend-1 stays (w = 0 on walls).
            const int nb = b.idx(i, j, b.kstart), nt = b.idx(i, j, b.kend - 1);
            expect_w +=
                -2 * double(b.rho[b.kend - 1]) * (ev[nt] + nu) * w[nt] * b.dzi[b.kend - 1] -
                2 * double(b.rho[b.kstart]) * (ev[nb] + nu) * w[nb + b.kk] * b.dzi[b.kstart];
            for (int k = b.kstart; k < b.kend; ++k) {
                const int n = b.idx(i, j, k);
                const double m = double(b.rho[k]) * double(b.dz[k]);
                su += m * ut[n], sv += m * vt[n], ss += m * st[n];
                mag += std::abs(m * ut[n]);
                if (k > b.kstart) sw += double(b.rhoh[k]) / double(b.dzhi[k]) * wt[n];
            }
        }
    ASSERT_GT(mag, 1.0);
    EXPECT_NEAR(su, expect, tol<T>(mag));
    EXPECT_NEAR(sv, expect, tol<T>(mag));
    EXPECT_NEAR(ss, expect, tol<T>(mag));
    EXPECT_NEAR(sw, expect_w, tol<T>(mag));
}

// Prescribed wall fluxes: for a horizontally uniform u(z), v(z), s(z) (random) and random
// evisc the tendency is a pure vertical flux divergence, so its density-weighted column
// integral equals rhoh[kstart] fluxbot - rhoh[kend] fluxtop.
TYPED_TEST(DiffSanity, WallFluxesEnterTheColumnBudget) {
    using T = TypeParam;
    const Box<T> b(1.5, 0.7);
    const auto pz = b.random(71);
    const auto prof = b.make([&](int, int, int k) { return pz[b.idx(0, 0, k)]; });
    const auto zero = b.field(), ev = b.random(72, 0.0, 0.1);
    std::vector<T> fbot(b.icells * b.jcells), ftop(b.icells * b.jcells);
    for (size_t n = 0; n < fbot.size(); ++n) {
        fbot[n] = T(0.01 * double(n % 7) - 0.02);
        ftop[n] = T(0.005 * double(n % 5) + 0.001);
    }
    const T *dzi = b.dzi.data(), *dzhi = b.dzhi.data(), *rho = b.rho.data(), *rhoh = b.rhoh.data();
    auto ut = b.field(), vt = b.field(), st = b.field();
    b.apply_c(sq::DiffUSmag<T>{.ut = ut.data(),
                               .u = prof.data(),
                               .v = zero.data(),
                               .w = zero.data(),
                               .evisc = ev.data(),
                               .dzi = dzi,
                               .dzhi = dzhi,
                               .rho = rho,
                               .rhoh = rhoh,
                               .dxi = b.dxi,
                               .dyi = b.dyi,
                               .nu = T(0.01),
                               .fluxbot = fbot.data(),
                               .fluxtop = ftop.data(),
                               .kstart = b.kstart,
                               .kend = b.kend,
                               .jj = b.jj,
                               .kk = b.kk});
    b.apply_c(sq::DiffVSmag<T>{.vt = vt.data(),
                               .u = zero.data(),
                               .v = prof.data(),
                               .w = zero.data(),
                               .evisc = ev.data(),
                               .dzi = dzi,
                               .dzhi = dzhi,
                               .rho = rho,
                               .rhoh = rhoh,
                               .dxi = b.dxi,
                               .dyi = b.dyi,
                               .nu = T(0.01),
                               .fluxbot = fbot.data(),
                               .fluxtop = ftop.data(),
                               .kstart = b.kstart,
                               .kend = b.kend,
                               .jj = b.jj,
                               .kk = b.kk});
    b.apply_c(sq::DiffCSmag<T>{.st = st.data(),
                               .s = prof.data(),
                               .evisc = ev.data(),
                               .dzi = dzi,
                               .dzhi = dzhi,
                               .rho = rho,
                               .rhoh = rhoh,
                               .dxi = b.dxi,
                               .dyi = b.dyi,
                               .prandtl_t_inv = T(3),
                               .kappa = T(0.001),
                               .fluxbot = fbot.data(),
                               .fluxtop = ftop.data(),
                               .kstart = b.kstart,
                               .kend = b.kend,
                               .jj = b.jj,
                               .kk = b.kk});
    for (int j = b.jstart; j < b.jend; ++j)
        for (int i = b.istart; i < b.iend; ++i) {
            double su = 0, sv = 0, ss = 0;
            for (int k = b.kstart; k < b.kend; ++k) {
                const double m = double(b.rho[k]) * double(b.dz[k]);
                const int n = b.idx(i, j, k);
                su += m * ut[n], sv += m * vt[n], ss += m * st[n];
            }
            const int ij = i + j * b.jj;
            const double expect =
                double(b.rhoh[b.kstart]) * fbot[ij] - double(b.rhoh[b.kend]) * ftop[ij];
            ASSERT_NEAR(su, expect, tol<T>(1));
            ASSERT_NEAR(sv, expect, tol<T>(1));
            ASSERT_NEAR(ss, expect, tol<T>(1));
        }
}

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
