// MPI equivalence of the pressure solver: the same global random RHS solved on an
// npx x npy layout (given on the command line) must match a one-rank solve to 1e-13,
// and satisfy the discrete Poisson equation. Run as: mpiexec -n npx*npy test npx npy.
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "model/decomp.h"
#include "model/pressure/pressure.h"
#include "pressure_test_util.h"

using namespace squall;

namespace {

// Solve on `comm` with the given layout and gather the global solution on rank 0 of comm.
std::vector<double> solve_global(MPI_Comm comm, int npx, int npy, const Config& cfg,
                                 const std::vector<double>& rhs) {
    Decomposition decomp = Decomposition::make(comm, npx, npy);
    const Grid<double> grid = Grid<double>::make(cfg, npx, npy, decomp.px, decomp.py);
    Field3d<double> p(grid.d);
    ptest::scatter_to_field(rhs, p);
    {
        PressureSolver<double> solver(grid, decomp);
        solver.solve(p);
    }
    // Each rank's block into a global array; sum over ranks (blocks do not overlap).
    std::vector<double> mine = ptest::field_to_global(p), all(mine.size(), 0.0);
    MPI_Reduce(mine.data(), all.data(), int(mine.size()), MPI_DOUBLE, MPI_SUM, 0, comm);
    decomp.free();
    return all;
}

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const auto [rank, nprocs, npx, npy] = ptest::rank_layout(argc, argv);

    int failures = 0;
    struct Case {
        int itot, jtot, ktot;
        bool stretched;
    };
    // 24 x 20 x 16 fits every layout up to 2 x 2; 12 x 8 x 4 makes the blocks tiny.
    for (const Case cs : {Case{24, 20, 16, true}, Case{12, 8, 4, false}}) {
        const Config cfg = ptest::make_case(cs.itot, cs.jtot, cs.ktot, cs.stretched);
        const std::vector<double> rhs = ptest::random_global(cs.itot, cs.jtot, cs.ktot, 42);
        const std::vector<double> par = solve_global(MPI_COMM_WORLD, npx, npy, cfg, rhs);
        if (rank != 0) continue;
        const std::vector<double> ser = solve_global(MPI_COMM_SELF, 1, 1, cfg, rhs);
        double maxdiff = 0, maxval = 0;
        for (std::size_t n = 0; n < ser.size(); ++n) {
            maxdiff = std::max(maxdiff, std::abs(par[n] - ser[n]));
            maxval = std::max(maxval, std::abs(ser[n]));
        }
        const double rel = maxdiff / maxval;
        const double res = ptest::residual(Grid<double>::make(cfg, 1, 1, 0, 0), par, rhs);
        const bool ok = rel < 1e-13 && res < 1e-12;
        std::printf("%dx%d ranks, grid %dx%dx%d: |par-ser|/|ser| = %.3e, residual = %.3e %s\n", npx,
                    npy, cs.itot, cs.jtot, cs.ktot, rel, res, ok ? "ok" : "FAILED");
        failures += !ok;
    }
    MPI_Bcast(&failures, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return failures ? 1 : 0;
}
