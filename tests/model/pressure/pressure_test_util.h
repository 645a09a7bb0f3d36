#pragma once
// Helpers shared by the pressure solver tests: case setup, a deterministic global RHS, an
// independent residual check of the discrete Poisson operator on a global array, and
// FFTW standing in for cuFFT in the host emulations of the GPU solver.
#include <fftw3.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "model/config/config.h"
#include "model/field.h"
#include "model/grid.h"

namespace squall::ptest {

// This rank and the npx x npy layout the test was started with (argv[1] argv[2], 1 x 1
// without them); aborts when the layout does not use every rank.
struct RankLayout {
    int rank, nprocs, npx, npy;
};
inline RankLayout rank_layout(int argc, char** argv) {
    RankLayout l{0, 1, argc > 2 ? std::atoi(argv[1]) : 1, argc > 2 ? std::atoi(argv[2]) : 1};
    MPI_Comm_rank(MPI_COMM_WORLD, &l.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &l.nprocs);
    if (l.npx * l.npy != l.nprocs) {
        if (l.rank == 0) std::fprintf(stderr, "need npx*npy == number of ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return l;
}

inline Config make_case(int itot, int jtot, int ktot, bool stretched) {
    Config cfg;
    cfg.grid.itot = itot;
    cfg.grid.jtot = jtot;
    cfg.grid.ktot = ktot;
    cfg.grid.xsize = 3.2;
    cfg.grid.ysize = jtot > 1 ? 2.1 : 1.0;
    cfg.grid.zsize = 1.7;
    if (stretched) {
        cfg.grid.stretch = "tanh";
        cfg.grid.stretch_factor = 1.5;
    }
    return cfg;
}

// Reproducible on every rank and compiler: splitmix64 mapped to [-1, 1).
inline double hash_uniform(std::uint64_t n) {
    std::uint64_t z = n + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return double(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

// Global array g[i + itot*(j + jtot*k)] of interior values.
inline std::vector<double> random_global(int itot, int jtot, int ktot, std::uint64_t seed) {
    std::vector<double> g(std::size_t(itot) * jtot * ktot);
    for (std::size_t n = 0; n < g.size(); ++n) g[n] = hash_uniform(seed * 1000003ULL + n);
    return g;
}

template <typename T>
void scatter_to_field(const std::vector<double>& g, Field3d<T>& f) {
    const GridDims& d = f.dims();
    for (int k = 0; k < d.kmax; ++k)
        for (int j = 0; j < d.jmax; ++j)
            for (int i = 0; i < d.imax; ++i)
                f(d.istart + i, d.jstart + j, d.kstart + k) =
                    T(g[(d.ioffset + i) +
                        std::size_t(d.itot) * ((d.joffset + j) + std::size_t(d.jtot) * k)]);
}

template <typename T>
std::vector<double> field_to_global(const Field3d<T>& f) {
    const GridDims& d = f.dims();
    std::vector<double> g(std::size_t(d.itot) * d.jtot * d.ktot);
    for (int k = 0; k < d.kmax; ++k)
        for (int j = 0; j < d.jmax; ++j)
            for (int i = 0; i < d.imax; ++i)
                g[(d.ioffset + i) +
                  std::size_t(d.itot) * ((d.joffset + j) + std::size_t(d.jtot) * k)] =
                    double(f(d.istart + i, d.jstart + j, d.kstart + k));
    return g;
}

// max |L(pi) - rhs| / max |rhs| with L the divergence of the discrete gradient, written
// out directly as a 7-point stencil (periodic in x and y). Ghosts: bottom pi[-1] = pi[0];
// top: horizontal-mean part antisymmetric about the top face (pi = 0 there), the rest
// symmetric (zero gradient).
template <typename T>
double residual(const Grid<T>& grid, const std::vector<double>& pi,
                const std::vector<double>& rhs) {
    const GridDims& d = grid.d;
    const int it = d.itot, jt = d.jtot, kt = d.ktot, ks = d.kstart;
    auto at = [&](int i, int j, int k) {
        return pi[((i + it) % it) + std::size_t(it) * (((j + jt) % jt) + std::size_t(jt) * k)];
    };
    std::vector<double> mean(kt, 0.0);
    for (int k = 0; k < kt; ++k) {
        for (int j = 0; j < jt; ++j)
            for (int i = 0; i < it; ++i) mean[k] += at(i, j, k);
        mean[k] /= double(it) * jt;
    }
    const double dxi = grid.dxi, dyi = grid.dyi;
    double maxres = 0, maxrhs = 0;
    for (int k = 0; k < kt; ++k) {
        const int kg = k + ks;
        const double rho = grid.rho[kg], rhoh_b = grid.rhoh[kg], rhoh_t = grid.rhoh[kg + 1];
        const double dzi = grid.dzi[kg], dzhi_b = grid.dzhi[kg], dzhi_t = grid.dzhi[kg + 1];
        for (int j = 0; j < jt; ++j)
            for (int i = 0; i < it; ++i) {
                const double p0 = at(i, j, k);
                const double pb = k > 0 ? at(i, j, k - 1) : p0;
                const double pt = k < kt - 1 ? at(i, j, k + 1) : p0 - 2.0 * mean[kt - 1];
                const double lap =
                    rho * (at(i + 1, j, k) - 2 * p0 + at(i - 1, j, k)) * dxi * dxi +
                    rho * (at(i, j + 1, k) - 2 * p0 + at(i, j - 1, k)) * dyi * dyi +
                    (rhoh_t * (pt - p0) * dzhi_t - rhoh_b * (p0 - pb) * dzhi_b) * dzi;
                const double r = rhs[i + std::size_t(it) * (j + std::size_t(jt) * k)];
                maxres = std::max(maxres, std::abs(lap - r));
                maxrhs = std::max(maxrhs, std::abs(r));
            }
    }
    return maxres / maxrhs;
}

// Distance between consecutive transforms of the contiguous default layout (what cuFFT
// assumes when given no embedding): the real array, or n[last]/2+1 complex values per row.
inline int dist(int rank, const int* n, bool complex_side) {
    int v = complex_side ? n[rank - 1] / 2 + 1 : n[rank - 1];
    for (int r = 0; r < rank - 1; ++r) v *= n[r];
    return v;
}

// FFTW's multi-dimensional r2c/c2r in both precisions.
template <typename T>
struct Fft;
template <>
struct Fft<double> {
    // The real side contiguous, or where rembed (rank extents as stored), rstride and rdist
    // say; the complex side contiguous.
    static void run(bool forward, int rank, int* n, int howmany, double* real, double* cplx,
                    const int* rembed = nullptr, int rstride = 1, int rdist = 0) {
        auto* c = reinterpret_cast<fftw_complex*>(cplx);
        const int cdist = dist(rank, n, true);
        if (!rembed) rdist = dist(rank, n, false);
        fftw_plan p = forward ? fftw_plan_many_dft_r2c(rank, n, howmany, real, rembed, rstride,
                                                       rdist, c, nullptr, 1, cdist, FFTW_ESTIMATE)
                              : fftw_plan_many_dft_c2r(rank, n, howmany, c, nullptr, 1, cdist, real,
                                                       rembed, rstride, rdist, FFTW_ESTIMATE);
        fftw_execute(p);
        fftw_destroy_plan(p);
    }
};
template <>
struct Fft<float> {
    // The real side contiguous, or where rembed (rank extents as stored), rstride and rdist
    // say; the complex side contiguous.
    static void run(bool forward, int rank, int* n, int howmany, float* real, float* cplx,
                    const int* rembed = nullptr, int rstride = 1, int rdist = 0) {
        auto* c = reinterpret_cast<fftwf_complex*>(cplx);
        const int cdist = dist(rank, n, true);
        if (!rembed) rdist = dist(rank, n, false);
        fftwf_plan p = forward
                           ? fftwf_plan_many_dft_r2c(rank, n, howmany, real, rembed, rstride, rdist,
                                                     c, nullptr, 1, cdist, FFTW_ESTIMATE)
                           : fftwf_plan_many_dft_c2r(rank, n, howmany, c, nullptr, 1, cdist, real,
                                                     rembed, rstride, rdist, FFTW_ESTIMATE);
        fftwf_execute(p);
        fftwf_destroy_plan(p);
    }
};

} // namespace squall::ptest
