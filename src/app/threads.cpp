#include "app/threads.h"

#include <fmt/format.h>
#include <mpi.h>
#include <omp.h>

#include <algorithm>

namespace squall::app {

namespace {

// Seconds per barrier of a team of n threads, over up to 400 barriers or about 20 ms.
double barrier_seconds(int n) {
    int rounds = 0;
    double elapsed = 0;
    bool done = false;
    const double t0 = omp_get_wtime();
#pragma omp parallel num_threads(n)
    for (int r = 0; r < 200; ++r) {
#pragma omp barrier
#pragma omp master
        {
            rounds = r + 1;
            elapsed = omp_get_wtime() - t0;
            done = elapsed > 0.02;
        }
#pragma omp barrier
        if (done) break; // read after the barrier: every thread sees the master's value
    }
    return rounds > 0 ? elapsed / (2.0 * rounds) : 0.0;
}

} // namespace

ThreadChoice default_threads(double slow_barrier_s) {
    MPI_Comm node = MPI_COMM_NULL;
    int on_node = 1;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
        MPI_SUCCESS) {
        MPI_Comm_size(node, &on_node);
        MPI_Comm_free(&node);
    }
    const int cores = omp_get_num_procs();
    ThreadChoice c;
    c.threads = std::max(1, cores / std::max(1, on_node));
    const int share = c.threads;
    double t = 0;
    while (c.threads > 1 && (t = barrier_seconds(c.threads)) > slow_barrier_s) c.threads /= 2;
    c.why = c.threads == share
                ? fmt::format("{} core(s) for {} rank(s) on the node", cores, on_node)
                : fmt::format("{} core(s) for {} rank(s) on the node, but a barrier of {} threads "
                              "took {:.0f} us: other processes hold cores",
                              cores, on_node, c.threads * 2, t * 1e6);
    return c;
}

} // namespace squall::app
