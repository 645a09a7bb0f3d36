#pragma once
// The pressure solve on pencils, for several ranks (docs/numerics.md "Pressure"; layouts in
// transpose.h): transpose to x-pencils, real FFTs along x, to y-pencils, FFTs along y, to
// z-pencils, a real Thomas solve per half-complex column, and back. The transforms are
// R2C/C2R converted to half-complex order, so every transpose moves the same real
// values as the CPU solver's and every column is an independent real system.
// The sequence is written once against an executor that owns the data's side: the GPU
// solver's (kernels, cuFFT, host-staged MPI buffers) and the host emulation in the unit
// test (the same kernel structs on the CPU, FFTW).
#include <vector>

#include "model/grid.h"
#include "model/pressure/spectral_steps.h"
#include "model/pressure/transpose.h"

namespace squall {

// What a rank's solve needs besides the data: the layout, the modified wavenumbers of
// its z-pencil columns, the tridiagonal coefficients (as PressureGpuLayout::coef) and the
// mean-mode correction (non-zero only on the rank that holds column (0, 0)).
template <typename T>
struct PencilPressure {
    PencilLayout lay;
    std::vector<T> bmat;
    std::vector<T> coef;
    T top_mean = T(0);
    long ncplx = 0; // complex values of the larger transform's output

    PencilPressure(const Grid<T>& grid, const Decomposition& decomp);
    // The solve's kernel steps on the z-column field of d, with copies of bmat and coef
    // where they run.
    PencilSteps<T> steps(const GridDims& d, const T* bmat_at, const T* coef_at) const {
        return {&lay, d, bmat_at, coef_at, top_mean};
    }
};

// The executor provides, on its side of the data:
//   the Mover interface of pencil_exchange (transpose.h);
//   r2c(axis, real, cplx), c2r(axis, cplx, real): the transforms of
//       PencilLayout::transform_length/transform_rows(axis), contiguous in both arrays;
//   hc_from_complex(axis, cplx, real), complex_from_hc(axis, real, cplx): the same rows
//       (sq::PressureHcFromComplex / PressureComplexFromHc on every element);
//   thomas(x, gam): the real Thomas solve of every z-pencil column;
//   mirror_bottom(field): the ghost level below the wall.
// field: the rank's z-column field; a, b: nlocal values; cplx: 2*ncplx values.
template <typename T, class Exec>
void pencil_pressure_solve(const PencilLayout& L, Exec& ex, T* field, T* a, T* b, T* cplx) {
    auto forward = [&](int axis, T* data) {
        if (L.transform_length(axis) == 1) return; // a length-1 transform is the identity
        ex.r2c(axis, data, cplx);
        ex.hc_from_complex(axis, cplx, data);
    };
    auto inverse = [&](int axis, T* data) {
        if (L.transform_length(axis) == 1) return;
        ex.complex_from_hc(axis, data, cplx);
        ex.c2r(axis, cplx, data);
    };
    pencil_exchange(L.zcol_x, field, a, ex);
    forward(0, a);
    pencil_exchange(L.x_y, a, b, ex);
    forward(1, b);
    pencil_exchange(L.y_z, b, a, ex);
    ex.thomas(a, b);
    pencil_exchange(L.y_z.reversed(), a, b, ex);
    inverse(1, b);
    pencil_exchange(L.x_y.reversed(), b, a, ex);
    inverse(0, a);
    pencil_exchange(L.zcol_x.reversed(), a, field, ex);
    ex.mirror_bottom(field);
}

} // namespace squall
