#pragma once
// Shared by the restart tests: a scratch directory for the process group, sub-communicators
// of the first n ranks, and rank 0 of MPI_COMM_WORLD.
#include <mpi.h>
#include <stdlib.h>

#include <cstdio>
#include <string>

namespace squall::test {

// A shared scratch directory for the checkpoints and statistics of this process group.
inline std::string scratch_dir() {
    static std::string dir;
    if (dir.empty()) {
        char name[64] = {};
        int rank = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0) {
            std::snprintf(name, sizeof name, "/tmp/squall_restart_XXXXXX");
            if (!mkdtemp(name)) name[0] = 0;
        }
        MPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
        dir = name;
    }
    return dir;
}

// The first nranks ranks of MPI_COMM_WORLD (collective; MPI_COMM_NULL on the others).
inline MPI_Comm sub_comm(int nranks) {
    scratch_dir(); // collective on first use: every rank passes here
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm comm;
    MPI_Comm_split(MPI_COMM_WORLD, rank < nranks ? 0 : MPI_UNDEFINED, rank, &comm);
    return comm;
}

inline bool rank0() {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank == 0;
}

} // namespace squall::test
