#pragma once
// A substep's advection and diffusion tendencies in one pass over the grid: at each point
// the per-point values of the advection kernels (advec.cuh, with the buoyancy of thermo.cuh
// on w) and of the diffusion kernels (diff.cuh, diff_fused.cuh), 2i5 with Smagorinsky or 2
// with constant diffusion, so that the velocities (and evisc, th) are read once for both
// and each tendency is read and written once instead of twice. store() adds the advection
// first and the diffusion to that sum, the order of the separate kernels, so the results
// are bitwise those of the separate launches.
#include "advec.cuh"
#include "diff.cuh"
#include "diff_fused.cuh"
#include "thermo.cuh"

namespace sq {

// u, v and w with the buoyancy on w. Called for kstart <= k < kend; w is updated for
// k > kstart only (its wall face is fixed), as AdvecW2i5Buoy and DiffUVWSmag do.
template <typename T>
struct TendUVW2i5Smag {
    static constexpr const char* name = "tend_uvw_2i5_smag";
    T *SQ_RESTRICT ut, *SQ_RESTRICT vt, *SQ_RESTRICT wt;
    const T *SQ_RESTRICT u, *SQ_RESTRICT v, *SQ_RESTRICT w, *SQ_RESTRICT evisc, *SQ_RESTRICT th;
    const T *SQ_RESTRICT dzi, *SQ_RESTRICT dzhi, *SQ_RESTRICT rho, *SQ_RESTRICT rhoh;
    T dxi, dyi, nu, g_over_thref, thref;
    const T *SQ_RESTRICT ufluxbot, *SQ_RESTRICT ufluxtop; // 2-D (ij), nullptr: resolved wall
    const T *SQ_RESTRICT vfluxbot, *SQ_RESTRICT vfluxtop;
    int kstart, kend;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD void declare(D& d) const {
        d.field(SQ_ARG(ut), sq::Use::inout).field(SQ_ARG(vt), sq::Use::inout);
        d.field(SQ_ARG(wt), sq::Use::inout);
        d.fields(SQ_ARG(u), SQ_ARG(v), SQ_ARG(w), SQ_ARG(evisc), SQ_ARG(th));
        d.profiles(SQ_ARG(dzi), SQ_ARG(dzhi), SQ_ARG(rho), SQ_ARG(rhoh));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(nu), SQ_ARG(g_over_thref), SQ_ARG(thref));
        d.planes(SQ_ARG(ufluxbot), SQ_ARG(ufluxtop), SQ_ARG(vfluxbot), SQ_ARG(vfluxtop));
        d.scalars(SQ_ARG(kstart), SQ_ARG(kend), SQ_ARG(jj), SQ_ARG(kk));
    }
    // The advection's (its vertical order drops within 3 levels of the walls); the
    // diffusion's 1 lies inside it.
    static constexpr int wall_levels = max_(AdvecU2i5<T>::wall_levels, DiffUVWSmag<T>::wall_levels);

    SQ_HD AdvecU2i5<T> advec_u() const {
        return {ut, u, v, w, dzi, rho, rhoh, dxi, dyi, jj, kk, kstart, kend};
    }
    SQ_HD AdvecV2i5<T> advec_v() const {
        return {vt, u, v, w, dzi, rho, rhoh, dxi, dyi, jj, kk, kstart, kend};
    }
    SQ_HD AdvecW2i5Buoy<T> advec_w() const {
        return {wt,           u,     v,  w,  th,     dzhi, rho, rhoh, dxi, dyi,
                g_over_thref, thref, jj, kk, kstart, kend};
    }
    SQ_HD DiffUVWSmag<T> diffusion() const {
        return {ut,  vt,  wt, u,        v,        w,        evisc,    dzi,    dzhi, rho, rhoh,
                dxi, dyi, nu, ufluxbot, ufluxtop, vfluxbot, vfluxtop, kstart, kend, jj,  kk};
    }

    // The two terms apart, so that store() can add them in the separate kernels' order.
    using Tendencies = typename DiffUVWSmag<T>::Tendencies;
    struct Terms {
        Tendencies advec, diff;
    };
    SQ_HD Terms value(int i, int j, int k) const {
        return {{advec_u().value(i, j, k), advec_v().value(i, j, k),
                 k > kstart ? advec_w().value(i, j, k) : T(0)},
                diffusion().value(i, j, k)};
    }
    SQ_HD void store(int i, int j, int k, const Terms& val) const {
        const int ijk = i + j * jj + k * kk;
        ut[ijk] = (ut[ijk] + val.advec.u) + val.diff.u;
        vt[ijk] = (vt[ijk] + val.advec.v) + val.diff.v;
        if (k > kstart) wt[ijk] = (wt[ijk] + val.advec.w) + val.diff.w;
    }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};

