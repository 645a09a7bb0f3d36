#pragma once
// The one generic tunable traversal: maps any per-point kernel struct from kernels/ onto
// the CUDA thread hierarchy. Compiled by NVRTC (embedded) for the GPU backend, and as
// plain host C++ by the emulation test, which calls the very same index mapping
// (traverse_thread) with emulated block and thread indices.
//
// Each compiled variant fixes, as preprocessor defines (see kernel_defs.cpp):
//   SQ_I0 SQ_J0 SQ_K0     range offsets          SQ_NI SQ_NJ SQ_NK  range extents
//   SQ_JJ SQ_KK           strides of the fields
//   SQ_BX SQ_BY SQ_BZ     block size             SQ_TX SQ_TY SQ_TZ  points per thread
//   SQ_CX SQ_CY SQ_CZ     1: a thread's tile is contiguous, 0: strided by the block size
//   SQ_PERM               order in which the 1-D block index unravels (0..5)
//   SQ_GROUP              swizzle of that order: blocks of the slowest axis per group
//   SQ_MY SQ_MZ           chunks a block marches through along y and z
//   SQ_UNROLL             1: unroll the tile loops
//   SQ_DEFER              1: compute the whole tile, then store it (kernels with value/store)
//   SQ_STAGE SQ_STAGE_DEPTH  1: stage the 3-D inputs in shared memory (stage.cuh), loading
//                            SQ_STAGE_DEPTH levels ahead; the block marches SQ_MZ levels
//   SQ_STAGE_FILL         0: cp.async per element, 1: bulk row copies (stage.cuh)
//   SQ_PLANES SQ_PLANE_RING  1: the planes traversal (planes.cuh) with a ring of that many
//                            levels; the block marches SQ_MZ levels
// plus SQUALL_LAUNCH_BOUNDS from the runtime (threads, blocks per SM).
// Under NVRTC every header is included by its short name, as kernels/ does, so that
// #pragma once sees one file (the in-memory headers exist under several names).
#if defined(__CUDACC_RTC__)
#include "common.cuh"
#include "planes.cuh"
#include "stage.cuh"
#else
#include "backends/cuda/planes.cuh"
#include "backends/cuda/stage.cuh"
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
// away from the walls (used with deferred stores). Every thread calls
// visit.begin_block(ci, cj, ck) with the block's first point, then visit.next_chunk(mk, ck)
// before each z-chunk (first level ck): the staged traversal loads its inputs there.
template <int MAXPTS = 0, class Visit>
SQ_HD void traverse_thread(const TraverseShape& s, int b, int thx, int thy, int thz,
                           const Visit& visit) {
    int bi, bj, bk;
    trav_unravel(s, b, bi, bj, bk);
    const int spx = s.bx * s.tx, spy = s.by * s.ty, spz = s.bz * s.tz;
    const int i0 = bi * spx + (s.cx ? thx * s.tx : thx), di = s.cx ? 1 : s.bx;
    const int dj = s.cy ? 1 : s.by, dk = s.cz ? 1 : s.bz;
    visit.begin_block(bi * spx, bj * s.my * spy, bk * s.mz * spz);
    SQ_MARCH_LOOP
    for (int mk = 0; mk < s.mz; ++mk) {
        const int ck = (bk * s.mz + mk) * spz; // first level of the chunk
        const int k0 = ck + (s.cz ? thz * s.tz : thz);
        visit.next_chunk(mk, ck);
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

// F::wall_levels, or -1 for kernels without wall branches.
template <class F>
SQ_HD constexpr auto wall_levels_of(int) -> decltype(F::wall_levels + 0) {
    return F::wall_levels;
}
template <class F>
SQ_HD constexpr int wall_levels_of(long) {
    return -1;
}

// Lowest value of a precision, the identity of a max-reduction.
template <typename T>
SQ_HD T trav_lowest();
template <>
SQ_HD float trav_lowest<float>() {
    return -3.402823466e38f;
}
template <>
SQ_HD double trav_lowest<double>() {
    return -1.7976931348623157e308;
}

} // namespace sq

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)

