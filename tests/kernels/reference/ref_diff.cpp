// Diffusion references: strain tensor / stresses / diffusive fluxes at their natural
// staggered points first, then averaged or differenced to the target location.
#include <cmath>
#include <limits>
#include <stdexcept>

#include "ref_numerics.h"

namespace sqref {
namespace {

constexpr double nan_ = std::numeric_limits<double>::quiet_NaN();

R checked(R x) {
    if (std::isnan(double(x))) throw std::logic_error("diffusion reference: undefined value used");
    return x;
}

// Viscous stresses tau_ab = K (d_a u_b + d_b u_a) at their natural points:
// xx, yy, zz at centres; xy at (xh, yh) edges; xz at (xh, zh); yz at (yh, zh).
// Edge K is the mean of the 4 surrounding centres. xz/yz include the face density rhoh.
struct Stresses {
    Vec xx, yy, zz, xy, xz, yz;
};

Stresses stresses(const RefGrid& g, const Vec& u, const Vec& v, const Vec& w, const Vec& evisc,
                  double nu) {
    auto U = [&](int i, int j, int k) { return R(u[g.idx(i, j, k)]); };
    auto V = [&](int i, int j, int k) { return R(v[g.idx(i, j, k)]); };
    auto W = [&](int i, int j, int k) { return R(w[g.idx(i, j, k)]); };
    auto K = [&](int i, int j, int k) { return R(evisc[g.idx(i, j, k)]) + nu; };
    Stresses s{Vec(g.ncells, nan_), Vec(g.ncells, nan_), Vec(g.ncells, nan_),
               Vec(g.ncells, nan_), Vec(g.ncells, nan_), Vec(g.ncells, nan_)};
    for (int k = 1; k < g.kcells; ++k)
        for (int j = 1; j < g.jcells; ++j)
            for (int i = 1; i < g.icells; ++i) {
                const int n = g.idx(i, j, k);
                const R dxi = g.dxi, dyi = g.dyi, dzi = g.dzi[k], dzhi = g.dzhi[k];
                if (i + 1 < g.icells)
                    s.xx[n] = double(2 * K(i, j, k) * (U(i + 1, j, k) - U(i, j, k)) * dxi);
                if (j + 1 < g.jcells)
                    s.yy[n] = double(2 * K(i, j, k) * (V(i, j + 1, k) - V(i, j, k)) * dyi);
                if (k + 1 < g.kcells)
                    s.zz[n] = double(2 * K(i, j, k) * (W(i, j, k + 1) - W(i, j, k)) * dzi);
                const R kxy =
                    (K(i - 1, j - 1, k) + K(i, j - 1, k) + K(i - 1, j, k) + K(i, j, k)) / 4;
                const R kxz =
                    (K(i - 1, j, k - 1) + K(i, j, k - 1) + K(i - 1, j, k) + K(i, j, k)) / 4;
                const R kyz =
                    (K(i, j - 1, k - 1) + K(i, j, k - 1) + K(i, j - 1, k) + K(i, j, k)) / 4;
                s.xy[n] = double(kxy * ((U(i, j, k) - U(i, j - 1, k)) * dyi +
                                        (V(i, j, k) - V(i - 1, j, k)) * dxi));
                s.xz[n] = double(
                    g.rhoh[k] * kxz *
                    ((U(i, j, k) - U(i, j, k - 1)) * dzhi + (W(i, j, k) - W(i - 1, j, k)) * dxi));
                s.yz[n] = double(
                    g.rhoh[k] * kyz *
                    ((V(i, j, k) - V(i, j, k - 1)) * dzhi + (W(i, j, k) - W(i, j - 1, k)) * dyi));
            }
    return s;
}

// Replace the density-weighted vertical wall stress/flux by minus the prescribed turbulent
// flux (positive upward), at the bottom (kstart) and top (kend) faces.
void impose_wall_fluxes(const RefGrid& g, Vec& fz, const Vec* fluxbot, const Vec* fluxtop) {
    for (int j = 0; j < g.jcells; ++j)
        for (int i = 0; i < g.icells; ++i) {
            if (fluxbot)
                fz[g.idx(i, j, g.kstart)] = double(-R(g.rhoh[g.kstart]) * (*fluxbot)[g.idx2(i, j)]);
            if (fluxtop)
                fz[g.idx(i, j, g.kend)] = double(-R(g.rhoh[g.kend]) * (*fluxtop)[g.idx2(i, j)]);
        }
}

// Tendency of a z-centred variable from fluxes fx (at its west face), fy (south), fz
// (bottom, density weighted). xoff/yoff: 1 if the west/south flux of cell i is stored at
// i (face-stored), 0 if it is stored at i-1 (centre-stored stress of a staggered variable).
Vec centred_tendency(const RefGrid& g, const Vec& fx, int xlo, const Vec& fy, int ylo,
                     const Vec& fz) {
    Vec t(g.ncells, 0.0);
    for (int k = g.kstart; k < g.kend; ++k)
        for (int j = g.jstart; j < g.jend; ++j)
            for (int i = g.istart; i < g.iend; ++i) {
                const int n = g.idx(i, j, k);
                const R ddx = (R(fx[g.idx(i + 1 - xlo, j, k)]) - fx[g.idx(i - xlo, j, k)]) * g.dxi;
                const R ddy = (R(fy[g.idx(i, j + 1 - ylo, k)]) - fy[g.idx(i, j - ylo, k)]) * g.dyi;
                const R ddz = (R(fz[g.idx(i, j, k + 1)]) - fz[n]) * g.dzi[k] / g.rho[k];
                t[n] = double(checked(ddx + ddy + ddz));
            }
    return t;
}

} // namespace

Vec ref_strain2(const RefGrid& g, const Vec& u, const Vec& v, const Vec& w, double s2_floor) {
    auto U = [&](int i, int j, int k) { return R(u[g.idx(i, j, k)]); };
    auto V = [&](int i, int j, int k) { return R(v[g.idx(i, j, k)]); };
    auto W = [&](int i, int j, int k) { return R(w[g.idx(i, j, k)]); };
    // Off-diagonal strain components S_ab = (d_a u_b + d_b u_a)/2 on their edges.
    Vec s12(g.ncells, nan_), s13(g.ncells, nan_), s23(g.ncells, nan_);
    for (int k = 1; k < g.kcells; ++k)
        for (int j = 1; j < g.jcells; ++j)
            for (int i = 1; i < g.icells; ++i) {
                const int n = g.idx(i, j, k);
                s12[n] = double(((U(i, j, k) - U(i, j - 1, k)) * g.dyi +
                                 (V(i, j, k) - V(i - 1, j, k)) * g.dxi) /
                                2);
                s13[n] = double(((U(i, j, k) - U(i, j, k - 1)) * g.dzhi[k] +
                                 (W(i, j, k) - W(i - 1, j, k)) * g.dxi) /
                                2);
                s23[n] = double(((V(i, j, k) - V(i, j, k - 1)) * g.dzhi[k] +
                                 (W(i, j, k) - W(i, j - 1, k)) * g.dyi) /
                                2);
            }
    auto sq = [](R x) { return x * x; };
    Vec s2(g.ncells, 0.0);
    for (int k = g.kstart; k < g.kend; ++k)
        for (int j = g.jstart; j < g.jend; ++j)
            for (int i = g.istart; i < g.iend; ++i) {
                const R s11 = (U(i + 1, j, k) - U(i, j, k)) * g.dxi;
                const R s22 = (V(i, j + 1, k) - V(i, j, k)) * g.dyi;
                const R s33 = (W(i, j, k + 1) - W(i, j, k)) * g.dzi[k];
                auto mean4 = [&](const Vec& a, int di, int dj, int dk) {
                    // The 4 edges around the centre, spanning the two directions given by 1s.
                    R sum = 0;
                    for (int p = 0; p < 2; ++p)
                        for (int q = 0; q < 2; ++q) {
                            const int ai = di ? p : 0;
                            const int aj = dj ? (di ? q : p) : 0;
                            const int ak = dk ? q : 0;
                            sum += sq(a[g.idx(i + ai, j + aj, k + ak)]);
                        }
                    return sum / 4;
                };
                // S_ij S_ij: each off-diagonal component appears twice (ab and ba).
                const R sijsij = sq(s11) + sq(s22) + sq(s33) + 2 * mean4(s12, 1, 1, 0) +
                                 2 * mean4(s13, 1, 0, 1) + 2 * mean4(s23, 0, 1, 1);
                s2[g.idx(i, j, k)] = double(checked(2 * sijsij + s2_floor));
            }
    return s2;
}

Vec ref_evisc_smag(const RefGrid& g, const Vec& strain2, const EviscParams& p) {
    Vec ev(g.ncells, 0.0);
    for (int k = g.kstart; k < g.kend; ++k) {
        const R l0 = R(p.cs) * std::cbrt(R(g.dx) * g.dy * g.dz[k]);
        R l = l0;
        if (p.mason) {
            const R lw = R(0.4) * (R(g.z[k]) + p.z0m);
            l = 1 / std::sqrt(1 / (l0 * l0) + 1 / (lw * lw));
        }
        for (int j = g.jstart; j < g.jend; ++j)
            for (int i = g.istart; i < g.iend; ++i) {
                const int n = g.idx(i, j, k);
                const R s2 = strain2[n];
                R n2 = 0;
                if (p.th)
                    n2 = R(p.g_over_thref) *
                         (R((*p.th)[g.idx(i, j, k + 1)]) - (*p.th)[g.idx(i, j, k - 1)]) /
                         (R(g.z[k + 1]) - g.z[k - 1]);
                R ri_pr = n2 / (R(p.prandtl_t) * s2);
                if (ri_pr > 1 - R(p.eps)) ri_pr = 1 - R(p.eps);
                ev[n] = double(l * l * std::sqrt(s2) * std::sqrt(1 - ri_pr));
            }
    }
    return ev;
}

Vec ref_diff_u_smag(const RefGrid& g, const Vec& u, const Vec& v, const Vec& w, const Vec& evisc,
                    double nu, const Vec* fluxbot, const Vec* fluxtop) {
    Stresses s = stresses(g, u, v, w, evisc, nu);
    impose_wall_fluxes(g, s.xz, fluxbot, fluxtop);
    // u-cell i: x-faces are the centres i-1 and i; y-faces are xy-edges j and j+1.
    return centred_tendency(g, s.xx, 1, s.xy, 0, s.xz);
}

Vec ref_diff_v_smag(const RefGrid& g, const Vec& u, const Vec& v, const Vec& w, const Vec& evisc,
                    double nu, const Vec* fluxbot, const Vec* fluxtop) {
    Stresses s = stresses(g, u, v, w, evisc, nu);
    impose_wall_fluxes(g, s.yz, fluxbot, fluxtop);
    return centred_tendency(g, s.xy, 0, s.yy, 1, s.yz);
}

Vec ref_diff_w_smag(const RefGrid& g, const Vec& u, const Vec& v, const Vec& w, const Vec& evisc,
                    double nu) {
    const Stresses s = stresses(g, u, v, w, evisc, nu);
    Vec t(g.ncells, 0.0);
    for (int k = g.kstart + 1; k < g.kend; ++k)
        for (int j = g.jstart; j < g.jend; ++j)
            for (int i = g.istart; i < g.iend; ++i) {
                const int n = g.idx(i, j, k);
                const R ddx = (R(s.xz[g.idx(i + 1, j, k)]) - s.xz[n]) / g.rhoh[k] * g.dxi;
                const R ddy = (R(s.yz[g.idx(i, j + 1, k)]) - s.yz[n]) / g.rhoh[k] * g.dyi;
                // w-cell k spans centres k-1 (bottom face) and k (top face).
                const R ddz = (R(g.rho[k]) * s.zz[n] - R(g.rho[k - 1]) * s.zz[g.idx(i, j, k - 1)]) /
                              g.rhoh[k] * g.dzhi[k];
                t[n] = double(checked(ddx + ddy + ddz));
            }
    return t;
}

Vec ref_diff_c_smag(const RefGrid& g, const Vec& s, const Vec& evisc, double prandtl_t_inv,
                    double kappa, const Vec* fluxbot, const Vec* fluxtop) {
    // Diffusive "stress" K grad s on the west, south and bottom faces (bottom density weighted).
    Vec fx(g.ncells, nan_), fy(g.ncells, nan_), fz(g.ncells, nan_);
    auto S = [&](int n) { return R(s[n]); };
    auto kface = [&](int a, int b) { return (R(evisc[a]) + evisc[b]) / 2 * prandtl_t_inv + kappa; };
    for (int k = 1; k < g.kcells; ++k)
        for (int j = 1; j < g.jcells; ++j)
            for (int i = 1; i < g.icells; ++i) {
                const int n = g.idx(i, j, k), w = g.idx(i - 1, j, k), so = g.idx(i, j - 1, k),
                          b = g.idx(i, j, k - 1);
                fx[n] = double(kface(w, n) * (S(n) - S(w)) * g.dxi);
                fy[n] = double(kface(so, n) * (S(n) - S(so)) * g.dyi);
                fz[n] = double(R(g.rhoh[k]) * kface(b, n) * (S(n) - S(b)) * g.dzhi[k]);
            }
    impose_wall_fluxes(g, fz, fluxbot, fluxtop);
    return centred_tendency(g, fx, 0, fy, 0, fz);
}

Vec ref_diff_const(const RefGrid& g, const Vec& a, double K, bool z_staggered) {
    Vec t(g.ncells, 0.0);
    auto A = [&](int i, int j, int k) { return R(a[g.idx(i, j, k)]); };
    // Gradients on the lower face of cell (i,j,k) along each direction.
    auto gx = [&](int i, int j, int k) { return (A(i, j, k) - A(i - 1, j, k)) * g.dxi; };
    auto gy = [&](int i, int j, int k) { return (A(i, j, k) - A(i, j - 1, k)) * g.dyi; };
    const int k0 = z_staggered ? g.kstart + 1 : g.kstart;
    for (int k = k0; k < g.kend; ++k)
        for (int j = g.jstart; j < g.jend; ++j)
            for (int i = g.istart; i < g.iend; ++i) {
                const R lx = (gx(i + 1, j, k) - gx(i, j, k)) * g.dxi;
                const R ly = (gy(i, j + 1, k) - gy(i, j, k)) * g.dyi;
                R lz;
                if (!z_staggered) {
                    const R top = R(g.rhoh[k + 1]) * (A(i, j, k + 1) - A(i, j, k)) * g.dzhi[k + 1];
                    const R bot = R(g.rhoh[k]) * (A(i, j, k) - A(i, j, k - 1)) * g.dzhi[k];
                    lz = (top - bot) * g.dzi[k] / g.rho[k];
                } else {
                    const R top = R(g.rho[k]) * (A(i, j, k + 1) - A(i, j, k)) * g.dzi[k];
                    const R bot = R(g.rho[k - 1]) * (A(i, j, k) - A(i, j, k - 1)) * g.dzi[k - 1];
                    lz = (top - bot) * g.dzhi[k] / g.rhoh[k];
                }
                t[g.idx(i, j, k)] = double(K * (lx + ly + lz));
            }
    return t;
}

} // namespace sqref
