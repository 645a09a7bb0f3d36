#pragma once
// A substep's advection and diffusion tendencies in one pass over the grid: at each point
// the per-point values of the advection kernels (advec.cuh, with the buoyancy of thermo.cuh
// on w) and of the diffusion kernels (diff.cuh, diff_fused.cuh), 2i5 with Smagorinsky or 2
// with constant diffusion, so that the velocities (and evisc, th) are read once for both
// and each tendency is read and written once instead of twice. store() adds the advection
// first and the diffusion to that sum, the order of the separate kernels, so the results
// are bitwise those of the separate launches on the host (the GPU's compiler may contract
// multiply-adds differently in the two). The 2i5 kernels also subtract the sponge's damping
// (Sponge, timeint.cuh) from levels k >= sponge_kstart, as the sponge kernels would after
// them, so the damped fields' tendencies take no passes of their own.
// Two passes of the low-storage RK3 go too (docs/pass-count.md): with first_stage the
// tendencies start from zero instead of being read (the previous stage left them unwritten,
// PresOutRk's drop_tendencies), and the scalar kernels take the scalar's RK stage at once
// into a second array (scalar_stage), so no rk_update pass reads s and st again.
#include "advec.cuh"
#include "diff.cuh"
#include "diff_fused.cuh"
#include "thermo.cuh"
#include "timeint.cuh"

