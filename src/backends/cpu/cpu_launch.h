#pragma once
// CPU backend: OpenMP loops over k and j, the unit-stride i loop innermost so that the
// compiler can vectorise the per-point kernel (row()). Named kernels are timed under
// SQUALL_PROFILE (cpu_profile.h).
#include <limits>
#include <string_view>

#include "backends/cpu/cpu_faces.h"
#include "backends/cpu/cpu_profile.h"
#include "kernels/common.cuh"

namespace squall::cpu {

// Kernels whose rows away from the walls run with the walls out of reach (row()): those
// whose traits say promise_interior, for which that leaves results bitwise unchanged (with
// -ffp-contract=off no multiply and add are fused into one rounding differently on the two
// paths). tests/backends/cpu/test_cpu_rows.cpp checks every such kernel through
// for_each_rows, as the model launches them.
template <class F>
constexpr bool promises_interior() {
    return sq::traits_v<F>.promise_interior;
}

// One row of points, the unit-stride i loop innermost. A kernel with wall_levels branches
// on k only within wall_levels of its walls, the same way for the whole row, and GCC 12
// vectorises no loop that selects on such a loop-invariant condition (nor unswitches one
// this large). Away from the walls, so that GCC can drop the wall tests, the row runs a
// copy of the kernel whose walls lie out of reach of any level (kstart, kend = -+2^29):
// by the wall_levels contract the kernel computes the same there (the GPU traversal
// promises the same with __builtin_assume, which GCC 12 cannot use for k < kend - 2 from
// k < kend - 3). The row then vectorises (2i5 advection: about twice as fast). flatten:
// in a file with many kernels GCC otherwise keeps helpers such as flux5 as calls, and a
// loop with calls does not vectorise. Promise = false: the plain row (tests compare them).
template <class F, bool Promise = promises_interior<F>()>
[[gnu::flatten]] inline void row(const F& f, int i0, int i1, int j, int k) {
    if constexpr (Promise) {
        constexpr int walls = sq::traits_v<F>.wall_levels, far = 1 << 29;
        if (k >= f.kstart + walls && k < f.kend - walls) {
            F g = f;
            g.kstart = -far, g.kend = far;
            // Levels are below 2^26: a rank's array holds < 2^31 points, >= 49 per level.
            if (k < 0 || k >= (1 << 26)) __builtin_unreachable();
#pragma omp simd
            for (int i = i0; i < i1; ++i) g(i, j, k);
            return;
        }
    }
#pragma omp simd
    for (int i = i0; i < i1; ++i) f(i, j, k);
}

// The rows of r, spread over the threads; Promise as for row().
template <bool Promise, class F>
void for_each_rows(const sq::Range3& r, const F& f) {
#pragma omp parallel
    {
        // A private copy: its members stay in registers across the kernel's stores, which
        // could alias the caller's struct.
        const F fl = f;
#pragma omp for collapse(2) schedule(static)
        for (int k = r.k0; k < r.k1; ++k)
            for (int j = r.j0; j < r.j1; ++j) row<F, Promise>(fl, r.i0, r.i1, j, k);
    }
}

// Kernels in face form through the face traversal (cpu_faces.h), the others by rows.
template <class F>
void for_each(const sq::Range3& r, const F& f) {
    if constexpr (FaceForm<F>)
        timed<F>(r, [&] { for_each_faces(r, f); });
    else
        timed<F>(r, [&] { for_each_rows<promises_interior<F>()>(r, f); });
}

template <class F>
void for_each_2d(const sq::Range3& r, const F& f) {
    timed<F>(r, [&] {
#pragma omp parallel for schedule(static)
        for (int j = r.j0; j < r.j1; ++j)
            for (int i = r.i0; i < r.i1; ++i) f(i, j);
    });
}

template <class F>
auto reduce_max(const sq::Range3& r, const F& f) {
    using T = decltype(f(r.i0, r.j0, r.k0));
    T result = -std::numeric_limits<T>::max();
#pragma omp parallel for collapse(2) reduction(max : result) schedule(static)
    for (int k = r.k0; k < r.k1; ++k)
        for (int j = r.j0; j < r.j1; ++j)
            for (int i = r.i0; i < r.i1; ++i) {
                const T v = f(i, j, k);
                result = v > result ? v : result;
            }
    return result;
}

// Sums accumulate in double so that the result does not depend on the thread count more
// than round-off in the last digits of a double.
template <class F>
double reduce_sum(const sq::Range3& r, const F& f) {
    double result = 0;
#pragma omp parallel for collapse(2) reduction(+ : result) schedule(static)
    for (int k = r.k0; k < r.k1; ++k)
        for (int j = r.j0; j < r.j1; ++j)
            for (int i = r.i0; i < r.i1; ++i) result += double(f(i, j, k));
    return result;
}

} // namespace squall::cpu
