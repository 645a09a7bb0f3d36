// References for buoyancy, the pressure RHS / gradient, and the reduction diagnostics.
#include <cmath>

#include "ref_numerics.h"

namespace sqref {
namespace {

// Evaluate f(i,j,k) over the interior for k in [k0, kend), zero elsewhere.
template <class F>
Vec over_interior(const RefGrid& g, int k0, F f) {
    Vec out(g.ncells, 0.0);
    for (int k = k0; k < g.kend; ++k)
        for (int j = g.jstart; j < g.jend; ++j)
            for (int i = g.istart; i < g.iend; ++i) out[g.idx(i, j, k)] = double(f(i, j, k));
    return out;
}

} // namespace

Vec ref_buoyancy_th(const RefGrid& g, const Vec& th, double g_over_thref, double thref) {
    return over_interior(g, g.kstart + 1, [&](int i, int j, int k) {
        const R th_at_w = (R(th[g.idx(i, j, k - 1)]) + th[g.idx(i, j, k)]) / 2;
        return R(g_over_thref) * (th_at_w - thref);
    });
}

Vec ref_buoyancy_b(const RefGrid& g, const Vec& b) {
    return over_interior(g, g.kstart + 1, [&](int i, int j, int k) {
        return (R(b[g.idx(i, j, k - 1)]) + b[g.idx(i, j, k)]) / 2;
    });
}

Vec ref_pres_in(const RefGrid& g, const Vec& u, const Vec& v, const Vec& w, const Vec& ut,
                const Vec& vt, const Vec& wt, double dtsi) {
    // Velocity the tendencies would produce over one substep, per unit dts.
    auto star = [&](const Vec& a, const Vec& at, int n) { return R(at[n]) + R(a[n]) * dtsi; };
    return over_interior(g, g.kstart, [&](int i, int j, int k) {
        const int n = g.idx(i, j, k);
        const R dudx = (star(u, ut, g.idx(i + 1, j, k)) - star(u, ut, n)) * g.dxi;
        const R dvdy = (star(v, vt, g.idx(i, j + 1, k)) - star(v, vt, n)) * g.dyi;
        const R dwdz =
            (R(g.rhoh[k + 1]) * star(w, wt, g.idx(i, j, k + 1)) - R(g.rhoh[k]) * star(w, wt, n)) *
            g.dzi[k];
        return R(g.rho[k]) * (dudx + dvdy) + dwdz;
    });
}

PresGrad ref_pres_out(const RefGrid& g, const Vec& p) {
    auto P = [&](int i, int j, int k) { return R(p[g.idx(i, j, k)]); };
    PresGrad r;
    r.ut = over_interior(
        g, g.kstart, [&](int i, int j, int k) { return -(P(i, j, k) - P(i - 1, j, k)) * g.dxi; });
    r.vt = over_interior(
        g, g.kstart, [&](int i, int j, int k) { return -(P(i, j, k) - P(i, j - 1, k)) * g.dyi; });
    r.wt = over_interior(g, g.kstart + 1, [&](int i, int j, int k) {
        return -(P(i, j, k) - P(i, j, k - 1)) * g.dzhi[k];
    });
    return r;
}

Vec ref_divergence(const RefGrid& g, const Vec& u, const Vec& v, const Vec& w) {
    return over_interior(g, g.kstart, [&](int i, int j, int k) {
        const R mass_x = R(g.rho[k]) * (R(u[g.idx(i + 1, j, k)]) - u[g.idx(i, j, k)]) * g.dxi;
        const R mass_y = R(g.rho[k]) * (R(v[g.idx(i, j + 1, k)]) - v[g.idx(i, j, k)]) * g.dyi;
        const R mass_z =
            (R(g.rhoh[k + 1]) * w[g.idx(i, j, k + 1)] - R(g.rhoh[k]) * w[g.idx(i, j, k)]) *
            g.dzi[k];
        return (mass_x + mass_y + mass_z) / g.rho[k];
    });
}

Vec ref_cfl(const RefGrid& g, const Vec& u, const Vec& v, const Vec& w) {
    return over_interior(g, g.kstart, [&](int i, int j, int k) {
        const R uc = (R(u[g.idx(i, j, k)]) + u[g.idx(i + 1, j, k)]) / 2;
        const R vc = (R(v[g.idx(i, j, k)]) + v[g.idx(i, j + 1, k)]) / 2;
        const R wc = (R(w[g.idx(i, j, k)]) + w[g.idx(i, j, k + 1)]) / 2;
        return std::fabs(uc) * g.dxi + std::fabs(vc) * g.dyi + std::fabs(wc) * g.dzi[k];
    });
}

Vec ref_dn_smag(const RefGrid& g, const Vec& evisc, double prandtl_t) {
    const R pr_min = prandtl_t < 1.0 ? prandtl_t : 1.0;
    return over_interior(g, g.kstart, [&](int i, int j, int k) {
        const R dsum = R(g.dxi) * g.dxi + R(g.dyi) * g.dyi + R(g.dzi[k]) * g.dzi[k];
        return R(evisc[g.idx(i, j, k)]) / pr_min * dsum;
    });
}

Vec ref_dn_const(const RefGrid& g, double K) {
    return over_interior(g, g.kstart, [&](int, int, int k) {
        return R(K) * (R(g.dxi) * g.dxi + R(g.dyi) * g.dyi + R(g.dzi[k]) * g.dzi[k]);
    });
}

} // namespace sqref
