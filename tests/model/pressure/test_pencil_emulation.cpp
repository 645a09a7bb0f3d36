// The GPU solver's multi-rank (pencil) algorithm on the host, with real MPI ranks:
// pencil_pressure_solve() driven by an executor that runs the very per-element functions
// of the GPU kernels (pencil.cuh, pressure_gpu.cuh) in loops, FFTW's R2C/C2R in place of
// cuFFT, and separate "device" and host MPI buffers with the GPU's staging ranges (the
// host copies start as NaN, so a block staged wrongly poisons the result).
// Run as: mpiexec -n npx*npy test npx npy. Each case must match the CPU solver on the
// same layout to round-off, satisfy the discrete Poisson equation, leave every ghost
// cell alone except the mirrored level below the wall, and (on several ranks) have
// staged data through the host.
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "model/decomp.h"
#include "model/pressure/pencil_solve.h"
#include "model/pressure/pressure.h"
#include "model/pressure/pressure_gpu.cuh"
#include "pressure_test_util.h"

using namespace squall;

namespace {

// The tiled GPU copy (tile > 0) emulated on the host with the kernel's own index
// functions: per block, every thread's loads into the tile, then every thread's stores.
template <int TILE, typename T>
void pencil_copy_host_tiled(const sq::PencilCopy& c, const T* src, T* dst, int rows) {
    std::vector<T> tile(static_cast<std::size_t>(TILE * (TILE + 1)));
    for (int z = 0; z < c.n2 * c.nblocks; ++z)
        for (int b0 = 0; b0 < c.n1; b0 += TILE)
            for (int a0 = 0; a0 < c.n0; a0 += TILE) {
                for (int ty = 0; ty < rows; ++ty)
                    for (int tx = 0; tx < TILE; ++tx)
                        sq::pencil_tile_load<TILE>(c, a0, b0, z, tx, ty, rows, src, tile.data());
                for (int ty = 0; ty < rows; ++ty)
                    for (int tx = 0; tx < TILE; ++tx)
                        sq::pencil_tile_store<TILE>(c, a0, b0, z, tx, ty, rows, tile.data(), dst);
            }
}

template <typename T>
struct HostPencilExec {
    const PencilPressure<T>& pp;
    sq::PressurePackDims field_dims;
    std::vector<T> send_d, recv_d, send_h, recv_h;
    long staged = 0; // values that went through the host buffers
    int tile = 0;    // the GPU copy's tunable: 0 one thread per element, else tiled

    HostPencilExec(const PencilPressure<T>& p, const GridDims& d, int tile_)
        : pp(p), field_dims{d.imax, d.jmax, d.ktot, d.istart, d.jstart, d.kstart, d.jj, d.kk, 1},
          tile(tile_) {
        const T nan = std::numeric_limits<T>::quiet_NaN();
        for (auto* v : {&send_d, &recv_d, &send_h, &recv_h})
            v->assign(std::size_t(p.lay.nlocal), nan);
    }

