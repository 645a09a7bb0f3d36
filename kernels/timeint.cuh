#pragma once
// Time integration (NUMERICS.md "Time integration") and the sponge layer.
#include "common.cuh"

namespace sq {

// Low-storage Runge-Kutta stage: a += b dt * at, then at is scaled by the next stage's a
// coefficient (0 after the last stage) so every process can simply add into it.
template <typename T>
struct RkUpdate {
    static constexpr const char* name = "rk_update";
    T *SQ_RESTRICT a, *SQ_RESTRICT at;
    T b_dt, a_next;
    int jj, kk;

    SQ_HD void operator()(int i, int j, int k) const {
        const int ijk = i + j * jj + k * kk;
        a[ijk] += b_dt * at[ijk];
        at[ijk] *= a_next;
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

    SQ_HD void operator()(int i, int j, int k) const {
        const int ijk = i + j * jj + k * kk;
        at[ijk] -= coef[k] * (a[ijk] - aref[k]);
    }
};

} // namespace sq
