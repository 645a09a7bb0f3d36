#include "model/decomp.h"

namespace squall {

Decomposition Decomposition::make(MPI_Comm comm, int npx, int npy) {
    Decomposition d;
    d.comm = comm;
    MPI_Comm_rank(comm, &d.rank);
    MPI_Comm_size(comm, &d.nprocs);
    d.npx = npx;
    d.npy = npy;
    d.px = d.rank % npx;
    d.py = d.rank / npx;
    MPI_Comm_split(comm, d.py, d.px, &d.comm_x);
    MPI_Comm_split(comm, d.px, d.py, &d.comm_y);
    auto at = [&](int px, int py) { return ((py + npy) % npy) * npx + (px + npx) % npx; };
    d.west = at(d.px - 1, d.py);
    d.east = at(d.px + 1, d.py);
    d.south = at(d.px, d.py - 1);
    d.north = at(d.px, d.py + 1);
    return d;
}

void Decomposition::free() {
    if (comm_x != MPI_COMM_NULL) MPI_Comm_free(&comm_x);
    if (comm_y != MPI_COMM_NULL) MPI_Comm_free(&comm_y);
}

} // namespace squall
