// Analytic properties of the advection kernels (kernels/advec.cuh), part 2: the flux form's
// conservation (the density-weighted column integrals and the level sums of every tendency)
// and 2i5's stencils staying off the vertical ghost levels.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kernels/advec.cuh"
#include "sanity_advec_support.h"
#include "sanity_box.h"

namespace sanity {
namespace {

// Conservation: with horizontally uniform u, v (no horizontal flux divergence) and random
// w, s, the density-weighted column integral of the tendency of centred variables vanishes
// (every face has one flux; the wall faces have none). For w the boundary fluxes at the
// centres kstart and kend-1 remain: (w/2)^2 weighted by rho.
TYPED_TEST(AdvecSanity, VerticalFluxFormIsConservative) {
    using T = TypeParam;
    const Box<T> b(1.5, 0.7);
    const auto uz = b.random(31), vz = b.random(32);
    const auto u = b.make([&](int, int, int k) { return uz[b.idx(0, 0, k)]; });
    const auto v = b.make([&](int, int, int k) { return vz[b.idx(0, 0, k)]; });
    auto w = b.random(33);
    b.zero_w_walls(w);
    const auto s = b.random(34);
    auto st2 = b.field(), st5 = b.field(), ut2 = b.field(), ut5 = b.field(), vt2 = b.field(),
         vt5 = b.field(), wt2 = b.field(), wt5 = b.field();
    const T *dzi = b.dzi.data(), *dzhi = b.dzhi.data(), *rho = b.rho.data(), *rhoh = b.rhoh.data();
    // s varies horizontally: advect it with w only.
    const auto zero = b.field();
    b.apply_c(sq::AdvecS2<T>{.st = st2.data(),
                             .s = s.data(),
                             .u = zero.data(),
                             .v = zero.data(),
                             .w = w.data(),
                             .dzi = dzi,
                             .rho = rho,
                             .rhoh = rhoh,
                             .dxi = b.dxi,
                             .dyi = b.dyi,
                             .jj = b.jj,
                             .kk = b.kk});
    b.apply_c(sq::AdvecS2i5<T>{.st = st5.data(),
                               .s = s.data(),
                               .u = zero.data(),
                               .v = zero.data(),
                               .w = w.data(),
                               .dzi = dzi,
                               .rho = rho,
                               .rhoh = rhoh,
                               .dxi = b.dxi,
                               .dyi = b.dyi,
                               .jj = b.jj,
                               .kk = b.kk,
                               .kstart = b.kstart,
                               .kend = b.kend});
    b.apply_c(sq::AdvecU2<T>{.tend = ut2.data(),
                             .u = u.data(),
                             .v = v.data(),
                             .w = w.data(),
                             .dzi = dzi,
                             .dzhi = dzhi,
                             .rho = rho,
                             .rhoh = rhoh,
                             .dxi = b.dxi,
                             .dyi = b.dyi,
                             .jj = b.jj,
                             .kk = b.kk});
    b.apply_c(sq::AdvecU2i5<T>{.tend = ut5.data(),
                               .u = u.data(),
                               .v = v.data(),
                               .w = w.data(),
                               .dzi = dzi,
                               .dzhi = dzhi,
                               .rho = rho,
                               .rhoh = rhoh,
                               .dxi = b.dxi,
                               .dyi = b.dyi,
                               .jj = b.jj,
                               .kk = b.kk,
                               .kstart = b.kstart,
                               .kend = b.kend});
    b.apply_c(sq::AdvecV2<T>{.tend = vt2.data(),
                             .u = u.data(),
                             .v = v.data(),
                             .w = w.data(),
                             .dzi = dzi,
                             .dzhi = dzhi,
                             .rho = rho,
                             .rhoh = rhoh,
                             .dxi = b.dxi,
                             .dyi = b.dyi,
                             .jj = b.jj,
                             .kk = b.kk});
    b.apply_c(sq::AdvecV2i5<T>{.tend = vt5.data(),
                               .u = u.data(),
                               .v = v.data(),
                               .w = w.data(),
                               .dzi = dzi,
                               .dzhi = dzhi,
                               .rho = rho,
                               .rhoh = rhoh,
                               .dxi = b.dxi,
                               .dyi = b.dyi,
                               .jj = b.jj,
                               .kk = b.kk,
                               .kstart = b.kstart,
                               .kend = b.kend});
    // w advecting itself must be horizontally uniform for its horizontal terms to vanish.
    auto wz = b.make([&](int, int, int k) { return w[b.idx(0, 0, k)]; });
    b.apply_w(sq::AdvecW2<T>{.tend = wt2.data(),
                             .u = u.data(),
                             .v = v.data(),
                             .w = wz.data(),
                             .dzi = dzi,
                             .dzhi = dzhi,
                             .rho = rho,
                             .rhoh = rhoh,
                             .dxi = b.dxi,
                             .dyi = b.dyi,
                             .jj = b.jj,
                             .kk = b.kk});
    b.apply_w(sq::AdvecW2i5<T>{.tend = wt5.data(),
                               .u = u.data(),
                               .v = v.data(),
                               .w = wz.data(),
                               .dzi = dzi,
                               .dzhi = dzhi,
                               .rho = rho,
                               .rhoh = rhoh,
                               .dxi = b.dxi,
                               .dyi = b.dyi,
                               .jj = b.jj,
                               .kk = b.kk,
                               .kstart = b.kstart,
                               .kend = b.kend});
    for (int j = b.jstart; j < b.jend; ++j)
        for (int i = b.istart; i < b.iend; ++i) {
            double sum[6] = {0, 0, 0, 0, 0, 0}, sumw[2] = {0, 0};
            for (int k = b.kstart; k < b.kend; ++k) {
                const int n = b.idx(i, j, k);
                const double m = double(b.rho[k]) * double(b.dz[k]);
                sum[0] += m * st2[n], sum[1] += m * st5[n], sum[2] += m * ut2[n];
                sum[3] += m * ut5[n], sum[4] += m * vt2[n], sum[5] += m * vt5[n];
                if (k > b.kstart) {
                    const double mh = double(b.rhoh[k]) / double(b.dzhi[k]);
                    sumw[0] += mh * wt2[n], sumw[1] += mh * wt5[n];
                }
            }
            for (int m = 0; m < 6; ++m) ASSERT_NEAR(sum[m], 0, tol<T>(10)) << "kernel " << m;
            const double wb = 0.5 * wz[b.idx(i, j, b.kstart + 1)];
            const double wtop = 0.5 * wz[b.idx(i, j, b.kend - 1)];
            const double expect_w = -(b.rho[b.kend - 1] * wtop * wtop - b.rho[b.kstart] * wb * wb);
            ASSERT_NEAR(sumw[0], expect_w, tol<T>(10));
            ASSERT_NEAR(sumw[1], expect_w, tol<T>(10));
        }
}

// Conservation horizontally: doubly periodic random fields, w = 0: the sum over each level
// of every tendency is zero.
TYPED_TEST(AdvecSanity, HorizontalFluxFormIsConservative) {
    using T = TypeParam;
    const Box<T> b(1.5, 0.7);
    auto u = b.random(41), v = b.random(42), s = b.random(43), wv = b.random(44);
    for (auto* a : {&u, &v, &s, &wv}) b.periodic(*a);
    const auto w0 = b.field();
    const T *dzi = b.dzi.data(), *dzhi = b.dzhi.data(), *rho = b.rho.data(), *rhoh = b.rhoh.data();
    std::vector<std::vector<T>> t(8, b.field());
    b.apply_c(sq::AdvecS2<T>{.st = t[0].data(),
                             .s = s.data(),
                             .u = u.data(),
                             .v = v.data(),
                             .w = w0.data(),
                             .dzi = dzi,
                             .rho = rho,
                             .rhoh = rhoh,
                             .dxi = b.dxi,
                             .dyi = b.dyi,
                             .jj = b.jj,
                             .kk = b.kk});
    b.apply_c(sq::AdvecS2i5<T>{.st = t[1].data(),
                               .s = s.data(),
                               .u = u.data(),
                               .v = v.data(),
                               .w = w0.data(),
                               .dzi = dzi,
                               .rho = rho,
                               .rhoh = rhoh,
                               .dxi = b.dxi,
                               .dyi = b.dyi,
                               .jj = b.jj,
                               .kk = b.kk,
                               .kstart = b.kstart,
                               .kend = b.kend});
    b.apply_c(sq::AdvecU2<T>{.tend = t[2].data(),
                             .u = u.data(),
                             .v = v.data(),
                             .w = w0.data(),
                             .dzi = dzi,
                             .dzhi = dzhi,
                             .rho = rho,
                             .rhoh = rhoh,
                             .dxi = b.dxi,
                             .dyi = b.dyi,
                             .jj = b.jj,
                             .kk = b.kk});
    b.apply_c(sq::AdvecU2i5<T>{.tend = t[3].data(),
                               .u = u.data(),
                               .v = v.data(),
                               .w = w0.data(),
                               .dzi = dzi,
                               .dzhi = dzhi,
                               .rho = rho,
                               .rhoh = rhoh,
                               .dxi = b.dxi,
                               .dyi = b.dyi,
                               .jj = b.jj,
                               .kk = b.kk,
                               .kstart = b.kstart,
                               .kend = b.kend});
    b.apply_c(sq::AdvecV2<T>{.tend = t[4].data(),
                             .u = u.data(),
                             .v = v.data(),
                             .w = w0.data(),
                             .dzi = dzi,
                             .dzhi = dzhi,
                             .rho = rho,
                             .rhoh = rhoh,
                             .dxi = b.dxi,
                             .dyi = b.dyi,
                             .jj = b.jj,
                             .kk = b.kk});
    b.apply_c(sq::AdvecV2i5<T>{.tend = t[5].data(),
                               .u = u.data(),
                               .v = v.data(),
                               .w = w0.data(),
                               .dzi = dzi,
                               .dzhi = dzhi,
                               .rho = rho,
                               .rhoh = rhoh,
                               .dxi = b.dxi,
                               .dyi = b.dyi,
                               .jj = b.jj,
                               .kk = b.kk,
                               .kstart = b.kstart,
                               .kend = b.kend});
    // w: subtract the vertical part (the same kernel with u = v = 0) to keep the horizontal one.
    b.apply_w(sq::AdvecW2<T>{.tend = t[6].data(),
                             .u = u.data(),
                             .v = v.data(),
                             .w = wv.data(),
                             .dzi = dzi,
                             .dzhi = dzhi,
                             .rho = rho,
                             .rhoh = rhoh,
                             .dxi = b.dxi,
                             .dyi = b.dyi,
                             .jj = b.jj,
                             .kk = b.kk});
    b.apply_w(sq::AdvecW2i5<T>{.tend = t[7].data(),
                               .u = u.data(),
                               .v = v.data(),
                               .w = wv.data(),
                               .dzi = dzi,
                               .dzhi = dzhi,
                               .rho = rho,
                               .rhoh = rhoh,
                               .dxi = b.dxi,
                               .dyi = b.dyi,
                               .jj = b.jj,
                               .kk = b.kk,
                               .kstart = b.kstart,
                               .kend = b.kend});
    auto wz2 = b.field(), wz5 = b.field();
    b.apply_w(sq::AdvecW2<T>{.tend = wz2.data(),
                             .u = w0.data(),
                             .v = w0.data(),
                             .w = wv.data(),
                             .dzi = dzi,
                             .dzhi = dzhi,
                             .rho = rho,
                             .rhoh = rhoh,
                             .dxi = b.dxi,
                             .dyi = b.dyi,
                             .jj = b.jj,
                             .kk = b.kk});
    b.apply_w(sq::AdvecW2i5<T>{.tend = wz5.data(),
                               .u = w0.data(),
                               .v = w0.data(),
                               .w = wv.data(),
                               .dzi = dzi,
                               .dzhi = dzhi,
                               .rho = rho,
                               .rhoh = rhoh,
                               .dxi = b.dxi,
                               .dyi = b.dyi,
                               .jj = b.jj,
                               .kk = b.kk,
                               .kstart = b.kstart,
                               .kend = b.kend});
    for (int n = 0; n < b.ncells; ++n) t[6][n] -= wz2[n], t[7][n] -= wz5[n];
    for (int k = b.kstart; k < b.kend; ++k)
        for (int m = 0; m < 8; ++m) {
            if (m >= 6 && k == b.kstart) continue;
            double sum = 0, mag = 0;
            for (int j = b.jstart; j < b.jend; ++j)
                for (int i = b.istart; i < b.iend; ++i) {
                    sum += t[m][b.idx(i, j, k)];
                    mag += std::abs(double(t[m][b.idx(i, j, k)]));
                }
            ASSERT_GT(mag, 1.0) << "kernel " << m << " produced no horizontal tendency";
            ASSERT_NEAR(sum, 0, tol<T>(mag)) << "kernel " << m << " k=" << k;
        }
}

// 2i5 keeps every vertical stencil inside the interior: with NaN in the vertical ghost levels
// (of the advected fields; w is 0 on the walls) all tendencies stay finite.
TYPED_TEST(AdvecSanity, Scheme2i5ReadsNoVerticalGhostLevels) {
    using T = TypeParam;
    const Box<T> b(1.5, 0.7);
    auto u = b.random(101), v = b.random(102), w = b.random(103), s = b.random(104);
    b.zero_w_walls(w);
    const T nan = std::numeric_limits<T>::quiet_NaN();
    for (int j = 0; j < b.jcells; ++j)
        for (int i = 0; i < b.icells; ++i) {
            for (auto* a : {&u, &v, &s}) {
                (*a)[b.idx(i, j, b.kstart - 1)] = nan;
                (*a)[b.idx(i, j, b.kend)] = nan;
            }
            w[b.idx(i, j, b.kstart - 1)] = nan;
        }
    const T *dzi = b.dzi.data(), *dzhi = b.dzhi.data(), *rho = b.rho.data(), *rhoh = b.rhoh.data();
    auto st = b.field(), ut = b.field(), vt = b.field(), wt = b.field();
    b.apply_c(sq::AdvecS2i5<T>{.st = st.data(),
                               .s = s.data(),
                               .u = u.data(),
                               .v = v.data(),
                               .w = w.data(),
                               .dzi = dzi,
                               .rho = rho,
                               .rhoh = rhoh,
                               .dxi = b.dxi,
                               .dyi = b.dyi,
                               .jj = b.jj,
                               .kk = b.kk,
                               .kstart = b.kstart,
                               .kend = b.kend});
    b.apply_c(sq::AdvecU2i5<T>{.tend = ut.data(),
                               .u = u.data(),
                               .v = v.data(),
                               .w = w.data(),
                               .dzi = dzi,
                               .dzhi = dzhi,
                               .rho = rho,
                               .rhoh = rhoh,
                               .dxi = b.dxi,
                               .dyi = b.dyi,
                               .jj = b.jj,
                               .kk = b.kk,
                               .kstart = b.kstart,
                               .kend = b.kend});
    b.apply_c(sq::AdvecV2i5<T>{.tend = vt.data(),
                               .u = u.data(),
                               .v = v.data(),
                               .w = w.data(),
                               .dzi = dzi,
                               .dzhi = dzhi,
                               .rho = rho,
                               .rhoh = rhoh,
                               .dxi = b.dxi,
                               .dyi = b.dyi,
                               .jj = b.jj,
                               .kk = b.kk,
                               .kstart = b.kstart,
                               .kend = b.kend});
    b.apply_w(sq::AdvecW2i5<T>{.tend = wt.data(),
                               .u = u.data(),
                               .v = v.data(),
                               .w = w.data(),
                               .dzi = dzi,
                               .dzhi = dzhi,
                               .rho = rho,
                               .rhoh = rhoh,
                               .dxi = b.dxi,
                               .dyi = b.dyi,
                               .jj = b.jj,
                               .kk = b.kk,
                               .kstart = b.kstart,
                               .kend = b.kend});
    for (int k = b.kstart; k < b.kend; ++k)
        for (int j = b.jstart; j < b.jend; ++j)
            for (int i = b.istart; i < b.iend; ++i) {
                const int n = b.idx(i, j, k);
                ASSERT_TRUE(std::isfinite(st[n]) && std::isfinite(ut[n]) && std::isfinite(vt[n]) &&
                            std::isfinite(wt[n]))
                    << i << " " << j << " " << k;
            }
}

} // namespace
} // namespace sanity
