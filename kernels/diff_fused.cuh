#pragma once
// Fused Smagorinsky diffusion of u, v and w in one pass over the grid: the three
// per-component kernels of diff.cuh at each point, so the velocities and the eddy
// viscosity are read once for all three tendencies (10 arrays instead of 3 x 6).
#include "diff.cuh"

namespace sq {

// Called for kstart <= k < kend; w is updated for k > kstart only (its wall face is fixed).
template <typename T>
struct DiffUVWSmag {
    static constexpr const char* name = "diff_uvw_smag";
    T *SQ_RESTRICT ut, *SQ_RESTRICT vt, *SQ_RESTRICT wt;
    const T *SQ_RESTRICT u, *SQ_RESTRICT v, *SQ_RESTRICT w, *SQ_RESTRICT evisc;
    const T *SQ_RESTRICT dzi, *SQ_RESTRICT dzhi, *SQ_RESTRICT rho, *SQ_RESTRICT rhoh;
    T dxi, dyi, nu;
    const T *SQ_RESTRICT ufluxbot, *SQ_RESTRICT ufluxtop; // 2-D (ij), nullptr: resolved wall
    const T *SQ_RESTRICT vfluxbot, *SQ_RESTRICT vfluxtop;
    int kstart, kend;
    int jj, kk;

    SQ_HD void operator()(int i, int j, int k) const {
        DiffUSmag<T>{ut,  u,   v,  w,        evisc,    dzi,    dzhi, rho, rhoh,
                     dxi, dyi, nu, ufluxbot, ufluxtop, kstart, kend, jj,  kk}(i, j, k);
        DiffVSmag<T>{vt,  u,   v,  w,        evisc,    dzi,    dzhi, rho, rhoh,
                     dxi, dyi, nu, vfluxbot, vfluxtop, kstart, kend, jj,  kk}(i, j, k);
        if (k > kstart)
            DiffWSmag<T>{wt,   u,   v,   w,  evisc,  dzi,  dzhi, rho,
                         rhoh, dxi, dyi, nu, kstart, kend, jj,   kk}(i, j, k);
    }
};

} // namespace sq
