#pragma once
// Pencil transposes for the FFT pressure solver. Four layouts of the same
// itot*jtot*ktot/(npx*npy) values per rank:
//   z-column  the model field: imax x jmax x ktot (with ghost cells)
//   x-pencil  X[i + itot*(j + jmax*kl)]           full i, own j block, k block px
//   y-pencil  Y[j + jtot*(il + iblk*kl)]          full j (fastest), i block py, k block px
//   z-pencil  Z[(il + iblk*jl) + ncol*k]          i block py, j block px, full k;
//             the column index is fastest so the tridiagonal solve vectorises.
// z-column <-> x-pencil and y-pencil <-> z-pencil use comm_x, x <-> y uses comm_y. Each
// transpose sends one equal block to every rank of its communicator: the own block is
// copied directly, the others are packed, exchanged (one MPI_Alltoallv, or device to
// device on one node) and unpacked.
// PencilLayout and pencil_exchange() serve the CPU solver (PencilTransposer) and the GPU
// solver, whose copies run as kernels and whose MPI buffers are staged through the host.
// Either way an element is copied by sq::PressurePencilCopy (kernels/pressure_spectral.cuh).
#include <mpi.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <vector>

#include "kernels/pressure_spectral.cuh"
#include "model/comm/comm_time.h"
#include "model/decomp.h"
#include "model/grid.h"

namespace squall {

// Where element (q, a, b, c) of a transpose block lives in one of the four layouts or in
// a packed MPI buffer: every layout is affine in it.
struct PencilMap {
    long base, q, a, b, c; // offset and the stride of each block coordinate
};

// One copy between two maps over nblocks blocks q_first, q_first+1, ... (skipping
// q_skip, -1 for none), n2 values of c per block: element (a, b, z), z = block * n2 + c.
struct PencilCopy {
    PencilMap src, dst;
    int n0, n1, n2;
    int nblocks, q_first, q_skip;
};

// One transpose: block q (n0 x n1 x n2 values) of every rank goes to rank q of comm.
struct PencilStep {
    MPI_Comm comm = MPI_COMM_NULL;
    int nq = 1, me = 0;
    int n0 = 0, n1 = 0, n2 = 0;
    PencilMap src{}, dst{};

    long block() const { return long(n0) * n1 * n2; }
    PencilStep reversed() const;
    // The block that stays on this rank, straight from src to dst.
    PencilCopy own() const;
    // The other blocks into / out of a packed buffer of nq blocks (block q at q*block()).
    PencilCopy pack_others() const;
    PencilCopy unpack_others() const;
};

struct PencilLayout {
    PencilLayout(const GridDims& d, const Decomposition& decomp);

    int itot, jtot, ktot;
    int imax, jmax;              // z-column block
    int kblk;                    // ktot / npx: k block of x- and y-pencils
    int iblk, jblk;              // itot / npy, jtot / npx: z-pencil block
    int i0, j0;                  // global index of the first i / j of the z-pencil
    long ncol;                   // iblk * jblk columns in the z-pencil
    long nlocal;                 // values per rank in every layout
    bool distributed;            // some transpose crosses ranks
    PencilStep zcol_x, x_y, y_z; // z-column -> x -> y -> z; the way back: reversed()

