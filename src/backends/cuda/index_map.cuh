#pragma once
// The index mapping of the generic 3-D traversal: which points thread (thx, thy, thz) of
// block b owns, for every block size, tile, tile kind, block order and march of the
// tunable space. Host and device code: the device kernels (tiles.cuh) call
// traverse_thread with their block and thread indices, the emulation test
// (tests/backends/cuda/test_traverse_emulation.cpp) with emulated ones for every block and
// thread of a launch. SQ_UNROLL (a variant's define, see traverse.cuh): unroll the tile loops.
#if defined(__CUDACC_RTC__)
#include "common.cuh"
#else
#include "kernels/common.cuh"
#endif

namespace sq {

// The shape of one traversal: extents, block size, tile factors, tile kind, block order,
// how many consecutive chunks (one chunk = the block's threads times their tiles) a block
// marches through along y and z, and the block-order swizzle (trav_split).
struct TraverseShape {
    int ni, nj, nk;
    int bx, by, bz;
    int tx, ty, tz;
    int cx, cy, cz;
    int perm;
    int my = 1, mz = 1;
    int group = 1;
};

SQ_HD int trav_ceil_div(int a, int b) {
    return (a + b - 1) / b;
}

// Number of blocks along each axis: each block covers (bx*tx) x (by*ty) x (bz*tz) points.
SQ_HD int trav_blocks_x(const TraverseShape& s) {
    return trav_ceil_div(s.ni, s.bx * s.tx);
}
SQ_HD int trav_blocks_y(const TraverseShape& s) {
    return trav_ceil_div(s.nj, s.by * s.ty * s.my);
}
SQ_HD int trav_blocks_z(const TraverseShape& s) {
    return trav_ceil_div(s.nk, s.bz * s.tz * s.mz);
}
SQ_HD int trav_num_blocks(const TraverseShape& s) {
    return trav_blocks_x(s) * trav_blocks_y(s) * trav_blocks_z(s);
}

// Splits a 1-D block index into coordinates (a0, a1, a2) along axes of n0, n1, n2 blocks,
// a0 fastest. group > 1 swizzles the two slower axes: a2 advances in groups of `group`
// blocks, and a group is swept along a2 before a1 moves on. Blocks that share stencil
// halos along a1 then run a few hundred blocks apart instead of n0 * n1, so the halos are
// still in L2 (the last group may be partial).
SQ_HD void trav_split(int b, int n0, int n1, int n2, int group, int& a0, int& a1, int& a2) {
    a0 = b % n0;
    b /= n0;
    if (group <= 1) {
        a1 = b % n1, a2 = b / n1;
        return;
    }
    const int g = b / (group * n1), full = n2 / group;
    const int size = g < full ? group : n2 - full * group, r = b - g * group * n1;
    a2 = g * group + r % size, a1 = r / size;
}

// Unravels the 1-D block index b into block coordinates; perm picks which axis varies
// fastest (0: x,y,z  1: x,z,y  2: y,x,z  3: y,z,x  4: z,x,y  5: z,y,x), and s.group
// swizzles the slowest axis with the middle one (trav_split).
SQ_HD void trav_unravel(const TraverseShape& s, int b, int& bi, int& bj, int& bk) {
    const int nx = trav_blocks_x(s), ny = trav_blocks_y(s), nz = trav_blocks_z(s), g = s.group;
    switch (s.perm) {
    default:
    case 0:
        return trav_split(b, nx, ny, nz, g, bi, bj, bk);
    case 1:
        return trav_split(b, nx, nz, ny, g, bi, bk, bj);
    case 2:
        return trav_split(b, ny, nx, nz, g, bj, bi, bk);
    case 3:
        return trav_split(b, ny, nz, nx, g, bj, bk, bi);
    case 4:
        return trav_split(b, nz, nx, ny, g, bk, bi, bj);
    case 5:
        return trav_split(b, nz, ny, nx, g, bk, bj, bi);
    }
}

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#if defined(SQ_UNROLL) && SQ_UNROLL
#define SQ_TILE_LOOP _Pragma("unroll")
#else
#define SQ_TILE_LOOP _Pragma("unroll 1")
#endif
#define SQ_MARCH_LOOP _Pragma("unroll 1")
#else
#define SQ_TILE_LOOP
#define SQ_MARCH_LOOP
#endif

// Calls f(i, j, k) for the points of one thread's tile, starting at (i0, j0, k0) with
// steps (di, dj, dk), x fastest.
template <class Fn>
SQ_HD void trav_for_tile(const TraverseShape& s, int i0, int j0, int k0, int di, int dj, int dk,
                         const Fn& f) {
    SQ_TILE_LOOP
    for (int r = 0; r < s.tz; ++r) {
        SQ_TILE_LOOP
        for (int q = 0; q < s.ty; ++q) {
            SQ_TILE_LOOP
            for (int p = 0; p < s.tx; ++p) f(i0 + p * di, j0 + q * dj, k0 + r * dk);
        }
    }
}

// The points of one thread's tile. MAXPTS = 0: one visit(i, j, k) per point. MAXPTS > 0
// (deferred stores): first visit.value(i, j, k) for every point, then visit.store(i, j, k,
// value) for every point. With the stores last the compiler merges repeated loads across
// the tile's points; with a store in between it gives up proving the loaded arrays
// unchanged once the code between is as long as one stencil point
// (backends/cuda/README.md). Z_INTERIOR: the whole tile lies away from the walls;
// visit.assume_z_interior(k) tells the compiler so, which removes the kernel's per-point
// wall branches.
template <int MAXPTS, bool Z_INTERIOR, class Visit>
SQ_HD void trav_tile(const TraverseShape& s, int i0, int j0, int k0, int di, int dj, int dk,
                     const Visit& visit) {
    if constexpr (MAXPTS > 0) {
        decltype(visit.value(0, 0, 0)) values[MAXPTS];
        int n = 0;
        trav_for_tile(s, i0, j0, k0, di, dj, dk, [&](int i, int j, int k) {
            if (Z_INTERIOR) visit.assume_z_interior(k);
            values[n++] = visit.value(i, j, k);
        });
        n = 0;
        trav_for_tile(s, i0, j0, k0, di, dj, dk,
                      [&](int i, int j, int k) { visit.store(i, j, k, values[n++]); });
    } else {
        trav_for_tile(s, i0, j0, k0, di, dj, dk, [&](int i, int j, int k) {
            if (Z_INTERIOR) visit.assume_z_interior(k);
            visit(i, j, k);
        });
    }
}

// Visits every point (i, j, k), relative to the range origin, that thread (thx, thy, thz)
// of block b owns. A thread's tile along an axis is either contiguous (thread t takes
// t*tile .. t*tile+tile-1 of its chunk's span) or strided (t, t+block, t+2*block, ...);
// both cover the chunk's span exactly once. A block covers my x mz chunks, one after the
// other (y fastest), so the rows and levels that neighbouring chunks share are still in
// L1 when the next chunk needs them. Chunks that lie wholly inside the range take the
// branch-free path (deferred stores when MAXPTS > 0, see trav_tile; the tile loops must
// then be unrolled, or the values go to local memory); only chunks at the far edges
// check each point. visit.z_interior(k_lo, k_hi) says whether levels k_lo..k_hi are all
// away from the walls (used with deferred stores).
template <int MAXPTS = 0, class Visit>
SQ_HD void traverse_thread(const TraverseShape& s, int b, int thx, int thy, int thz,
                           const Visit& visit) {
    int bi, bj, bk;
    trav_unravel(s, b, bi, bj, bk);
    const int spx = s.bx * s.tx, spy = s.by * s.ty, spz = s.bz * s.tz;
    const int i0 = bi * spx + (s.cx ? thx * s.tx : thx), di = s.cx ? 1 : s.bx;
    const int dj = s.cy ? 1 : s.by, dk = s.cz ? 1 : s.bz;
    SQ_MARCH_LOOP
    for (int mk = 0; mk < s.mz; ++mk) {
        const int ck = (bk * s.mz + mk) * spz; // first level of the chunk
        const int k0 = ck + (s.cz ? thz * s.tz : thz);
        SQ_MARCH_LOOP
        for (int mj = 0; mj < s.my; ++mj) {
            const int cj = (bj * s.my + mj) * spy; // first row of the chunk
            const int j0 = cj + (s.cy ? thy * s.ty : thy);
            if ((bi + 1) * spx <= s.ni && cj + spy <= s.nj && ck + spz <= s.nk) {
                // Only with deferred stores: the wall-free straight-line code raises the
                // register count (84 instead of 64 for advec_u_2i5 in double at one point
                // per thread), which costs the plain configurations more occupancy than
                // the branches cost them.
                if (MAXPTS > 0 && visit.z_interior(ck, ck + spz - 1))
                    trav_tile<MAXPTS, true>(s, i0, j0, k0, di, dj, dk, visit);
                else
                    trav_tile<MAXPTS, false>(s, i0, j0, k0, di, dj, dk, visit);
                continue;
            }
            trav_for_tile(s, i0, j0, k0, di, dj, dk, [&](int i, int j, int k) {
                if (i < s.ni && j < s.nj && k < s.nk) visit(i, j, k);
            });
        }
    }
}

// Sets the strides of kernels that have them to the variant's compile-time constants,
// so that every index expression folds; kernels without strides are left alone.
template <class F>
SQ_HD auto trav_set_strides(F& g, int jj, int kk, int) -> decltype(g.jj = jj, g.kk = kk, void()) {
    g.jj = jj;
    g.kk = kk;
}
template <class F>
SQ_HD void trav_set_strides(F&, int, int, long) {}

} // namespace sq
