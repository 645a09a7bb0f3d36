// Self-checks of the slow references on cases with known answers (hand-computed weights,
// polynomials that 2nd-order differences reproduce exactly, conservation). They make the
// references trustworthy on their own, before they are used to judge kernels/*.cuh.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "ref_numerics.h"

using namespace sqref;

namespace {

RefGrid grid(bool stretched, bool boussinesq) {
    GridSpec s;
    s.stretch = stretched ? 1.5 : 0.0;
    s.jitter = stretched ? 0.15 : 0.0;
    s.boussinesq = boussinesq;
    return make_ref_grid(s);
}

// Field from a function of the staggered coordinates of location loc.
template <class F>
Vec field(const RefGrid& g, Loc loc, F f) {
    Vec a(g.ncells);
    for (int k = 0; k < g.kcells; ++k)
        for (int j = 0; j < g.jcells; ++j)
            for (int i = 0; i < g.icells; ++i) {
                const double x = (i - g.istart + (loc == Loc::U ? 0.0 : 0.5)) * g.dx;
                const double y = (j - g.jstart + (loc == Loc::V ? 0.0 : 0.5)) * g.dy;
                const double z = loc == Loc::W ? g.zh[k] : g.z[k];
                a[g.idx(i, j, k)] = f(x, y, z);
            }
    return a;
}

// Max |a - expected| over the interior with k in [k0, k1).
template <class F>
double max_dev(const RefGrid& g, const Vec& a, int k0, int k1, F expected) {
    double m = 0;
    for (int k = k0; k < k1; ++k)
        for (int j = g.jstart; j < g.jend; ++j)
            for (int i = g.istart; i < g.iend; ++i)
                m = std::max(m, std::fabs(a[g.idx(i, j, k)] - expected(i, j, k)));
    return m;
}

Vec zeros(const RefGrid& g) {
    return Vec(g.ncells, 0.0);
}

} // namespace

TEST(ReferenceGrid, MetricsFollowNumerics) {
    const RefGrid g = grid(true, false);
    EXPECT_EQ(g.icells, 30);
    EXPECT_EQ(g.jcells, 26);
    EXPECT_EQ(g.kcells, 18);
    EXPECT_DOUBLE_EQ(g.zh[g.kstart], 0.0);
    EXPECT_DOUBLE_EQ(g.zh[g.kend], g.zsize);
    double sum = 0;
    for (int k = g.kstart; k < g.kend; ++k) {
        sum += g.dz[k];
        EXPECT_GT(g.z[k], g.zh[k]);
        EXPECT_LT(g.z[k], g.zh[k + 1]);
        if (k > g.kstart) {
            EXPECT_NEAR(g.zh[k], 0.5 * (g.z[k - 1] + g.z[k]), 1e-15);
        }
    }
    EXPECT_NEAR(sum, g.zsize, 1e-14);
    EXPECT_NEAR(g.z[g.kstart - 1], -g.z[g.kstart], 1e-15);
    EXPECT_GT(g.dz[g.kend - 1] / g.dz[g.kstart], 1.5); // really stretched
}

TEST(ReferenceAdvec, ConstantFieldInUniformFlowHasNoTendency) {
    const RefGrid g = grid(true, false);
    const Vec u(g.ncells, 0.7), v(g.ncells, -0.4), w = zeros(g), s(g.ncells, 3.0);
    for (Loc loc : {Loc::U, Loc::V, Loc::S}) {
        const Vec& phi = loc == Loc::U ? u : loc == Loc::V ? v : s;
        for (const Vec& t :
             {ref_advec_2(g, loc, phi, u, v, w), ref_advec_2i5(g, loc, phi, u, v, w)})
            EXPECT_LT(max_dev(g, t, g.kstart, g.kend, [](int, int, int) { return 0.0; }), 1e-13);
    }
}

