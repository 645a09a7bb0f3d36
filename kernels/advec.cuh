#pragma once
// Advection in flux form (docs/numerics.md "Advection"), one grid point per call.
// Scheme "2": 2nd-order central fluxes. Scheme "2i5": 5th-order upwind fluxes horizontally and
// vertically in the interior, with the vertical order dropping near the walls (see below).
// Advecting velocities are interpolated (interp2) to the faces of the staggered cell; a
// scalar cell uses u[i], v[j], w[k] directly.
#include "common.cuh"

namespace sq {

// -(F(hi) - F(lo)) * di for the two faces of the cell at a[0] along stride s: the low face
// lies between a[-s] and a[0], the high face between a[0] and a[s].
template <typename T, class P>
SQ_HD T advec_div2(const P& a, int s, T u_lo, T u_hi, T di) {
    return -(flux2(a + s, s, u_hi) - flux2(a, s, u_lo)) * di;
}
template <typename T, class P>
SQ_HD T advec_div5(const P& a, int s, T u_lo, T u_hi, T di) {
    return -(flux5(a + s, s, u_hi) - flux5(a, s, u_lo)) * di;
}
// The same from the two faces' fluxes (the face form, backends/cpu/cpu_faces.h).
template <typename T>
SQ_HD T advec_div_faces(T f_lo, T f_hi, T di) {
    return -(f_hi - f_lo) * di;
}

// Density-weighted vertical divergence of a centred variable at level k from the fluxes
// through its bottom face (level k) and top face (level k+1). The factor dzi/rho is the
// diffusion's (diff_zdiv_c), so a kernel that adds both divides once per point, not twice.
template <typename T>
SQ_HD T advec_zdiv_c(T f_bot, T f_top, int k, const T* rho, const T* rhoh, const T* dzi) {
    return -(dzi[k] / rho[k]) * (rhoh[k + 1] * f_top - rhoh[k] * f_bot);
}
// Same for w at half level k: its faces are the centres k-1 (bottom) and k (top).
template <typename T>
SQ_HD T advec_zdiv_w(T f_bot, T f_top, int k, const T* rho, const T* rhoh, const T* dzhi) {
    return -(dzhi[k] / rhoh[k]) * (rho[k] * f_top - rho[k - 1] * f_bot);
}
// The vertical divergence at level k of a variable staggered along Stag: w on its own
// levels (advec_zdiv_w), u, v and scalars at the centres (advec_zdiv_c).
template <Axis Stag, typename T>
SQ_HD T advec_zdiv(T f_bot, T f_top, int k, const T* rho, const T* rhoh, const T* dzi,
                   const T* dzhi) {
    if constexpr (Stag == Axis::z)
        return advec_zdiv_w(f_bot, f_top, k, rho, rhoh, dzhi);
    else
        return advec_zdiv_c(f_bot, f_top, k, rho, rhoh, dzi);
}
// A centred point's advection from the fluxes through its six faces (the face forms'
// from_fluxes): the same sums as its per-point value.
template <typename T>
SQ_HD T advec_from_faces_c(T x_lo, T x_hi, T y_lo, T y_hi, T z_lo, T z_hi, int k, T dxi, T dyi,
                           const T* rho, const T* rhoh, const T* dzi) {
    return advec_div_faces(x_lo, x_hi, dxi) + advec_div_faces(y_lo, y_hi, dyi) +
           advec_zdiv_c(z_lo, z_hi, k, rho, rhoh, dzi);
}

// ---- 2i5 near-wall order reduction ----
// The order of a vertical flux depends only on the face, never on the cell asking for it, so
// both neighbours of a face use the same flux (conservative); every stencil stays inside the
// interior (no vertical ghost levels are read).
//
// Centred variables, face at half level kf (between centres kf-1 and kf), d = distance in
// faces to the nearer wall: d = 0 (the wall, w = 0): no flux; d = 1: F2; d = 2: F3; d >= 3: F5.
// Per cell k this gives (bottom/top): kstart 0/F2, kstart+1 F2/F3, kstart+2 F3/F5, interior
// F5/F5, kend-3 F5/F3, kend-2 F3/F2, kend-1 F2/0.
SQ_HD int advec_order_face_c(int kf, int kstart, int kend) {
    const int d = min_(kf - kstart, kend - kf);
    return d <= 0 ? 0 : d == 1 ? 2 : d == 2 ? 3 : 5;
}
// w, face at centre level kc (between w[kc] and w[kc+1]); d = min(kc-kstart, kend-1-kc):
// d = 0: F2 (needs w[kc..kc+1]); d = 1: F3 (w[kc-1..kc+2]); d >= 2: F5 (w[kc-2..kc+3]).
// Per w-cell k (kstart+1 <= k < kend, faces at centres k-1/k): kstart+1 F2/F3, kstart+2 F3/F5,
// interior F5/F5, kend-2 F5/F3, kend-1 F3/F2.
SQ_HD int advec_order_centre_w(int kc, int kstart, int kend) {
    const int d = min_(kc - kstart, kend - 1 - kc);
    return d <= 0 ? 2 : d == 1 ? 3 : 5;
}

// Flux of the given order through the face between p[-s] and p[0] (order 0: none).
template <typename T, class P>
SQ_HD T flux_z_order(const P& p, int s, T w_face, int order) {
    if (order == 5) return flux5(p, s, w_face);
    if (order == 3) return flux3(p, s, w_face);
    if (order == 2) return flux2(p, s, w_face);
    return T(0);
}

// 2i5 vertical term of a centred variable (a points at the cell, w_bot/w_top are the
// advecting velocities at its bottom/top faces).
template <typename T, class P>
SQ_HD T advec_z_2i5_c(const P& a, int kk, T w_bot, T w_top, int k, int kstart, int kend,
                      const T* rho, const T* rhoh, const T* dzi) {
    T f_bot, f_top;
    if (k >= kstart + 3 && k < kend - 3) { // fast path: both faces 5th order
        f_bot = flux5(a, kk, w_bot);
        f_top = flux5(a + kk, kk, w_top);
    } else {
        f_bot = flux_z_order(a, kk, w_bot, advec_order_face_c(k, kstart, kend));
        f_top = flux_z_order(a + kk, kk, w_top, advec_order_face_c(k + 1, kstart, kend));
    }
    return advec_zdiv_c(f_bot, f_top, k, rho, rhoh, dzi);
}

// 2i5 vertical term of w (wp points at w[k]; w advects itself).
template <typename T, class P>
SQ_HD T advec_z_2i5_w(const P& wp, int kk, int k, int kstart, int kend, const T* rho, const T* rhoh,
                      const T* dzhi) {
    const T w_bot = interp2<T>(wp[-kk], wp[0]);
    const T w_top = interp2<T>(wp[0], wp[kk]);
    T f_bot, f_top;
    if (k >= kstart + 3 && k < kend - 2) { // fast path: both faces 5th order
        f_bot = flux5(wp, kk, w_bot);
        f_top = flux5(wp + kk, kk, w_top);
    } else {
        f_bot = flux_z_order(wp, kk, w_bot, advec_order_centre_w(k - 1, kstart, kend));
        f_top = flux_z_order(wp + kk, kk, w_top, advec_order_centre_w(k, kstart, kend));
    }
    return advec_zdiv_w(f_bot, f_top, k, rho, rhoh, dzhi);
}

// ---- 2i5 inputs for the planes traversal (PlaneInput, common.cuh) ----
// The advected variable: its 5th-order fluxes read 3 points to each side along x and y at
// level k (planes), and levels k-3..k+3 on the point's own column (a register window).
SQ_HD constexpr PlaneInput plane_advected_2i5() {
    return {-3, 3, -3, 3, 0, 0, -3, 3};
}
// An advecting velocity, the component along `face`, for a variable staggered along `stag`
// (none: a scalar): read at both faces of the cell along `face` (0..1) and, where interp2
// averages it to the staggered point, at -1..0 along `stag`; off the point's column only.
// Kernels call it with constant arguments, one call per input: an axis chosen from n
// changed the planes traversal's generated code (its windows went to local memory).
SQ_HD constexpr PlaneInput plane_velocity_2i5(Axis face, Axis stag) {
    const int fx = face == Axis::x, fy = face == Axis::y, fz = face == Axis::z;
    const int sx = stag == Axis::x, sy = stag == Axis::y, sz = stag == Axis::z;
    return {-sx, fx, -sy, fy, -sz, fz, 0, -1};
}

// ---- the staggering ----
// A velocity component's kernels are one template on the axis its points are staggered
// along (u: x, v: y, w: z); a scalar's points are centred (none).

// The pointer of the three chosen by axis S.
template <Axis S, class P>
SQ_HD const P& along(const P& x, const P& y, const P& z) {
    if constexpr (S == Axis::x)
        return x;
    else if constexpr (S == Axis::y)
        return y;
    else
        return z;
}
// The stride of axis S in the model's layout.
template <Axis S>
SQ_HD int stride_of(int jj, int kk) {
    return S == Axis::x ? 1 : S == Axis::y ? jj : kk;
}
// The advecting velocity c at the low face, along c's own axis, of the point at ijk of a
// variable staggered along Stag: the mean of c's two points along Stag (where c is the
// advected component, the mean across its own cell; otherwise c lies on the faces of the
// centred cell, and the point is half a cell further along Stag).
template <typename T, Axis Stag, class P>
SQ_HD T velocity_at_face(const P& c, int ijk, int jj, int kk) {
    const int s = stride_of<Stag>(jj, kk);
    return interp2<T>(c[ijk - s], c[ijk]);
}
// The planes traversal's inputs of a velocity component's kernel: the component (0), then
// the other two in x, y, z order (1, 2).
// (Functions, not variables: NVRTC emits a namespace-scope constant that is used as a global.)
SQ_HD constexpr Axis first_other(Axis stag) {
    return stag == Axis::x ? Axis::y : Axis::x;
}
SQ_HD constexpr Axis second_other(Axis stag) {
    return stag == Axis::z ? Axis::y : Axis::z;
}
SQ_HD constexpr int plane_slot(Axis stag, Axis c) {
    return c == stag ? 0 : c == first_other(stag) ? 1 : 2;
}

// ---- scheme 2 ----

// Velocity component along Stag: u (x), v (y) or w (z, on the w faces).
template <typename T, Axis Stag>
struct AdvecVel2 {
    static constexpr const char* name = Stag == Axis::x   ? "advec_u_2"
                                        : Stag == Axis::y ? "advec_v_2"
                                                          : "advec_w_2";
    static constexpr Traits traits{.on_w_levels = Stag == Axis::z};
    T* SQ_RESTRICT tend; // the component's tendency (ut, vt or wt), added to
    const T *SQ_RESTRICT u, *SQ_RESTRICT v, *SQ_RESTRICT w;
    // dzi at the centres (u, v), dzhi at the w faces (w).
    const T *SQ_RESTRICT dzi, *SQ_RESTRICT dzhi, *SQ_RESTRICT rho, *SQ_RESTRICT rhoh;
    T dxi, dyi;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(tend), sq::Use::inout).fields(SQ_ARG(u), SQ_ARG(v), SQ_ARG(w));
        d.profiles(SQ_ARG(dzi), SQ_ARG(dzhi), SQ_ARG(rho), SQ_ARG(rhoh));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(jj), SQ_ARG(kk));
    }
    SQ_HD T at_face(const T* c, int ijk) const { return velocity_at_face<T, Stag>(c, ijk, jj, kk); }

    SQ_HD T value(int i, int j, int k) const {
        const int ijk = index3(i, j, k, jj, kk);
        const T* a = along<Stag>(u, v, w) + ijk;
        const T fz_bot = flux2(a, kk, at_face(w, ijk));
        const T fz_top = flux2(a + kk, kk, at_face(w, ijk + kk));
        return advec_div2(a, 1, at_face(u, ijk), at_face(u, ijk + 1), dxi) +
               advec_div2(a, jj, at_face(v, ijk), at_face(v, ijk + jj), dyi) +
               advec_zdiv<Stag>(fz_bot, fz_top, k, rho, rhoh, dzi, dzhi);
    }
    SQ_HD void store(int i, int j, int k, T val) const { tend[index3(i, j, k, jj, kk)] += val; }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};
