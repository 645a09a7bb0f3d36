#pragma once
// Per-element pieces of the distributed (pencil) pressure solve, shared by the CPU
// transposer, the GPU solver's kernels and its host emulation test:
// - PencilMap: where element (q, a, b, c) of a transpose block lives in one of the four
//   pencil layouts (transpose.h) or in a packed MPI buffer; every layout is affine in it;
// - the conversion between cuFFT's R2C output (n/2+1 complex values per row) and FFTW's
//   half-complex order (n reals per row), so that transposes always move n reals per row
//   and every half-complex entry is solved as an independent real column.
#include "kernels/common.cuh"

namespace sq {

struct PencilMap {
    long base, q, a, b, c; // offset and the stride of each block coordinate

    SQ_HD long at(int qi, int ai, int bi, int ci) const {
        return base + q * qi + a * ai + b * bi + c * ci;
    }
};

// One copy between two maps over nblocks blocks q_first, q_first+1, ... (skipping
// q_skip, -1 for none), n2 values of c per block: element (a, b, z), z = block * n2 + c.
struct PencilCopy {
    PencilMap src, dst;
    int n0, n1, n2;
    int nblocks, q_first, q_skip;
};

// Block q and coordinate c of z.
SQ_HD void pencil_block_of(const PencilCopy& p, int z, int& q, int& c) {
    c = z % p.n2;
    q = p.q_first + z / p.n2;
    if (p.q_skip >= 0 && q >= p.q_skip) ++q;
}

template <typename T>
SQ_HD void pencil_copy_point(const PencilCopy& p, int a, int b, int z, const T* SQ_RESTRICT src,
                             T* SQ_RESTRICT dst) {
    int q, c;
    pencil_block_of(p, z, q, c);
    dst[p.dst.at(q, a, b, c)] = src[p.src.at(q, a, b, c)];
}

// The tiled copy (GPU tunable `tile`): a block moves a TILE x TILE patch of (a, b) at one z
// through a shared tile, reading along whichever of a, b is contiguous in src and writing
// along whichever is contiguous in dst, so that both sides are coalesced when the copy is
// a transpose (x -> y and y -> z pencils, packing). Thread (tx, ty) of a block of TILE x
// rows threads takes patch rows ty, ty + rows, ...; the tile holds TILE x (TILE + 1)
// values (the padding column keeps a column read free of bank conflicts). Between the
// two calls all threads of the block must have finished loading (a barrier).
SQ_HD void pencil_tile_point(bool a_fast, int a0, int b0, int t, int r, int& a, int& b) {
    a = a0 + (a_fast ? t : r);
    b = b0 + (a_fast ? r : t);
}

// Where element (a, b) of the patch at (a0, b0) lies in the tile.
template <int TILE>
SQ_HD int pencil_tile_slot(int a0, int b0, int a, int b) {
    return (b - b0) * (TILE + 1) + (a - a0);
}

template <int TILE, typename T>
SQ_HD void pencil_tile_load(const PencilCopy& p, int a0, int b0, int z, int tx, int ty, int rows,
                            const T* SQ_RESTRICT src, T* SQ_RESTRICT tile) {
    int q, c, a, b;
    pencil_block_of(p, z, q, c);
    for (int r = ty; r < TILE; r += rows) {
        pencil_tile_point(p.src.a == 1, a0, b0, tx, r, a, b);
        if (a < p.n0 && b < p.n1)
            tile[pencil_tile_slot<TILE>(a0, b0, a, b)] = src[p.src.at(q, a, b, c)];
    }
}

template <int TILE, typename T>
SQ_HD void pencil_tile_store(const PencilCopy& p, int a0, int b0, int z, int tx, int ty, int rows,
                             const T* SQ_RESTRICT tile, T* SQ_RESTRICT dst) {
    int q, c, a, b;
    pencil_block_of(p, z, q, c);
    for (int r = ty; r < TILE; r += rows) {
        pencil_tile_point(p.dst.a == 1, a0, b0, tx, r, a, b);
        if (a < p.n0 && b < p.n1)
            dst[p.dst.at(q, a, b, c)] = tile[pencil_tile_slot<TILE>(a0, b0, a, b)];
    }
}

// Row `row` of n reals in half-complex order from the row's n/2+1 interleaved complex
// values: hc[m] = Re X_m for m <= n/2, hc[n-m] = Im X_m for 0 < m < n-m.
template <typename T>
SQ_HD void pencil_hc_from_complex(int n, long row, int m, const T* SQ_RESTRICT cplx,
                                  T* SQ_RESTRICT hc) {
    const T* x = cplx + 2 * long(n / 2 + 1) * row;
    hc[long(n) * row + m] = m <= n / 2 ? x[2 * m] : x[2 * (n - m) + 1];
}

// The inverse for complex value m (0 <= m <= n/2); the imaginary parts that a real
// signal cannot have (m = 0 and, for even n, m = n/2) are zero.
template <typename T>
SQ_HD void pencil_complex_from_hc(int n, long row, int m, const T* SQ_RESTRICT hc,
                                  T* SQ_RESTRICT cplx) {
    const T* h = hc + long(n) * row;
    T* x = cplx + 2 * (long(n / 2 + 1) * row + m);
    x[0] = h[m];
    x[1] = m > 0 && n - m > m ? h[n - m] : T(0);
}

} // namespace sq
