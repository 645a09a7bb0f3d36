#pragma once
// Vorticity (the curl of the resolved velocity) for cross-sections. Each component is a
// difference of two velocities across the cell edge where both differences are centred,
// so it needs no interpolation on the Arakawa C grid:
//   vort_x = dw/dy - dv/dz  at (x centre, y face, z face)   the yz-edge at the south-bottom
//   vort_y = du/dz - dw/dx  at (x face, y centre, z face)   the xz-edge at the west-bottom
//   vort_z = dv/dx - du/dy  at (x face, y face, z centre)   the xy-edge at the south-west
// of cell (i, j, k). The vertical differences take dzhi[k] = 1 / (z[k] - z[k-1]), exact at
// the face midway between the two centres (as zh is defined), so all three are second
// order on a stretched grid too. At the walls (k = kstart, kend) the ghost levels give the
// one-sided wall gradient. They write their component (`=`).
#include "common.cuh"

namespace sq {

template <typename T>
struct VorticityX {
    static constexpr const char* name = "vorticity_x";
    T* SQ_RESTRICT vort;
    const T *SQ_RESTRICT v, *SQ_RESTRICT w;
    const T* SQ_RESTRICT dzhi;
    T dyi;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(vort), sq::Use::out).fields(SQ_ARG(v), SQ_ARG(w));
        d.profile(SQ_ARG(dzhi)).scalars(SQ_ARG(dyi), SQ_ARG(jj), SQ_ARG(kk));
    }

    SQ_HD T value(int i, int j, int k) const {
        const int ijk = index3(i, j, k, jj, kk);
        return (w[ijk] - w[ijk - jj]) * dyi - (v[ijk] - v[ijk - kk]) * dzhi[k];
    }
    SQ_HD void store(int i, int j, int k, T val) const { vort[index3(i, j, k, jj, kk)] = val; }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};

template <typename T>
struct VorticityY {
    static constexpr const char* name = "vorticity_y";
    T* SQ_RESTRICT vort;
    const T *SQ_RESTRICT u, *SQ_RESTRICT w;
    const T* SQ_RESTRICT dzhi;
    T dxi;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(vort), sq::Use::out).fields(SQ_ARG(u), SQ_ARG(w));
        d.profile(SQ_ARG(dzhi)).scalars(SQ_ARG(dxi), SQ_ARG(jj), SQ_ARG(kk));
    }

    SQ_HD T value(int i, int j, int k) const {
        const int ijk = index3(i, j, k, jj, kk);
        return (u[ijk] - u[ijk - kk]) * dzhi[k] - (w[ijk] - w[ijk - 1]) * dxi;
    }
    SQ_HD void store(int i, int j, int k, T val) const { vort[index3(i, j, k, jj, kk)] = val; }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};

template <typename T>
struct VorticityZ {
    static constexpr const char* name = "vorticity_z";
    T* SQ_RESTRICT vort;
    const T *SQ_RESTRICT u, *SQ_RESTRICT v;
    T dxi, dyi;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(vort), sq::Use::out).fields(SQ_ARG(u), SQ_ARG(v));
        d.scalars(SQ_ARG(dxi), SQ_ARG(dyi), SQ_ARG(jj), SQ_ARG(kk));
    }

    SQ_HD T value(int i, int j, int k) const {
        const int ijk = index3(i, j, k, jj, kk);
        return (v[ijk] - v[ijk - 1]) * dxi - (u[ijk] - u[ijk - jj]) * dyi;
    }
    SQ_HD void store(int i, int j, int k, T val) const { vort[index3(i, j, k, jj, kk)] = val; }
    SQ_HD void operator()(int i, int j, int k) const { store(i, j, k, value(i, j, k)); }
};

// Every kernel of this header (tests iterate over them). Output-only kernels: not in the
// model's step, so not in the tuned lists of tests/support/all_kernels.h.
using VorticityKernels = KernelList<VorticityX, VorticityY, VorticityZ>;

} // namespace sq