TEST(ReferenceAdvec, LinearScalarIsAdvectedExactly) {
    const RefGrid g = grid(true, true);
    const double U0 = 0.8, V0 = -0.3, a = 1.7, b = -0.6;
    const Vec u(g.ncells, U0), v(g.ncells, V0), w = zeros(g);
    const Vec s = field(g, Loc::S, [&](double x, double y, double) { return a * x + b * y; });
    auto exact = [&](int, int, int) { return -(U0 * a + V0 * b); };
    EXPECT_LT(max_dev(g, ref_advec_2(g, Loc::S, s, u, v, w), g.kstart, g.kend, exact), 1e-12);
    EXPECT_LT(max_dev(g, ref_advec_2i5(g, Loc::S, s, u, v, w), g.kstart, g.kend, exact), 1e-12);

    // Vertical: on the stretched grid interp2 is exact at zh (faces are midpoints).
    const double W0 = 0.9, c = 2.3;
    const Vec wc(g.ncells, W0), zero = zeros(g);
    const Vec sz = field(g, Loc::S, [&](double, double, double z) { return c * z; });
    EXPECT_LT(max_dev(g, ref_advec_2(g, Loc::S, sz, zero, zero, wc), g.kstart, g.kend,
                      [&](int, int, int) { return -W0 * c; }),
              1e-12);
    // 2i5 on a uniform grid, cells whose two faces both carry a flux.
    const RefGrid gu = grid(false, true);
    const Vec szu = field(gu, Loc::S, [&](double, double, double z) { return c * z; });
    const Vec wu(gu.ncells, W0), zu = zeros(gu);
    EXPECT_LT(max_dev(gu, ref_advec_2i5(gu, Loc::S, szu, zu, zu, wu), gu.kstart + 1, gu.kend - 1,
                      [&](int, int, int) { return -W0 * c; }),
              1e-11);
}

TEST(ReferenceAdvec, FifthOrderUpwindWeightsByHand) {
    // A unit spike advected by uniform U: the classic upwind-5 face weights (2,-13,47,27,-3)/60
    // give these tendencies, in units of U*dxi, for the cells around the spike at p.
    const RefGrid g = grid(false, true);
    const int p = 12, j = 7, k = 5;
    for (double U0 : {1.0, -1.0}) {
        Vec s = zeros(g);
        s[g.idx(p, j, k)] = 1.0;
        const Vec u(g.ncells, U0), z = zeros(g);
        const Vec t = ref_advec_2i5(g, Loc::S, s, u, z, z);
        const double expect[7] = {1.0 / 30, -0.25, 1.0, -1.0 / 3, -0.5, 0.05, 0.0}; // q-p = 3..-3
        for (int off = -3; off <= 3; ++off) {
            const int q = p + (U0 > 0 ? off : -off); // mirror for negative U
            EXPECT_NEAR(t[g.idx(q, j, k)], expect[3 - off] * U0 * g.dxi * (U0 > 0 ? 1 : -1), 1e-13)
                << "offset " << off << " U " << U0;
        }
    }
}

TEST(ReferenceAdvec, NearWallOrderTable) {
    const int ks = 1, ke = 17;
    const int centred[] = {0, 2, 3, 5, 5}; // faces ks .. ks+4
    for (int n = 0; n < 5; ++n) {
        EXPECT_EQ(order_2i5_z(Loc::S, ks + n, ks, ke), centred[n]);
        EXPECT_EQ(order_2i5_z(Loc::S, ke - n, ks, ke), centred[n]);
    }
    // w: faces lie on centres ks.. (face index m = centre + 1): F2, F3, F5 ... mirrored.
    const int stag[] = {2, 3, 5, 5};
    for (int n = 0; n < 4; ++n) {
        EXPECT_EQ(order_2i5_z(Loc::W, ks + 1 + n, ks, ke), stag[n]);
        EXPECT_EQ(order_2i5_z(Loc::W, ke - n, ks, ke), stag[n]);
    }
    // Hand-checked flux at the lowest cell: bottom flux 0, top F2 = W (s0+s1)/2.
    const RefGrid g = grid(false, true);
    Vec s = zeros(g), w(g.ncells, 0.5);
    zero_w_walls(g, w);
    s[g.idx(5, 5, g.kstart + 1)] = 1.0;
    const Vec z = zeros(g);
    const Vec t = ref_advec_2i5(g, Loc::S, s, z, z, w);
    EXPECT_NEAR(t[g.idx(5, 5, g.kstart)], -0.5 * 0.5 * g.dzi[g.kstart], 1e-13);
}