// A scalar: AdvecS2i5 and DiffCSmag. Called for kstart <= k < kend.
template <typename T>
struct TendS2i5Smag {
    static constexpr const char* name = "tend_s_2i5_smag";
    T* SQ_RESTRICT st;
    const T *SQ_RESTRICT s, *SQ_RESTRICT u, *SQ_RESTRICT v, *SQ_RESTRICT w, *SQ_RESTRICT evisc;
    const T *SQ_RESTRICT dzi, *SQ_RESTRICT dzhi, *SQ_RESTRICT rho, *SQ_RESTRICT rhoh;
    T dxi, dyi, prandtl_t_inv, kappa;
    const T *SQ_RESTRICT fluxbot, *SQ_RESTRICT fluxtop; // 2-D (ij), nullptr: resolved wall
    int kstart, kend;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD void declare(D& d) const {
        d.field(SQ_ARG(st), sq::Use::inout);
        d.fields(SQ_ARG(s), SQ_ARG(u), SQ_ARG(v), SQ_ARG(w), SQ_ARG(evisc));
        d.profiles(SQ_ARG(dzi), SQ_ARG(dzhi), SQ_ARG(rho), SQ_ARG(rhoh));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(prandtl_t_inv), SQ_ARG(kappa));
        d.planes(SQ_ARG(fluxbot), SQ_ARG(fluxtop));
        d.scalars(SQ_ARG(kstart), SQ_ARG(kend), SQ_ARG(jj), SQ_ARG(kk));
    }
    static constexpr int wall_levels = max_(AdvecS2i5<T>::wall_levels, DiffCSmag<T>::wall_levels);

    SQ_HD AdvecS2i5<T> advec() const {
        return {st, s, u, v, w, dzi, rho, rhoh, dxi, dyi, jj, kk, kstart, kend};
    }
    SQ_HD DiffCSmag<T> diffusion() const {
        return {st,    s,       evisc,   dzi,    dzhi, rho, rhoh, dxi, dyi, prandtl_t_inv,
                kappa, fluxbot, fluxtop, kstart, kend, jj,  kk};
    }

    struct Terms {
        T advec, diff;
    };
    SQ_HD Terms value(int i, int j, int k) const {
        return {advec().value(i, j, k), diffusion().value(i, j, k)};
    }
    SQ_HD void store(int i, int j, int k, const Terms& val) const {
        const int ijk = i + j * jj + k * kk;
        st[ijk] = (st[ijk] + val.advec) + val.diff;
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
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD void declare(D& d) const {
        d.field(SQ_ARG(ut), sq::Use::inout).field(SQ_ARG(vt), sq::Use::inout);
        d.field(SQ_ARG(wt), sq::Use::inout);
        d.fields(SQ_ARG(u), SQ_ARG(v), SQ_ARG(w), SQ_ARG(th));
        d.profiles(SQ_ARG(dzi), SQ_ARG(dzhi), SQ_ARG(rho), SQ_ARG(rhoh));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(nu), SQ_ARG(g_over_thref), SQ_ARG(thref));
        d.scalars(SQ_ARG(kstart), SQ_ARG(jj), SQ_ARG(kk));
    }

    using Tendencies = typename DiffUVWSmag<T>::Tendencies;
    struct Terms {
        Tendencies advec, diff;
    };
    SQ_HD Terms value(int i, int j, int k) const {
        const AdvecU2<T> advec_u{ut, u, v, w, dzi, rho, rhoh, dxi, dyi, jj, kk};
        const AdvecV2<T> advec_v{vt, u, v, w, dzi, rho, rhoh, dxi, dyi, jj, kk};
        const AdvecW2Buoy<T> advec_w{wt,           u,     v,  w, th, dzhi, rho, rhoh, dxi, dyi,
                                     g_over_thref, thref, jj, kk};
        const DiffU2<T> diff_u{ut, u, dzi, dzhi, rho, rhoh, dxi, dyi, nu, jj, kk};
        const DiffV2<T> diff_v{vt, v, dzi, dzhi, rho, rhoh, dxi, dyi, nu, jj, kk};
        const DiffW2<T> diff_w{wt, w, dzi, dzhi, rho, rhoh, dxi, dyi, nu, jj, kk};
        const bool on_w = k > kstart;
        return {
            {advec_u.value(i, j, k), advec_v.value(i, j, k), on_w ? advec_w.value(i, j, k) : T(0)},
            {diff_u.value(i, j, k), diff_v.value(i, j, k), on_w ? diff_w.value(i, j, k) : T(0)}};
    }
    SQ_HD void store(int i, int j, int k, const Terms& val) const {
        const int ijk = i + j * jj + k * kk;
        ut[ijk] = (ut[ijk] + val.advec.u) + val.diff.u;
        vt[ijk] = (vt[ijk] + val.advec.v) + val.diff.v;
        if (k > kstart) wt[ijk] = (wt[ijk] + val.advec.w) + val.diff.w;
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
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD void declare(D& d) const {
        d.field(SQ_ARG(st), sq::Use::inout).fields(SQ_ARG(s), SQ_ARG(u), SQ_ARG(v), SQ_ARG(w));
        d.profiles(SQ_ARG(dzi), SQ_ARG(dzhi), SQ_ARG(rho), SQ_ARG(rhoh));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(kappa), SQ_ARG(jj), SQ_ARG(kk));
    }

    struct Terms {
        T advec, diff;
    };
    SQ_HD Terms value(int i, int j, int k) const {
        const AdvecS2<T> advec{st, s, u, v, w, dzi, rho, rhoh, dxi, dyi, jj, kk};
        const DiffC2<T> diff{st, s, dzi, dzhi, rho, rhoh, dxi, dyi, kappa, jj, kk};
        return {advec.value(i, j, k), diff.value(i, j, k)};
    }
    SQ_HD void store(int i, int j, int k, const Terms& val) const {
        const int ijk = i + j * jj + k * kk;
        st[ijk] = (st[ijk] + val.advec) + val.diff;
    }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};

// Every kernel of this header (tests and benchmarks iterate over them).
using TendFusedKernels = KernelList<TendUVW2i5Smag, TendS2i5Smag, TendUVW2Const, TendS2Const>;

} // namespace sq