    void copy(const sq::PencilCopy& c, const T* src, T* dst) {
        if (tile == 32)
            pencil_copy_host_tiled<32>(c, src, dst, 8);
        else if (tile == 64)
            pencil_copy_host_tiled<64>(c, src, dst, 2);
        else
            pencil_copy_host(c, src, dst);
    }
    T* send() { return send_d.data(); }
    T* recv() { return recv_d.data(); }
    T* host_send() { return send_h.data(); }
    T* host_recv() { return recv_h.data(); }
    void to_host(long first, long n) {
        std::memcpy(send_h.data() + first, send_d.data() + first, sizeof(T) * std::size_t(n));
        staged += n;
    }
    void to_device(long first, long n) {
        std::memcpy(recv_d.data() + first, recv_h.data() + first, sizeof(T) * std::size_t(n));
    }
    void exchange_blocks(const PencilStep& s) { exchange_blocks_staged<T>(s, *this); }
    // FFTW's batched 1-D R2C / C2R in the contiguous layout cuFFT uses by default.
    void fft(bool forward, int axis, T* real, T* c) {
        int n = pp.lay.transform_length(axis);
        ptest::Fft<T>::run(forward, 1, &n, int(pp.lay.transform_rows(axis)), real, c);
    }
    void r2c(int axis, T* real, T* c) { fft(true, axis, real, c); }
    void c2r(int axis, T* c, T* real) { fft(false, axis, real, c); }
    void hc_from_complex(int axis, const T* c, T* real) {
        const int n = pp.lay.transform_length(axis);
        for (long r = 0; r < pp.lay.transform_rows(axis); ++r)
            for (int m = 0; m < n; ++m) sq::pencil_hc_from_complex(n, r, m, c, real);
    }
    void complex_from_hc(int axis, const T* real, T* c) {
        const int n = pp.lay.transform_length(axis);
        for (long r = 0; r < pp.lay.transform_rows(axis); ++r)
            for (int m = 0; m <= n / 2; ++m) sq::pencil_complex_from_hc(n, r, m, real, c);
    }
    void thomas(T* x, T* gam) {
        for (long col = 0; col < pp.lay.ncol; ++col)
            sq::pressure_thomas_column<1>(col, pp.lay.ncol, pp.lay.ktot, x, gam, pp.bmat.data(),
                                          pp.coef.data(), pp.top_mean);
    }
    void mirror_bottom(T* field) {
        for (int j = 0; j < field_dims.jtot; ++j)
            for (int i = 0; i < field_dims.itot; ++i)
                sq::pressure_mirror_bottom_point(field_dims, i, j, field);
    }
};

// One case on the layout of decomp; returns the number of failed checks (on every rank).
template <typename T>
int check_case(const Decomposition& decomp, int itot, int jtot, int ktot, bool stretched,
               double tol, int tile = 0) {
    const Config cfg = ptest::make_case(itot, jtot, ktot, stretched);
    const std::vector<double> rhs = ptest::random_global(itot, jtot, ktot, 77);
    const Grid<T> grid = Grid<T>::make(cfg, decomp.npx, decomp.npy, decomp.px, decomp.py);
    const GridDims& d = grid.d;
    const T poison = T(-3.5e3);
    Field3d<T> p_cpu(d), p_emu(d);
    p_cpu.fill(poison);
    p_emu.fill(poison);
    ptest::scatter_to_field(rhs, p_cpu);
    ptest::scatter_to_field(rhs, p_emu);
    std::vector<double> rhs_t = ptest::field_to_global(p_emu); // rhs in precision T
    MPI_Allreduce(MPI_IN_PLACE, rhs_t.data(), int(rhs_t.size()), MPI_DOUBLE, MPI_SUM, decomp.comm);
    {
        PressureSolver<T> solver(grid, decomp);
        solver.solve(p_cpu);
    }
    const PencilPressure<T> pp(grid, decomp);
    HostPencilExec<T> ex(pp, d, tile);
    std::vector<T> a(std::size_t(pp.lay.nlocal)), b(a.size()), c(2 * std::size_t(pp.ncplx));
    pencil_pressure_solve(pp.lay, ex, p_emu.data(), a.data(), b.data(), c.data());

    int fail = 0;
    double maxdiff = 0, maxref = 0;
    for (int k = 0; k < d.kcells; ++k)
        for (int j = 0; j < d.jcells; ++j)
            for (int i = 0; i < d.icells; ++i) {
                const bool horiz = i >= d.istart && i < d.iend && j >= d.jstart && j < d.jend;
                if (!horiz || k < d.kstart - 1 || k >= d.kend) {
                    fail += p_emu(i, j, k) != poison;
                    continue;
                }
                if (k == d.kstart - 1) fail += p_emu(i, j, k) != p_emu(i, j, d.kstart);
                maxdiff = std::max(maxdiff, std::abs(double(p_emu(i, j, k)) - p_cpu(i, j, k)));
                maxref = std::max(maxref, std::abs(double(p_cpu(i, j, k))));
            }
    MPI_Allreduce(MPI_IN_PLACE, &maxdiff, 1, MPI_DOUBLE, MPI_MAX, decomp.comm);
    MPI_Allreduce(MPI_IN_PLACE, &maxref, 1, MPI_DOUBLE, MPI_MAX, decomp.comm);
    const bool expect_staging = decomp.npx * decomp.npy > 1;
    fail += expect_staging != (ex.staged > 0);

    std::vector<double> mine = ptest::field_to_global(p_emu), sol(mine.size(), 0.0);
    MPI_Allreduce(mine.data(), sol.data(), int(mine.size()), MPI_DOUBLE, MPI_SUM, decomp.comm);
    const double res = ptest::residual(Grid<T>::make(cfg, 1, 1, 0, 0), sol, rhs_t);
    const double rel = maxdiff / maxref;
    fail += !(rel < tol) + !(res < tol);
    MPI_Allreduce(MPI_IN_PLACE, &fail, 1, MPI_INT, MPI_SUM, decomp.comm);
    if (decomp.rank == 0)
        std::printf("%dx%d ranks, %dx%dx%d %s, copy tile %d: |emu-cpu|/|cpu| = %.3e, residual = "
                    "%.3e %s\n",
                    decomp.npx, decomp.npy, itot, jtot, ktot, sizeof(T) == 8 ? "double" : "float",
                    tile, rel, res, fail ? "FAILED" : "ok");
    return fail;
}

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int nprocs = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    const int npx = argc > 2 ? std::atoi(argv[1]) : 1;
    const int npy = argc > 2 ? std::atoi(argv[2]) : 1;
    if (npx * npy != nprocs) {
        std::fprintf(stderr, "need npx*npy == number of ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int failures = 0;
    {
        Decomposition decomp = Decomposition::make(MPI_COMM_WORLD, npx, npy);
        failures += check_case<double>(decomp, 24, 20, 16, true, 1e-12);
        failures += check_case<double>(decomp, 12, 8, 4, false, 1e-12);
        failures += check_case<float>(decomp, 24, 20, 16, true, 2e-5);
        // The tiled copies, with partial patches (24, 20 < 32; 72 = 64 + 8).
        failures += check_case<double>(decomp, 24, 20, 16, true, 1e-12, 32);
        failures += check_case<float>(decomp, 72, 40, 8, false, 2e-5, 64);
        if (nprocs == 1) {
            failures += check_case<double>(decomp, 15, 9, 7, false, 1e-12); // odd lengths
            failures += check_case<double>(decomp, 1, 12, 10, true, 1e-12); // no x transform
        }
        decomp.free();
    }
    MPI_Finalize();
    return failures ? 1 : 0;
}