template <typename T>
using AdvecU2 = AdvecVel2<T, Axis::x>;
template <typename T>
using AdvecV2 = AdvecVel2<T, Axis::y>;
template <typename T>
using AdvecW2 = AdvecVel2<T, Axis::z>;

template <typename T>
struct AdvecS2 {
    static constexpr const char* name = "advec_s_2";
    T* SQ_RESTRICT st;
    const T *SQ_RESTRICT s, *SQ_RESTRICT u, *SQ_RESTRICT v, *SQ_RESTRICT w;
    const T *SQ_RESTRICT dzi, *SQ_RESTRICT rho, *SQ_RESTRICT rhoh;
    T dxi, dyi;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(st), sq::Use::inout).fields(SQ_ARG(s), SQ_ARG(u), SQ_ARG(v), SQ_ARG(w));
        d.profiles(SQ_ARG(dzi), SQ_ARG(rho), SQ_ARG(rhoh));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(jj), SQ_ARG(kk));
    }

    SQ_HD T value(int i, int j, int k) const {
        const int ijk = index3(i, j, k, jj, kk);
        const T* a = s + ijk;
        const T fz_bot = flux2(a, kk, w[ijk]);
        const T fz_top = flux2(a + kk, kk, w[ijk + kk]);
        return advec_div2(a, 1, u[ijk], u[ijk + 1], dxi) +
               advec_div2(a, jj, v[ijk], v[ijk + jj], dyi) +
               advec_zdiv_c(fz_bot, fz_top, k, rho, rhoh, dzi);
    }
    SQ_HD void store(int i, int j, int k, T val) const { st[index3(i, j, k, jj, kk)] += val; }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};