#ifndef SQUALL_LAUNCH_BOUNDS
#define SQUALL_LAUNCH_BOUNDS
#endif
#ifndef SQ_GROUP
#define SQ_GROUP 1
#endif

#ifdef SQ_3D
namespace sq {

// Calls the kernel at the absolute index of a point visited by traverse_thread. Kernels
// with walls (kernels/README.md: wall_levels) branch only within wall_levels of kstart and
// kend, so away from the walls the traversal may promise the compiler that no branch is
// taken.
template <class F>
struct TravVisit {
    const F& g;
    SQ_HD void operator()(int i, int j, int k) const { g(SQ_I0 + i, SQ_J0 + j, SQ_K0 + k); }
    SQ_HD auto value(int i, int j, int k) const { return g.value(SQ_I0 + i, SQ_J0 + j, SQ_K0 + k); }
    template <class V>
    SQ_HD void store(int i, int j, int k, const V& v) const {
        g.store(SQ_I0 + i, SQ_J0 + j, SQ_K0 + k, v);
    }
    static constexpr int walls = wall_levels_of<F>(0); // -1: no wall branches
    SQ_HD void begin_block(int, int, int) const {}
    SQ_HD void next_chunk(int, int) const {}
    SQ_HD bool z_interior(int k_lo, int k_hi) const {
        if constexpr (walls < 0)
            return false;
        else
            return SQ_K0 + k_lo >= g.kstart + walls && SQ_K0 + k_hi < g.kend - walls;
    }
    SQ_HD void assume_z_interior(int k) const {
        if constexpr (walls >= 0) {
            __builtin_assume(SQ_K0 + k >= g.kstart + walls);
            __builtin_assume(SQ_K0 + k < g.kend - walls);
        }
    }
};

// The precision T of a kernel struct K<T> (decltype only).
template <template <class> class K, class T>
__device__ T kernel_value_type(const K<T>*);

// mbarrier helpers (sm_90): bar is the barrier's shared-memory address.
__device__ __forceinline__ unsigned smem_addr(const void* p) {
    return unsigned(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count));
}
__device__ __forceinline__ void mbar_init_fence() {
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
// Announces bytes the copy engine will deliver to the barrier's current phase.
__device__ __forceinline__ void mbar_expect_tx(unsigned bar, unsigned bytes) {
    asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(bytes)
                 : "memory");
}
// Arrives on the barrier and announces bytes the copy engine will deliver to its phase.
__device__ __forceinline__ void mbar_arrive_expect_tx(unsigned bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
                 : "memory");
}
__device__ __forceinline__ bool mbar_try_wait(unsigned bar, unsigned parity) {
    unsigned done;
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, "
                 "[%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
    return done != 0;
}
__device__ __forceinline__ unsigned long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
// Until the phase of the given parity has completed. A copy that never completes (a byte
// count that does not match the boxes: a defect) would hang the run; after 10 s of
// waiting the kernel traps instead: the run stops with a launch failure, reported at the
// next synchronisation, rather than never ending.
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity) {
    if (mbar_try_wait(bar, parity)) return;
    const unsigned long long t0 = global_ns();
    while (!mbar_try_wait(bar, parity))
        if (global_ns() - t0 > 10000000000ull) __trap();
}

#if defined(SQ_STAGE) && SQ_STAGE
// The thread's index in its block, x fastest.
__device__ __forceinline__ int stage_thread() {
    return int(threadIdx.x + SQ_BX * (threadIdx.y + SQ_BY * threadIdx.z));
}

