#pragma once
// Spectral pressure solver (docs/numerics.md "Pressure"): real FFTs in x and y, a tridiagonal
// solve in z per horizontal wavenumber, with MPI pencil transposes between the steps.
#include <memory>
#include <vector>

#include "model/decomp.h"
#include "model/field.h"
#include "model/grid.h"

namespace squall {

// The vertical operator of the solve, per level k = 0..ktot-1 (docs/numerics.md "Pressure"),
// shared by the CPU and GPU solvers: a, c link to k-1 and k+1 (zero at the walls),
// dz2rho = dz^2 rho multiplies the wavenumber term, b_base is the diagonal without it
// (Neumann closures included), rhs_scale = dz^2/(itot jtot) folds in the FFT
// normalisation; the mean mode adds top_mean to its top diagonal (pi = 0 on the top face).
template <typename T>
struct PressureTridiag {
    std::vector<T> a, c, dz2rho, b_base, rhs_scale;
    T top_mean = T(0);

    static PressureTridiag make(const Grid<T>& grid);
    // a, c, dz2rho, b_base, rhs_scale back to back (the GPU kernels' coef array).
    std::vector<T> packed() const;
};

// Eigenvalue of the 2nd-order Laplacian along one periodic axis for wavenumber (or
// half-complex index) n of ntot, grid spacing 1/dinv: symmetric in n <-> ntot - n.
double pressure_wavenumber_term(int n, int ntot, double dinv);

template <typename T>
class PressureSolver {
public:
    // Creates the FFTW plans (FFTW_ESTIMATE, so every rank plans identically) and buffers.
    // Copies what it needs from grid; keeps decomp's comm_x/comm_y handles, so those
    // communicators must outlive the solver. Not copyable.
    PressureSolver(const Grid<T>& grid, const Decomposition& decomp);
    ~PressureSolver();
    PressureSolver(const PressureSolver&) = delete;
    PressureSolver& operator=(const PressureSolver&) = delete;

    // On entry the interior of p holds the right-hand side (step 1 of docs/numerics.md); on exit
    // it holds the pressure pi, with p[kstart-1] = p[kstart]. Horizontal ghost cells are
    // not exchanged (the caller does that). Collective over decomp.comm.
    void solve(Field3d<T>& p);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace squall
