#include "ref_grid.h"

#include <cmath>
#include <random>

namespace sqref {

RefGrid make_ref_grid(const GridSpec& s) {
    RefGrid g;
    g.itot = s.itot;
    g.jtot = s.jtot;
    g.ktot = s.ktot;
    g.icells = s.itot + 2 * g.igc;
    g.jcells = s.jtot + 2 * g.jgc;
    g.kcells = s.ktot + 2 * g.kgc;
    g.ijcells = g.icells * g.jcells;
    g.ncells = g.ijcells * g.kcells;
    g.istart = g.igc;
    g.iend = g.igc + s.itot;
    g.jstart = g.jgc;
    g.jend = g.jgc + s.jtot;
    g.kstart = g.kgc;
    g.kend = g.kgc + s.ktot;
    g.xsize = s.xsize;
    g.ysize = s.ysize;
    g.zsize = s.zsize;
    g.dx = s.xsize / s.itot;
    g.dy = s.ysize / s.jtot;
    g.dxi = 1.0 / g.dx;
    g.dyi = 1.0 / g.dy;

    // Centre heights: midpoints of tanh-stretched levels (fine near the bottom), then
    // jittered so that no two neighbouring spacings are equal.
    std::mt19937_64 gen(s.seed);
    std::uniform_real_distribution<double> jit(-s.jitter, s.jitter);
    const int n = s.ktot;
    std::vector<double> level(n + 1);
    for (int m = 0; m <= n; ++m) {
        const double eta = double(m) / n;
        level[m] = s.stretch > 0
                       ? s.zsize * (1.0 - std::tanh(s.stretch * (1.0 - eta)) / std::tanh(s.stretch))
                       : s.zsize * eta;
    }
    const int kc = g.kcells, ks = g.kstart, ke = g.kend;
    g.z.assign(kc, 0.0);
    g.zh.assign(kc, 0.0);
    for (int m = 0; m < n; ++m) {
        const double width = level[m + 1] - level[m];
        g.z[ks + m] = 0.5 * (level[m] + level[m + 1]) + jit(gen) * width;
    }
    // docs/numerics.md: mirrored ghost centres, faces halfway between centres, walls at 0/zsize.
    g.z[ks - 1] = -g.z[ks];
    g.z[ke] = 2.0 * s.zsize - g.z[ke - 1];
    g.zh[ks] = 0.0;
    g.zh[ke] = s.zsize;
    for (int k = ks + 1; k < ke; ++k) g.zh[k] = 0.5 * (g.z[k - 1] + g.z[k]);
    g.zh[ks - 1] = -g.zh[ks + 1]; // mirror of the first interior face

    g.dz.assign(kc, 0.0);
    g.dzh.assign(kc, 0.0);
    for (int k = ks; k < ke; ++k) g.dz[k] = g.zh[k + 1] - g.zh[k];
    g.dz[ks - 1] = g.dz[ks];
    g.dz[ke] = g.dz[ke - 1];
    for (int k = ks; k <= ke; ++k) g.dzh[k] = g.z[k] - g.z[k - 1];
    g.dzh[ks - 1] = g.dzh[ks + 1];
    g.dzi.resize(kc);
    g.dzhi.resize(kc);
    for (int k = 0; k < kc; ++k) {
        g.dzi[k] = 1.0 / g.dz[k];
        g.dzhi[k] = 1.0 / g.dzh[k];
    }

    g.rho.assign(kc, 1.0);
    g.rhoh.assign(kc, 1.0);
    if (!s.boussinesq) {
        // Decaying profile with independent perturbations at centres and faces: the
        // formulas only need positive values, and unrelated rho/rhoh catch mixed-up indices.
        std::uniform_real_distribution<double> pert(-0.1, 0.1);
        for (int k = 0; k < kc; ++k) {
            g.rho[k] = std::exp(-g.z[k] / 2.0) * (1.0 + pert(gen));
            g.rhoh[k] = std::exp(-g.zh[k] / 2.0) * (1.0 + pert(gen));
        }
    }
    return g;
}

Vec random_field(const RefGrid& g, double lo, double hi, std::uint64_t seed) {
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> d(lo, hi);
    Vec a(g.ncells);
    for (double& x : a) x = d(gen);
    return a;
}

Vec random_plane(const RefGrid& g, double lo, double hi, std::uint64_t seed) {
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> d(lo, hi);
    Vec a(g.ijcells);
    for (double& x : a) x = d(gen);
    return a;
}

void zero_w_walls(const RefGrid& g, Vec& w) {
    for (int j = 0; j < g.jcells; ++j)
        for (int i = 0; i < g.icells; ++i) {
            w[g.idx(i, j, g.kstart)] = 0.0;
            w[g.idx(i, j, g.kend)] = 0.0;
        }
}

void fill_periodic_xy(const RefGrid& g, Vec& a) {
    auto wrap = [](int n, int start, int tot) { return start + ((n - start) % tot + tot) % tot; };
    for (int k = 0; k < g.kcells; ++k)
        for (int j = 0; j < g.jcells; ++j)
            for (int i = 0; i < g.icells; ++i) {
                const int is = wrap(i, g.istart, g.itot), js = wrap(j, g.jstart, g.jtot);
                a[g.idx(i, j, k)] = a[g.idx(is, js, k)];
            }
}

void round_to_float(Vec& a) {
    for (double& x : a) x = double(float(x));
}

void round_to_float(RefGrid& g) {
    for (Vec* v : {&g.z, &g.zh, &g.dz, &g.dzh, &g.dzi, &g.dzhi, &g.rho, &g.rhoh})
        round_to_float(*v);
    g.dx = double(float(g.dx));
    g.dy = double(float(g.dy));
    g.dxi = double(float(g.dxi));
    g.dyi = double(float(g.dyi));
}

} // namespace sqref
