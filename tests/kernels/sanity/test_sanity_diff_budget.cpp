// Analytic properties of the diffusion kernels (kernels/diff.cuh), part 2: the budgets. The
// Smagorinsky kernels' density-weighted domain sum is the wall fluxes only, and prescribed
// wall fluxes enter the column budget.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernels/diff.cuh"
#include "sanity_box.h"
#include "sanity_diff_support.h"

namespace sanity {
namespace {

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
    b.apply_c(sq::DiffUSmag<T>{.tend = ut.data(),
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
    b.apply_c(sq::DiffVSmag<T>{.tend = vt.data(),
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
    b.apply_c(sq::DiffUSmag<T>{.tend = ut.data(),
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
    b.apply_c(sq::DiffVSmag<T>{.tend = vt.data(),
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

} // namespace
} // namespace sanity
