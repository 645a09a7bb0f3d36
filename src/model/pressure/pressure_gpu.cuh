#pragma once
// Kernels of the GPU pressure solver (PressureSolverGpu, docs/numerics.md "Pressure"): pack the
// interior of a field into the FFT input, solve the tridiagonal system in z per horizontal
// wavenumber, unpack. The per-thread work is in SQ_HD functions so a host test can run
// exactly this index logic with FFTW; the __global__ wrappers exist only under NVRTC/nvcc.
#include "kernels/common.cuh"
#include "model/pressure/pencil.cuh"

namespace sq {

// Where the interior lives in the field and how the packed buffer is laid out.
struct PressurePackDims {
    int itot, jtot, ktot;       // interior sizes (single rank: the whole domain)
    int istart, jstart, kstart; // first interior index of the field
    int jj, kk;                 // field strides
    int stride;                 // 1: real FFT input; 2: real parts of a complex array
};

// Packed index of interior point (i, j, k), all counted from 0.
SQ_HD long pressure_packed_index(const PressurePackDims& d, int i, int j, int k) {
    return long(d.stride) * (i + long(d.itot) * (j + long(d.jtot) * k));
}

SQ_HD long pressure_field_index(const PressurePackDims& d, int i, int j, int k) {
    return (d.istart + i) + long(d.jstart + j) * d.jj + long(d.kstart + k) * d.kk;
}

template <typename T>
SQ_HD void pressure_pack_point(const PressurePackDims& d, int i, int j, int k,
                               const T* SQ_RESTRICT field, T* SQ_RESTRICT packed) {
    packed[pressure_packed_index(d, i, j, k)] = field[pressure_field_index(d, i, j, k)];
}

// Writes the solution back and mirrors the first level into the ghost below the wall.
template <typename T>
SQ_HD void pressure_unpack_point(const PressurePackDims& d, int i, int j, int k,
                                 const T* SQ_RESTRICT packed, T* SQ_RESTRICT field) {
    const T v = packed[pressure_packed_index(d, i, j, k)];
    const long ijk = pressure_field_index(d, i, j, k);
    field[ijk] = v;
    if (k == 0) field[ijk - d.kk] = v;
}

// Thomas algorithm for one column `col` of the transformed field, with NC components per
// value: 2 for interleaved (re, im) pairs (the single-rank complex layout), 1 for the
// real half-complex entries of the pencil solve; every component obeys the same real
// system. x holds ncol values per level. coef holds five arrays of ktot values: a, c
// (links to k-1 and k+1, zero at the walls), dz^2 rho, the diagonal without the
// wavenumber term, and dz^2/(itot jtot) that scales the right-hand side. Column 0 adds
// top_mean to its last diagonal entry (the mean mode: pi = 0 on the top face; callers
// without the mean mode pass 0). gam needs ncol*ktot values of scratch.
template <int NC, typename T>
SQ_HD void pressure_thomas_column(long col, long ncol, int ktot, T* SQ_RESTRICT x,
                                  T* SQ_RESTRICT gam, const T* SQ_RESTRICT bmat,
                                  const T* SQ_RESTRICT coef, T top_mean) {
    const T* a = coef;
    const T* c = coef + ktot;
    const T* dz2rho = coef + 2 * ktot;
    const T* b_base = coef + 3 * ktot;
    const T* rhs_scale = coef + 4 * ktot;
    const T bm = bmat[col];
    const T top_fix = col == 0 ? top_mean : T(0);

    T* x0 = x + NC * col;
    T binv = T(1) / (dz2rho[0] * bm + b_base[0] + (ktot == 1 ? top_fix : T(0)));
    T v[NC];
    for (int n = 0; n < NC; ++n) x0[n] = v[n] = rhs_scale[0] * x0[n] * binv;
    for (int k = 1; k < ktot; ++k) {
        T* xk = x + NC * (col + ncol * k);
        const T g = c[k - 1] * binv;
        const T diag = dz2rho[k] * bm + b_base[k] + (k == ktot - 1 ? top_fix : T(0));
        binv = T(1) / (diag - a[k] * g);
        gam[col + ncol * k] = g;
        for (int n = 0; n < NC; ++n) xk[n] = v[n] = (rhs_scale[k] * xk[n] - a[k] * v[n]) * binv;
    }
    for (int k = ktot - 2; k >= 0; --k) {
        T* xk = x + NC * (col + ncol * k);
        const T g = gam[col + ncol * (k + 1)];
        for (int n = 0; n < NC; ++n) xk[n] = v[n] = xk[n] - g * v[n];
    }
}

// The ghost level below the wall mirrors the first level (Neumann), as the momentum
// update expects; (i, j) counted from the first interior point.
template <typename T>
SQ_HD void pressure_mirror_bottom_point(const PressurePackDims& d, int i, int j,
                                        T* SQ_RESTRICT field) {
    const long ijk = pressure_field_index(d, i, j, 0);
    field[ijk - d.kk] = field[ijk];
}

} // namespace sq

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)

