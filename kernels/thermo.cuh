#pragma once
// Dry buoyancy on w (NUMERICS.md "Buoyancy"), called for kstart+1 <= k < kend.
#include "advec.cuh"
#include "common.cuh"

namespace sq {

// Boussinesq with potential temperature th and a constant reference thref. "buoy" mode
// (the prognostic scalar is the buoyancy b itself) is g_over_thref = 1, thref = 0, which
// gives interp2(b) exactly.
template <typename T>
struct BuoyancyTh {
    static constexpr const char* name = "buoyancy_th";
    T* SQ_RESTRICT wt;
    const T* SQ_RESTRICT th;
    T g_over_thref, thref;
    int jj, kk;

    SQ_HD T value(int i, int j, int k) const {
        const int ijk = i + j * jj + k * kk;
        return g_over_thref * (interp2(th[ijk - kk], th[ijk]) - thref);
    }
    SQ_HD void store(int i, int j, int k, T val) const { wt[i + j * jj + k * kk] += val; }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};

// The w tendency of 2i5 advection and buoyancy in one pass, so that wt is read and written
// once for both (the separate buoyancy kernel costs 3 passes over the grid, this 1). Both
// terms are AdvecW2i5's and BuoyancyTh's own per-point values (either thermo mode).
template <typename T>
struct AdvecW2i5Buoy {
    static constexpr const char* name = "advec_w_2i5_buoy";
    T* SQ_RESTRICT wt;
    const T *SQ_RESTRICT u, *SQ_RESTRICT v, *SQ_RESTRICT w, *SQ_RESTRICT th;
    const T *SQ_RESTRICT dzhi, *SQ_RESTRICT rho, *SQ_RESTRICT rhoh;
    T dxi, dyi, g_over_thref, thref;
    int jj, kk;
    int kstart, kend;
    static constexpr int wall_levels = AdvecW2i5<T>::wall_levels;

    SQ_HD T value(int i, int j, int k) const {
        const AdvecW2i5<T> advec{wt, u, v, w, dzhi, rho, rhoh, dxi, dyi, jj, kk, kstart, kend};
        const BuoyancyTh<T> buoyancy{wt, th, g_over_thref, thref, jj, kk};
        return advec.value(i, j, k) + buoyancy.value(i, j, k);
    }
    SQ_HD void store(int i, int j, int k, T val) const { wt[i + j * jj + k * kk] += val; }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};

// The same for 2nd-order advection (AdvecW2::value plus BuoyancyTh::value).
template <typename T>
struct AdvecW2Buoy {
    static constexpr const char* name = "advec_w_2_buoy";
    T* SQ_RESTRICT wt;
    const T *SQ_RESTRICT u, *SQ_RESTRICT v, *SQ_RESTRICT w, *SQ_RESTRICT th;
    const T *SQ_RESTRICT dzhi, *SQ_RESTRICT rho, *SQ_RESTRICT rhoh;
    T dxi, dyi, g_over_thref, thref;
    int jj, kk;

    SQ_HD T value(int i, int j, int k) const {
        const AdvecW2<T> advec{wt, u, v, w, dzhi, rho, rhoh, dxi, dyi, jj, kk};
        const BuoyancyTh<T> buoyancy{wt, th, g_over_thref, thref, jj, kk};
        return advec.value(i, j, k) + buoyancy.value(i, j, k);
    }
    SQ_HD void store(int i, int j, int k, T val) const { wt[i + j * jj + k * kk] += val; }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};

} // namespace sq