// Element-wise asynchronous global-to-shared copies (sm_80 and later), stage_fill 0.
struct StageCopyAsync {
    static constexpr bool by_rows = false;
    template <typename T>
    static __device__ __forceinline__ void copy(T* dst, const T* src) {
        const unsigned d = unsigned(__cvta_generic_to_shared(dst));
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(d), "l"(src),
                     "n"(int(sizeof(T)))
                     : "memory");
    }
    __device__ void init() const {}
    __device__ void commit(int) const { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
    // Until at most SQ_STAGE_DEPTH groups (the levels ahead) are in flight, then a barrier.
    __device__ void wait(int) const {
        asm volatile("cp.async.wait_group %0;\n" ::"n"(SQ_STAGE_DEPTH) : "memory");
        __syncthreads();
    }
};

// Row copies by the copy engine (sm_90 and later), stage_fill 1. Step n's loads complete
// on mbarrier n % (depth + 1), which expects one arrival per warp: a thread announces the
// bytes of each bulk copy (expect_tx) before issuing it, and lane 0 arrives once the
// whole warp has issued. The few element copies (row tails, unaligned rows) are plain
// loads and stores, done before the barrier that ends the step, so every thread sees them
// by the time they are read. Thread 0 waits for the phase; the barrier after it passes
// what it saw on to the block.
struct StageCopyBulk {
    static constexpr bool by_rows = true;
    static constexpr int nbar = SQ_STAGE_DEPTH + 1;
    static constexpr int warps = (SQ_BX * SQ_BY * SQ_BZ + 31) / 32;
    unsigned bar0; // shared-memory address of the first mbarrier

    __device__ unsigned bar(int n) const { return bar0 + 8u * unsigned(n % nbar); }
    __device__ void init() const {
        if (stage_thread() == 0) {
            for (int n = 0; n < nbar; ++n) mbar_init(bar(n), warps);
            mbar_init_fence();
        }
        __syncthreads();
    }
    template <typename T>
    static __device__ __forceinline__ void copy(T* dst, const T* src) {
        *dst = *src;
    }
    template <typename T>
    __device__ void bulk(T* dst, const T* src, int count, int n) const {
        const unsigned bytes = unsigned(count) * unsigned(sizeof(T));
        mbar_expect_tx(bar(n), bytes);
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                     " [%0], [%1], %2, [%3];" ::"r"(smem_addr(dst)),
                     "l"(src), "r"(bytes), "r"(bar(n))
                     : "memory");
    }
    __device__ void commit(int n) const {
        __syncwarp();
        if (stage_thread() % 32 == 0)
            asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar(n)) : "memory");
    }
    __device__ void wait(int s) const {
        if (stage_thread() == 0) mbar_wait(bar(s), unsigned(s / nbar) & 1u);
        __syncthreads(); // also: step s - 1's planes are free for the loads issued at s + 1
    }
};

// TravVisit whose value() reads the staged inputs; stores go to the global fields.
template <class F>
struct StagedVisit : TravVisit<F> {
    using T = decltype(kernel_value_type(static_cast<const F*>(nullptr)));
    static constexpr int reach = F::stage_reach;
#if defined(SQ_STAGE_FILL) && SQ_STAGE_FILL
    using Copy = StageCopyBulk;
    static __device__ Copy make_copy(unsigned bars) {
        return Copy{bars};
    }
#else
    using Copy = StageCopyAsync;
    static __device__ Copy make_copy(unsigned) {
        return Copy{};
    }
#endif
    static constexpr int lx = stage_reach_x(reach, int(sizeof(T)), Copy::by_rows);
    mutable F staged;
    static constexpr int threads = SQ_BX * SQ_BY * SQ_BZ;
    static constexpr int box = (SQ_BX * SQ_TX + 2 * lx) * (SQ_BY * SQ_TY + 2 * reach);
    static constexpr int maxe = Copy::by_rows ? 1 : (box + threads - 1) / threads;
    mutable Stager<F, T, Copy, maxe> st;
    int nlev;

