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
enum class Axis { x, y, z, none };
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

// ---- scheme 2 ----

template <typename T>
struct AdvecU2 {
    static constexpr const char* name = "advec_u_2";
    T* SQ_RESTRICT ut;
    const T *SQ_RESTRICT u, *SQ_RESTRICT v, *SQ_RESTRICT w;
    const T *SQ_RESTRICT dzi, *SQ_RESTRICT rho, *SQ_RESTRICT rhoh;
    T dxi, dyi;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(ut), sq::Use::inout).fields(SQ_ARG(u), SQ_ARG(v), SQ_ARG(w));
        d.profiles(SQ_ARG(dzi), SQ_ARG(rho), SQ_ARG(rhoh));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(jj), SQ_ARG(kk));
    }

    SQ_HD T value(int i, int j, int k) const {
        const int ijk = index3(i, j, k, jj, kk);
        const T* a = u + ijk;
        const T fz_bot = flux2(a, kk, interp2(w[ijk - 1], w[ijk]));
        const T fz_top = flux2(a + kk, kk, interp2(w[ijk - 1 + kk], w[ijk + kk]));
        return advec_div2(a, 1, interp2(u[ijk - 1], u[ijk]), interp2(u[ijk], u[ijk + 1]), dxi) +
               advec_div2(a, jj, interp2(v[ijk - 1], v[ijk]), interp2(v[ijk - 1 + jj], v[ijk + jj]),
                          dyi) +
               advec_zdiv_c(fz_bot, fz_top, k, rho, rhoh, dzi);
    }
    SQ_HD void store(int i, int j, int k, T val) const { ut[index3(i, j, k, jj, kk)] += val; }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};

template <typename T>
struct AdvecV2 {
    static constexpr const char* name = "advec_v_2";
    T* SQ_RESTRICT vt;
    const T *SQ_RESTRICT u, *SQ_RESTRICT v, *SQ_RESTRICT w;
    const T *SQ_RESTRICT dzi, *SQ_RESTRICT rho, *SQ_RESTRICT rhoh;
    T dxi, dyi;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(vt), sq::Use::inout).fields(SQ_ARG(u), SQ_ARG(v), SQ_ARG(w));
        d.profiles(SQ_ARG(dzi), SQ_ARG(rho), SQ_ARG(rhoh));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(jj), SQ_ARG(kk));
    }

    SQ_HD T value(int i, int j, int k) const {
        const int ijk = index3(i, j, k, jj, kk);
        const T* a = v + ijk;
        const T fz_bot = flux2(a, kk, interp2(w[ijk - jj], w[ijk]));
        const T fz_top = flux2(a + kk, kk, interp2(w[ijk - jj + kk], w[ijk + kk]));
        return advec_div2(a, 1, interp2(u[ijk - jj], u[ijk]), interp2(u[ijk - jj + 1], u[ijk + 1]),
                          dxi) +
               advec_div2(a, jj, interp2(v[ijk - jj], v[ijk]), interp2(v[ijk], v[ijk + jj]), dyi) +
               advec_zdiv_c(fz_bot, fz_top, k, rho, rhoh, dzi);
    }
    SQ_HD void store(int i, int j, int k, T val) const { vt[index3(i, j, k, jj, kk)] += val; }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};

template <typename T>
struct AdvecW2 {
    static constexpr const char* name = "advec_w_2";
    static constexpr Traits traits{.on_w_levels = true};
    T* SQ_RESTRICT wt;
    const T *SQ_RESTRICT u, *SQ_RESTRICT v, *SQ_RESTRICT w;
    const T *SQ_RESTRICT dzhi, *SQ_RESTRICT rho, *SQ_RESTRICT rhoh;
    T dxi, dyi;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(wt), sq::Use::inout).fields(SQ_ARG(u), SQ_ARG(v), SQ_ARG(w));
        d.profiles(SQ_ARG(dzhi), SQ_ARG(rho), SQ_ARG(rhoh));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(jj), SQ_ARG(kk));
    }

    SQ_HD T value(int i, int j, int k) const {
        const int ijk = index3(i, j, k, jj, kk);
        const T* a = w + ijk;
        const T fz_bot = flux2(a, kk, interp2(w[ijk - kk], w[ijk]));
        const T fz_top = flux2(a + kk, kk, interp2(w[ijk], w[ijk + kk]));
        return advec_div2(a, 1, interp2(u[ijk - kk], u[ijk]), interp2(u[ijk - kk + 1], u[ijk + 1]),
                          dxi) +
               advec_div2(a, jj, interp2(v[ijk - kk], v[ijk]),
                          interp2(v[ijk - kk + jj], v[ijk + jj]), dyi) +
               advec_zdiv_w(fz_bot, fz_top, k, rho, rhoh, dzhi);
    }
    SQ_HD void store(int i, int j, int k, T val) const { wt[index3(i, j, k, jj, kk)] += val; }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};

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

