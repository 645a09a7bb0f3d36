#pragma once
// Pencil transposes for the FFT pressure solver. Four layouts of the same
// itot*jtot*ktot/(npx*npy) values per rank:
//   z-column  the model field: imax x jmax x ktot (with ghost cells)
//   x-pencil  X[i + itot*(j + jmax*kl)]           full i, own j block, k block px
//   y-pencil  Y[j + jtot*(il + iblk*kl)]          full j (fastest), i block py, k block px
//   z-pencil  Z[(il + iblk*jl) + ncol*k]          i block py, j block px, full k;
//             the column index is fastest so the tridiagonal solve vectorises.
// z-column <-> x-pencil and y-pencil <-> z-pencil use comm_x, x <-> y uses comm_y;
// each is one MPI_Alltoall of equal blocks (packed here), or a local copy on one rank.
#include <mpi.h>

#include <vector>

#include "model/decomp.h"
#include "model/grid.h"

namespace squall {

template <typename T>
class PencilTransposer {
public:
    PencilTransposer(const GridDims& d, const Decomposition& decomp);

    int itot, jtot, ktot;
    int imax, jmax; // z-column block
    int kblk;       // ktot / npx: k block of x- and y-pencils
    int iblk, jblk; // itot / npy, jtot / npx: z-pencil block
    int i0, j0;     // global index of the first i / j of the z-pencil
    long ncol;      // iblk * jblk columns in the z-pencil
    long nlocal;    // values per rank in every layout

    // `field` uses the z-column layout of GridDims (ghost cells untouched).
    void zcol_to_x(const T* field, T* x);
    void x_to_zcol(const T* x, T* field);
    void x_to_y(const T* x, T* y);
    void y_to_x(const T* y, T* x);
    void y_to_z(const T* y, T* z);
    void z_to_y(const T* z, T* y);

private:
    template <typename SrcIdx, typename DstIdx>
    void exchange(const T* src, T* dst, MPI_Comm comm, int nq, int n0, int n1, int n2,
                  SrcIdx src_idx, DstIdx dst_idx);

    GridDims d_;
    MPI_Comm comm_x_, comm_y_;
    int npx_, npy_;
    std::vector<T> send_, recv_;
};

} // namespace squall