    __device__ StagedVisit(const F& g, T* smem, int nlev_, unsigned bars)
        : TravVisit<F>{g}, staged(g), st{{}, smem, 0, threads, make_copy(bars), {}}, nlev(nlev_) {}
    // Before the traversal's loops, so that every geometry value is a constant or
    // loop-invariant there.
    __device__ void begin_block(int ci, int cj, int ck) const {
        StageGeom& b = st.g;
        b.box(SQ_BX * SQ_TX, SQ_BY * SQ_TY, lx, reach, SQ_I0, SQ_J0, SQ_NI, SQ_NJ, ci, cj);
        b.depth = SQ_STAGE_DEPTH, b.jj = SQ_JJ, b.kk = SQ_KK;
        b.kb = SQ_K0 + ck, b.steps = min_(SQ_MZ, SQ_NK - ck), b.nlev = nlev;
        st.tid = stage_thread();
        st.begin(this->g, staged);
    }
    // Chunk mk of the block is level kb + mk (block_z = tile_z = 1, march_y = 1).
    __device__ void next_chunk(int mk, int) const {
        st.step(mk, this->g, staged);
    }
    __device__ void operator()(int i, int j, int k) const {
        this->store(i, j, k, value(i, j, k));
    }
    __device__ auto value(int i, int j, int k) const {
        return staged.value(SQ_I0 + i, SQ_J0 + j, SQ_K0 + k);
    }
};
#endif

#if defined(SQ_PLANES) && SQ_PLANES
// Tensor maps (CUtensorMap, 128 opaque bytes each), one per plane input, from the runtime.
struct alignas(64) PlaneMap {
    unsigned long long opaque[16];
};
template <int N>
struct PlaneMaps {
    PlaneMap m[N];
};

// The planes traversal (planes.cuh): thread (0, 0) issues each level's boxes, every thread
// waits on the level's barriers and computes its rows; one block barrier per level frees
// the oldest slot.
template <class F>
__device__ __forceinline__ void planes_body(const F& g, int nlev,
                                            const PlaneMaps<F::plane_inputs>& maps) {
    using T = decltype(kernel_value_type(static_cast<const F*>(nullptr)));
    constexpr int ring = SQ_PLANE_RING;
    constexpr bool full = SQ_NI % SQ_BX == 0 && SQ_NJ % (SQ_BY * SQ_TY) == 0;
    using M = PlaneMarch<F, T, SQ_BX, SQ_BY * SQ_TY, SQ_TY, ring, SQ_I0, SQ_J0, SQ_JJ, SQ_KK, full>;
    constexpr TraverseShape s{SQ_NI, SQ_NJ, SQ_NK, SQ_BX, SQ_BY,   SQ_BZ, SQ_TX, SQ_TY,
                              SQ_TZ, SQ_CX, SQ_CY, SQ_CZ, SQ_PERM, SQ_MY, SQ_MZ, SQ_GROUP};
    int bi, bj, bk;
    trav_unravel(s, int(blockIdx.x), bi, bj, bk);
    // The launch asks for 128 bytes more than the ring, to start it on a 128-byte boundary.
    extern __shared__ __align__(128) unsigned char sq_plane_smem[];
    __shared__ __align__(8) unsigned long long sq_plane_bars[ring];
    unsigned char* smem = sq_plane_smem + ((128 - (smem_addr(sq_plane_smem) & 127)) & 127);
    const int ck = bk * SQ_MZ;
    const M m{smem,  bi * SQ_BX, bj * SQ_BY * SQ_TY,      SQ_NI,
              SQ_NJ, SQ_K0 + ck, min_(SQ_MZ, SQ_NK - ck), nlev};
    const unsigned bars = smem_addr(sq_plane_bars);
    const bool leader = threadIdx.x == 0 && threadIdx.y == 0;
    if (leader) {
        for (int n = 0; n < ring; ++n) mbar_init(bars + 8u * unsigned(n), 1);
        mbar_init_fence();
    }
    __syncthreads();
    auto issue = [&](int p) {
        const unsigned bar = bars + 8u * unsigned(p % ring);
        mbar_arrive_expect_tx(bar, unsigned(M::L::box_total())); // the barrier's one arrival
        m.issue(p, [&](int q, T* dst, int x, int y, int z) {
            asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx"
                         "::bytes [%0], [%1, {%2, %3, %4}], [%5];" ::"r"(smem_addr(dst)),
                         "l"(reinterpret_cast<unsigned long long>(&maps.m[q])), "r"(x), "r"(y),
                         "r"(z), "r"(bar)
                         : "memory");
        });
    };
    if (leader)
        for (int p = 0; p < ring - 1 && p <= m.last(); ++p) issue(p);
    typename M::Thread t{int(threadIdx.x), int(threadIdx.y) * SQ_TY, {}, {}};
    const T* in[F::plane_inputs];
    g.plane_arrays(in);
    m.begin(t, g, in);
    // Step kl needs slots kl .. kl + lookahead: the first lookahead are waited for here, then
    // each step waits for its newest one. Every slot issued is waited for before the exit.
    constexpr int ahead = M::L::lookahead();
    auto wait = [&](int p) { mbar_wait(bars + 8u * unsigned(p % ring), unsigned(p / ring) & 1u); };
    for (int p = 0; p < ahead; ++p) wait(p);
    SQ_MARCH_LOOP
    for (int kl = 0; kl < m.steps; ++kl) {
        __syncthreads(); // every thread is done with level kl - 1: its slot is free
        if (leader && kl + ring - 1 <= m.last()) issue(kl + ring - 1);
        wait(kl + ahead);
        m.step(t, g, kl);
    }
}
#endif

