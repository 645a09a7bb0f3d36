#pragma once
// Dry buoyancy on w (docs/numerics.md "Buoyancy"), called for kstart+1 <= k < kend.
#include "advec.cuh"
#include "common.cuh"
#include "moist.cuh"

namespace sq {

// Boussinesq with potential temperature th and a constant reference thref. "buoy" mode
// (the prognostic scalar is the buoyancy b itself) is g_over_thref = 1, thref = 0, which
// gives interp2(b) exactly.
template <typename T>
struct BuoyancyTh {
    static constexpr const char* name = "buoyancy_th";
    static constexpr Traits traits{.on_w_levels = true};
    T* SQ_RESTRICT wt;
    const T* SQ_RESTRICT th;
    T g_over_thref, thref;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(wt), sq::Use::inout).field(SQ_ARG(th));
        d.scalars(SQ_ARG(g_over_thref), SQ_ARG(thref), SQ_ARG(jj), SQ_ARG(kk));
    }

    SQ_HD T value(int i, int j, int k) const { return value_at(th, i, j, k); }
    template <class P>
    SQ_HD T value_at(const P& th, int i, int j, int k) const {
        const int ijk = index3(i, j, k, jj, kk);
        return g_over_thref * (interp2<T>(th[ijk - kk], th[ijk]) - thref);
    }
    SQ_HD void store(int i, int j, int k, T val) const { wt[index3(i, j, k, jj, kk)] += val; }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};

// The w tendency of 2i5 advection and buoyancy in one pass, so that wt is read and written
// once for both (the separate buoyancy kernel costs 3 passes over the grid, this 1). Both
// terms are AdvecW2i5's and BuoyancyTh's own per-point values (either thermo mode).
template <typename T>
struct AdvecW2i5Buoy {
    static constexpr const char* name = "advec_w_2i5_buoy";
    static constexpr Traits traits{.on_w_levels = true,
                                   .wall_levels = AdvecW2i5<T>::traits.wall_levels,
                                   .promise_interior = true};
    T* SQ_RESTRICT wt;
    const T *SQ_RESTRICT u, *SQ_RESTRICT v, *SQ_RESTRICT w, *SQ_RESTRICT th;
    const T *SQ_RESTRICT dzhi, *SQ_RESTRICT rho, *SQ_RESTRICT rhoh;
    T dxi, dyi, g_over_thref, thref;
    int jj, kk;
    int kstart, kend;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(wt), sq::Use::inout).fields(SQ_ARG(u), SQ_ARG(v), SQ_ARG(w), SQ_ARG(th));
        d.profiles(SQ_ARG(dzhi), SQ_ARG(rho), SQ_ARG(rhoh));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(g_over_thref), SQ_ARG(thref), SQ_ARG(jj),
                  SQ_ARG(kk), SQ_ARG(kstart), SQ_ARG(kend));
    }
    // The 3-D inputs for the planes traversal: AdvecW2i5's, and th on the point's column at
    // k-1..k (a register window).
    static constexpr int plane_inputs = 4;
    SQ_HD static constexpr PlaneInput plane_input(int n) {
        return n < 3 ? AdvecW2i5<T>::plane_input(n) : PlaneInput{0, 0, 0, 0, 0, 0, -1, 0};
    }
    SQ_HD void plane_arrays(const T* (&a)[plane_inputs]) const {
        a[0] = w, a[1] = u, a[2] = v, a[3] = th;
    }
    static constexpr int plane_outputs = 1;
    SQ_HD const T* plane_output(int, int i, int j, int k) const { return wt + i + j * jj + k * kk; }
    SQ_HD void plane_store(int i, int j, int k, const T (&old)[1], T val) const {
        wt[i + j * jj + k * kk] = old[0] + val;
    }

    SQ_HD AdvecW2i5<T> advec() const {
        return {.tend = wt,
                .u = u,
                .v = v,
                .w = w,
                .dzi = nullptr, // w's levels: dzhi
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
    SQ_HD BuoyancyTh<T> buoyancy() const {
        return {
            .wt = wt, .th = th, .g_over_thref = g_over_thref, .thref = thref, .jj = jj, .kk = kk};
    }
    SQ_HD T value(int i, int j, int k) const {
        return advec().value(i, j, k) + buoyancy().value(i, j, k);
    }
    // Face form (AdvecW2i5's, the buoyancy added in from_fluxes as in value).
    SQ_HD T flux_x(int i, int j, int k) const { return advec().flux_x(i, j, k); }
    SQ_HD T flux_y(int i, int j, int k) const { return advec().flux_y(i, j, k); }
    SQ_HD T flux_z(int i, int j, int k, int order) const { return advec().flux_z(i, j, k, order); }
    SQ_HD int order_z(int k) const { return advec().order_z(k); }
    SQ_HD T from_fluxes(T x_lo, T x_hi, T y_lo, T y_hi, T z_lo, T z_hi, int i, int j, int k) const {
        return advec().from_fluxes(x_lo, x_hi, y_lo, y_hi, z_lo, z_hi, i, j, k) +
               buoyancy().value(i, j, k);
    }
    template <class In>
    SQ_HD T value_with(const In& in, int i, int j, int k) const {
        return advec().value_with(in, i, j, k) + buoyancy().value_at(in(3, th), i, j, k);
    }
    SQ_HD void store(int i, int j, int k, T val) const { wt[i + j * jj + k * kk] += val; }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};

// The same for 2nd-order advection (AdvecW2::value plus BuoyancyTh::value).
template <typename T>
struct AdvecW2Buoy {
    static constexpr const char* name = "advec_w_2_buoy";
    static constexpr Traits traits{.on_w_levels = true};
    T* SQ_RESTRICT wt;
    const T *SQ_RESTRICT u, *SQ_RESTRICT v, *SQ_RESTRICT w, *SQ_RESTRICT th;
    const T *SQ_RESTRICT dzhi, *SQ_RESTRICT rho, *SQ_RESTRICT rhoh;
    T dxi, dyi, g_over_thref, thref;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(wt), sq::Use::inout).fields(SQ_ARG(u), SQ_ARG(v), SQ_ARG(w), SQ_ARG(th));
        d.profiles(SQ_ARG(dzhi), SQ_ARG(rho), SQ_ARG(rhoh));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(g_over_thref), SQ_ARG(thref), SQ_ARG(jj),
                  SQ_ARG(kk));
    }

    SQ_HD T value(int i, int j, int k) const {
        const AdvecW2<T> advec{.tend = wt,
                               .u = u,
                               .v = v,
                               .w = w,
                               .dzi = nullptr, // w's levels: dzhi
                               .dzhi = dzhi,
                               .rho = rho,
                               .rhoh = rhoh,
                               .dxi = dxi,
                               .dyi = dyi,
                               .jj = jj,
                               .kk = kk};
        const BuoyancyTh<T> buoyancy{
            .wt = wt, .th = th, .g_over_thref = g_over_thref, .thref = thref, .jj = jj, .kk = kk};
        return advec.value(i, j, k) + buoyancy.value(i, j, k);
    }
    SQ_HD void store(int i, int j, int k, T val) const { wt[index3(i, j, k, jj, kk)] += val; }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};

