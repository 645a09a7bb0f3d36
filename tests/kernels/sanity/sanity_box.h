#pragma once
// Small non-cubic test box with ghost cells (igc = jgc = 3, kgc = 1) and a stretched vertical
// grid, with metrics built here from docs/numerics.md "Grid" (independently of squall::Grid).
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace sanity {

template <typename T>
struct Box {
    int itot = 12, jtot = 10, ktot = 8;
    int icells, jcells, kcells, istart, iend, jstart, jend, kstart, kend, jj, kk, ncells;
    double dx, dy;
    T dxi, dyi;
    std::vector<double> zd, zhd;         // heights in double (for analytic fields)
    std::vector<T> z, zh, dz, dzi, dzhi; // size kcells
    std::vector<T> rho, rhoh;

    // stretch = 0: uniform. rho_scale = 0: Boussinesq (rho = 1), else exp(-z / rho_scale).
    explicit Box(double stretch = 1.5, double rho_scale = 0.0, double zsize = 0.6) {
        icells = itot + 6;
        jcells = jtot + 6;
        kcells = ktot + 2;
        istart = 3, iend = 3 + itot, jstart = 3, jend = 3 + jtot, kstart = 1, kend = 1 + ktot;
        jj = icells;
        kk = icells * jcells;
        ncells = icells * jcells * kcells;
        dx = 1.0 / itot;
        dy = 0.8 / jtot;
        dxi = T(1 / dx);
        dyi = T(1 / dy);
        // Centres midway between tanh-clustered faces; zh midway between the centres.
        auto face = [&](double s) {
            return stretch == 0 ? zsize * s
                                : zsize * (1 - std::tanh(stretch * (1 - s)) / std::tanh(stretch));
        };
        zd.assign(kcells, 0);
        zhd.assign(kcells, 0);
        for (int k = kstart; k < kend; ++k)
            zd[k] = 0.5 * (face(double(k - kstart) / ktot) + face(double(k - kstart + 1) / ktot));
        zd[kstart - 1] = -zd[kstart];
        zd[kend] = 2 * zsize - zd[kend - 1];
        for (int k = kstart + 1; k < kend; ++k) zhd[k] = 0.5 * (zd[k - 1] + zd[k]);
        zhd[kstart] = 0;
        zhd[kend] = zsize;
        zhd[kstart - 1] = -zhd[kstart + 1];
        z.resize(kcells), zh.resize(kcells), dz.resize(kcells), dzi.resize(kcells);
        dzhi.resize(kcells), rho.resize(kcells), rhoh.resize(kcells);
        for (int k = 0; k < kcells; ++k) {
            z[k] = T(zd[k]);
            zh[k] = T(zhd[k]);
            const double dzk = k < kend ? zhd[k + 1] - zhd[k] : zhd[kend] - zhd[kend - 1];
            dz[k] = T(dzk);
            dzi[k] = T(1 / dzk);
            dzhi[k] = T(1 / (k > 0 ? zd[k] - zd[k - 1] : zd[1] - zd[0]));
            rho[k] = T(rho_scale == 0 ? 1.0 : std::exp(-zd[k] / rho_scale));
            rhoh[k] = T(rho_scale == 0 ? 1.0 : std::exp(-zhd[k] / rho_scale));
        }
    }

    int idx(int i, int j, int k) const { return i + j * jj + k * kk; }
    double x(int i) const { return (i - istart + 0.5) * dx; }
    double xh(int i) const { return (i - istart) * dx; }
    double y(int j) const { return (j - jstart + 0.5) * dy; }
    double yh(int j) const { return (j - jstart) * dy; }

    std::vector<T> field(T value = T(0)) const { return std::vector<T>(ncells, value); }

    // a(i,j,k) = f(i,j,k) everywhere, ghost cells included.
    template <class F>
    std::vector<T> make(F f) const {
        std::vector<T> a(ncells);
        for (int k = 0; k < kcells; ++k)
            for (int j = 0; j < jcells; ++j)
                for (int i = 0; i < icells; ++i) a[idx(i, j, k)] = T(f(i, j, k));
        return a;
    }
    std::vector<T> random(std::uint32_t seed, double lo = -1, double hi = 1) const {
        std::mt19937 gen(seed);
        std::uniform_real_distribution<double> dist(lo, hi);
        return make([&](int, int, int) { return dist(gen); });
    }
    void zero_w_walls(std::vector<T>& w) const {
        for (int j = 0; j < jcells; ++j)
            for (int i = 0; i < icells; ++i) w[idx(i, j, kstart)] = w[idx(i, j, kend)] = T(0);
    }
    // Doubly periodic horizontal ghost cells.
    void periodic(std::vector<T>& a) const {
        for (int k = 0; k < kcells; ++k)
            for (int j = 0; j < jcells; ++j)
                for (int i = 0; i < icells; ++i) {
                    const int is = istart + ((i - istart) % itot + itot) % itot;
                    const int js = jstart + ((j - jstart) % jtot + jtot) % jtot;
                    a[idx(i, j, k)] = a[idx(is, js, k)];
                }
    }

    // Run a per-point kernel over the interior columns for levels [k0, k1).
    template <class K>
    void apply(const K& kernel, int k0, int k1) const {
        for (int k = k0; k < k1; ++k)
            for (int j = jstart; j < jend; ++j)
                for (int i = istart; i < iend; ++i) kernel(i, j, k);
    }
    template <class K>
    void apply_c(const K& kernel) const {
        apply(kernel, kstart, kend);
    }
    template <class K>
    void apply_w(const K& kernel) const {
        apply(kernel, kstart + 1, kend);
    }
};

// Absolute tolerance for values of magnitude `scale`: a few hundred ulps of the precision.
template <typename T>
double tol(double scale) {
    return 256 * double(std::numeric_limits<T>::epsilon()) * scale;
}

} // namespace sanity
