// The GPU solver's multi-rank (pencil) algorithm on the host, with real MPI ranks:
// pencil_pressure_solve() driven by an executor whose kernel steps are the GPU solver's own
// (PencilSteps, spectral_steps.h: the same kernel structs, ranges and members, run on the
// CPU through launch.h), FFTW's R2C/C2R in place of cuFFT, and separate "device" and host
// MPI buffers with the GPU's staging ranges (the host copies start as NaN, so a block
// staged wrongly poisons the result).
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
#include "pressure_test_util.h"

using namespace squall;

namespace {

template <typename T>
struct HostPencilExec {
    const PencilPressure<T>& pp;
    PencilSteps<T> steps;
    std::vector<T> send_d, recv_d, send_h, recv_h;
    long staged = 0; // values that went through the host buffers

    HostPencilExec(const PencilPressure<T>& p, const GridDims& d)
        : pp(p), steps(p.steps(d, p.bmat.data(), p.coef.data())) {
        const T nan = std::numeric_limits<T>::quiet_NaN();
        for (auto* v : {&send_d, &recv_d, &send_h, &recv_h})
            v->assign(std::size_t(p.lay.nlocal), nan);
    }

    void copy(const PencilCopy& c, const T* src, T* dst) { steps.copy(c, src, dst); }
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
    void hc_from_complex(int axis, const T* c, T* real) { steps.hc_from_complex(axis, c, real); }
    void complex_from_hc(int axis, const T* real, T* c) { steps.complex_from_hc(axis, real, c); }
    void thomas(T* x, T* gam) { steps.thomas(x, gam); }
    void mirror_bottom(T* field) { steps.mirror_bottom(field); }
};

// One case on the layout of decomp; returns the number of failed checks (on every rank).
template <typename T>
int check_case(const Decomposition& decomp, int itot, int jtot, int ktot, bool stretched,
               double tol) {
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
    HostPencilExec<T> ex(pp, d);
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
        std::printf("%dx%d ranks, %dx%dx%d %s: |emu-cpu|/|cpu| = %.3e, residual = %.3e %s\n",
                    decomp.npx, decomp.npy, itot, jtot, ktot, sizeof(T) == 8 ? "double" : "float",
                    rel, res, fail ? "FAILED" : "ok");
    return fail;
}

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const auto [rank, nprocs, npx, npy] = ptest::rank_layout(argc, argv);
    int failures = 0;
    {
        Decomposition decomp = Decomposition::make(MPI_COMM_WORLD, npx, npy);
        failures += check_case<double>(decomp, 24, 20, 16, true, 1e-12);
        failures += check_case<double>(decomp, 12, 8, 4, false, 1e-12);
        // Columns longer than the Thomas kernel's chunk of 16 levels: a partial second chunk,
        // and several chunks with a partial one on top.
        failures += check_case<double>(decomp, 12, 8, 20, true, 1e-12);
        failures += check_case<double>(decomp, 12, 8, 40, true, 1e-12);
        failures += check_case<float>(decomp, 24, 20, 16, true, 2e-5);
        failures += check_case<float>(decomp, 72, 40, 8, false, 2e-5);
        failures += check_case<float>(decomp, 12, 8, 40, false, 2e-5);
        if (nprocs == 1) {
            failures += check_case<double>(decomp, 15, 9, 7, false, 1e-12); // odd lengths
            failures += check_case<double>(decomp, 1, 12, 10, true, 1e-12); // no x transform
        }
        decomp.free();
    }
    MPI_Finalize();
    return failures ? 1 : 0;
}
