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
// The same in 64-bit offsets, for arrays that may pass 2^31 elements (the pressure solve's
// packed copies of a whole field).
SQ_HD long index3_long(int i, int j, int k, int jj, int kk) {
    return i + long(j) * jj + long(k) * kk;
}
// Point (i, j) of a 2-D array with rows of jj elements (surface fluxes, column sums).
SQ_HD int index2(int i, int j, int jj) {
    return i + j * jj;
}

// The axes: kernels of a staggered variable are templates on the axis it is staggered along
// (none: a centred variable).
enum class Axis { x, y, z, none };

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
// fabs, not a compare and select: on the GPU |x| is a free operand modifier.
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
//
// F3 and F5 are evaluated as U times the upwind-biased interpolation that central minus
// dissipation reduces to for the sign of U (weights below, the stencil mirrored for U <= 0):
// equal in exact arithmetic, and F5 takes 6 floating-point operations instead of 14 (plus
// selects, which run on the integer pipe); the fused 2i5 momentum kernel makes 18 of these
// per point. Only the upwind five points enter the sum: a reach declared for the planes
// traversal is used only when the velocity has the sign that needs it.
template <typename T, class P>
SQ_HD T flux2(const P& p, int s, T U) {
    return U * interp2<T>(p[-s], p[0]);
}
// U interp4_ws - |U| interp3_ws = U (-1, 5, 2)/6 over phi[-2..0] for U > 0.
template <typename T, class P>
SQ_HD T flux3(const P& p, int s, T U) {
    const T m2 = p[-2 * s], m1 = p[-s], p0 = p[0], p1 = p[s];
    const bool up = U > T(0);
    return U * (T(5. / 6.) * (up ? m1 : p0) + T(2. / 6.) * (up ? p0 : m1) -
                T(1. / 6.) * (up ? m2 : p1));
}
// U interp6_ws - |U| interp5_ws = U (2, -13, 47, 27, -3)/60 over phi[-3..1] for U > 0.
template <typename T, class P>
SQ_HD T flux5(const P& p, int s, T U) {
    const T m3 = p[-3 * s], m2 = p[-2 * s], m1 = p[-s], p0 = p[0], p1 = p[s], p2 = p[2 * s];
    const bool up = U > T(0);
    return U * (T(47. / 60.) * (up ? m1 : p0) + T(27. / 60.) * (up ? p0 : m1) -
                T(13. / 60.) * (up ? m2 : p1) - T(3. / 60.) * (up ? p1 : m2) +
                T(2. / 60.) * (up ? m3 : p2));
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
SQ_HD float exp_(float a) { return expf(a); }
SQ_HD double exp_(double a) { return exp(a); }
// clang-format on
template <typename T>
SQ_HD T sqr_(T a) {
    return a * a;
}

} // namespace sq
