#pragma once
// Time integration (docs/numerics.md "Time integration") and the sponge layer.
#include "common.cuh"
#include "pressure.cuh"

namespace sq {

// One low-storage RK stage at one point, given the tendency's current value at_value.
template <typename T>
SQ_HD void rk_stage(T& a, T& at, T at_value, T b_dt, T a_next) {
    a += b_dt * at_value;
    at = at_value * a_next;
}

// rk_stage at element ijk of a and at; with drop_at the tendency is not written (the last
// stage, when the next step's fused kernels start it from zero: tend_fused.cuh).
template <typename T>
SQ_HD void rk_stage_at(T* a, T* at, int ijk, T at_value, T b_dt, T a_next, int drop_at) {
    T at_new;
    rk_stage(a[ijk], at_new, at_value, b_dt, a_next);
    if (!drop_at) at[ijk] = at_new;
}

// Low-storage Runge-Kutta stage: a += b dt * at, then at is scaled by the next stage's a
// coefficient (0 after the last stage) so every process can simply add into it.
template <typename T>
struct RkUpdate {
    static constexpr const char* name = "rk_update";
    T *SQ_RESTRICT a, *SQ_RESTRICT at;
    T b_dt, a_next;
    int jj, kk;
    int drop_tendency; // 1: at left unwritten (rk_stage_at)
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(a), sq::Use::inout).field(SQ_ARG(at), sq::Use::inout);
        d.scalars(SQ_ARG(b_dt), SQ_ARG(a_next), SQ_ARG(jj), SQ_ARG(kk), SQ_ARG(drop_tendency));
    }

    SQ_HD void operator()(int i, int j, int k) const {
        const int ijk = index3(i, j, k, jj, kk);
        rk_stage_at(a, at, ijk, at[ijk], b_dt, a_next, drop_tendency);
    }
};

// The end of the pressure projection (PresOut) and the RK stage of u, v and w (RkUpdate)
// in one pass: 13 arrays read or written instead of 7 + 3 x 4, with the same arithmetic.
// Called for kstart <= k < kend; w is left alone at k == kstart (its wall face is fixed).
template <typename T>
struct PresOutRk {
    static constexpr const char* name = "pres_out_rk";
    T *SQ_RESTRICT u, *SQ_RESTRICT v, *SQ_RESTRICT w;
    T *SQ_RESTRICT ut, *SQ_RESTRICT vt, *SQ_RESTRICT wt;
    const T* SQ_RESTRICT p;
    const T* SQ_RESTRICT dzhi;
    T dxi, dyi, b_dt, a_next;
    int kstart;
    int jj, kk;
    int drop_tendencies; // 1: ut, vt, wt left unwritten (rk_stage_at)
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(u), sq::Use::inout).field(SQ_ARG(v), sq::Use::inout);
        d.field(SQ_ARG(w), sq::Use::inout).field(SQ_ARG(ut), sq::Use::inout);
        d.field(SQ_ARG(vt), sq::Use::inout).field(SQ_ARG(wt), sq::Use::inout).field(SQ_ARG(p));
        d.profile(SQ_ARG(dzhi));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(b_dt), SQ_ARG(a_next), SQ_ARG(kstart),
                  SQ_ARG(jj), SQ_ARG(kk), SQ_ARG(drop_tendencies));
    }

    SQ_HD PresOut<T> pres_out() const {
        return {.ut = ut,
                .vt = vt,
                .wt = wt,
                .p = p,
                .dzhi = dzhi,
                .dxi = dxi,
                .dyi = dyi,
                .kstart = kstart,
                .jj = jj,
                .kk = kk};
    }

    SQ_HD void operator()(int i, int j, int k) const {
        const PresOut<T> po = pres_out();
        const int ijk = index3(i, j, k, jj, kk);
        rk_stage_at(u, ut, ijk, po.ut_projected(ijk), b_dt, a_next, drop_tendencies);
        rk_stage_at(v, vt, ijk, po.vt_projected(ijk), b_dt, a_next, drop_tendencies);
        if (k > kstart)
            rk_stage_at(w, wt, ijk, po.wt_projected(ijk, k), b_dt, a_next, drop_tendencies);
    }
};

// Relaxation towards a reference profile; coef[k] is the precomputed damping rate (0 below
// the sponge).
template <typename T>
struct Sponge {
    static constexpr const char* name = "sponge";
    T* SQ_RESTRICT at;
    const T* SQ_RESTRICT a;
    const T* SQ_RESTRICT aref; // by k
    const T* SQ_RESTRICT coef; // by k
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(at), sq::Use::inout).field(SQ_ARG(a)).profiles(SQ_ARG(aref), SQ_ARG(coef));
        d.scalars(SQ_ARG(jj), SQ_ARG(kk));
    }

    // The damping the sponge subtracts at a point whose value is a, at level k; the fused
    // tendency kernels subtract the same from their sums (kernels/tend_fused.cuh), and the
    // product is never contracted with the subtraction, so both round alike on the GPU too.
    // Not value/store: those would make the kernel deferrable, a new tunable.
    SQ_HD T damping(T a_here, int k) const { return mul_rounded(coef[k], a_here - aref[k]); }
    SQ_HD void operator()(int i, int j, int k) const {
        const int ijk = index3(i, j, k, jj, kk);
        at[ijk] -= damping(a[ijk], k);
    }
};

// Every kernel of this header (tests and benchmarks iterate over them).
using TimeintKernels = KernelList<RkUpdate, PresOutRk, Sponge>;

} // namespace sq