namespace sq {

// A tendency's value before this kernel adds to it: 0 at the RK's first stage (first_stage:
// the previous stage dropped it, so it is not read), else the stored one.
template <typename T>
SQ_HD T tendency_before(int first_stage, const T* at, int ijk) {
    return first_stage ? T(0) : at[ijk];
}

// The end of a scalar's tendency kernel at one point, given the new tendency t: st = t, or
// with s_next the RK stage at once, RkUpdate's arithmetic (bitwise): s_next = s + b dt t
// and st = t a_next, st left unwritten with drop_tendency (the last stage: the next step's
// first stage does not read it). s_next is a second array, as neighbours still read s.
template <typename T>
SQ_HD void scalar_stage(T* SQ_RESTRICT st, T* SQ_RESTRICT s_next, int ijk, T s_here, T t, T b_dt,
                        T a_next, int drop_tendency) {
    if (!s_next) {
        st[ijk] = t;
        return;
    }
    T s_new = s_here, st_new;
    rk_stage(s_new, st_new, t, b_dt, a_next);
    s_next[ijk] = s_new;
    if (!drop_tendency) st[ijk] = st_new;
}

// u, v and w with the buoyancy on w. Called for kstart <= k < kend; w is updated for
// k > kstart only (its wall face is fixed), as AdvecW2i5Buoy and DiffUVWSmag do.
template <typename T>
struct TendUVW2i5Smag {
    static constexpr const char* name = "tend_uvw_2i5_smag";
    // The advection's wall levels (its vertical order drops within 3 levels of the walls);
    // the diffusion's 1 lies inside them.
    static constexpr Traits traits{
        .wall_levels = max_(AdvecU2i5<T>::traits.wall_levels, DiffUVWSmag<T>::traits.wall_levels),
        .promise_interior = true};
    T *SQ_RESTRICT ut, *SQ_RESTRICT vt, *SQ_RESTRICT wt;
    const T *SQ_RESTRICT u, *SQ_RESTRICT v, *SQ_RESTRICT w, *SQ_RESTRICT evisc, *SQ_RESTRICT th;
    const T *SQ_RESTRICT dzi, *SQ_RESTRICT dzhi, *SQ_RESTRICT rho, *SQ_RESTRICT rhoh;
    T dxi, dyi, nu, g_over_thref, thref;
    const T *SQ_RESTRICT ufluxbot, *SQ_RESTRICT ufluxtop; // 2-D (ij), nullptr: resolved wall
    const T *SQ_RESTRICT vfluxbot, *SQ_RESTRICT vfluxtop;
    // The sponge on u and v (null sponge_coef: none).
    const T *SQ_RESTRICT sponge_coef, *SQ_RESTRICT uref, *SQ_RESTRICT vref;
    int sponge_kstart;
    int kstart, kend;
    int jj, kk;
    int first_stage; // 1: ut, vt, wt start from zero, unread (tendency_before)
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(ut), sq::Use::inout).field(SQ_ARG(vt), sq::Use::inout);
        d.field(SQ_ARG(wt), sq::Use::inout);
        d.fields(SQ_ARG(u), SQ_ARG(v), SQ_ARG(w), SQ_ARG(evisc), SQ_ARG(th));
        d.profiles(SQ_ARG(dzi), SQ_ARG(dzhi), SQ_ARG(rho), SQ_ARG(rhoh));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(nu), SQ_ARG(g_over_thref), SQ_ARG(thref));
        d.planes(SQ_ARG(ufluxbot), SQ_ARG(ufluxtop), SQ_ARG(vfluxbot), SQ_ARG(vfluxtop));
        d.profiles(SQ_ARG(sponge_coef), SQ_ARG(uref), SQ_ARG(vref));
        d.scalars(SQ_ARG(sponge_kstart), SQ_ARG(kstart), SQ_ARG(kend), SQ_ARG(jj), SQ_ARG(kk));
        d.scalar(SQ_ARG(first_stage));
    }

    SQ_HD AdvecU2i5<T> advec_u() const {
        return {.tend = ut,
                .u = u,
                .v = v,
                .w = w,
                .dzi = dzi,
                .dzhi = dzhi,
                .rho = rho,
                .rhoh = rhoh,
                .dxi = dxi,
                .dyi = dyi,
                .jj = jj,
                .kk = kk,
                .kstart = kstart,
                .kend = kend};
    }
    SQ_HD AdvecV2i5<T> advec_v() const {
        return {.tend = vt,
                .u = u,
                .v = v,
                .w = w,
                .dzi = dzi,
                .dzhi = dzhi,
                .rho = rho,
                .rhoh = rhoh,
                .dxi = dxi,
                .dyi = dyi,
                .jj = jj,
                .kk = kk,
                .kstart = kstart,
                .kend = kend};
    }
    SQ_HD AdvecW2i5Buoy<T> advec_w() const {
        return {.wt = wt,
                .u = u,
                .v = v,
                .w = w,
                .th = th,
                .dzhi = dzhi,
                .rho = rho,
                .rhoh = rhoh,
                .dxi = dxi,
                .dyi = dyi,
                .g_over_thref = g_over_thref,
                .thref = thref,
                .jj = jj,
                .kk = kk,
                .kstart = kstart,
                .kend = kend};
    }
    SQ_HD DiffUVWSmag<T> diffusion() const {
        return {.ut = ut,
                .vt = vt,
                .wt = wt,
                .u = u,
                .v = v,
                .w = w,
                .evisc = evisc,
                .dzi = dzi,
                .dzhi = dzhi,
                .rho = rho,
                .rhoh = rhoh,
                .dxi = dxi,
                .dyi = dyi,
                .nu = nu,
                .ufluxbot = ufluxbot,
                .ufluxtop = ufluxtop,
                .vfluxbot = vfluxbot,
                .vfluxtop = vfluxtop,
                .kstart = kstart,
                .kend = kend,
                .jj = jj,
                .kk = kk};
    }
    SQ_HD Sponge<T> sponge_u() const {
        return {.at = ut, .a = u, .aref = uref, .coef = sponge_coef, .jj = jj, .kk = kk};
    }
    SQ_HD Sponge<T> sponge_v() const {
        return {.at = vt, .a = v, .aref = vref, .coef = sponge_coef, .jj = jj, .kk = kk};
    }
    SQ_HD bool damped(int k) const { return sponge_coef && k >= sponge_kstart; }

    // The planes traversal's inputs: u, v, w (each the union of what the four kernels read
    // of it, each of which declares it under its own index), evisc (the diffusion's) and
    // th (the buoyancy's window); the three outputs.
    static constexpr int plane_inputs = 5;
    SQ_HD static constexpr PlaneInput plane_input(int n) {
        using AU = AdvecU2i5<T>;
        using AV = AdvecV2i5<T>;
        using AW = AdvecW2i5Buoy<T>;
        using D = DiffUVWSmag<T>;
        return n == 0   ? plane_union(plane_union(AU::plane_input(0), AV::plane_input(1)),
                                      plane_union(AW::plane_input(1), D::plane_input(0)))
               : n == 1 ? plane_union(plane_union(AU::plane_input(1), AV::plane_input(0)),
                                      plane_union(AW::plane_input(2), D::plane_input(1)))
               : n == 2 ? plane_union(plane_union(AU::plane_input(2), AV::plane_input(2)),
                                      plane_union(AW::plane_input(0), D::plane_input(2)))
               : n == 3 ? D::plane_input(3)
                        : AW::plane_input(3);
    }
    SQ_HD void plane_arrays(const T* (&a)[plane_inputs]) const {
        a[0] = u, a[1] = v, a[2] = w, a[3] = evisc, a[4] = th;
    }
    static constexpr int plane_outputs = 3;
    SQ_HD const T* plane_output(int n, int i, int j, int k) const {
        return (n == 0 ? ut : n == 1 ? vt : wt) + i + j * jj + k * kk;
    }
    SQ_HD bool reads_outputs() const { return !first_stage; }

    // The terms apart, so that store() can add them in the separate kernels' order: the
    // advection, the diffusion, then the sponge's damping subtracted (0 where undamped).
    using Tendencies = typename DiffUVWSmag<T>::Tendencies;
    struct Terms {
        Tendencies advec, diff;
        T damp_u, damp_v;
    };
    SQ_HD Terms value(int i, int j, int k) const {
        return terms({advec_u().value(i, j, k), advec_v().value(i, j, k),
                      k > kstart ? advec_w().value(i, j, k) : T(0)},
                     diffusion().value(i, j, k), u, v, i, j, k);
    }
    // value() with accessors for the inputs (the diffusion's indices are this kernel's).
    template <class In>
    SQ_HD Terms value_with(const In& in, int i, int j, int k) const {
        const auto pu = in(0, u), pv = in(1, v), pw = in(2, w);
        const AdvecW2i5Buoy<T> aw = advec_w();
        return terms({advec_u().value_at(pu, pv, pw, i, j, k),
                      advec_v().value_at(pu, pv, pw, i, j, k),
                      k > kstart ? aw.advec().value_at(pu, pv, pw, i, j, k) +
                                       aw.buoyancy().value_at(in(4, th), i, j, k)
                                 : T(0)},
                     diffusion().value_with(in, i, j, k), pu, pv, i, j, k);
    }
    // The terms from the parts' values, with the sponge's damping of u and v (pu, pv).
    template <class P>
    SQ_HD Terms terms(const Tendencies& advec, const Tendencies& diff, const P& pu, const P& pv,
                      int i, int j, int k) const {
        const bool d = damped(k);
        return {advec, diff, d ? sponge_u().damping(pu[i + j * jj + k * kk], k) : T(0),
                d ? sponge_v().damping(pv[i + j * jj + k * kk], k) : T(0)};
    }
    // The z-carry form (backends/cuda/planes.cuh, tunable plane_carry): the advection fluxes
    // and diffusion values through the low z faces of the point's components at level
    // k + up (up: 0 or 1, the faces below and above level k; w's only above kstart), and
    // value_with's terms from the faces below (lo) and above (hi) level k. A march computes
    // each face once, carrying hi up to the next level as its lo.
    struct ZFaces {
        Tendencies advec, diff;
    };
    template <class In>
    SQ_HD ZFaces z_faces_with(const In& in, int i, int j, int k, int up) const {
        const auto pu = in(0, u), pv = in(1, v), pw = in(2, w);
        // The point at level k + up, indexed from level k's so that PlanePtr splits the offset.
        const int ijk = i + j * jj + k * kk + up * kk, kf = k + up;
        const AdvecU2i5<T> au = advec_u();
        const AdvecV2i5<T> av = advec_v();
        const AdvecW2i5<T> aw = advec_w().advec();
        return {{au.z_face_at(pu, pv, pw, ijk, au.order_z(kf)),
                 av.z_face_at(pu, pv, pw, ijk, av.order_z(kf)),
                 kf > kstart ? aw.z_face_at(pu, pv, pw, ijk, aw.order_z(kf)) : T(0)},
                diffusion().z_faces_at(pu, pv, pw, in(3, evisc), ijk, kf)};
    }
    template <class In>
    SQ_HD Terms value_with_z(const In& in, int i, int j, int k, const ZFaces& lo,
                             const ZFaces& hi) const {
        const auto pu = in(0, u), pv = in(1, v), pw = in(2, w);
        const AdvecW2i5Buoy<T> aw = advec_w();
        return terms({advec_u().value_at_z(pu, pv, pw, i, j, k, lo.advec.u, hi.advec.u),
                      advec_v().value_at_z(pu, pv, pw, i, j, k, lo.advec.v, hi.advec.v),
                      k > kstart
                          ? aw.advec().value_at_z(pu, pv, pw, i, j, k, lo.advec.w, hi.advec.w) +
                                aw.buoyancy().value_at(in(4, th), i, j, k)
                          : T(0)},
                     diffusion().value_at_z(pu, pv, pw, in(3, evisc), i, j, k, lo.diff, hi.diff),
                     pu, pv, i, j, k);
    }
    // store's sums with the outputs read ahead (old).
    SQ_HD void plane_store(int i, int j, int k, const T (&old)[3], const Terms& val) const {
        const int ijk = i + j * jj + k * kk;
        T tu = (old[0] + val.advec.u) + val.diff.u, tv = (old[1] + val.advec.v) + val.diff.v;
        if (damped(k)) tu -= val.damp_u, tv -= val.damp_v;
        ut[ijk] = tu;
        vt[ijk] = tv;
        if (k > kstart) wt[ijk] = (old[2] + val.advec.w) + val.diff.w;
    }
    SQ_HD void store(int i, int j, int k, const Terms& val) const {
        const int ijk = i + j * jj + k * kk;
        const T old[3] = {tendency_before(first_stage, ut, ijk),
                          tendency_before(first_stage, vt, ijk),
                          k > kstart ? tendency_before(first_stage, wt, ijk) : T(0)};
        plane_store(i, j, k, old, val);
    }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};

