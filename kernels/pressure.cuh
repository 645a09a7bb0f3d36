#pragma once
// Pressure projection pieces (docs/numerics.md "Pressure"): the Poisson right-hand side, the
// gradient subtracted from the tendencies, and the divergence and CFL reductions.
#include "common.cuh"

namespace sq {

// RHS at the centres: density-weighted divergence of (tendency + velocity / dts).
template <typename T>
struct PresIn {
    static constexpr const char* name = "pres_in";
    T* SQ_RESTRICT p; // writes
    const T *SQ_RESTRICT u, *SQ_RESTRICT v, *SQ_RESTRICT w;
    const T *SQ_RESTRICT ut, *SQ_RESTRICT vt, *SQ_RESTRICT wt;
    const T *SQ_RESTRICT dzi, *SQ_RESTRICT rho, *SQ_RESTRICT rhoh;
    T dxi, dyi, dtsi;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(p), sq::Use::out);
        d.fields(SQ_ARG(u), SQ_ARG(v), SQ_ARG(w), SQ_ARG(ut), SQ_ARG(vt), SQ_ARG(wt));
        d.profiles(SQ_ARG(dzi), SQ_ARG(rho), SQ_ARG(rhoh));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(dtsi), SQ_ARG(jj), SQ_ARG(kk));
    }

    SQ_HD void operator()(int i, int j, int k) const {
        const int ijk = index3(i, j, k, jj, kk);
        const T ux_e = ut[ijk + 1] + u[ijk + 1] * dtsi, ux_w = ut[ijk] + u[ijk] * dtsi;
        const T vy_n = vt[ijk + jj] + v[ijk + jj] * dtsi, vy_s = vt[ijk] + v[ijk] * dtsi;
        const T wz_t = wt[ijk + kk] + w[ijk + kk] * dtsi, wz_b = wt[ijk] + w[ijk] * dtsi;
        p[ijk] = rho[k] * (ux_e - ux_w) * dxi + rho[k] * (vy_n - vy_s) * dyi +
                 (rhoh[k + 1] * wz_t - rhoh[k] * wz_b) * dzi[k];
    }
};

// Subtract the pressure gradient; w at the bottom wall (k == kstart) stays untouched.
template <typename T>
struct PresOut {
    static constexpr const char* name = "pres_out";
    T *SQ_RESTRICT ut, *SQ_RESTRICT vt, *SQ_RESTRICT wt;
    const T* SQ_RESTRICT p;
    const T* SQ_RESTRICT dzhi;
    T dxi, dyi;
    int kstart;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(ut), sq::Use::inout).field(SQ_ARG(vt), sq::Use::inout);
        d.field(SQ_ARG(wt), sq::Use::inout).field(SQ_ARG(p)).profile(SQ_ARG(dzhi));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(kstart), SQ_ARG(jj), SQ_ARG(kk));
    }

    // The tendencies less the pressure gradient at their faces (PresOutRk reuses these).
    SQ_HD T ut_projected(int ijk) const { return ut[ijk] - (p[ijk] - p[ijk - 1]) * dxi; }
    SQ_HD T vt_projected(int ijk) const { return vt[ijk] - (p[ijk] - p[ijk - jj]) * dyi; }
    SQ_HD T wt_projected(int ijk, int k) const {
        return wt[ijk] - (p[ijk] - p[ijk - kk]) * dzhi[k];
    }

    SQ_HD void operator()(int i, int j, int k) const {
        const int ijk = index3(i, j, k, jj, kk);
        ut[ijk] = ut_projected(ijk);
        vt[ijk] = vt_projected(ijk);
        if (k > kstart) wt[ijk] = wt_projected(ijk, k);
    }
};

// Reduction: velocity divergence at the centre (density weighted, divided by rho); with Abs,
// its magnitude (AbsDivergence, the diagnostics' largest |div|).
template <typename T, bool Abs>
struct DivergenceOf {
    static constexpr const char* name = Abs ? "diag_abs_divergence" : "divergence";
    const T *SQ_RESTRICT u, *SQ_RESTRICT v, *SQ_RESTRICT w;
    const T *SQ_RESTRICT dzi, *SQ_RESTRICT rho, *SQ_RESTRICT rhoh;
    T dxi, dyi;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.fields(SQ_ARG(u), SQ_ARG(v), SQ_ARG(w));
        d.profiles(SQ_ARG(dzi), SQ_ARG(rho), SQ_ARG(rhoh));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(jj), SQ_ARG(kk));
    }

    SQ_HD T operator()(int i, int j, int k) const {
        const int ijk = index3(i, j, k, jj, kk);
        const T div = (rho[k] * ((u[ijk + 1] - u[ijk]) * dxi + (v[ijk + jj] - v[ijk]) * dyi) +
                       (rhoh[k + 1] * w[ijk + kk] - rhoh[k] * w[ijk]) * dzi[k]) /
                      rho[k];
        if constexpr (Abs)
            return abs_(div);
        else
            return div;
    }
};
template <typename T>
using Divergence = DivergenceOf<T, false>;
template <typename T>
using AbsDivergence = DivergenceOf<T, true>;

// Reduction: CFL number per unit dt, velocities interpolated to the centre.
template <typename T>
struct Cfl {
    static constexpr const char* name = "cfl";
    const T *SQ_RESTRICT u, *SQ_RESTRICT v, *SQ_RESTRICT w;
    const T* SQ_RESTRICT dzi;
    T dxi, dyi;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.fields(SQ_ARG(u), SQ_ARG(v), SQ_ARG(w)).profile(SQ_ARG(dzi));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(jj), SQ_ARG(kk));
    }

    SQ_HD T operator()(int i, int j, int k) const {
        const int ijk = index3(i, j, k, jj, kk);
        return abs_(interp2(u[ijk], u[ijk + 1])) * dxi + abs_(interp2(v[ijk], v[ijk + jj])) * dyi +
               abs_(interp2(w[ijk], w[ijk + kk])) * dzi[k];
    }
};

// Every kernel of this header (tests and benchmarks iterate over them).
using PressureKernels = KernelList<PresIn, PresOut, Divergence, AbsDivergence, Cfl>;

} // namespace sq