// ---- scheme 2i5 ----

// Velocity component along Stag: u (x), v (y) or w (z, on the w faces).
template <typename T, Axis Stag>
struct AdvecVel2i5 {
    static constexpr const char* name = Stag == Axis::x   ? "advec_u_2i5"
                                        : Stag == Axis::y ? "advec_v_2i5"
                                                          : "advec_w_2i5";
    // The vertical order drops within 3 levels.
    static constexpr Traits traits{
        .on_w_levels = Stag == Axis::z, .wall_levels = 3, .promise_interior = true};
    T* SQ_RESTRICT tend; // the component's tendency (ut, vt or wt), added to
    const T *SQ_RESTRICT u, *SQ_RESTRICT v, *SQ_RESTRICT w;
    // dzi at the centres (u, v), dzhi at the w faces (w).
    const T *SQ_RESTRICT dzi, *SQ_RESTRICT dzhi, *SQ_RESTRICT rho, *SQ_RESTRICT rhoh;
    T dxi, dyi;
    int jj, kk;
    int kstart, kend;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(tend), sq::Use::inout).fields(SQ_ARG(u), SQ_ARG(v), SQ_ARG(w));
        d.profiles(SQ_ARG(dzi), SQ_ARG(dzhi), SQ_ARG(rho), SQ_ARG(rhoh));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(jj), SQ_ARG(kk), SQ_ARG(kstart), SQ_ARG(kend));
    }
    // The 3-D inputs for the planes traversal: the component, then the other two at the
    // faces of its cell.
    static constexpr int plane_inputs = 3;
    SQ_HD static constexpr PlaneInput plane_input(int n) {
        return n == 0   ? plane_advected_2i5()
               : n == 1 ? plane_velocity_2i5(first_other(Stag), Stag)
                        : plane_velocity_2i5(second_other(Stag), Stag);
    }
    SQ_HD void plane_arrays(const T* (&a)[plane_inputs]) const {
        constexpr int sx = plane_slot(Stag, Axis::x), sy = plane_slot(Stag, Axis::y),
                      sz = plane_slot(Stag, Axis::z);
        a[sx] = u, a[sy] = v, a[sz] = w;
    }
    // The element store adds to, and store's sum with that element read ahead (old).
    static constexpr int plane_outputs = 1;
    SQ_HD const T* plane_output(int, int i, int j, int k) const {
        return tend + i + j * jj + k * kk;
    }
    SQ_HD void plane_store(int i, int j, int k, const T (&old)[1], T val) const {
        tend[i + j * jj + k * kk] = old[0] + val;
    }
    template <class In>
    SQ_HD T value_with(const In& in, int i, int j, int k) const {
        constexpr int sx = plane_slot(Stag, Axis::x), sy = plane_slot(Stag, Axis::y),
                      sz = plane_slot(Stag, Axis::z);
        return value_at(in(sx, u), in(sy, v), in(sz, w), i, j, k);
    }

    // Face form (backends/cpu/cpu_faces.h): flux_x/y/z are the fluxes through the low x, y
    // and z faces of point (i, j, k) (z: of the given order; order_z(k) is level k's),
    // from_fluxes the point's value from its six faces' fluxes, as value_at computes it.
    SQ_HD T flux_x(int i, int j, int k) const {
        const int ijk = i + j * jj + k * kk;
        return flux5(along<Stag>(u, v, w) + ijk, 1, at_face(u, ijk));
    }
    SQ_HD T flux_y(int i, int j, int k) const {
        const int ijk = i + j * jj + k * kk;
        return flux5(along<Stag>(u, v, w) + ijk, jj, at_face(v, ijk));
    }
    // w's low z face at level k is the centre k-1.
    SQ_HD T flux_z(int i, int j, int k, int order) const {
        return z_face_at(u, v, w, i + j * jj + k * kk, order);
    }
    SQ_HD int order_z(int k) const {
        if constexpr (Stag == Axis::z)
            return advec_order_centre_w(k - 1, kstart, kend);
        else
            return advec_order_face_c(k, kstart, kend);
    }
    SQ_HD T from_fluxes(T x_lo, T x_hi, T y_lo, T y_hi, T z_lo, T z_hi, int, int, int k) const {
        return advec_div_faces(x_lo, x_hi, dxi) + advec_div_faces(y_lo, y_hi, dyi) +
               zdiv(z_lo, z_hi, k);
    }
    // The vertical divergence at the component's level k from its two z faces' fluxes.
    SQ_HD T zdiv(T f_lo, T f_hi, int k) const {
        return advec_zdiv<Stag>(f_lo, f_hi, k, rho, rhoh, dzi, dzhi);
    }
    // The z-carry form (the planes traversal's plane_carry, backends/cuda/planes.cuh): the
    // flux through the low z face of the point at ijk, of the given order (order_z(k):
    // the face above level k is the one below k + 1, so a march computes each once), and
    // the point's value from its two z faces' fluxes, the sums of value_at.
    template <class P>
    SQ_HD T z_face_at(const P& u, const P& v, const P& w, int ijk, int order) const {
        return flux_z_order(along<Stag>(u, v, w) + ijk, kk, at_face(w, ijk), order);
    }
    template <class P>
    SQ_HD T value_at_z(const P& u, const P& v, const P& w, int i, int j, int k, T z_lo,
                       T z_hi) const {
        const int ijk = i + j * jj + k * kk;
        return xy_terms(along<Stag>(u, v, w) + ijk, u, v, ijk) + zdiv(z_lo, z_hi, k);
    }
    // The advecting velocity c at its low face of the point at ijk (velocity_at_face).
    template <class P>
    SQ_HD T at_face(const P& c, int ijk) const {
        return velocity_at_face<T, Stag>(c, ijk, jj, kk);
    }

    SQ_HD T value(int i, int j, int k) const { return value_at(u, v, w, i, j, k); }
    // u, v, w: the inputs, as pointers or accessors (value_with).
    template <class P>
    SQ_HD T value_at(const P& u, const P& v, const P& w, int i, int j, int k) const {
        const int ijk = i + j * jj + k * kk;
        const P a = along<Stag>(u, v, w) + ijk;
        return xy_terms(a, u, v, ijk) + z_term(a, w, ijk, k);
    }
    // The horizontal terms of the point at ijk (a: the advected component there).
    template <class P>
    SQ_HD T xy_terms(const P& a, const P& u, const P& v, int ijk) const {
        return advec_div5(a, 1, at_face(u, ijk), at_face(u, ijk + 1), dxi) +
               advec_div5(a, jj, at_face(v, ijk), at_face(v, ijk + jj), dyi);
    }
    // The vertical term at level k: w advects itself; u and v take w at their cells' faces.
    template <class P>
    SQ_HD T z_term(const P& a, const P& w, int ijk, int k) const {
        if constexpr (Stag == Axis::z)
            return advec_z_2i5_w(a, kk, k, kstart, kend, rho, rhoh, dzhi);
        else
            return advec_z_2i5_c(a, kk, at_face(w, ijk), at_face(w, ijk + kk), k, kstart, kend, rho,
                                 rhoh, dzi);
    }
    SQ_HD void store(int i, int j, int k, T val) const { tend[i + j * jj + k * kk] += val; }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};
