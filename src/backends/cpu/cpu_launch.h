#pragma once
// CPU backend: OpenMP loops over k and j, the unit-stride i loop innermost so that the
// compiler can vectorise the per-point kernel. Named kernels are timed under
// SQUALL_PROFILE (cpu_profile.h).
#include <limits>

#include "backends/cpu/cpu_profile.h"
#include "kernels/common.cuh"

namespace squall::cpu {

template <class F>
void for_each(const sq::Range3& r, const F& f) {
    timed<F>(r, [&] {
#pragma omp parallel for collapse(2) schedule(static)
        for (int k = r.k0; k < r.k1; ++k)
            for (int j = r.j0; j < r.j1; ++j)
#pragma omp simd
                for (int i = r.i0; i < r.i1; ++i) f(i, j, k);
    });
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
