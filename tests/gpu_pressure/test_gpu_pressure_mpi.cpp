// The GPU pressure solver with several ranks (host-staged through the CPU solver's
// transposes): run as mpiexec -n npx*npy test npx npy. Each rank's field lives on the
// device; the result must equal the CPU solver's on the same layout and satisfy the
// discrete Poisson equation. Exits 77 (skipped) without a GPU.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "model/decomp.h"
#include "model/pressure/pressure.h"
#include "model/pressure/pressure_gpu.h"
#include "pressure_test_util.h"

using namespace squall;

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, nprocs = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    const int npx = argc > 2 ? std::atoi(argv[1]) : 1;
    const int npy = argc > 2 ? std::atoi(argv[2]) : 1;
    if (npx * npy != nprocs) {
        if (rank == 0) std::fprintf(stderr, "need npx*npy == number of ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int failures = 0;
    {
        rt::Runtime runtime;
        int have = runtime.has_device() ? 1 : 0, all = 0;
        MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (!all) {
            if (rank == 0) std::printf("skipped: %s\n", runtime.no_device_reason().c_str());
            MPI_Finalize();
            return 77;
        }
        const int itot = 24, jtot = 20, ktot = 16;
        const Config cfg = ptest::make_case(itot, jtot, ktot, true);
        const std::vector<double> rhs = ptest::random_global(itot, jtot, ktot, 51);
        Decomposition decomp = Decomposition::make(MPI_COMM_WORLD, npx, npy);
        const Grid<double> grid = Grid<double>::make(cfg, npx, npy, decomp.px, decomp.py);
        Field3d<double> p_cpu(grid.d), p_gpu(grid.d);
        ptest::scatter_to_field(rhs, p_cpu);
        ptest::scatter_to_field(rhs, p_gpu);
        {
            PressureSolver<double> solver(grid, decomp);
            solver.solve(p_cpu);
        }
        {
            rt::DeviceBuffer dev(sizeof(double) * p_gpu.size());
            dev.upload(p_gpu.data());
            PressureSolverGpu<double> solver(grid, decomp, runtime);
            if (!solver.host_staged()) ++failures;
            solver.solve(reinterpret_cast<double*>(dev.get()));
            rt::Driver::get().synchronize();
            dev.download(p_gpu.data());
        }
        std::vector<double> mine = ptest::field_to_global(p_gpu), sol(mine.size(), 0.0);
        MPI_Allreduce(mine.data(), sol.data(), int(mine.size()), MPI_DOUBLE, MPI_SUM,
                      MPI_COMM_WORLD);
        double maxdiff = 0;
        for (std::size_t n = 0; n < p_cpu.size(); ++n)
            maxdiff = std::max(maxdiff, std::abs(p_cpu.data()[n] - p_gpu.data()[n]));
        double global_diff = 0;
        MPI_Allreduce(&maxdiff, &global_diff, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (global_diff != 0.0) ++failures; // the same CPU code ran on the same data
        if (rank == 0) {
            const Grid<double> g1 = Grid<double>::make(cfg, 1, 1, 0, 0);
            const double res = ptest::residual(g1, sol, rhs);
            std::printf("GPU host-staged %dx%d: diff to CPU %.3e, residual %.3e\n", npx, npy,
                        global_diff, res);
            if (!(res < 1e-12)) ++failures;
        }
        decomp.free();
    }
    MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return failures == 0 ? 0 : 1;
}