// thermo.type moist: the virtual potential temperature of a point from thl and qt, adjusted
// to saturation at its level's reference pressure (kernels/moist.cuh). The buoyancy and the
// closure's stability correction then take thv where the dry thermo takes th. Launched on
// the ghost levels too (kstart - 1 and kend), whose thv the closure's N^2 reads.
template <typename T>
struct ThvMoist {
    static constexpr const char* name = "thv_moist";
    T* SQ_RESTRICT thv;
    const T *SQ_RESTRICT thl, *SQ_RESTRICT qt;
    const T *SQ_RESTRICT pref, *SQ_RESTRICT exner_ref; // by k
    int jj, kk;
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(thv), sq::Use::out).fields(SQ_ARG(thl), SQ_ARG(qt));
        d.profiles(SQ_ARG(pref), SQ_ARG(exner_ref)).scalars(SQ_ARG(jj), SQ_ARG(kk));
    }
    SQ_HD void operator()(int i, int j, int k) const {
        const int ijk = index3(i, j, k, jj, kk);
        thv[ijk] = moist::thv_from_thl(thl[ijk], qt[ijk], pref[k], exner_ref[k]);
    }
};

// Output of thermo.type moist (not in the time step): the liquid water of each point.
template <typename T>
struct QlMoist {
    static constexpr const char* name = "ql_moist";
    T* SQ_RESTRICT ql;
    const T *SQ_RESTRICT thl, *SQ_RESTRICT qt;
    const T *SQ_RESTRICT pref, *SQ_RESTRICT exner_ref; // by k
    int jj, kk;
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(ql), sq::Use::out).fields(SQ_ARG(thl), SQ_ARG(qt));
        d.profiles(SQ_ARG(pref), SQ_ARG(exner_ref)).scalars(SQ_ARG(jj), SQ_ARG(kk));
    }
    SQ_HD void operator()(int i, int j, int k) const {
        const int ijk = index3(i, j, k, jj, kk);
        ql[ijk] = moist::saturation_adjust(thl[ijk], qt[ijk], pref[k], exner_ref[k]).ql;
    }
};

// Output of thermo.type moist, per column: the liquid water path, the sum of rho ql dz over
// the levels (rho_dz: the reference density times dz, by k), and the cloud base, the
// height of the lowest level with liquid water (-1 where the column is clear).
template <typename T>
struct ColumnCloud {
    static constexpr const char* name = "column_cloud";
    T *lwp, *zcb; // 2-D, write
    const T *thl, *qt;
    const T *pref, *exner_ref, *rho_dz, *z; // by k
    int kstart, kend;
    int jj, kk;
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.plane(SQ_ARG(lwp), sq::Use::out).plane(SQ_ARG(zcb), sq::Use::out);
        d.fields(SQ_ARG(thl), SQ_ARG(qt))
            .profiles(SQ_ARG(pref), SQ_ARG(exner_ref), SQ_ARG(rho_dz), SQ_ARG(z));
        d.scalars(SQ_ARG(kstart), SQ_ARG(kend), SQ_ARG(jj), SQ_ARG(kk));
    }
    SQ_HD void operator()(int i, int j) const {
        T path = T(0), base = T(-1);
        for (int k = kstart; k < kend; ++k) {
            const int ijk = index3(i, j, k, jj, kk);
            const T ql = moist::saturation_adjust(thl[ijk], qt[ijk], pref[k], exner_ref[k]).ql;
            path += rho_dz[k] * ql;
            if (ql > T(0) && base < T(0)) base = z[k];
        }
        lwp[index2(i, j, jj)] = path;
        zcb[index2(i, j, jj)] = base;
    }
};

// Every kernel of this header (tests and benchmarks iterate over them).
using ThermoKernels =
    KernelList<BuoyancyTh, AdvecW2i5Buoy, AdvecW2Buoy, ThvMoist, QlMoist, ColumnCloud>;

} // namespace sq