TEST(ReferenceAdvec, ConservesOnPeriodicDomain) {
    const RefGrid g = grid(true, false);
    Vec u = random_field(g, -1, 1, 1), v = random_field(g, -1, 1, 2), w = random_field(g, -1, 1, 3),
        s = random_field(g, -1, 1, 4);
    zero_w_walls(g, w);
    for (Vec* a : {&u, &v, &w, &s}) fill_periodic_xy(g, *a);
    for (Loc loc : {Loc::U, Loc::V, Loc::S}) {
        const Vec& phi = loc == Loc::U ? u : loc == Loc::V ? v : s;
        for (const Vec& t :
             {ref_advec_2(g, loc, phi, u, v, w), ref_advec_2i5(g, loc, phi, u, v, w)}) {
            long double total = 0, scale = 0;
            for (int k = g.kstart; k < g.kend; ++k)
                for (int j = g.jstart; j < g.jend; ++j)
                    for (int i = g.istart; i < g.iend; ++i) {
                        total += (long double)t[g.idx(i, j, k)] * g.rho[k] * g.dz[k];
                        scale += std::fabs(t[g.idx(i, j, k)]) * g.rho[k] * g.dz[k];
                    }
            EXPECT_LT(std::fabs(double(total)), 1e-13 * double(scale));
        }
    }
}

TEST(ReferenceDiff, QuadraticsAreExact) {
    const RefGrid g = grid(true, true);
    const double K = 0.37;
    const Vec x2 = field(g, Loc::S, [](double x, double, double) { return x * x; });
    const Vec y2 = field(g, Loc::S, [](double, double y, double) { return y * y; });
    const Vec z2 = field(g, Loc::S, [](double, double, double z) { return z * z; });
    for (const Vec* a : {&x2, &y2, &z2})
        EXPECT_LT(max_dev(g, ref_diff_const(g, *a, K, false), g.kstart, g.kend,
                          [&](int, int, int) { return 2 * K; }),
                  1e-11);
    const RefGrid gu = grid(false, true);
    const Vec zh2 = field(gu, Loc::W, [](double, double, double z) { return z * z; });
    EXPECT_LT(max_dev(gu, ref_diff_const(gu, zh2, K, true), gu.kstart + 1, gu.kend,
                      [&](int, int, int) { return 2 * K; }),
              1e-11);
}

TEST(ReferenceDiff, SmagorinskyStressDivergenceByHand) {
    const RefGrid g = grid(true, true);
    const double E = 0.21, nu = 0.04, K = E + nu;
    const Vec ev(g.ncells, E), z = zeros(g);
    auto flat = [&](double val) { return [val](int, int, int) { return val; }; };
    // Normal stress carries a factor 2, shear stress not.
    const Vec ux2 = field(g, Loc::U, [](double x, double, double) { return x * x; });
    const Vec uy2 = field(g, Loc::U, [](double, double y, double) { return y * y; });
    const Vec uz2 = field(g, Loc::U, [](double, double, double zz) { return zz * zz; });
    const int ks = g.kstart, ke = g.kend;
    EXPECT_LT(
        max_dev(g, ref_diff_u_smag(g, ux2, z, z, ev, nu, nullptr, nullptr), ks, ke, flat(4 * K)),
        1e-10);
    EXPECT_LT(
        max_dev(g, ref_diff_u_smag(g, uy2, z, z, ev, nu, nullptr, nullptr), ks, ke, flat(2 * K)),
        1e-10);
    EXPECT_LT(
        max_dev(g, ref_diff_u_smag(g, uz2, z, z, ev, nu, nullptr, nullptr), ks, ke, flat(2 * K)),
        1e-10);
    // Cross terms: d/dy(K dv/dx) with v = x y and d/dz(K dw/dx) with w = x z both give K in ut.
    const Vec vxy = field(g, Loc::V, [](double x, double y, double) { return x * y; });
    const Vec wxz = field(g, Loc::W, [](double x, double, double zz) { return x * zz; });
    EXPECT_LT(max_dev(g, ref_diff_u_smag(g, z, vxy, z, ev, nu, nullptr, nullptr), ks, ke, flat(K)),
              1e-10);
    EXPECT_LT(max_dev(g, ref_diff_u_smag(g, z, z, wxz, ev, nu, nullptr, nullptr), ks, ke, flat(K)),
              1e-10);
    // v mirrors u.
    const Vec vy2 = field(g, Loc::V, [](double, double y, double) { return y * y; });
    const Vec uxy = field(g, Loc::U, [](double x, double y, double) { return x * y; });
    EXPECT_LT(
        max_dev(g, ref_diff_v_smag(g, z, vy2, z, ev, nu, nullptr, nullptr), ks, ke, flat(4 * K)),
        1e-10);
    EXPECT_LT(max_dev(g, ref_diff_v_smag(g, uxy, z, z, ev, nu, nullptr, nullptr), ks, ke, flat(K)),
              1e-10);
    // w: normal term 2K d2w/dz2 (uniform grid), cross term d/dx(K du/dz) with u = x z.
    const RefGrid gu = grid(false, true);
    const Vec evu(gu.ncells, E), zu = zeros(gu);
    const Vec wz2 = field(gu, Loc::W, [](double, double, double zz) { return zz * zz; });
    const Vec uxz = field(gu, Loc::U, [](double x, double, double zz) { return x * zz; });
    EXPECT_LT(
        max_dev(gu, ref_diff_w_smag(gu, zu, zu, wz2, evu, nu), gu.kstart + 1, gu.kend, flat(4 * K)),
        1e-10);
    EXPECT_LT(
        max_dev(gu, ref_diff_w_smag(gu, uxz, zu, zu, evu, nu), gu.kstart + 1, gu.kend, flat(K)),
        1e-10);
}

