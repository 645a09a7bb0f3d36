#pragma once
// Large-scale forcings of the momentum (docs/numerics.md "Coriolis force").
#include "common.cuh"

namespace sq {

// The f-plane Coriolis force with the geostrophic wind (ug, vg) standing for the large-scale
// pressure gradient: u_t += f (v - vg), v_t -= f (u - ug). v is averaged to u's point (the
// west face) from the four v faces around it, u to v's point (the south face) likewise.
template <typename T>
struct Coriolis {
    static constexpr const char* name = "coriolis";
    T *SQ_RESTRICT ut, *SQ_RESTRICT vt;
    const T *SQ_RESTRICT u, *SQ_RESTRICT v;
    const T *SQ_RESTRICT ug, *SQ_RESTRICT vg; // by k
    T fc;
    int jj, kk;
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(ut), Use::inout).field(SQ_ARG(vt), Use::inout).fields(SQ_ARG(u), SQ_ARG(v));
        d.profiles(SQ_ARG(ug), SQ_ARG(vg)).scalars(SQ_ARG(fc), SQ_ARG(jj), SQ_ARG(kk));
    }

    SQ_HD void operator()(int i, int j, int k) const {
        const View3<const T*> uf{u, jj, kk}, vf{v, jj, kk};
        const T v_at_u = interp2(interp2(vf(i - 1, j, k), vf(i, j, k)),
                                 interp2(vf(i - 1, j + 1, k), vf(i, j + 1, k)));
        const T u_at_v = interp2(interp2(uf(i, j - 1, k), uf(i + 1, j - 1, k)),
                                 interp2(uf(i, j, k), uf(i + 1, j, k)));
        const int ijk = index3(i, j, k, jj, kk);
        ut[ijk] += fc * (v_at_u - vg[k]);
        vt[ijk] -= fc * (u_at_v - ug[k]);
    }
};

// A prescribed large-scale tendency of a scalar by level (radiative cooling, advection by
// the large-scale flow): s_t += tend(z).
template <typename T>
struct LargeScaleTendency {
    static constexpr const char* name = "ls_tendency";
    T* SQ_RESTRICT at;
    const T* SQ_RESTRICT tend; // by k
    int jj, kk;
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(at), Use::inout).profile(SQ_ARG(tend)).scalars(SQ_ARG(jj), SQ_ARG(kk));
    }

    SQ_HD void operator()(int i, int j, int k) const { at[index3(i, j, k, jj, kk)] += tend[k]; }
};

// ---- Horizontal sums by level, for the forcings that act on the horizontal means ----------
// Two per-column passes with a fixed order of summation, so that the result does not depend
// on the backend or its threads: ColumnSums sums each x position's column of a level along y,
// LevelSums then each level's column sums along x. Both accumulate in double.

// column_sum[i + k*jj] = sum over jstart <= j < jend of a(i, j, k); one call per (i, k), so a
// range of x positions by levels (i, k). Neighbouring calls read neighbouring i: coalesced.
template <typename T>
struct ColumnSums {
    static constexpr const char* name = "column_sums";
    T* SQ_RESTRICT column_sum; // (i, k), indexed i + k*jj
    const T* SQ_RESTRICT a;
    int jstart, jend;
    int jj, kk;
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.plane(SQ_ARG(column_sum), Use::out).field(SQ_ARG(a));
        d.scalars(SQ_ARG(jstart), SQ_ARG(jend), SQ_ARG(jj), SQ_ARG(kk));
    }
    SQ_HD void operator()(int i, int k) const {
        double acc = 0;
        for (int j = jstart; j < jend; ++j) acc += double(a[index3(i, j, k, jj, kk)]);
        column_sum[index2(i, k, jj)] = T(acc);
    }
};

// level_sum[k] = sum over istart <= i < iend of column_sum[i + k*jj]; one call per level (the
// range's i is the level k, its j a single 0).
template <typename T>
struct LevelSums {
    static constexpr const char* name = "level_sums";
    T* SQ_RESTRICT level_sum; // by k
    const T* SQ_RESTRICT column_sum;
    int istart, iend;
    int jj;
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.profile(SQ_ARG(level_sum), Use::out).plane(SQ_ARG(column_sum));
        d.scalars(SQ_ARG(istart), SQ_ARG(iend), SQ_ARG(jj));
    }
    SQ_HD void operator()(int k, int) const {
        double acc = 0;
        for (int i = istart; i < iend; ++i) acc += double(column_sum[index2(i, k, jj)]);
        level_sum[k] = T(acc);
    }
};

// Every kernel of this header (tests and benchmarks iterate over them).
using ForcingKernels = KernelList<Coriolis, LargeScaleTendency, ColumnSums, LevelSums>;

} // namespace sq