// A scalar: AdvecS2i5 and DiffCSmag. Called for kstart <= k < kend.
template <typename T>
struct TendS2i5Smag {
    static constexpr const char* name = "tend_s_2i5_smag";
    static constexpr Traits traits{
        .wall_levels = max_(AdvecS2i5<T>::traits.wall_levels, DiffCSmag<T>::traits.wall_levels),
        .promise_interior = true};
    T* SQ_RESTRICT st;
    const T *SQ_RESTRICT s, *SQ_RESTRICT u, *SQ_RESTRICT v, *SQ_RESTRICT w, *SQ_RESTRICT evisc;
    const T *SQ_RESTRICT dzi, *SQ_RESTRICT dzhi, *SQ_RESTRICT rho, *SQ_RESTRICT rhoh;
    T dxi, dyi, prandtl_t_inv, kappa;
    const T *SQ_RESTRICT fluxbot, *SQ_RESTRICT fluxtop;  // 2-D (ij), nullptr: resolved wall
    const T *SQ_RESTRICT sponge_coef, *SQ_RESTRICT sref; // the sponge (null coef: none)
    int sponge_kstart;
    int kstart, kend;
    int jj, kk;
    // The RK stage (scalar_stage; null s_next: none, st is the output) and first_stage.
    T* SQ_RESTRICT s_next;
    T b_dt, a_next;
    int first_stage, drop_tendency;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(st), sq::Use::inout);
        d.fields(SQ_ARG(s), SQ_ARG(u), SQ_ARG(v), SQ_ARG(w), SQ_ARG(evisc));
        d.profiles(SQ_ARG(dzi), SQ_ARG(dzhi), SQ_ARG(rho), SQ_ARG(rhoh));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(prandtl_t_inv), SQ_ARG(kappa));
        d.planes(SQ_ARG(fluxbot), SQ_ARG(fluxtop));
        d.profiles(SQ_ARG(sponge_coef), SQ_ARG(sref));
        d.scalars(SQ_ARG(sponge_kstart), SQ_ARG(kstart), SQ_ARG(kend), SQ_ARG(jj), SQ_ARG(kk));
        d.field(SQ_ARG(s_next), sq::Use::out);
        d.scalars(SQ_ARG(b_dt), SQ_ARG(a_next), SQ_ARG(first_stage), SQ_ARG(drop_tendency));
    }

    SQ_HD AdvecS2i5<T> advec() const {
        return {.st = st,
                .s = s,
                .u = u,
                .v = v,
                .w = w,
                .dzi = dzi,
                .rho = rho,
                .rhoh = rhoh,
                .dxi = dxi,
                .dyi = dyi,
                .jj = jj,
                .kk = kk,
                .kstart = kstart,
                .kend = kend};
    }
    SQ_HD DiffCSmag<T> diffusion() const {
        return {.st = st,
                .s = s,
                .evisc = evisc,
                .dzi = dzi,
                .dzhi = dzhi,
                .rho = rho,
                .rhoh = rhoh,
                .dxi = dxi,
                .dyi = dyi,
                .prandtl_t_inv = prandtl_t_inv,
                .kappa = kappa,
                .fluxbot = fluxbot,
                .fluxtop = fluxtop,
                .kstart = kstart,
                .kend = kend,
                .jj = jj,
                .kk = kk};
    }
    SQ_HD Sponge<T> sponge() const {
        return {.at = st, .a = s, .aref = sref, .coef = sponge_coef, .jj = jj, .kk = kk};
    }
    SQ_HD bool damped(int k) const { return sponge_coef && k >= sponge_kstart; }

    // The planes traversal's inputs: AdvecS2i5's (s, u, v, w; DiffCSmag's reads of s lie
    // inside s's), then evisc at x, y -1..1 on the point's level and -1..1 on its column.
    static constexpr int plane_inputs = 5;
    SQ_HD static constexpr PlaneInput plane_input(int n) {
        return n < 4 ? AdvecS2i5<T>::plane_input(n) : PlaneInput{-1, 1, -1, 1, 0, 0, -1, 1};
    }
    SQ_HD void plane_arrays(const T* (&a)[plane_inputs]) const {
        a[0] = s, a[1] = u, a[2] = v, a[3] = w, a[4] = evisc;
    }
    static constexpr int plane_outputs = 1;
    SQ_HD const T* plane_output(int, int i, int j, int k) const { return st + i + j * jj + k * kk; }
    SQ_HD bool reads_outputs() const { return !first_stage; }

    struct Terms {
        T advec, diff, damp;
        T s_here; // the scalar at the point (scalar_stage's)
    };
    SQ_HD Terms value(int i, int j, int k) const {
        return terms(advec().value(i, j, k), diffusion().value(i, j, k), s, i, j, k);
    }
    template <class In>
    SQ_HD Terms value_with(const In& in, int i, int j, int k) const {
        const auto ps = in(0, s);
        return terms(advec().value_with(in, i, j, k),
                     diffusion().value_at(ps, in(4, evisc), i, j, k), ps, i, j, k);
    }
    // The z-carry form (TendUVW2i5Smag's): the advection flux and the diffusion value at
    // the low z face of level k + up, and the terms from the faces below and above level k.
    struct ZFaces {
        T advec, diff;
    };
    template <class In>
    SQ_HD ZFaces z_faces_with(const In& in, int i, int j, int k, int up) const {
        const auto ps = in(0, s);
        const int ijk = i + j * jj + k * kk + up * kk, kf = k + up;
        const AdvecS2i5<T> a = advec();
        return {a.z_face_at(ps, in(3, w), ijk, a.order_z(kf)),
                diffusion().z_face_at(ps, in(4, evisc), ijk, kf)};
    }
    template <class In>
    SQ_HD Terms value_with_z(const In& in, int i, int j, int k, const ZFaces& lo,
                             const ZFaces& hi) const {
        const auto ps = in(0, s);
        return terms(advec().value_at_z(ps, in(1, u), in(2, v), i, j, k, lo.advec, hi.advec),
                     diffusion().value_at_z(ps, in(4, evisc), i, j, k, lo.diff, hi.diff), ps, i, j,
                     k);
    }
    // The terms from the parts' values, with the sponge's damping and s at the point (ps).
    template <class P>
    SQ_HD Terms terms(T advec, T diff, const P& ps, int i, int j, int k) const {
        const T s_here = ps[i + j * jj + k * kk];
        return {advec, diff, damped(k) ? sponge().damping(s_here, k) : T(0), s_here};
    }
    SQ_HD void plane_store(int i, int j, int k, const T (&old)[1], const Terms& val) const {
        T t = (old[0] + val.advec) + val.diff;
        if (damped(k)) t -= val.damp;
        scalar_stage(st, s_next, i + j * jj + k * kk, val.s_here, t, b_dt, a_next, drop_tendency);
    }
    SQ_HD void store(int i, int j, int k, const Terms& val) const {
        const T old[1] = {tendency_before(first_stage, st, i + j * jj + k * kk)};
        plane_store(i, j, k, old, val);
    }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};

