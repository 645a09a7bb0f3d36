// The GPU pressure solver with several ranks (pencil transposes on the device, MPI
// through page-locked host buffers): run as mpiexec -n npx*npy test npx npy. Each rank's
// field lives on the device; the result must match the CPU solver's on the same layout to
// round-off (cuFFT against FFTW) and satisfy the discrete Poisson equation. Exits 77
// (skipped) without a GPU.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "backends/cuda/gpu_launch.h"
#include "model/decomp.h"
#include "model/pressure/pressure.h"
#include "model/pressure/pressure_gpu.h"
#include "pressure_test_util.h"

using namespace squall;

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const auto [rank, nprocs, npx, npy] = ptest::rank_layout(argc, argv);
    int failures = 0;
    {
        // The solver's kernels go through the GPU backend (every rank on device 0).
        std::string why;
        try {
            gpu::activate();
        } catch (const rt::NoDeviceError& e) {
            why = e.what();
        }
        int have = why.empty() ? 1 : 0, all = 0;
        MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (!all) {
            if (rank == 0) std::printf("skipped: %s\n", why.c_str());
            gpu::deactivate();
            MPI_Finalize();
            return 77;
        }
        Decomposition decomp = Decomposition::make(MPI_COMM_WORLD, npx, npy);
        struct Case {
            int itot, jtot, ktot;
        };
        for (const Case cs : {Case{24, 20, 16}, Case{96, 64, 48}}) {
            const Config cfg = ptest::make_case(cs.itot, cs.jtot, cs.ktot, true);
            const std::vector<double> rhs = ptest::random_global(cs.itot, cs.jtot, cs.ktot, 51);
            const Grid<double> grid = Grid<double>::make(cfg, npx, npy, decomp.px, decomp.py);
            const double poison = -3.5e3;
            Field3d<double> p_cpu(grid.d), p_gpu(grid.d);
            p_cpu.fill(poison);
            p_gpu.fill(poison);
            ptest::scatter_to_field(rhs, p_cpu);
            ptest::scatter_to_field(rhs, p_gpu);
            {
                PressureSolver<double> solver(grid, decomp);
                solver.solve(p_cpu);
            }
            {
                rt::DeviceBuffer dev(sizeof(double) * p_gpu.size());
                dev.upload(p_gpu.data());
                PressureSolverGpu<double> solver(grid, decomp);
                if (!solver.pencils()) ++failures;
                solver.solve(reinterpret_cast<double*>(dev.get()));
                rt::Driver::get().synchronize();
                dev.download(p_gpu.data());
            }
            std::vector<double> mine = ptest::field_to_global(p_gpu), sol(mine.size(), 0.0);
            MPI_Allreduce(mine.data(), sol.data(), int(mine.size()), MPI_DOUBLE, MPI_SUM,
                          MPI_COMM_WORLD);
            // Ghost cells stay as they were except the mirrored level below the wall.
            const GridDims& d = grid.d;
            double maxdiff = 0, maxref = 0;
            for (int k = 0; k < d.kcells; ++k)
                for (int j = 0; j < d.jcells; ++j)
                    for (int i = 0; i < d.icells; ++i) {
                        const bool in = i >= d.istart && i < d.iend && j >= d.jstart &&
                                        j < d.jend && k >= d.kstart - 1 && k < d.kend;
                        if (!in) {
                            failures += p_gpu(i, j, k) != poison;
                            continue;
                        }
                        maxdiff = std::max(maxdiff, std::abs(p_cpu(i, j, k) - p_gpu(i, j, k)));
                        maxref = std::max(maxref, std::abs(p_cpu(i, j, k)));
                    }
            double diff[2] = {maxdiff, maxref};
            MPI_Allreduce(MPI_IN_PLACE, diff, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            const double rel = diff[0] / diff[1];
            if (!(rel < 1e-12)) ++failures;
            if (rank == 0) {
                const Grid<double> g1 = Grid<double>::make(cfg, 1, 1, 0, 0);
                const double res = ptest::residual(g1, sol, rhs);
                std::printf("GPU pencils %dx%d, %dx%dx%d: |gpu-cpu|/|cpu| %.3e, residual %.3e\n",
                            npx, npy, cs.itot, cs.jtot, cs.ktot, rel, res);
                if (!(res < 1e-12)) ++failures;
            }
        }
        decomp.free();
        gpu::deactivate();
    }
    MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return failures == 0 ? 0 : 1;
}