template <class F>
__device__ __forceinline__ void traverse_body(const F& g, int nlev) {
    constexpr TraverseShape s{SQ_NI, SQ_NJ, SQ_NK, SQ_BX, SQ_BY,   SQ_BZ, SQ_TX, SQ_TY,
                              SQ_TZ, SQ_CX, SQ_CY, SQ_CZ, SQ_PERM, SQ_MY, SQ_MZ, SQ_GROUP};
#if defined(SQ_DEFER) && SQ_DEFER
    constexpr int maxpts = SQ_TX * SQ_TY * SQ_TZ;
#else
    constexpr int maxpts = 0;
#endif
#if defined(SQ_STAGE) && SQ_STAGE
    extern __shared__ __align__(16) unsigned char sq_stage_smem[];
#if defined(SQ_STAGE_FILL) && SQ_STAGE_FILL
    __shared__ __align__(8) unsigned long long sq_stage_bars[SQ_STAGE_DEPTH + 1];
    const unsigned bars = unsigned(__cvta_generic_to_shared(sq_stage_bars));
#else
    const unsigned bars = 0;
#endif
    using T = typename StagedVisit<F>::T;
    const StagedVisit<F> visit(g, reinterpret_cast<T*>(sq_stage_smem), nlev, bars);
#else
    (void)nlev;
    const TravVisit<F> visit{g};
#endif
    traverse_thread<maxpts>(s, int(blockIdx.x), int(threadIdx.x), int(threadIdx.y),
                            int(threadIdx.z), visit);
}

} // namespace sq

// The struct as the kernel parameter (kernels without a parameter table).
template <class F>
__global__ void SQUALL_LAUNCH_BOUNDS sq_traverse(F f) {
    F g = f;
    sq::trav_set_strides(g, SQ_JJ, SQ_KK, 0);
    sq::traverse_body(g, 0);
}