// The same for 2nd-order advection and constant diffusion (the DNS cases): AdvecU2,
// AdvecV2, AdvecW2Buoy and DiffU2, DiffV2, DiffW2 with K = nu. Called for
// kstart <= k < kend; w is updated for k > kstart only.
template <typename T>
struct TendUVW2Const {
    static constexpr const char* name = "tend_uvw_2_const";
    T *SQ_RESTRICT ut, *SQ_RESTRICT vt, *SQ_RESTRICT wt;
    const T *SQ_RESTRICT u, *SQ_RESTRICT v, *SQ_RESTRICT w, *SQ_RESTRICT th;
    const T *SQ_RESTRICT dzi, *SQ_RESTRICT dzhi, *SQ_RESTRICT rho, *SQ_RESTRICT rhoh;
    T dxi, dyi, nu, g_over_thref, thref;
    int kstart;
    int jj, kk;
    int first_stage; // 1: ut, vt, wt start from zero, unread (tendency_before)
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(ut), sq::Use::inout).field(SQ_ARG(vt), sq::Use::inout);
        d.field(SQ_ARG(wt), sq::Use::inout);
        d.fields(SQ_ARG(u), SQ_ARG(v), SQ_ARG(w), SQ_ARG(th));
        d.profiles(SQ_ARG(dzi), SQ_ARG(dzhi), SQ_ARG(rho), SQ_ARG(rhoh));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(nu), SQ_ARG(g_over_thref), SQ_ARG(thref));
        d.scalars(SQ_ARG(kstart), SQ_ARG(jj), SQ_ARG(kk), SQ_ARG(first_stage));
    }

    using Tendencies = typename DiffUVWSmag<T>::Tendencies;
    struct Terms {
        Tendencies advec, diff;
    };
    SQ_HD Terms value(int i, int j, int k) const {
        const AdvecU2<T> advec_u{.tend = ut,
                                 .u = u,
                                 .v = v,
                                 .w = w,
                                 .dzi = dzi,
                                 .dzhi = dzhi,
                                 .rho = rho,
                                 .rhoh = rhoh,
                                 .dxi = dxi,
                                 .dyi = dyi,
                                 .jj = jj,
                                 .kk = kk};
        const AdvecV2<T> advec_v{.tend = vt,
                                 .u = u,
                                 .v = v,
                                 .w = w,
                                 .dzi = dzi,
                                 .dzhi = dzhi,
                                 .rho = rho,
                                 .rhoh = rhoh,
                                 .dxi = dxi,
                                 .dyi = dyi,
                                 .jj = jj,
                                 .kk = kk};
        const AdvecW2Buoy<T> advec_w{.wt = wt,
                                     .u = u,
                                     .v = v,
                                     .w = w,
                                     .th = th,
                                     .dzhi = dzhi,
                                     .rho = rho,
                                     .rhoh = rhoh,
                                     .dxi = dxi,
                                     .dyi = dyi,
                                     .g_over_thref = g_over_thref,
                                     .thref = thref,
                                     .jj = jj,
                                     .kk = kk};
        const DiffU2<T> diff_u{.at = ut,
                               .a = u,
                               .dzi = dzi,
                               .dzhi = dzhi,
                               .rho = rho,
                               .rhoh = rhoh,
                               .dxi = dxi,
                               .dyi = dyi,
                               .K = nu,
                               .jj = jj,
                               .kk = kk};
        const DiffV2<T> diff_v{.at = vt,
                               .a = v,
                               .dzi = dzi,
                               .dzhi = dzhi,
                               .rho = rho,
                               .rhoh = rhoh,
                               .dxi = dxi,
                               .dyi = dyi,
                               .K = nu,
                               .jj = jj,
                               .kk = kk};
        const DiffW2<T> diff_w{.at = wt,
                               .a = w,
                               .dzi = dzi,
                               .dzhi = dzhi,
                               .rho = rho,
                               .rhoh = rhoh,
                               .dxi = dxi,
                               .dyi = dyi,
                               .K = nu,
                               .jj = jj,
                               .kk = kk};
        const bool on_w = k > kstart;
        return {
            {advec_u.value(i, j, k), advec_v.value(i, j, k), on_w ? advec_w.value(i, j, k) : T(0)},
            {diff_u.value(i, j, k), diff_v.value(i, j, k), on_w ? diff_w.value(i, j, k) : T(0)}};
    }
    SQ_HD void store(int i, int j, int k, const Terms& val) const {
        const int ijk = i + j * jj + k * kk;
        ut[ijk] = (tendency_before(first_stage, ut, ijk) + val.advec.u) + val.diff.u;
        vt[ijk] = (tendency_before(first_stage, vt, ijk) + val.advec.v) + val.diff.v;
        if (k > kstart)
            wt[ijk] = (tendency_before(first_stage, wt, ijk) + val.advec.w) + val.diff.w;
    }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};

