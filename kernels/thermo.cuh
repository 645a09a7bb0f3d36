#pragma once
// Dry buoyancy on w (NUMERICS.md "Buoyancy"), called for kstart+1 <= k < kend.
#include "common.cuh"

namespace sq {

// Boussinesq with potential temperature th and a constant reference thref.
template <typename T>
struct BuoyancyTh {
    static constexpr const char* name = "buoyancy_th";
    T* SQ_RESTRICT wt;
    const T* SQ_RESTRICT th;
    T g_over_thref, thref;
    int jj, kk;

    SQ_HD void operator()(int i, int j, int k) const {
        const int ijk = i + j * jj + k * kk;
        wt[ijk] += g_over_thref * (interp2(th[ijk - kk], th[ijk]) - thref);
    }
};

// "buoy" mode: the prognostic scalar is the buoyancy b itself.
template <typename T>
struct BuoyancyB {
    static constexpr const char* name = "buoyancy_b";
    T* SQ_RESTRICT wt;
    const T* SQ_RESTRICT b;
    int jj, kk;

    SQ_HD void operator()(int i, int j, int k) const {
        const int ijk = i + j * jj + k * kk;
        wt[ijk] += interp2(b[ijk - kk], b[ijk]);
    }
};

} // namespace sq
