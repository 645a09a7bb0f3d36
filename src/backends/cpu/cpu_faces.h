#pragma once
// CPU backend: the face traversal of kernels in face form (kernels/README.md, the 2i5
// advection). The per-point kernel computes the fluxes through all six faces of its point,
// so every face is computed twice, once by each point sharing it; here each is computed
// once. Per level: the z faces of the level's top (the bottom ones carried over from the
// level below), then per row the y faces of its north side (the south ones carried over
// from the row before) and the x faces along it, and each point from its six faces. The
// kernel's value_at is built from the same functions, so the bits are the per-point ones
// (tests/backends/cpu/test_cpu_rows.cpp).
#include <cstdint>
#include <utility>
#include <vector>

#include "kernels/common.cuh"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace squall::cpu {

template <class F>
concept FaceForm = requires(const F& f, int n) {
    f.order_z(n);
    f.from_fluxes(f.flux_x(n, n, n), f.flux_x(n, n, n), f.flux_y(n, n, n), f.flux_y(n, n, n),
                  f.flux_z(n, n, n, n), f.flux_z(n, n, n, n), n, n, n);
};

// The z faces at level kf of the points of r's rows, into zf[(j - j0) * ni + i - i0]. Their
// order depends only on kf: the interior's 5th order is passed as a constant so that the
// loop vectorises (GCC 12 does not unswitch on a loop-invariant order).
template <class F, class T>
void z_faces(const F& f, const sq::Range3& r, int kf, T* zf) {
    const int ni = r.i1 - r.i0, order = f.order_z(kf);
    for (int j = r.j0; j < r.j1; ++j) {
        T* out = zf + (j - r.j0) * ni;
        if (order == 5) {
#pragma omp simd
            for (int i = r.i0; i < r.i1; ++i) out[i - r.i0] = f.flux_z(i, j, kf, 5);
        } else { // no simd: a face of lower order must not read the levels a 5th-order one would
            for (int i = r.i0; i < r.i1; ++i) out[i - r.i0] = f.flux_z(i, j, kf, order);
        }
    }
}

// Levels k0..k1 of r. flatten: otherwise GCC keeps helpers such as flux5 as calls in a file
// with many kernels, and a loop with calls does not vectorise.
template <class F>
[[gnu::flatten]] void face_levels(const F& f, const sq::Range3& r, int k0, int k1) {
    using T = decltype(f.flux_x(0, 0, 0));
    const int ni = r.i1 - r.i0, nplane = ni * (r.j1 - r.j0);
    // Kept per thread: a launch then allocates nothing.
    thread_local std::vector<T> buffer;
    buffer.resize(2 * std::size_t(nplane) + 3 * std::size_t(ni) + 1);
    // Each buffer holds the faces of points i0.. at [i - i0].
    T* z_lo = buffer.data();
    T* z_hi = z_lo + nplane;
    T* y_lo = z_hi + nplane;
    T* y_hi = y_lo + ni;
    T* x = y_hi + ni; // ni + 1 faces: the last is the east face of the row's last point
    const int i0 = r.i0;
    z_faces(f, r, k0, z_lo);
    for (int k = k0; k < k1; ++k) {
        z_faces(f, r, k + 1, z_hi);
        for (int j = r.j0; j < r.j1; ++j) {
            if (j == r.j0) {
#pragma omp simd
                for (int i = i0; i < r.i1; ++i) y_lo[i - i0] = f.flux_y(i, j, k);
            }
#pragma omp simd
            for (int i = i0; i < r.i1; ++i) y_hi[i - i0] = f.flux_y(i, j + 1, k);
#pragma omp simd
            for (int i = i0; i <= r.i1; ++i) x[i - i0] = f.flux_x(i, j, k);
            const T* zl = z_lo + (j - r.j0) * ni;
            const T* zh = z_hi + (j - r.j0) * ni;
#pragma omp simd
            for (int i = i0; i < r.i1; ++i) {
                const int n = i - i0;
                f.store(i, j, k,
                        f.from_fluxes(x[n], x[n + 1], y_lo[n], y_hi[n], zl[n], zh[n], i, j, k));
            }
            std::swap(y_lo, y_hi);
        }
        std::swap(z_lo, z_hi);
    }
}

// The points of r, each thread a slab of levels (the bottom faces of a slab's first level
// are computed twice, by it and by the slab below).
template <class F>
void for_each_faces(const sq::Range3& r, const F& f) {
#pragma omp parallel
    {
        // A private copy: its members stay in registers across the kernel's stores.
        const F fl = f;
#ifdef _OPENMP
        const std::int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
#else // a translation unit built without OpenMP (some tests) runs serially
        const std::int64_t nt = 1, t = 0;
#endif
        const std::int64_t nk = r.k1 - r.k0;
        const int k0 = r.k0 + int(nk * t / nt), k1 = r.k0 + int(nk * (t + 1) / nt);
        if (k0 < k1) face_levels(fl, r, k0, k1);
    }
}

} // namespace squall::cpu