template <typename T>
struct AdvecU2i5 {
    static constexpr const char* name = "advec_u_2i5";
    // The vertical order drops within 3 levels.
    static constexpr Traits traits{.wall_levels = 3, .promise_interior = true};
    T* SQ_RESTRICT ut;
    const T *SQ_RESTRICT u, *SQ_RESTRICT v, *SQ_RESTRICT w;
    const T *SQ_RESTRICT dzi, *SQ_RESTRICT rho, *SQ_RESTRICT rhoh;
    T dxi, dyi;
    int jj, kk;
    int kstart, kend;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(ut), sq::Use::inout).fields(SQ_ARG(u), SQ_ARG(v), SQ_ARG(w));
        d.profiles(SQ_ARG(dzi), SQ_ARG(rho), SQ_ARG(rhoh));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(jj), SQ_ARG(kk), SQ_ARG(kstart), SQ_ARG(kend));
    }
    // The 3-D inputs for the planes traversal: u, then v and w at the faces of u's cell.
    static constexpr int plane_inputs = 3;
    SQ_HD static constexpr PlaneInput plane_input(int n) {
        return n == 0   ? plane_advected_2i5()
               : n == 1 ? plane_velocity_2i5(Axis::y, Axis::x)
                        : plane_velocity_2i5(Axis::z, Axis::x);
    }
    SQ_HD void plane_arrays(const T* (&a)[plane_inputs]) const { a[0] = u, a[1] = v, a[2] = w; }
    // The element store adds to, and store's sum with that element read ahead (old).
    static constexpr int plane_outputs = 1;
    SQ_HD const T* plane_output(int, int i, int j, int k) const { return ut + i + j * jj + k * kk; }
    SQ_HD void plane_store(int i, int j, int k, const T (&old)[1], T val) const {
        ut[i + j * jj + k * kk] = old[0] + val;
    }
    template <class In>
    SQ_HD T value_with(const In& in, int i, int j, int k) const {
        return value_at(in(0, u), in(1, v), in(2, w), i, j, k);
    }

    // Face form (backends/cpu/cpu_faces.h): flux_x/y/z are the fluxes through the low x, y
    // and z faces of point (i, j, k) (z: of the given order; order_z(k) is level k's),
    // from_fluxes the point's value from its six faces' fluxes, as value_at computes it.
    SQ_HD T flux_x(int i, int j, int k) const {
        const int ijk = i + j * jj + k * kk;
        return flux5(u + ijk, 1, u_at_xface(u, ijk));
    }
    SQ_HD T flux_y(int i, int j, int k) const {
        const int ijk = i + j * jj + k * kk;
        return flux5(u + ijk, jj, v_at_yface(v, ijk));
    }
    SQ_HD T flux_z(int i, int j, int k, int order) const {
        const int ijk = i + j * jj + k * kk;
        return flux_z_order(u + ijk, kk, w_at_zface(w, ijk), order);
    }
    SQ_HD int order_z(int k) const { return advec_order_face_c(k, kstart, kend); }
    SQ_HD T from_fluxes(T x_lo, T x_hi, T y_lo, T y_hi, T z_lo, T z_hi, int, int, int k) const {
        return advec_from_faces_c(x_lo, x_hi, y_lo, y_hi, z_lo, z_hi, k, dxi, dyi, rho, rhoh, dzi);
    }
    // The advecting velocities at the low faces of the point at ijk (u's cell: centres in
    // x, edges in y and z).
    template <class P>
    SQ_HD T u_at_xface(const P& u, int ijk) const {
        return interp2<T>(u[ijk - 1], u[ijk]);
    }
    template <class P>
    SQ_HD T v_at_yface(const P& v, int ijk) const {
        return interp2<T>(v[ijk - 1], v[ijk]);
    }
    template <class P>
    SQ_HD T w_at_zface(const P& w, int ijk) const {
        return interp2<T>(w[ijk - 1], w[ijk]);
    }

    SQ_HD T value(int i, int j, int k) const { return value_at(u, v, w, i, j, k); }
    // u, v, w: the inputs, as pointers or accessors (value_with).
    template <class P>
    SQ_HD T value_at(const P& u, const P& v, const P& w, int i, int j, int k) const {
        const int ijk = i + j * jj + k * kk;
        const P a = u + ijk;
        return advec_div5(a, 1, u_at_xface(u, ijk), u_at_xface(u, ijk + 1), dxi) +
               advec_div5(a, jj, v_at_yface(v, ijk), v_at_yface(v, ijk + jj), dyi) +
               advec_z_2i5_c(a, kk, w_at_zface(w, ijk), w_at_zface(w, ijk + kk), k, kstart, kend,
                             rho, rhoh, dzi);
    }
    SQ_HD void store(int i, int j, int k, T val) const { ut[i + j * jj + k * kk] += val; }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};

