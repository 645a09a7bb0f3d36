// Advection references: explicit face fluxes in three arrays, then flux differences.
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "ref_numerics.h"

namespace sqref {
namespace {

constexpr double nan_ = std::numeric_limits<double>::quiet_NaN();

// Staggering of a location per direction (1: on the face of that direction).
std::array<int, 3> stagger(Loc loc) {
    switch (loc) {
    case Loc::U:
        return {1, 0, 0};
    case Loc::V:
        return {0, 1, 0};
    case Loc::W:
        return {0, 0, 1};
    default:
        return {0, 0, 0};
    }
}

// Upwind flux through a face with advecting velocity U; p[0..5] = phi[m-3 .. m+2] for the
// face between phi[m-1] (p[2]) and phi[m] (p[3]). Written out as weights from docs/numerics.md.
R face_flux(int order, R U, const std::array<R, 6>& p) {
    const R aU = U < 0 ? -U : U;
    switch (order) {
    case 0:
        return 0;
    case 2:
        return U * (p[2] + p[3]) / 2;
    case 3: {
        const R central = (7 * (p[2] + p[3]) - (p[1] + p[4])) / 12;
        const R diss = (3 * (p[3] - p[2]) - (p[4] - p[1])) / 12;
        return U * central - aU * diss;
    }
    case 5: {
        const R central = (37 * (p[2] + p[3]) - 8 * (p[1] + p[4]) + (p[0] + p[5])) / 60;
        const R diss = (10 * (p[3] - p[2]) - 5 * (p[4] - p[1]) + (p[5] - p[0])) / 60;
        return U * central - aU * diss;
    }
    }
    throw std::logic_error("face_flux: unknown order");
}

struct Fluxes {
    Vec fx, fy, fz; // flux through the face between phi[m-1] and phi[m], stored at m
};

// Face fluxes of phi for the cells of location loc. orders[d](m) gives the order of the
// face at index m along direction d.
Fluxes face_fluxes(const RefGrid& g, Loc loc, const Vec& phi, const Vec& u, const Vec& v,
                   const Vec& w, const std::array<std::function<int(int)>, 3>& orders) {
    const auto st = stagger(loc);
    const std::array<const Vec*, 3> vel = {&u, &v, &w};
    const std::array<int, 3> stride = {1, g.icells, g.ijcells};
    const std::array<int, 3> ncell = {g.icells, g.jcells, g.kcells};
    auto at = [&](const Vec& a, int n) { return R(a[n]); };

    // Advecting velocity normal to direction d at the face below index (i,j,k) along d.
    auto face_velocity = [&](int d, int n) -> R {
        const Vec& vd = *vel[d];
        if (st[d]) return (at(vd, n - stride[d]) + at(vd, n)) / 2; // face lies on a centre
        for (int e = 0; e < 3; ++e)
            if (st[e]) return (at(vd, n - stride[e]) + at(vd, n)) / 2; // average along e
        return at(vd, n); // scalar: the velocity sits on the face
    };

    Fluxes f{Vec(g.ncells, nan_), Vec(g.ncells, nan_), Vec(g.ncells, nan_)};
    std::array<Vec*, 3> out = {&f.fx, &f.fy, &f.fz};
    for (int k = 0; k < g.kcells; ++k)
        for (int j = 0; j < g.jcells; ++j)
            for (int i = 0; i < g.icells; ++i) {
                const std::array<int, 3> ijk = {i, j, k};
                const int n = g.idx(i, j, k);
                for (int d = 0; d < 3; ++d) {
                    // Only faces bounding the interior cells are needed.
                    const std::array<int, 3> lo = {g.istart, g.jstart,
                                                   st[2] ? g.kstart + 1 : g.kstart};
                    const std::array<int, 3> hi = {g.iend, g.jend, g.kend};
                    bool inside = true;
                    for (int e = 0; e < 3; ++e) {
                        const int top = (e == d) ? hi[e] : hi[e] - 1;
                        if (ijk[e] < lo[e] || ijk[e] > top) inside = false;
                    }
                    if (!inside) continue;
                    const int order = orders[d](ijk[d]);
                    const int reach_lo = order == 5 ? 3 : order == 3 ? 2 : 1;
                    const int reach_hi = order == 5 ? 2 : order == 3 ? 1 : 0;
                    if (order == 0) {
                        (*out[d])[n] = 0.0;
                        continue;
                    }
                    if (ijk[d] - reach_lo < 0 || ijk[d] + reach_hi >= ncell[d])
                        throw std::out_of_range("advection stencil leaves the array");
                    std::array<R, 6> p{};
                    for (int q = 0; q < 6; ++q) {
                        const int m = ijk[d] - 3 + q;
                        p[q] = (m >= 0 && m < ncell[d]) ? at(phi, n + (q - 3) * stride[d]) : 0;
                    }
                    (*out[d])[n] = double(face_flux(order, face_velocity(d, n), p));
                }
            }
    return f;
}

// -div(F) for the cells of loc, density weighted in z as in docs/numerics.md.
Vec divergence_of_fluxes(const RefGrid& g, Loc loc, const Fluxes& f) {
    const bool zstag = loc == Loc::W;
    Vec tend(g.ncells, 0.0);
    const int k0 = zstag ? g.kstart + 1 : g.kstart;
    for (int k = k0; k < g.kend; ++k)
        for (int j = g.jstart; j < g.jend; ++j)
            for (int i = g.istart; i < g.iend; ++i) {
                const int n = g.idx(i, j, k);
                const int ne = g.idx(i + 1, j, k), nn = g.idx(i, j + 1, k), nt = g.idx(i, j, k + 1);
                R t = -(R(f.fx[ne]) - R(f.fx[n])) * g.dxi - (R(f.fy[nn]) - R(f.fy[n])) * g.dyi;
                if (zstag)
                    t -= (R(g.rho[k]) * f.fz[nt] - R(g.rho[k - 1]) * f.fz[n]) / g.rhoh[k] *
                         g.dzhi[k];
                else
                    t -= (R(g.rhoh[k + 1]) * f.fz[nt] - R(g.rhoh[k]) * f.fz[n]) / g.rho[k] *
                         g.dzi[k];
                if (std::isnan(double(t))) throw std::logic_error("advection: undefined flux used");
                tend[n] = double(t);
            }
    return tend;
}

} // namespace

int order_2i5_z(Loc loc, int m, int kstart, int kend) {
    if (loc == Loc::W) {
        // Face m of a w-cell lies on centre m-1; w-cells are kstart+1 .. kend-1.
        const int kc = m - 1;
        if (kc == kstart || kc == kend - 1) return 2;
        if (kc == kstart + 1 || kc == kend - 2) return 3;
        return 5;
    }
    if (m == kstart || m == kend) return 0;
    if (m == kstart + 1 || m == kend - 1) return 2;
    if (m == kstart + 2 || m == kend - 2) return 3;
    return 5;
}

Vec ref_advec_2(const RefGrid& g, Loc loc, const Vec& phi, const Vec& u, const Vec& v,
                const Vec& w) {
    auto two = [](int) { return 2; };
    return divergence_of_fluxes(g, loc, face_fluxes(g, loc, phi, u, v, w, {two, two, two}));
}

Vec ref_advec_2i5(const RefGrid& g, Loc loc, const Vec& phi, const Vec& u, const Vec& v,
                  const Vec& w, const ZOrder& zorder) {
    auto five = [](int) { return 5; };
    std::function<int(int)> zo = zorder;
    if (!zo) zo = [&](int m) { return order_2i5_z(loc, m, g.kstart, g.kend); };
    return divergence_of_fluxes(g, loc, face_fluxes(g, loc, phi, u, v, w, {five, five, zo}));
}

} // namespace sqref
