#pragma once
// Ghost-cell boundary conditions at the walls (2nd order), one column (i, j) per call.
// docs/numerics.md "Boundary conditions": Dirichlet a_g = 2 a_wall - a_1; Neumann/flux
// a_g = a_1 -/+ grad dzh at the wall.
#include "common.cuh"

namespace sq {

// Value or gradient per column: `values` (2-D, ij) overrides the uniform `value` when set.
template <typename T>
struct GhostBottom {
    T* a;
    const T* values; // per-column gradient (Neumann) or nullptr
    T value;         // uniform wall value (Dirichlet) or gradient (Neumann)
    T dzh_wall;      // dzh[kstart]
    int dirichlet;   // 1: Dirichlet, 0: Neumann
    int kstart;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(a), sq::Use::inout).plane(SQ_ARG(values));
        d.scalars(SQ_ARG(value), SQ_ARG(dzh_wall), SQ_ARG(dirichlet), SQ_ARG(kstart), SQ_ARG(jj),
                  SQ_ARG(kk));
    }
    static constexpr const char* name = "ghost_bottom";
    SQ_HD void operator()(int i, int j) const {
        const int ij = index2(i, j, jj);
        const int ijk = index3(i, j, kstart, jj, kk);
        const T v = values ? values[ij] : value;
        a[ijk - kk] = dirichlet ? T(2) * v - a[ijk] : a[ijk] - v * dzh_wall;
    }
};

template <typename T>
struct GhostTop {
    T* a;
    T value;    // wall value (Dirichlet) or gradient (Neumann)
    T dzh_wall; // dzh[kend]
    int dirichlet;
    int kend;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(a), sq::Use::inout);
        d.scalars(SQ_ARG(value), SQ_ARG(dzh_wall), SQ_ARG(dirichlet), SQ_ARG(kend), SQ_ARG(jj),
                  SQ_ARG(kk));
    }
    static constexpr const char* name = "ghost_top";
    SQ_HD void operator()(int i, int j) const {
        const int ijk = index3(i, j, kend - 1, jj, kk);
        a[ijk + kk] = dirichlet ? T(2) * value - a[ijk] : a[ijk] + value * dzh_wall;
    }
};

// Impermeable walls for w: zero at both wall faces, mirrored below the bottom one.
template <typename T>
struct GhostW {
    T* w;
    int kstart, kend;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(w), sq::Use::inout);
        d.scalars(SQ_ARG(kstart), SQ_ARG(kend), SQ_ARG(jj), SQ_ARG(kk));
    }
    static constexpr const char* name = "ghost_w";
    SQ_HD void operator()(int i, int j) const {
        const View3 f = view3(w, jj, kk);
        f(i, j, kstart) = T(0);
        f(i, j, kend) = T(0);
        f(i, j, kstart - 1) = -f(i, j, kstart + 1);
    }
};

// Zero-gradient copy of a centred diagnostic (eddy viscosity) into both ghost levels.
template <typename T>
struct GhostMirror {
    T* a;
    int kstart, kend;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(a), sq::Use::inout);
        d.scalars(SQ_ARG(kstart), SQ_ARG(kend), SQ_ARG(jj), SQ_ARG(kk));
    }
    static constexpr const char* name = "ghost_mirror";
    SQ_HD void operator()(int i, int j) const {
        const View3 f = view3(a, jj, kk);
        f(i, j, kstart - 1) = f(i, j, kstart);
        f(i, j, kend) = f(i, j, kend - 1);
    }
};

// Every kernel of this header (tests and benchmarks iterate over them).
using BoundaryKernels = KernelList<GhostBottom, GhostTop, GhostW, GhostMirror>;

} // namespace sq