// The struct's members as separate parameters (SQ_FLAT_PARAMS / SQ_FLAT_INIT, generated
// from the backend's parameter table): the runtime can then capture every array.
// sq_nlev: levels of the 3-D arrays (capture sizes; the staged loads stay below it).
// With the planes traversal the runtime appends the inputs' tensor maps.
#ifdef SQ_FLAT_PARAMS
#if defined(SQ_PLANES) && SQ_PLANES
template <class F>
__global__ void SQUALL_LAUNCH_BOUNDS sq_traverse_flat(
    SQ_FLAT_PARAMS, int sq_nlev, const __grid_constant__ sq::PlaneMaps<F::plane_inputs> sq_maps) {
    const F g{SQ_FLAT_INIT};
    sq::planes_body(g, sq_nlev, sq_maps);
}
#else
template <class F>
__global__ void SQUALL_LAUNCH_BOUNDS sq_traverse_flat(SQ_FLAT_PARAMS, int sq_nlev) {
    const F g{SQ_FLAT_INIT};
    sq::traverse_body(g, sq_nlev);
}
#endif
#endif
#endif // SQ_3D

// Per-column kernels, operator()(i, j): a 2-D grid of 2-D blocks.
#ifdef SQ_2D
template <class F>
__global__ void SQUALL_LAUNCH_BOUNDS sq_traverse_2d(F f) {
    F g = f;
    sq::trav_set_strides(g, SQ_JJ, SQ_KK, 0);
    const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
    const int j = int(blockIdx.y * blockDim.y + threadIdx.y);
    if (i < SQ_NI && j < SQ_NJ) g(SQ_I0 + i, SQ_J0 + j);
}
#endif

// Reductions in two passes with a fixed grid, so the result does not depend on timing:
// pass 1 (sq_reduce<F, OP>) folds a grid-stride share of the points per thread, then a
// shared-memory tree per block into partial[block]; pass 2 (sq_reduce_final) folds the
// partials in one block. OP 0: max (in T), 1: sum (in double).
#ifdef SQ_REDUCE
namespace sq {
template <typename A, int OP>
__device__ __forceinline__ A trav_fold(A a, A b) {
    return OP == 0 ? (a > b ? a : b) : a + b;
}
template <typename A, int OP>
__device__ __forceinline__ A trav_identity() {
    if (OP == 0) return trav_lowest<A>();
    return A(0);
}
// Tree reduction of one value per thread; thread 0 gets the block's result.
template <typename A, int OP, int THREADS>
__device__ __forceinline__ A trav_block_fold(A v) {
    __shared__ A buf[THREADS];
    buf[threadIdx.x] = v;
    __syncthreads();
    for (int h = THREADS / 2; h > 0; h /= 2) {
        if (int(threadIdx.x) < h)
            buf[threadIdx.x] = trav_fold<A, OP>(buf[threadIdx.x], buf[threadIdx.x + h]);
        __syncthreads();
    }
    return buf[0];
}
} // namespace sq

template <class F, typename A, int OP>
__global__ void __launch_bounds__(SQ_BX) sq_reduce(F f, A* partial) {
    F g = f;
    sq::trav_set_strides(g, SQ_JJ, SQ_KK, 0);
    const long long n = (long long)SQ_NI * SQ_NJ * SQ_NK;
    A acc = sq::trav_identity<A, OP>();
    for (long long p = (long long)blockIdx.x * SQ_BX + threadIdx.x; p < n;
         p += (long long)gridDim.x * SQ_BX) {
        const int i = int(p % SQ_NI), j = int((p / SQ_NI) % SQ_NJ), k = int(p / SQ_NI / SQ_NJ);
        acc = sq::trav_fold<A, OP>(acc, A(g(SQ_I0 + i, SQ_J0 + j, SQ_K0 + k)));
    }
    acc = sq::trav_block_fold<A, OP, SQ_BX>(acc);
    if (threadIdx.x == 0) partial[blockIdx.x] = acc;
}

template <typename A, int OP>
__global__ void __launch_bounds__(SQ_BX) sq_reduce_final(const A* partial, int n, A* out) {
    A acc = sq::trav_identity<A, OP>();
    for (int p = int(threadIdx.x); p < n; p += SQ_BX) acc = sq::trav_fold<A, OP>(acc, partial[p]);
    acc = sq::trav_block_fold<A, OP, SQ_BX>(acc);
    if (threadIdx.x == 0) out[0] = acc;
}
#endif

#endif // CUDA