template <typename T>
struct AdvecV2i5 {
    static constexpr const char* name = "advec_v_2i5";
    // The vertical order drops within 3 levels.
    static constexpr Traits traits{.wall_levels = 3, .promise_interior = true};
    T* SQ_RESTRICT vt;
    const T *SQ_RESTRICT u, *SQ_RESTRICT v, *SQ_RESTRICT w;
    const T *SQ_RESTRICT dzi, *SQ_RESTRICT rho, *SQ_RESTRICT rhoh;
    T dxi, dyi;
    int jj, kk;
    int kstart, kend;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(vt), sq::Use::inout).fields(SQ_ARG(u), SQ_ARG(v), SQ_ARG(w));
        d.profiles(SQ_ARG(dzi), SQ_ARG(rho), SQ_ARG(rhoh));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(jj), SQ_ARG(kk), SQ_ARG(kstart), SQ_ARG(kend));
    }
    // The planes traversal's inputs: v, then u and w at the faces of v's cell.
    static constexpr int plane_inputs = 3;
    SQ_HD static constexpr PlaneInput plane_input(int n) {
        return n == 0   ? plane_advected_2i5()
               : n == 1 ? plane_velocity_2i5(Axis::x, Axis::y)
                        : plane_velocity_2i5(Axis::z, Axis::y);
    }
    SQ_HD void plane_arrays(const T* (&a)[plane_inputs]) const { a[0] = v, a[1] = u, a[2] = w; }
    static constexpr int plane_outputs = 1;
    SQ_HD const T* plane_output(int, int i, int j, int k) const { return vt + i + j * jj + k * kk; }
    SQ_HD void plane_store(int i, int j, int k, const T (&old)[1], T val) const {
        vt[i + j * jj + k * kk] = old[0] + val;
    }
    template <class In>
    SQ_HD T value_with(const In& in, int i, int j, int k) const {
        return value_at(in(1, u), in(0, v), in(2, w), i, j, k);
    }

    // Face form (backends/cpu/cpu_faces.h): flux_x/y/z are the fluxes through the low x, y
    // and z faces of point (i, j, k) (z: of the given order; order_z(k) is level k's),
    // from_fluxes the point's value from its six faces' fluxes, as value_at computes it.
    SQ_HD T flux_x(int i, int j, int k) const {
        const int ijk = i + j * jj + k * kk;
        return flux5(v + ijk, 1, u_at_xface(u, ijk));
    }
    SQ_HD T flux_y(int i, int j, int k) const {
        const int ijk = i + j * jj + k * kk;
        return flux5(v + ijk, jj, v_at_yface(v, ijk));
    }
    SQ_HD T flux_z(int i, int j, int k, int order) const {
        const int ijk = i + j * jj + k * kk;
        return flux_z_order(v + ijk, kk, w_at_zface(w, ijk), order);
    }
    SQ_HD int order_z(int k) const { return advec_order_face_c(k, kstart, kend); }
    SQ_HD T from_fluxes(T x_lo, T x_hi, T y_lo, T y_hi, T z_lo, T z_hi, int, int, int k) const {
        return advec_from_faces_c(x_lo, x_hi, y_lo, y_hi, z_lo, z_hi, k, dxi, dyi, rho, rhoh, dzi);
    }
    // The advecting velocities at the low faces of the point at ijk (v's cell).
    template <class P>
    SQ_HD T u_at_xface(const P& u, int ijk) const {
        return interp2<T>(u[ijk - jj], u[ijk]);
    }
    template <class P>
    SQ_HD T v_at_yface(const P& v, int ijk) const {
        return interp2<T>(v[ijk - jj], v[ijk]);
    }
    template <class P>
    SQ_HD T w_at_zface(const P& w, int ijk) const {
        return interp2<T>(w[ijk - jj], w[ijk]);
    }

    SQ_HD T value(int i, int j, int k) const { return value_at(u, v, w, i, j, k); }
    template <class P>
    SQ_HD T value_at(const P& u, const P& v, const P& w, int i, int j, int k) const {
        const int ijk = i + j * jj + k * kk;
        const P a = v + ijk;
        return advec_div5(a, 1, u_at_xface(u, ijk), u_at_xface(u, ijk + 1), dxi) +
               advec_div5(a, jj, v_at_yface(v, ijk), v_at_yface(v, ijk + jj), dyi) +
               advec_z_2i5_c(a, kk, w_at_zface(w, ijk), w_at_zface(w, ijk + kk), k, kstart, kend,
                             rho, rhoh, dzi);
    }
    SQ_HD void store(int i, int j, int k, T val) const { vt[i + j * jj + k * kk] += val; }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};

