#pragma once
// MPI layout: npx x npy ranks, each owning a z-column block of imax x jmax x ktot.
// Rank r has coordinates px = r % npx, py = r / npx. Works with one rank (no neighbours
// other than itself) so that serial and parallel runs share all code paths.
#include <mpi.h>

namespace squall {

struct Decomposition {
    MPI_Comm comm = MPI_COMM_WORLD;
    int rank = 0, nprocs = 1;
    int npx = 1, npy = 1;
    int px = 0, py = 0;
    MPI_Comm comm_x = MPI_COMM_NULL; // ranks sharing py (a row along x), rank in it == px
    MPI_Comm comm_y = MPI_COMM_NULL; // ranks sharing px (a column along y), rank in it == py
    int west = 0, east = 0, south = 0, north = 0; // periodic neighbours in comm

    static Decomposition make(MPI_Comm comm, int npx, int npy);
    void free();
};

// MPI datatype for T (float or double).
template <typename T>
inline MPI_Datatype mpi_type() {
    if constexpr (sizeof(T) == 4)
        return MPI_FLOAT;
    else
        return MPI_DOUBLE;
}

} // namespace squall