// A scalar: AdvecS2 and DiffC2 with K = kappa. Called for kstart <= k < kend.
template <typename T>
struct TendS2Const {
    static constexpr const char* name = "tend_s_2_const";
    T* SQ_RESTRICT st;
    const T *SQ_RESTRICT s, *SQ_RESTRICT u, *SQ_RESTRICT v, *SQ_RESTRICT w;
    const T *SQ_RESTRICT dzi, *SQ_RESTRICT dzhi, *SQ_RESTRICT rho, *SQ_RESTRICT rhoh;
    T dxi, dyi, kappa;
    int jj, kk;
    // The RK stage (scalar_stage; null s_next: none, st is the output) and first_stage.
    T* SQ_RESTRICT s_next;
    T b_dt, a_next;
    int first_stage, drop_tendency;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(st), sq::Use::inout).fields(SQ_ARG(s), SQ_ARG(u), SQ_ARG(v), SQ_ARG(w));
        d.profiles(SQ_ARG(dzi), SQ_ARG(dzhi), SQ_ARG(rho), SQ_ARG(rhoh));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(kappa), SQ_ARG(jj), SQ_ARG(kk));
        d.field(SQ_ARG(s_next), sq::Use::out);
        d.scalars(SQ_ARG(b_dt), SQ_ARG(a_next), SQ_ARG(first_stage), SQ_ARG(drop_tendency));
    }

    struct Terms {
        T advec, diff;
    };
    SQ_HD Terms value(int i, int j, int k) const {
        const AdvecS2<T> advec{.st = st,
                               .s = s,
                               .u = u,
                               .v = v,
                               .w = w,
                               .dzi = dzi,
                               .rho = rho,
                               .rhoh = rhoh,
                               .dxi = dxi,
                               .dyi = dyi,
                               .jj = jj,
                               .kk = kk};
        const DiffC2<T> diff{.at = st,
                             .a = s,
                             .dzi = dzi,
                             .dzhi = dzhi,
                             .rho = rho,
                             .rhoh = rhoh,
                             .dxi = dxi,
                             .dyi = dyi,
                             .K = kappa,
                             .jj = jj,
                             .kk = kk};
        return {advec.value(i, j, k), diff.value(i, j, k)};
    }
    SQ_HD void store(int i, int j, int k, const Terms& val) const {
        const int ijk = i + j * jj + k * kk;
        const T t = (tendency_before(first_stage, st, ijk) + val.advec) + val.diff;
        scalar_stage(st, s_next, ijk, s[ijk], t, b_dt, a_next, drop_tendency);
    }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};

// Every kernel of this header (tests and benchmarks iterate over them).
using TendFusedKernels = KernelList<TendUVW2i5Smag, TendS2i5Smag, TendUVW2Const, TendS2Const>;

} // namespace sq