template <typename T>
struct AdvecW2i5 {
    static constexpr const char* name = "advec_w_2i5";
    // The vertical order drops within 3 levels.
    static constexpr Traits traits{.on_w_levels = true, .wall_levels = 3, .promise_interior = true};
    T* SQ_RESTRICT wt;
    const T *SQ_RESTRICT u, *SQ_RESTRICT v, *SQ_RESTRICT w;
    const T *SQ_RESTRICT dzhi, *SQ_RESTRICT rho, *SQ_RESTRICT rhoh;
    T dxi, dyi;
    int jj, kk;
    int kstart, kend;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(wt), sq::Use::inout).fields(SQ_ARG(u), SQ_ARG(v), SQ_ARG(w));
        d.profiles(SQ_ARG(dzhi), SQ_ARG(rho), SQ_ARG(rhoh));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(jj), SQ_ARG(kk), SQ_ARG(kstart), SQ_ARG(kend));
    }
    // The planes traversal's inputs: w, then u and v at the faces of w's cell.
    static constexpr int plane_inputs = 3;
    SQ_HD static constexpr PlaneInput plane_input(int n) {
        return n == 0   ? plane_advected_2i5()
               : n == 1 ? plane_velocity_2i5(Axis::x, Axis::z)
                        : plane_velocity_2i5(Axis::y, Axis::z);
    }
    SQ_HD void plane_arrays(const T* (&a)[plane_inputs]) const { a[0] = w, a[1] = u, a[2] = v; }
    static constexpr int plane_outputs = 1;
    SQ_HD const T* plane_output(int, int i, int j, int k) const { return wt + i + j * jj + k * kk; }
    SQ_HD void plane_store(int i, int j, int k, const T (&old)[1], T val) const {
        wt[i + j * jj + k * kk] = old[0] + val;
    }
    template <class In>
    SQ_HD T value_with(const In& in, int i, int j, int k) const {
        return value_at(in(1, u), in(2, v), in(0, w), i, j, k);
    }

    // Face form (backends/cpu/cpu_faces.h): flux_x/y/z are the fluxes through the low x, y
    // and z faces of point (i, j, k) (z: of the given order; order_z(k) is level k's),
    // from_fluxes the point's value from its six faces' fluxes, as value_at computes it.
    SQ_HD T flux_x(int i, int j, int k) const {
        const int ijk = i + j * jj + k * kk;
        return flux5(w + ijk, 1, u_at_xface(u, ijk));
    }
    SQ_HD T flux_y(int i, int j, int k) const {
        const int ijk = i + j * jj + k * kk;
        return flux5(w + ijk, jj, v_at_yface(v, ijk));
    }
    // The low z face of w at level k is the centre k-1, w there as advec_z_2i5_w takes it.
    SQ_HD T flux_z(int i, int j, int k, int order) const {
        const int ijk = i + j * jj + k * kk;
        return flux_z_order(w + ijk, kk, interp2<T>(w[ijk - kk], w[ijk]), order);
    }
    SQ_HD int order_z(int k) const { return advec_order_centre_w(k - 1, kstart, kend); }
    SQ_HD T from_fluxes(T x_lo, T x_hi, T y_lo, T y_hi, T z_lo, T z_hi, int, int, int k) const {
        return advec_div_faces(x_lo, x_hi, dxi) + advec_div_faces(y_lo, y_hi, dyi) +
               advec_zdiv_w(z_lo, z_hi, k, rho, rhoh, dzhi);
    }
    // The advecting velocities at the low x and y faces of the point at ijk (w's cell).
    template <class P>
    SQ_HD T u_at_xface(const P& u, int ijk) const {
        return interp2<T>(u[ijk - kk], u[ijk]);
    }
    template <class P>
    SQ_HD T v_at_yface(const P& v, int ijk) const {
        return interp2<T>(v[ijk - kk], v[ijk]);
    }

    SQ_HD T value(int i, int j, int k) const { return value_at(u, v, w, i, j, k); }
    template <class P>
    SQ_HD T value_at(const P& u, const P& v, const P& w, int i, int j, int k) const {
        const int ijk = i + j * jj + k * kk;
        const P a = w + ijk;
        return advec_div5(a, 1, u_at_xface(u, ijk), u_at_xface(u, ijk + 1), dxi) +
               advec_div5(a, jj, v_at_yface(v, ijk), v_at_yface(v, ijk + jj), dyi) +
               advec_z_2i5_w(a, kk, k, kstart, kend, rho, rhoh, dzhi);
    }
    SQ_HD void store(int i, int j, int k, T val) const { wt[i + j * jj + k * kk] += val; }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};

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
        const int ijk = i + j * jj + k * kk;
        return flux_z_order(s + ijk, kk, w[ijk], order);
    }
    SQ_HD int order_z(int k) const { return advec_order_face_c(k, kstart, kend); }
    SQ_HD T from_fluxes(T x_lo, T x_hi, T y_lo, T y_hi, T z_lo, T z_hi, int, int, int k) const {
        return advec_from_faces_c(x_lo, x_hi, y_lo, y_hi, z_lo, z_hi, k, dxi, dyi, rho, rhoh, dzi);
    }

    SQ_HD T value(int i, int j, int k) const { return value_at(s, u, v, w, i, j, k); }
    template <class P>
    SQ_HD T value_at(const P& s, const P& u, const P& v, const P& w, int i, int j, int k) const {
        const int ijk = i + j * jj + k * kk;
        const P a = s + ijk;
        return advec_div5(a, 1, u[ijk], u[ijk + 1], dxi) +
               advec_div5(a, jj, v[ijk], v[ijk + jj], dyi) +
               advec_z_2i5_c(a, kk, w[ijk], w[ijk + kk], k, kstart, kend, rho, rhoh, dzi);
    }
    SQ_HD void store(int i, int j, int k, T val) const { st[i + j * jj + k * kk] += val; }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};

// Every kernel of this header (tests and benchmarks iterate over them).
using AdvecKernels =
    KernelList<AdvecU2, AdvecV2, AdvecW2, AdvecS2, AdvecU2i5, AdvecV2i5, AdvecW2i5, AdvecS2i5>;

} // namespace sq
