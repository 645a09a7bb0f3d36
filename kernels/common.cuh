#pragma once
// Shared building blocks for the per-point kernels. Every header in kernels/ compiles
// both as host C++ (CPU backend, tests) and under NVRTC (GPU backend), so it may only
// use this file, plain arithmetic and <cmath>-style functions available on both sides.
// The places that know about the two compilers are the SQ_HD macro below and
// mul_rounded.

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define SQ_HD __host__ __device__ __forceinline__
#define SQ_RESTRICT __restrict__
#else
#include <cmath>
#define SQ_HD inline
#define SQ_RESTRICT __restrict__
#endif

#include "declare.cuh"

namespace sq {

// a * b rounded on its own, never contracted with an add into a multiply-add: NVRTC
// contracts by default and the host build never does, so a product that two kernels form
// in different code (a term a fused kernel shares with the kernel it replaces) rounds the
// same in both, on both backends.
template <typename T>
SQ_HD T mul_rounded(T a, T b) {
#if defined(__CUDA_ARCH__)
    if constexpr (sizeof(T) == 8)
        return __dmul_rn(a, b);
    else
        return __fmul_rn(a, b);
#else
    return a * b;
#endif
}

// Index range of a traversal: [i0,i1) x [j0,j1) x [k0,k1).
struct Range3 {
    int i0, i1, j0, j1, k0, k1;
};

// ---- the model's 3-D layout ----
// Point (i, j, k) of a 3-D field is element i + j * jj + k * kk (rows of jj elements, levels
// of kk). Kernels hold jj and kk as members; the GPU traversal sets them to compile-time
// constants, so both helpers below fold into the address arithmetic. A kernel builds them
// where it indexes, never as members: its members are its parameters.
//
// The per-point code that the planes traversal runs (value_at, plane_output, plane_store,
// and store of the same kernels) writes the index out instead: PlanePtr splits each offset
// into (di, dj, dk) at compile time only when the compiler matches the kernel's index with
// the march's own, and a call in between changed the generated code (diff_uvw_smag's
// register window went to local memory).
SQ_HD int index3(int i, int j, int k, int jj, int kk) {
    return i + j * jj + k * kk;
}

// A field with its strides, in the spirit of AMReX's Array4: f(i, j, k) is the element at
// (i, j, k), for kernels that address one field at several points (the y halos).
template <class P>
struct View3 {
    P p; // a pointer (or an accessor with p[n])
    int jj, kk;
    SQ_HD decltype(auto) operator()(int i, int j, int k) const {
        return p[index3(i, j, k, jj, kk)];
    }
};
template <class P>
SQ_HD View3<P> view3(P p, int jj, int kk) {
    return {p, jj, kk};
}

template <typename T>
SQ_HD T interp2(T a, T b) {
    return T(0.5) * (a + b);
}
template <typename T>
SQ_HD T interp4_ws(T a, T b, T c, T d) {
    return T(7. / 12.) * (b + c) - T(1. / 12.) * (a + d);
}
template <typename T>
SQ_HD T interp3_ws(T a, T b, T c, T d) {
    return T(3. / 12.) * (c - b) - T(1. / 12.) * (d - a);
}
template <typename T>
SQ_HD T interp6_ws(T a, T b, T c, T d, T e, T f) {
    return T(37. / 60.) * (c + d) - T(8. / 60.) * (b + e) + T(1. / 60.) * (a + f);
}
template <typename T>
SQ_HD T interp5_ws(T a, T b, T c, T d, T e, T f) {
    return T(10. / 60.) * (d - c) - T(5. / 60.) * (e - b) + T(1. / 60.) * (f - a);
}

// fabs, not a compare and select: on the GPU |x| is a free operand modifier, while the
// select cost two fp64-pipe instructions per call (flux5 makes six calls per point).
// clang-format off
SQ_HD float abs_(float a) { return fabsf(a); }
SQ_HD double abs_(double a) { return fabs(a); }
// clang-format on
template <typename T>
SQ_HD constexpr T min_(T a, T b) {
    return a < b ? a : b;
}
template <typename T>
SQ_HD constexpr T max_(T a, T b) {
    return a > b ? a : b;
}

// Upwind fluxes at the face between phi[-1] and phi[0] along stride s, advected by U:
// "central minus |U| times dissipation" (docs/numerics.md). P is a pointer, or an accessor
// with p + n and p[n] (the planes traversal's PlanePtr).
template <typename T, class P>
SQ_HD T flux2(const P& p, int s, T U) {
    return U * interp2<T>(p[-s], p[0]);
}
template <typename T, class P>
SQ_HD T flux3(const P& p, int s, T U) {
    return U * interp4_ws<T>(p[-2 * s], p[-s], p[0], p[s]) -
           abs_(U) * interp3_ws<T>(p[-2 * s], p[-s], p[0], p[s]);
}
template <typename T, class P>
SQ_HD T flux5(const P& p, int s, T U) {
    return U * interp6_ws<T>(p[-3 * s], p[-2 * s], p[-s], p[0], p[s], p[2 * s]) -
           abs_(U) * interp5_ws<T>(p[-3 * s], p[-2 * s], p[-s], p[0], p[s], p[2 * s]);
}

// What the planes traversal (backends/cuda/planes.cuh) needs to know of one 3-D input of
// a kernel: the reach of its reads around (i, j, k) along x and y, the levels it is read
// at off the point's own column (plo..phi, from shared-memory planes) and on it (zlo..zhi,
// from a register window; zlo > zhi: none).
struct PlaneInput {
    int xlo, xhi, ylo, yhi;
    int plo, phi;
    int zlo, zhi;
};
// An input that several per-point functions read (a fused kernel): each bound the wider
// of the two; an empty window (zlo > zhi: no reads on the point's own column beyond the
// planes) takes the other's.
SQ_HD constexpr PlaneInput plane_union(PlaneInput a, PlaneInput b) {
    const bool a_window = a.zlo <= a.zhi, b_window = b.zlo <= b.zhi;
    return {a.xlo < b.xlo ? a.xlo : b.xlo,
            a.xhi > b.xhi ? a.xhi : b.xhi,
            a.ylo < b.ylo ? a.ylo : b.ylo,
            a.yhi > b.yhi ? a.yhi : b.yhi,
            a.plo < b.plo ? a.plo : b.plo,
            a.phi > b.phi ? a.phi : b.phi,
            !a_window       ? b.zlo
            : !b_window     ? a.zlo
            : a.zlo < b.zlo ? a.zlo
                            : b.zlo,
            !a_window       ? b.zhi
            : !b_window     ? a.zhi
            : a.zhi > b.zhi ? a.zhi
                            : b.zhi};
}

// ---- math ----
// Precision-exact wrappers: on the host <cmath> puts only the double overloads in the global
// namespace, so an unqualified sqrt(float) would silently compute in double.
// clang-format off
SQ_HD float sqrt_(float a) { return sqrtf(a); }
SQ_HD double sqrt_(double a) { return sqrt(a); }
SQ_HD float cbrt_(float a) { return cbrtf(a); }
SQ_HD double cbrt_(double a) { return cbrt(a); }
SQ_HD float log_(float a) { return logf(a); }
SQ_HD double log_(double a) { return log(a); }
// clang-format on
template <typename T>
SQ_HD T sqr_(T a) {
    return a * a;
}

} // namespace sq