    // The row transforms of the solve: axis 0 along x over the x-pencil's rows, axis 1
    // along y over the y-pencil's rows; both contiguous.
    int transform_length(int axis) const { return axis == 0 ? itot : jtot; }
    long transform_rows(int axis) const { return long(axis == 0 ? jmax : iblk) * kblk; }
};

// Element count of a PencilCopy (nblocks * n0 * n1 * n2).
inline long pencil_copy_size(const PencilCopy& c) {
    return long(c.n0) * c.n1 * c.n2 * c.nblocks;
}

// A transpose through `mover`, which provides
//   copy(const PencilCopy&, const T* src, T* dst)     (on the data's side)
//   send(), recv()                           packed buffers of nlocal values
//   exchange_blocks(const PencilStep&)       block q of send() to rank q, block q of
//                                            recv() from rank q (all but the own block)
template <typename T, class Mover>
void pencil_exchange(const PencilStep& s, const T* src, T* dst, Mover& mv) {
    mv.copy(s.own(), src, dst);
    if (s.nq == 1) return;
    mv.copy(s.pack_others(), src, mv.send());
    mv.exchange_blocks(s);
    mv.copy(s.unpack_others(), mv.recv(), dst);
}

// exchange_blocks() through host memory and one MPI_Alltoallv, for a mover that also
// provides host_send(), host_recv() (what MPI reads and writes) and
// to_host(first, n) / to_device(first, n) (stage a range of send() out, of recv() in).
template <typename T, class Mover>
void exchange_blocks_staged(const PencilStep& s, Mover& mv) {
    const long blk = s.block();
    if (long(s.nq) * blk > long(std::numeric_limits<int>::max()))
        throw std::runtime_error(
            "pressure transposes: a rank's pencil block exceeds MPI's int count; use more ranks");
    // Every block but the own one crosses ranks: [0, me) and (me, nq).
    mv.to_host(0, s.me * blk);
    mv.to_host((s.me + 1) * blk, (s.nq - 1 - s.me) * blk);
    std::vector<int> counts(std::size_t(s.nq), int(blk)), displs(std::size_t(s.nq));
    counts[std::size_t(s.me)] = 0;
    for (int q = 0; q < s.nq; ++q) displs[std::size_t(q)] = int(q * blk);
    MPI_Alltoallv(mv.host_send(), counts.data(), displs.data(), mpi_type<T>(), mv.host_recv(),
                  counts.data(), displs.data(), mpi_type<T>(), s.comm);
    mv.to_device(0, s.me * blk);
    mv.to_device((s.me + 1) * blk, (s.nq - 1 - s.me) * blk);
}

// The kernel of a copy, over the range pencil_copy_range(c). Throws std::overflow_error
// when an offset or stride does not fit the kernel's ints.
template <typename T>
sq::PressurePencilCopy<T> pencil_copy_kernel(const PencilCopy& c, const T* src, T* dst) {
    auto narrow = [](long v) {
        if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
            throw std::overflow_error("pressure transposes: a pencil offset exceeds int");
        return int(v);
    };
    const PencilMap &s = c.src, &d = c.dst;
    return {.dst = dst,
            .src = src,
            .src_base = narrow(s.base),
            .src_q = narrow(s.q),
            .src_a = narrow(s.a),
            .src_b = narrow(s.b),
            .src_c = narrow(s.c),
            .dst_base = narrow(d.base),
            .dst_q = narrow(d.q),
            .dst_a = narrow(d.a),
            .dst_b = narrow(d.b),
            .dst_c = narrow(d.c),
            .n2 = c.n2,
            .q_first = c.q_first,
            .q_skip = c.q_skip};
}
inline sq::Range3 pencil_copy_range(const PencilCopy& c) {
    return {0, c.n0, 0, c.n1, 0, c.n2 * c.nblocks};
}

// Every element of a PencilCopy on the host: the element sq::PressurePencilCopy copies,
// by plain pointer loops (OpenMP over levels and groups of rows). Where a is contiguous on
// both sides (the z-column <-> x-pencil copies) a row is one block copy; the transposes
// index with the level's base pointers hoisted (through f element by element they took
// about 10 % longer). Tiling the transposes in 16 x 16 was slower: at 128^3 they are bound
// by memory traffic, at 48^3 everything is in cache anyway. The unit test holds both to f.
template <typename T>
void pencil_copy_host(const PencilCopy& c, const T* src, T* dst) {
    const sq::PressurePencilCopy<T> f = pencil_copy_kernel(c, src, dst);
    constexpr int rows_per_task = 16;
    const int nz = c.n2 * c.nblocks, n0 = c.n0, n1 = c.n1;
    const long sa = c.src.a, sb = c.src.b, da = c.dst.a, db = c.dst.b;
    const bool rows = sa == 1 && da == 1;
#pragma omp parallel for collapse(2) schedule(static)
    for (int z = 0; z < nz; ++z)
        for (int b0 = 0; b0 < n1; b0 += rows_per_task) {
            int q, k;
            f.block_of(z, q, k);
            const T* s = src + c.src.base + q * c.src.q + k * c.src.c;
            T* d = dst + c.dst.base + q * c.dst.q + k * c.dst.c;
            const int b1 = std::min(b0 + rows_per_task, n1);
            if (rows) {
                for (int b = b0; b < b1; ++b) std::copy_n(s + b * sb, n0, d + b * db);
                continue;
            }
            for (int b = b0; b < b1; ++b)
                for (int a = 0; a < n0; ++a) d[a * da + b * db] = s[a * sa + b * sb];
        }
}

// The CPU solver's transposes: host buffers, no staging.
template <typename T>
class PencilTransposer : public PencilLayout {
public:
    PencilTransposer(const GridDims& d, const Decomposition& decomp);

    // `field` uses the z-column layout of GridDims (ghost cells untouched).
    void zcol_to_x(const T* field, T* x) { run(zcol_x, field, x); }
    void x_to_zcol(const T* x, T* field) { run(zcol_x.reversed(), x, field); }
    void x_to_y(const T* x, T* y) { run(x_y, x, y); }
    void y_to_x(const T* y, T* x) { run(x_y.reversed(), y, x); }
    void y_to_z(const T* y, T* z) { run(y_z, y, z); }
    void z_to_y(const T* z, T* y) { run(y_z.reversed(), z, y); }

    // The Mover interface of pencil_exchange.
    void copy(const PencilCopy& c, const T* src, T* dst) { pencil_copy_host(c, src, dst); }
    T* send() { return send_.data(); }
    T* recv() { return recv_.data(); }
    T* host_send() { return send_.data(); }
    T* host_recv() { return recv_.data(); }
    void to_host(long, long) {}
    void to_device(long, long) {}
    void exchange_blocks(const PencilStep& s) {
        const CommTime::Scope timed(CommKind::transpose);
        exchange_blocks_staged<T>(s, *this);
    }

private:
    void run(const PencilStep& s, const T* src, T* dst) { pencil_exchange(s, src, dst, *this); }
    std::vector<T> send_, recv_;
};

} // namespace squall
