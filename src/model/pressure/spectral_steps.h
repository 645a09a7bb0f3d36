#pragma once
// The kernel steps of the GPU pressure solver (kernels/pressure_spectral.cuh) with their
// ranges, launched through backends/launch.h: on the device while the GPU backend is
// active (PressureSolverGpu), else on the host, which is how the emulation tests run the
// very same steps with FFTW standing in for cuFFT. Pointers must live where the steps run.
#include "backends/launch.h"
#include "kernels/pressure_spectral.cuh"
#include "model/grid.h"
#include "model/pressure/transpose.h"

namespace squall {

// One rank: the complex columns of the 2-D transform, which reads the field and writes it
// back itself (PressureRealLayout), and the ghost level below the wall after it. The
// transform output has ncf complex values per row and nslow rows per level. With no
// transform (itot = jtot = 1) the interior is packed into the real parts of the complex
// array (stride 2) and unpacked after.
// The ghost level below the wall mirrors the first level (the momentum update expects it).
template <typename T>
void launch_mirror_bottom(const GridDims& d, T* field) {
    launch_2d(
        {d.istart, d.iend, d.jstart, d.jend, 0, 1},
        sq::PressureMirrorBottom<T>{.field = field, .kstart = d.kstart, .jj = d.jj, .kk = d.kk});
}

template <typename T>
struct SpectralSteps {
    GridDims d;
    int ncf = 1, nslow = 1;
    int stride = 1;
    const T* bmat = nullptr; // per column
    const T* coef = nullptr; // PressureTridiag::packed()
    T top_mean = T(0);

    sq::Range3 interior() const { return {d.istart, d.iend, d.jstart, d.jend, d.kstart, d.kend}; }
    void pack(const T* field, T* packed) const {
        launch(interior(), sq::PressurePack<T>{.packed = packed,
                                               .field = field,
                                               .istart = d.istart,
                                               .jstart = d.jstart,
                                               .kstart = d.kstart,
                                               .itot = d.imax,
                                               .jtot = d.jmax,
                                               .stride = stride,
                                               .jj = d.jj,
                                               .kk = d.kk});
    }
    // cplx: interleaved (re, im); gam: ncf * nslow * ktot values of scratch.
    void thomas(T* cplx, T* gam) const {
        const int ncol = ncf * nslow;
        launch_2d({0, ncol, 0, 1, 0, 1}, sq::PressureThomas<T>{.x = cplx,
                                                               .gam = gam,
                                                               .bmat = bmat,
                                                               .coef = coef,
                                                               .top_mean = top_mean,
                                                               .ktot = d.ktot,
                                                               .ncol = ncol});
    }
    void unpack(const T* packed, T* field) const {
        launch(interior(), sq::PressureUnpack<T>{.field = field,
                                                 .packed = packed,
                                                 .istart = d.istart,
                                                 .jstart = d.jstart,
                                                 .kstart = d.kstart,
                                                 .itot = d.imax,
                                                 .jtot = d.jmax,
                                                 .stride = stride,
                                                 .jj = d.jj,
                                                 .kk = d.kk});
    }
    void mirror_bottom(T* field) const { launch_mirror_bottom(d, field); }
};

// Several ranks: the kernel part of pencil_pressure_solve's executor (pencil_solve.h).
template <typename T>
struct PencilSteps {
    const PencilLayout* lay = nullptr;
    GridDims d;              // the z-column field's
    const T* bmat = nullptr; // per z-pencil column
    const T* coef = nullptr;
    T top_mean = T(0);

    void copy(const PencilCopy& c, const T* src, T* dst) const {
        if (pencil_copy_size(c) == 0) return;
        launch(pencil_copy_range(c), pencil_copy_kernel(c, src, dst));
    }
    // The transform rows of an axis: nj rows per level of the pencil, kblk levels.
    int rows_per_level(int axis) const { return axis == 0 ? lay->jmax : lay->iblk; }
    void hc_from_complex(int axis, const T* cplx, T* real) const {
        const int n = lay->transform_length(axis), nj = rows_per_level(axis);
        launch({0, n * nj, 0, 1, 0, lay->kblk},
               sq::PressureHcFromComplex<T>{.hc = real, .cplx = cplx, .n = n, .nj = nj});
    }
    void complex_from_hc(int axis, const T* real, T* cplx) const {
        const int n = lay->transform_length(axis), nj = rows_per_level(axis);
        launch({0, (n / 2 + 1) * nj, 0, 1, 0, lay->kblk},
               sq::PressureComplexFromHc<T>{.cplx = cplx, .hc = real, .n = n, .nj = nj});
    }
    // The real half-complex columns of the z-pencil (il + iblk*jl); gam: nlocal scratch.
    void thomas(T* x, T* gam) const {
        const int ncol = int(lay->ncol);
        launch_2d({0, ncol, 0, 1, 0, 1}, sq::PressureThomasReal<T>{.x = x,
                                                                   .gam = gam,
                                                                   .bmat = bmat,
                                                                   .coef = coef,
                                                                   .top_mean = top_mean,
                                                                   .ktot = lay->ktot,
                                                                   .ncol = ncol});
    }
    void mirror_bottom(T* field) const { launch_mirror_bottom(d, field); }
};

} // namespace squall
