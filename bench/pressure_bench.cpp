// Timing of PressureSolver::solve at 128^3 and 256^3 (or the sizes given as arguments),
// double and float, on 1 and 2 OpenMP threads (one MPI rank). Not a test: prints ms per
// solve (best of N) and ns per grid point.
#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "model/decomp.h"
#include "model/pressure/pressure.h"
#include "pressure_test_util.h"

using namespace squall;

template <typename T>
void bench(int n, int nthreads, Decomposition& decomp) {
    omp_set_num_threads(nthreads); // before the solver: it makes one FFT plan per thread
    const Config cfg = ptest::make_case(n, n, n, true);
    const Grid<T> grid = Grid<T>::make(cfg, 1, 1, 0, 0);
    Field3d<T> p(grid.d);
    PressureSolver<T> solver(grid, decomp);
    const std::vector<double> rhs = ptest::random_global(n, n, n, 7);
    ptest::scatter_to_field(rhs, p);
    solver.solve(p); // warm up (first touch, page faults)
    // Best of several: the machine is shared, and the minimum is the least disturbed.
    const int reps = n <= 64 ? 200 : n <= 128 ? 10 : 5;
    double s = 1e30;
    for (int r = 0; r < reps; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        solver.solve(p);
        s = std::min(s,
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::printf("%4d^3 %-6s threads=%d: %9.2f ms/solve %7.2f ns/point\n", n,
                sizeof(T) == 8 ? "double" : "float", nthreads, 1e3 * s,
                1e9 * s / (double(n) * n * n));
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    Decomposition decomp = Decomposition::make(MPI_COMM_SELF, 1, 1);
    std::vector<int> sizes;
    for (int a = 1; a < argc; ++a) sizes.push_back(std::atoi(argv[a]));
    if (sizes.empty()) sizes = {128, 256};
    for (int n : sizes)
        for (int nt : {1, 2}) {
            bench<double>(n, nt, decomp);
            bench<float>(n, nt, decomp);
        }
    decomp.free();
    MPI_Finalize();
    return 0;
}
