#include "model/pressure/transpose.h"

#include <stdexcept>

namespace squall {

template <typename T>
PencilTransposer<T>::PencilTransposer(const GridDims& d, const Decomposition& decomp)
    : d_(d), comm_x_(decomp.comm_x), comm_y_(decomp.comm_y), npx_(decomp.npx), npy_(decomp.npy) {
    itot = d.itot;
    jtot = d.jtot;
    ktot = d.ktot;
    imax = d.imax;
    jmax = d.jmax;
    if (itot % npx_ || jtot % npy_ || ktot % npx_ || itot % npy_ || jtot % npx_)
        throw std::invalid_argument("PencilTransposer: grid does not divide over the ranks");
    kblk = ktot / npx_;
    iblk = itot / npy_;
    jblk = jtot / npx_;
    i0 = decomp.py * iblk;
    j0 = decomp.px * jblk;
    ncol = long(iblk) * jblk;
    nlocal = ncol * ktot;
    // Staging buffers only when some exchange really crosses ranks.
    if (npx_ > 1 || npy_ > 1) {
        send_.resize(nlocal);
        recv_.resize(nlocal);
    }
}

// Every rank sends one block of n0 x n1 x n2 values to each of the nq ranks of comm.
// src_idx(q, a, b, c) locates element (a, b, c) of the block for rank q in src;
// dst_idx(q, a, b, c) is where element (a, b, c) of the block from rank q goes in dst.
template <typename T>
template <typename SrcIdx, typename DstIdx>
void PencilTransposer<T>::exchange(const T* src, T* dst, MPI_Comm comm, int nq, int n0, int n1,
                                   int n2, SrcIdx src_idx, DstIdx dst_idx) {
    if (nq == 1) {
#pragma omp parallel for collapse(2) schedule(static)
        for (int c = 0; c < n2; ++c)
            for (int b = 0; b < n1; ++b)
                for (int a = 0; a < n0; ++a) dst[dst_idx(0, a, b, c)] = src[src_idx(0, a, b, c)];
        return;
    }
    const long blk = long(n0) * n1 * n2;
    T* send = send_.data();
    T* recv = recv_.data();
#pragma omp parallel for collapse(3) schedule(static)
    for (int q = 0; q < nq; ++q)
        for (int c = 0; c < n2; ++c)
            for (int b = 0; b < n1; ++b) {
                T* out = send + q * blk + long(n0) * (b + long(n1) * c);
                for (int a = 0; a < n0; ++a) out[a] = src[src_idx(q, a, b, c)];
            }
    MPI_Alltoall(send, int(blk), mpi_type<T>(), recv, int(blk), mpi_type<T>(), comm);
#pragma omp parallel for collapse(3) schedule(static)
    for (int q = 0; q < nq; ++q)
        for (int c = 0; c < n2; ++c)
            for (int b = 0; b < n1; ++b) {
                const T* in = recv + q * blk + long(n0) * (b + long(n1) * c);
                for (int a = 0; a < n0; ++a) dst[dst_idx(q, a, b, c)] = in[a];
            }
}

// Index maps of the four layouts for exchange(): (block q, a, b, c) -> linear position.
// Each transpose pair uses the same two maps, once in each direction.
namespace {
// The rank's z-column block inside the field with ghost cells; q selects the k block.
auto zcol_map(const GridDims& d, int kb) {
    return [=](int q, int i, int j, int kl) {
        return long(d.istart + i) * d.ii + long(d.jstart + j) * d.jj +
               long(d.kstart + q * kb + kl) * d.kk;
    };
}
// x-pencil (full x of length itot, then j, then k); q selects a block of `blk` along x.
auto xpencil_map(int blk, int itot, int jmax) {
    return
        [=](int q, int i, int j, int kl) { return (q * blk + i) + itot * (j + long(jmax) * kl); };
}
// y-pencil (full y of length jtot, then i, then k); q selects a block of `blk` along y.
auto ypencil_map(int blk, int jtot, int iblk) {
    return
        [=](int q, int il, int j, int kl) { return (q * blk + j) + jtot * (il + long(iblk) * kl); };
}
// z-pencil (the column index il + iblk jl fastest, then full k); q selects a k block.
auto zpencil_map(int iblk, long ncol, int kblk) {
    return [=](int q, int il, int jl, int kl) {
        return (il + long(iblk) * jl) + ncol * (q * kblk + kl);
    };
}
} // namespace

// z-column <-> x-pencil over comm_x: block (i, j, kl) = my i block, my j block, k block q.
template <typename T>
void PencilTransposer<T>::zcol_to_x(const T* field, T* x) {
    exchange(field, x, comm_x_, npx_, imax, jmax, kblk, zcol_map(d_, kblk),
             xpencil_map(imax, itot, jmax));
}

template <typename T>
void PencilTransposer<T>::x_to_zcol(const T* x, T* field) {
    exchange(x, field, comm_x_, npx_, imax, jmax, kblk, xpencil_map(imax, itot, jmax),
             zcol_map(d_, kblk));
}

// x-pencil <-> y-pencil over comm_y: block (il, j, kl) = i block q, my j block, my k block.
template <typename T>
void PencilTransposer<T>::x_to_y(const T* x, T* y) {
    exchange(x, y, comm_y_, npy_, iblk, jmax, kblk, xpencil_map(iblk, itot, jmax),
             ypencil_map(jmax, jtot, iblk));
}

template <typename T>
void PencilTransposer<T>::y_to_x(const T* y, T* x) {
    exchange(y, x, comm_y_, npy_, iblk, jmax, kblk, ypencil_map(jmax, jtot, iblk),
             xpencil_map(iblk, itot, jmax));
}

// y-pencil <-> z-pencil over comm_x: block (il, jl, kl) = my i block, j block q, k block q'.
template <typename T>
void PencilTransposer<T>::y_to_z(const T* y, T* z) {
    exchange(y, z, comm_x_, npx_, iblk, jblk, kblk, ypencil_map(jblk, jtot, iblk),
             zpencil_map(iblk, ncol, kblk));
}

template <typename T>
void PencilTransposer<T>::z_to_y(const T* z, T* y) {
    exchange(z, y, comm_x_, npx_, iblk, jblk, kblk, zpencil_map(iblk, ncol, kblk),
             ypencil_map(jblk, jtot, iblk));
}

template class PencilTransposer<float>;
template class PencilTransposer<double>;

} // namespace squall
