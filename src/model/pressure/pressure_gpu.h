#pragma once
// GPU twin of PressureSolver (docs/numerics.md "Pressure"): batched cuFFT R2C over x and y
// per level straight from the field's interior, a Thomas solve per horizontal wavenumber
// (one GPU thread per column), inverse C2R straight back into it. With npx*npy > 1 it solves on
// pencils (pencil_solve.h): device transposes and 1-D transforms; the blocks that cross ranks go
// device to device on one node (CUDA IPC), else through page-locked host buffers and MPI. Its
// kernels are kernels/pressure_spectral.cuh, launched through the GPU backend like every other
// kernel (spectral_steps.h); everything runs on the backend's stream. Built only when
// SQUALL_HAVE_CUDA.
#include <cstddef>
#include <memory>
#include <vector>

#include "model/decomp.h"
#include "model/grid.h"
#include "model/pressure/spectral_steps.h"

namespace squall {

template <typename T>
class PressureSolverGpu {
public:
    // Plans the transforms and allocates the device buffers; the kernels compile on their
    // first launch, or with the backend's recording (gpu::Backend::begin_recording). The GPU
    // backend must be active (gpu::active(), else std::logic_error) with a device (else
    // rt::NoDeviceError naming the reason) and outlive the solver. Not copyable.
    PressureSolverGpu(const Grid<T>& grid, const Decomposition& decomp);
    ~PressureSolverGpu();
    PressureSolverGpu(const PressureSolverGpu&) = delete;
    PressureSolverGpu& operator=(const PressureSolverGpu&) = delete;

    // p_device: a device array with the Field3d layout of grid.d (ghost cells included,
    // the first interior point aligned as Field3d aligns it; else std::invalid_argument).
    // On entry its interior holds the right-hand side, on exit the pressure pi, with
    // p[kstart-1] = p[kstart]; horizontal ghost cells are not exchanged. Asynchronous on
    // the backend's stream, except that with several ranks each transpose waits for its
    // packing kernels before MPI. The backend must be active (else std::logic_error).
    void solve(T* p_device);

    // True when solves go through pencil transposes (npx*npy > 1).
    bool pencils() const;

    // Device memory a solver for these dimensions allocates, cuFFT work areas estimated,
    // so that a caller can check it against the free memory before building one.
    static std::size_t device_bytes(const GridDims& d);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// The one-rank transforms: their shape, and where their real values lie in a field of the
// model's layout (cuFFT's and FFTW's advanced layout). Rank 2 runs over [slow][fast], rank 1
// over fast alone (slow has one entry); the arrays hold rank entries, slowest first. Value
// (fast, slow) of level k lies at offset + (fast + slow * nembed[rank - 1]) * stride + k * dist,
// so that the forward transform reads the right-hand side from the field and the inverse
// writes the solution into it, with no packing pass on either side.
struct PressureRealLayout {
    int rank;
    int n[2];      // the transform's extents
    int nembed[2]; // the real side's extents as stored
    int stride;    // between values along fast
    int dist;      // between levels
    long offset;   // of the first interior point
};

// The transform shape and the tridiagonal coefficients, shared by the solver and the host
// emulation test. The transforms run over [k][slow][fast] with fast = x (or y when
// itot == 1, then slow has one entry); their output is [k][slow][fast/2+1] complex values,
// contiguous, so column col = cf + (fast/2+1) cs.
template <typename T>
struct PressureGpuLayout {
    int nfast = 1, nslow = 1, ktot = 1;
    long ncol = 1;       // complex columns per level
    std::vector<T> bmat; // bmati + bmatj per column (modified wavenumbers)
    std::vector<T> coef; // a, c, dz^2 rho, b_base, rhs_scale: ktot values each
    T top_mean = T(0);   // extra top diagonal term of the mean mode (-2 c[ktot-1])
    bool needs_fft() const { return nfast > 1; }
    // The transforms on a field of dimensions d (needs_fft()).
    PressureRealLayout real_layout(const GridDims& d) const {
        const bool x_fast = d.itot > 1;
        const int fast_stored = x_fast ? d.jj : nfast;
        const long offset = d.istart + long(d.jstart) * d.jj + long(d.kstart) * d.kk;
        if (nslow > 1) return {2, {nslow, nfast}, {nslow, fast_stored}, 1, d.kk, offset};
        return {1, {nfast, 0}, {fast_stored, 0}, x_fast ? 1 : d.jj, d.kk, offset};
    }

    static PressureGpuLayout make(const Grid<T>& grid);
    // The solve's kernel steps, with copies of bmat and coef where they run.
    SpectralSteps<T> steps(const GridDims& d, const T* bmat_at, const T* coef_at) const {
        return {d, nfast / 2 + 1, nslow, needs_fft() ? 1 : 2, bmat_at, coef_at, top_mean};
    }
};

} // namespace squall