TEST(ReferenceDiff, ScalarWithWallFluxes) {
    const RefGrid g = grid(true, false);
    const double E = 0.3, prt_inv = 3.0, kappa = 0.01, Kh = E * prt_inv + kappa;
    const Vec ev(g.ncells, E);
    const Vec s = field(g, Loc::S, [](double, double, double z) { return z * z; });
    const Vec fb(g.ijcells, 0.25), ft(g.ijcells, -0.125);
    const Vec t = ref_diff_c_smag(g, s, ev, prt_inv, kappa, &fb, &ft);
    const int i = 4, j = 9, ks = g.kstart, ke = g.kend;
    // Interior cell: density-weighted 2nd difference of z^2.
    const int k = 7;
    const double top = g.rhoh[k + 1] * Kh * (g.z[k + 1] + g.z[k]);
    const double bot = g.rhoh[k] * Kh * (g.z[k] + g.z[k - 1]);
    EXPECT_NEAR(t[g.idx(i, j, k)], (top - bot) * g.dzi[k] / g.rho[k], 1e-11);
    // Wall cells: the wall flux (positive up) leaves at the top and enters at the bottom.
    const double top_ks = g.rhoh[ks + 1] * Kh * (g.z[ks + 1] + g.z[ks]);
    EXPECT_NEAR(t[g.idx(i, j, ks)], (top_ks + g.rhoh[ks] * 0.25) * g.dzi[ks] / g.rho[ks], 1e-11);
    const double bot_ke = g.rhoh[ke - 1] * Kh * (g.z[ke - 1] + g.z[ke - 2]);
    EXPECT_NEAR(t[g.idx(i, j, ke - 1)],
                (-g.rhoh[ke] * -0.125 - bot_ke) * g.dzi[ke - 1] / g.rho[ke - 1], 1e-11);
}

TEST(ReferenceStrain, SimpleFlowsByHand) {
    const RefGrid g = grid(true, true);
    const double a = 1.3, b = -0.7;
    const Vec z = zeros(g);
    auto at_all = [&](const Vec& s2, double expect) {
        return max_dev(g, s2, g.kstart, g.kend, [&](int, int, int) { return expect; });
    };
    const Vec uy = field(g, Loc::U, [&](double, double y, double) { return a * y; });
    EXPECT_LT(at_all(ref_strain2(g, uy, z, z, 0.0), a * a), 1e-12); // pure shear: S12 = a/2
    const Vec ux = field(g, Loc::U, [&](double x, double, double) { return a * x; });
    const Vec vy = field(g, Loc::V, [&](double, double y, double) { return -a * y; });
    EXPECT_LT(at_all(ref_strain2(g, ux, vy, z, 0.0), 4 * a * a), 1e-12); // plane strain
    const Vec uz = field(g, Loc::U, [&](double, double, double zz) { return a * zz; });
    const Vec wx = field(g, Loc::W, [&](double x, double, double) { return b * x; });
    EXPECT_LT(at_all(ref_strain2(g, uz, z, wx, 0.0), (a + b) * (a + b)), 1e-12);
    EXPECT_LT(at_all(ref_strain2(g, z, z, z, 1e-9), 1e-9), 1e-20);
}

