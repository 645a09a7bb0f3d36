#pragma once
// The number of OpenMP threads per rank when neither --threads nor OMP_NUM_THREADS says.
#include <string>

namespace squall::app {

struct ThreadChoice {
    int threads = 1;
    std::string why; // for the log
};

// This rank's share of the node's cores (omp_get_num_procs over the ranks on the node), or
// fewer where other processes hold cores: waiting OpenMP threads spin, so a thread whose
// core another process holds stalls the others at every barrier (on a 2-core machine with
// one core compiling, drycbl ran at 0.036 s a step on 2 threads and 0.024 on 1;
// docs/performance.md). A probe times barriers of the team (at most ~20 ms): where they
// take longer than `slow_barrier_s` on average, the team halves until they are fast or one
// thread is left. A held core costs a scheduler slice per barrier (3.6-4.4 ms measured);
// an idle machine 1-40 us, with the jitter of a virtual machine. The load average would say the
// same on a bare machine, but in a container it is often the host's. Collective over
// MPI_COMM_WORLD.
ThreadChoice default_threads(double slow_barrier_s = 5e-4);

} // namespace squall::app
