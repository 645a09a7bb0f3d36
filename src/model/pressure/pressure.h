#pragma once
// Spectral pressure solver (NUMERICS.md "Pressure"): real FFTs in x and y, a tridiagonal
// solve in z per horizontal wavenumber, with MPI pencil transposes between the steps.
#include <memory>

#include "model/decomp.h"
#include "model/field.h"
#include "model/grid.h"

namespace squall {

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

    // On entry the interior of p holds the right-hand side (step 1 of NUMERICS.md); on exit
    // it holds the pressure pi, with p[kstart-1] = p[kstart]. Horizontal ghost cells are
    // not exchanged (the caller does that). Collective over decomp.comm.
    void solve(Field3d<T>& p);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace squall