TEST(ReferenceEvisc, StabilityAndMason) {
    const RefGrid g = grid(true, true);
    const double gamma = 3.0, S2 = 2.0;
    const Vec s2(g.ncells, S2);
    const Vec th = field(g, Loc::S, [&](double, double, double z) { return 300 + gamma * z; });
    EviscParams p;
    const int i = 6, j = 6, k = 4;
    const double l0 = p.cs * std::cbrt(g.dx * g.dy * g.dz[k]);
    EXPECT_NEAR(ref_evisc_smag(g, s2, p)[g.idx(i, j, k)], l0 * l0 * std::sqrt(S2), 1e-15);
    // Linear th: N2 = g/thref gamma exactly; pick g/thref so that Ri/Pr_t = 0.75.
    p.th = &th;
    p.g_over_thref = 0.75 * p.prandtl_t * S2 / gamma;
    EXPECT_NEAR(ref_evisc_smag(g, s2, p)[g.idx(i, j, k)], l0 * l0 * std::sqrt(S2) * 0.5, 1e-14);
    p.g_over_thref *= 10; // very stable: limiter leaves sqrt(eps)
    EXPECT_NEAR(ref_evisc_smag(g, s2, p)[g.idx(i, j, k)], l0 * l0 * std::sqrt(S2 * p.eps), 1e-18);
    p.th = nullptr;
    p.mason = true;
    const double lw = 0.4 * (g.z[k] + p.z0m);
    const double l = 1.0 / std::sqrt(1 / (l0 * l0) + 1 / (lw * lw));
    EXPECT_LT(l, std::min(l0, lw));
    EXPECT_NEAR(ref_evisc_smag(g, s2, p)[g.idx(i, j, k)], l * l * std::sqrt(S2), 1e-15);
}

TEST(ReferenceMisc, DivergenceFreeFieldAndPressureGradient) {
    const RefGrid g = grid(true, false);
    // Discrete streamfunction psi at xy-edges: u = dpsi/dy, v = -dpsi/dx, w = 0.
    const Vec psi = random_field(g, -1, 1, 9);
    Vec u = zeros(g), v = zeros(g), w = zeros(g);
    for (int k = 0; k < g.kcells; ++k)
        for (int j = 0; j + 1 < g.jcells; ++j)
            for (int i = 0; i + 1 < g.icells; ++i) {
                u[g.idx(i, j, k)] = (psi[g.idx(i, j + 1, k)] - psi[g.idx(i, j, k)]) * g.dyi;
                v[g.idx(i, j, k)] = -(psi[g.idx(i + 1, j, k)] - psi[g.idx(i, j, k)]) * g.dxi;
            }
    const Vec div = ref_divergence(g, u, v, w);
    EXPECT_LT(max_dev(g, div, g.kstart, g.kend, [](int, int, int) { return 0.0; }), 1e-11);
    // PresIn with zero tendencies and dtsi = 1 is rho times the divergence.
    const Vec wr = random_field(g, -1, 1, 10), z = zeros(g);
    const Vec rhs = ref_pres_in(g, u, v, wr, z, z, z, 1.0), dv = ref_divergence(g, u, v, wr);
    EXPECT_LT(max_dev(g, rhs, g.kstart, g.kend,
                      [&](int i, int j, int k) { return g.rho[k] * dv[g.idx(i, j, k)]; }),
              1e-12);
    const Vec p =
        field(g, Loc::S, [](double x, double y, double zz) { return 2 * x - y + 3 * zz; });
    const PresGrad pg = ref_pres_out(g, p);
    EXPECT_LT(max_dev(g, pg.ut, g.kstart, g.kend, [](int, int, int) { return -2.0; }), 1e-12);
    EXPECT_LT(max_dev(g, pg.vt, g.kstart, g.kend, [](int, int, int) { return 1.0; }), 1e-12);
    EXPECT_LT(max_dev(g, pg.wt, g.kstart + 1, g.kend, [](int, int, int) { return -3.0; }), 1e-12);
    EXPECT_EQ(pg.wt[g.idx(5, 5, g.kstart)], 0.0);
}
