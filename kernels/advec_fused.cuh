#pragma once
// Fused 2i5 advection of u, v and w in one pass over the grid: the three per-component
// kernels of advec.cuh at each point, so the velocities are read once for all three
// tendencies (9 arrays instead of 3 x 5).
#include "advec.cuh"

namespace sq {

// Called for kstart <= k < kend; w is updated for k > kstart only (its wall face is fixed).
template <typename T>
struct AdvecUVW2i5 {
    static constexpr const char* name = "advec_uvw_2i5";
    T *SQ_RESTRICT ut, *SQ_RESTRICT vt, *SQ_RESTRICT wt;
    const T *SQ_RESTRICT u, *SQ_RESTRICT v, *SQ_RESTRICT w;
    const T *SQ_RESTRICT dzi, *SQ_RESTRICT dzhi, *SQ_RESTRICT rho, *SQ_RESTRICT rhoh;
    T dxi, dyi;
    int jj, kk;
    int kstart, kend;
    static constexpr int wall_levels = 3; // as AdvecU2i5, AdvecV2i5, AdvecW2i5
    // The 3-D inputs, each with the levels it is read at around k (stage.cuh).
    static constexpr int stage_reach = 3;
    template <class S, class K>
    SQ_HD static void staged_inputs(S& s, K& f) {
        s.field(f.u, -3, 3);
        s.field(f.v, -3, 3);
        s.field(f.w, -3, 3);
    }

    struct Tendencies {
        T u, v, w;
    };
    SQ_HD AdvecU2i5<T> advec_u() const {
        return {ut, u, v, w, dzi, rho, rhoh, dxi, dyi, jj, kk, kstart, kend};
    }
    SQ_HD AdvecV2i5<T> advec_v() const {
        return {vt, u, v, w, dzi, rho, rhoh, dxi, dyi, jj, kk, kstart, kend};
    }
    SQ_HD AdvecW2i5<T> advec_w() const {
        return {wt, u, v, w, dzhi, rho, rhoh, dxi, dyi, jj, kk, kstart, kend};
    }

    SQ_HD Tendencies value(int i, int j, int k) const {
        return {advec_u().value(i, j, k), advec_v().value(i, j, k),
                k > kstart ? advec_w().value(i, j, k) : T(0)};
    }
    SQ_HD void store(int i, int j, int k, const Tendencies& val) const {
        advec_u().store(i, j, k, val.u);
        advec_v().store(i, j, k, val.v);
        if (k > kstart) advec_w().store(i, j, k, val.w);
    }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};

} // namespace sq