// Launched over (itot, jtot, ktot) with a 2-D block and one block row per level.
template <typename T>
__global__ void SQUALL_LAUNCH_BOUNDS pressure_gpu_pack(sq::PressurePackDims d, const T* field,
                                                       T* packed) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    const int k = blockIdx.z;
    if (i < d.itot && j < d.jtot) sq::pressure_pack_point(d, i, j, k, field, packed);
}

template <typename T>
__global__ void SQUALL_LAUNCH_BOUNDS pressure_gpu_unpack(sq::PressurePackDims d, const T* packed,
                                                         T* field) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    const int k = blockIdx.z;
    if (i < d.itot && j < d.jtot) sq::pressure_unpack_point(d, i, j, k, packed, field);
}

// One thread per column; neighbouring threads touch neighbouring columns. NC: 2 for
// the single-rank complex layout, 1 for the pencil solve's real columns.
template <typename T, int NC>
__global__ void SQUALL_LAUNCH_BOUNDS pressure_gpu_thomas(long ncol, int ktot, T* x, T* gam,
                                                         const T* bmat, const T* coef, T top_mean) {
    const long col = long(blockIdx.x) * blockDim.x + threadIdx.x;
    if (col < ncol) sq::pressure_thomas_column<NC>(col, ncol, ktot, x, gam, bmat, coef, top_mean);
}

// ---- pencil solve (several ranks) ----

// Launched over (n0, n1, n2 * nblocks), one grid layer per z. TILE = 0: one thread per
// element (a 2-D block); TILE > 0: a TILE x TILE patch per block of TILE x rows threads,
// through shared memory (pencil_tile_load / _store).
template <typename T, int TILE>
__global__ void SQUALL_LAUNCH_BOUNDS pressure_gpu_pencil_copy(sq::PencilCopy c, const T* src,
                                                              T* dst) {
    const int z = int(blockIdx.z);
    if constexpr (TILE == 0) {
        const int a = blockIdx.x * blockDim.x + threadIdx.x;
        const int b = blockIdx.y * blockDim.y + threadIdx.y;
        if (a < c.n0 && b < c.n1) sq::pencil_copy_point(c, a, b, z, src, dst);
    } else {
        __shared__ T tile[TILE * (TILE + 1)];
        const int a0 = blockIdx.x * TILE, b0 = blockIdx.y * TILE;
        const int tx = threadIdx.x, ty = threadIdx.y, rows = blockDim.y;
        sq::pencil_tile_load<TILE>(c, a0, b0, z, tx, ty, rows, src, tile);
        __syncthreads();
        sq::pencil_tile_store<TILE>(c, a0, b0, z, tx, ty, rows, tile, dst);
    }
}

// Half-complex <-> complex rows, one thread per output value: rows * n reals, or
// rows * (n/2+1) complex values.
template <typename T>
__global__ void SQUALL_LAUNCH_BOUNDS pressure_gpu_hc_from_complex(int n, long rows, const T* cplx,
                                                                  T* hc) {
    const long p = long(blockIdx.x) * blockDim.x + threadIdx.x;
    if (p < rows * n) sq::pencil_hc_from_complex(n, p / n, int(p % n), cplx, hc);
}

template <typename T>
__global__ void SQUALL_LAUNCH_BOUNDS pressure_gpu_complex_from_hc(int n, long rows, const T* hc,
                                                                  T* cplx) {
    const long m = n / 2 + 1, p = long(blockIdx.x) * blockDim.x + threadIdx.x;
    if (p < rows * m) sq::pencil_complex_from_hc(n, p / m, int(p % m), hc, cplx);
}

// Over (imax, jmax) with a 2-D block.
template <typename T>
__global__ void SQUALL_LAUNCH_BOUNDS pressure_gpu_mirror_bottom(sq::PressurePackDims d, T* field) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < d.itot && j < d.jtot) sq::pressure_mirror_bottom_point(d, i, j, field);
}

#endif
