#include "model/grid.h"

#include <cmath>

namespace squall {

std::vector<double> vertical_levels(const GridConfig& g) {
    if (!g.z.empty()) return g.z;
    std::vector<double> z(g.ktot);
    if (g.stretch == "tanh") {
        // Faces clustered towards the bottom wall: zh(s) = H (1 - tanh(a (1-s)) / tanh(a)).
        const double a = g.stretch_factor;
        auto face = [&](double s) {
            return g.zsize * (1.0 - std::tanh(a * (1.0 - s)) / std::tanh(a));
        };
        for (int k = 0; k < g.ktot; ++k)
            z[k] = 0.5 * (face(double(k) / g.ktot) + face(double(k + 1) / g.ktot));
    } else {
        const double dz = g.zsize / g.ktot;
        for (int k = 0; k < g.ktot; ++k) z[k] = (k + 0.5) * dz;
    }
    return z;
}

template <typename T>
Grid<T> Grid<T>::make(const Config& cfg, int npx, int npy, int px, int py) {
    const GridConfig& gc = cfg.grid;
    Grid<T> g;
    GridDims& d = g.d;
    d.itot = gc.itot;
    d.jtot = gc.jtot;
    d.ktot = gc.ktot;
    d.imax = gc.itot / npx;
    d.jmax = gc.jtot / npy;
    d.kmax = gc.ktot;
    d.icells = d.imax + 2 * igc;
    d.jcells = d.jmax + 2 * jgc;
    d.kcells = d.kmax + 2 * kgc;
    d.istart = igc;
    d.iend = igc + d.imax;
    d.jstart = jgc;
    d.jend = jgc + d.jmax;
    d.kstart = kgc;
    d.kend = kgc + d.kmax;
    d.ii = 1;
    d.jj = padded_row(d.icells);
    d.kk = d.jj * d.jcells;
    d.ncells = long(d.kk) * d.kcells;
    d.pad = leading_pad(d.istart);
    d.ioffset = px * d.imax;
    d.joffset = py * d.jmax;

    g.xsize = T(gc.xsize);
    g.ysize = T(gc.ysize);
    g.zsize = T(gc.zsize);
    const double dx = gc.xsize / gc.itot, dy = gc.ysize / gc.jtot;
    g.dx = T(dx);
    g.dy = T(dy);
    g.dxi = T(1.0 / dx);
    g.dyi = T(1.0 / dy);

    // Vertical metrics are computed in double and rounded once, so float and double runs
    // see the same grid.
    const int kc = d.kcells, ks = d.kstart, ke = d.kend;
    std::vector<double> z(kc), zh(kc, 0.0); // kcells == kend + 1: zh[kend] is the top wall
    const std::vector<double> zc = vertical_levels(gc);
    for (int k = 0; k < d.kmax; ++k) z[ks + k] = zc[k];
    z[ks - 1] = -z[ks];
    z[ke] = 2.0 * gc.zsize - z[ke - 1];
    zh[ks] = 0.0;
    zh[ke] = gc.zsize;
    for (int k = ks + 1; k < ke; ++k) zh[k] = 0.5 * (z[k - 1] + z[k]);
    zh[ks - 1] = -zh[ks + 1];
    g.z.resize(kc);
    g.zh.resize(kc);
    g.dz.resize(kc);
    g.dzh.resize(kc);
    g.dzi.resize(kc);
    g.dzhi.resize(kc);
    g.rho.assign(kc, T(1));
    g.rhoh.assign(kc, T(1));
    for (int k = 0; k < kc; ++k) {
        g.z[k] = T(z[k]);
        g.zh[k] = T(zh[k]);
    }
    // dz[k] = zh[k+1] - zh[k]; the ghost cells mirror the first/last interior cell.
    for (int k = ks; k < ke; ++k) {
        const double dzk = zh[k + 1] - zh[k];
        g.dz[k] = T(dzk);
        g.dzi[k] = T(1.0 / dzk);
    }
    g.dz[ks - 1] = g.dz[ks];
    g.dzi[ks - 1] = g.dzi[ks];
    g.dz[ke] = g.dz[ke - 1];
    g.dzi[ke] = g.dzi[ke - 1];
    // dzh[k] = z[k] - z[k-1], defined for k >= 1.
    for (int k = 1; k < kc; ++k) {
        const double dzhk = z[k] - z[k - 1];
        g.dzh[k] = T(dzhk);
        g.dzhi[k] = T(1.0 / dzhk);
    }
    g.dzh[0] = g.dzh[1];
    g.dzhi[0] = g.dzhi[1];

    g.x.resize(d.icells);
    g.xh.resize(d.icells);
    g.y.resize(d.jcells);
    g.yh.resize(d.jcells);
    for (int i = 0; i < d.icells; ++i) {
        g.xh[i] = (d.ioffset + i - d.istart) * dx;
        g.x[i] = g.xh[i] + 0.5 * dx;
    }
    for (int j = 0; j < d.jcells; ++j) {
        g.yh[j] = (d.joffset + j - d.jstart) * dy;
        g.y[j] = g.yh[j] + 0.5 * dy;
    }
    return g;
}

template struct Grid<float>;
template struct Grid<double>;

} // namespace squall