template <typename T>
using AdvecU2i5 = AdvecVel2i5<T, Axis::x>;
template <typename T>
using AdvecV2i5 = AdvecVel2i5<T, Axis::y>;
template <typename T>
using AdvecW2i5 = AdvecVel2i5<T, Axis::z>;

template <typename T>
struct AdvecS2i5 {
    static constexpr const char* name = "advec_s_2i5";
    // The vertical order drops within 3 levels.
    static constexpr Traits traits{.wall_levels = 3, .promise_interior = true};
    T* SQ_RESTRICT st;
    const T *SQ_RESTRICT s, *SQ_RESTRICT u, *SQ_RESTRICT v, *SQ_RESTRICT w;
    const T *SQ_RESTRICT dzi, *SQ_RESTRICT rho, *SQ_RESTRICT rhoh;
    T dxi, dyi;
    int jj, kk;
    int kstart, kend;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(st), sq::Use::inout).fields(SQ_ARG(s), SQ_ARG(u), SQ_ARG(v), SQ_ARG(w));
        d.profiles(SQ_ARG(dzi), SQ_ARG(rho), SQ_ARG(rhoh));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(jj), SQ_ARG(kk), SQ_ARG(kstart), SQ_ARG(kend));
    }
    // The planes traversal's inputs: s, then u and v at the faces of s's cell, and w only on
    // the point's column at k..k+1 (a window).
    static constexpr int plane_inputs = 4;
    SQ_HD static constexpr PlaneInput plane_input(int n) {
        return n == 0   ? plane_advected_2i5()
               : n == 1 ? plane_velocity_2i5(Axis::x, Axis::none)
               : n == 2 ? plane_velocity_2i5(Axis::y, Axis::none)
                        : PlaneInput{0, 0, 0, 0, 0, 0, 0, 1};
    }
    SQ_HD void plane_arrays(const T* (&a)[plane_inputs]) const {
        a[0] = s, a[1] = u, a[2] = v, a[3] = w;
    }
    static constexpr int plane_outputs = 1;
    SQ_HD const T* plane_output(int, int i, int j, int k) const { return st + i + j * jj + k * kk; }
    SQ_HD void plane_store(int i, int j, int k, const T (&old)[1], T val) const {
        st[i + j * jj + k * kk] = old[0] + val;
    }
    template <class In>
    SQ_HD T value_with(const In& in, int i, int j, int k) const {
        return value_at(in(0, s), in(1, u), in(2, v), in(3, w), i, j, k);
    }

    // Face form (backends/cpu/cpu_faces.h): flux_x/y/z are the fluxes through the low x, y
    // and z faces of point (i, j, k) (z: of the given order; order_z(k) is level k's),
    // from_fluxes the point's value from its six faces' fluxes, as value_at computes it.
    SQ_HD T flux_x(int i, int j, int k) const {
        const int ijk = i + j * jj + k * kk;
        return flux5(s + ijk, 1, u[ijk]);
    }
    SQ_HD T flux_y(int i, int j, int k) const {
        const int ijk = i + j * jj + k * kk;
        return flux5(s + ijk, jj, v[ijk]);
    }
    SQ_HD T flux_z(int i, int j, int k, int order) const {
        return z_face_at(s, w, i + j * jj + k * kk, order);
    }
    SQ_HD int order_z(int k) const { return advec_order_face_c(k, kstart, kend); }
    SQ_HD T from_fluxes(T x_lo, T x_hi, T y_lo, T y_hi, T z_lo, T z_hi, int, int, int k) const {
        return advec_from_faces_c(x_lo, x_hi, y_lo, y_hi, z_lo, z_hi, k, dxi, dyi, rho, rhoh, dzi);
    }
    // The z-carry form's parts (AdvecVel2i5's): the flux through the low z face of the
    // point at ijk, of the given order, and the point's value from its two z faces' fluxes.
    template <class P>
    SQ_HD T z_face_at(const P& s, const P& w, int ijk, int order) const {
        return flux_z_order(s + ijk, kk, w[ijk], order);
    }
    template <class P>
    SQ_HD T value_at_z(const P& s, const P& u, const P& v, int i, int j, int k, T z_lo,
                       T z_hi) const {
        const int ijk = i + j * jj + k * kk;
        return xy_terms(s + ijk, u, v, ijk) + advec_zdiv_c(z_lo, z_hi, k, rho, rhoh, dzi);
    }

    SQ_HD T value(int i, int j, int k) const { return value_at(s, u, v, w, i, j, k); }
    template <class P>
    SQ_HD T value_at(const P& s, const P& u, const P& v, const P& w, int i, int j, int k) const {
        const int ijk = i + j * jj + k * kk;
        const P a = s + ijk;
        return xy_terms(a, u, v, ijk) +
               advec_z_2i5_c(a, kk, w[ijk], w[ijk + kk], k, kstart, kend, rho, rhoh, dzi);
    }
    // The horizontal terms of the point at ijk (a: s there).
    template <class P>
    SQ_HD T xy_terms(const P& a, const P& u, const P& v, int ijk) const {
        return advec_div5(a, 1, u[ijk], u[ijk + 1], dxi) +
               advec_div5(a, jj, v[ijk], v[ijk + jj], dyi);
    }
    SQ_HD void store(int i, int j, int k, T val) const { st[i + j * jj + k * kk] += val; }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};

// Every kernel of this header (tests and benchmarks iterate over them).
using AdvecKernels =
    KernelList<AdvecU2, AdvecV2, AdvecW2, AdvecS2, AdvecU2i5, AdvecV2i5, AdvecW2i5, AdvecS2i5>;

} // namespace sq
