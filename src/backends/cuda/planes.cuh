#pragma once
// The planes traversal (tunable `planes`, sm_90 and later): a block owns an X x Y column
// tile (X = block_x, Y = block_y * tile_y) and marches up to `plane_levels` levels up it.
// Per level one thread asks the copy engine (bulk tensor copy, TMA) for one box per 3-D
// input: the tile plus the input's reach in x and y, at each level the input is read at
// off the point's own column (F::plane_input(n): plo..phi). The boxes of one level share
// a slot of a ring of `plane_ring` slots, filled lookahead + 1 levels ahead, with one
// barrier per level. Reads on the point's own column (zlo..zhi) come from a register
// window that slides up with the march, its new top taken from the ring.
//
// Why: each plane then crosses L2 once per block in one request, and the z-stencil costs
// no shared-memory traffic (docs/performance.md, "GPU kernels"). The per-point function
// runs unchanged: it reads its inputs through PlanePtr, which splits each flat offset into
// (di, dj, dk) at compile time.
//
// Everything but the copy engine and the barriers (planes_body, the kernel) is host and
// device code; the host emulation (tests/backends/cuda/test_planes.cpp) runs it with plain
// box copies.
#if defined(__CUDACC_RTC__)
#include "barrier.cuh"
#include "common.cuh"
#include "index_map.cuh"
#else
#include "backends/cuda/barrier.cuh"
#include "backends/cuda/index_map.cuh"
#include "kernels/common.cuh"
#endif

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define SQ_PLANE_LOOP _Pragma("unroll")
#else
#define SQ_PLANE_LOOP
#endif

namespace sq {

// Compile-time loops: static_for<N>(f) calls f(Int<0>{}) .. f(Int<N - 1>{}), so that the
// layout's recursive constexpr functions of q are folded (called with a runtime q, NVRTC
// emitted them as loops: a third of the march's instructions).
template <int V>
struct Int {
    static constexpr int value = V;
};
template <int N, int Q = 0, class Fn>
SQ_HD void static_for(const Fn& f) {
    if constexpr (Q < N) {
        f(Int<Q>{});
        static_for<N, Q + 1>(f);
    }
}

// Whether the march reads a kernel's outputs before it stores them: F::reads_outputs()
// where F has it (false when the stored values do not depend on the old ones, such as the
// first stage of the RK tendencies), true otherwise.
template <class F>
SQ_HD auto plane_reads_outputs(const F& f, int) -> decltype(bool(f.reads_outputs())) {
    return f.reads_outputs();
}
template <class F>
SQ_HD bool plane_reads_outputs(const F&, long) {
    return true;
}

// The z-carry form (kernels/README.md): F::ZFaces, the values at a point's low z faces that
// z_faces_with(in, i, j, k, up) computes for level k + up, and value_with_z(in, i, j, k, lo,
// hi). Under plane_carry a thread keeps each row's faces above level k and hands them to
// level k + 1 as its faces below, so each z face is computed once instead of twice.
template <class F>
concept PlaneCarryForm = requires {
    typename F::ZFaces;
};
struct NoCarry {};
template <class F, bool CARRY>
struct PlaneCarry {
    using type = NoCarry;
};
template <class F>
struct PlaneCarry<F, true> {
    using type = typename F::ZFaces;
};

// The nearest multiple count of m to o (|remainder| <= m / 2): splits a flat offset into
// level, row and column when every part is less than half the stride below it.
SQ_HD constexpr int plane_nearest(int o, int m) {
    return (o + (o >= 0 ? m / 2 : -(m / 2))) / m;
}

// Reads of one input at one point: dk != 0 on the point's own column from the register
// window, everything else from the box of level k + dk in the ring.
template <typename T, int JJ, int KK, int W, int NP>
struct PlanePtr {
    const T* const* plane; // plane[m]: the input's box at level k + plo + m, at the point
    const T* win;          // win[m]: the point's column at level k + zlo + m
    int off;               // flat offset of index 0 from the point
    int sx, plo, zlo, zhi; // box row stride, first plane level, window levels
    int np, lo, hi;        // host checks: plane levels, box cells around the point [lo, hi)

    SQ_HD PlanePtr operator+(int n) const {
        PlanePtr p = *this;
        p.off += n;
        return p;
    }
    SQ_HD T operator[](int n) const {
        const int o = off + n, dk = plane_nearest(o, KK), r = o - dk * KK;
        const int dj = plane_nearest(r, JJ), di = r - dj * JJ;
        if (di == 0 && dj == 0 && dk >= zlo && dk <= zhi) return select<W>(win, dk - zlo);
        const int at = di + dj * sx;
#if !defined(__CUDA_ARCH__)
        // The host emulation: a read outside the declared boxes gives NaN, not a crash (one
        // past a row's end reads the next row: a wrong value, which shows as well).
        if (dk - plo < 0 || dk - plo >= np || at < lo || at >= hi) return T(0) / T(0);
#endif
        return select<NP>(plane, dk - plo)[at];
    }
    // a[m] (0 <= m < N) by constant indices only: an index that becomes constant only
    // after inlining and folding (dk above) would otherwise leave the caller's window and
    // plane arrays addressable, and NVVM then keeps them in local memory.
    template <int N, typename V>
    SQ_HD static V select(const V* a, int m) {
        V v = a[0];
        SQ_PLANE_LOOP
        for (int n = 1; n < N; ++n) v = m == n ? a[n] : v;
        return v;
    }
};

// Where each input's box lies: x from `left` (the reach rounded out to 16 bytes, which the
// copy engine needs for a box's first cell and row length) to X + right, y from ylo to
// Y + yhi; the boxes of one level follow each other in a slot, each on a 128-byte
// boundary. E: bytes per element.
template <class F, int X, int Y, int E>
struct PlaneLayout {
    static constexpr int inputs = F::plane_inputs;
    static constexpr int unit = 16 / E;
    SQ_HD static constexpr PlaneInput in(int q) { return F::plane_input(q); }
    SQ_HD static constexpr int left(int q) { return -((unit - in(q).xlo - 1) / unit * unit); }
    SQ_HD static constexpr int width(int q) {
        return X + (in(q).xhi + unit - 1) / unit * unit - left(q);
    }
    SQ_HD static constexpr int height(int q) { return Y + in(q).yhi - in(q).ylo; }
    SQ_HD static constexpr int bytes(int q) { return width(q) * height(q) * E; }
    SQ_HD static constexpr int offset(int q) {
        return q == 0 ? 0 : offset(q - 1) + (bytes(q - 1) + 127) / 128 * 128;
    }
    static constexpr int slot_bytes = offset(inputs);
    SQ_HD static constexpr int box_total(int q = 0) {
        return q == inputs ? 0 : bytes(q) + box_total(q + 1);
    }
    SQ_HD static constexpr bool has_window(int q) { return in(q).zlo <= in(q).zhi; }
    SQ_HD static constexpr int window(int q) {
        return has_window(q) ? in(q).zhi - in(q).zlo + 1 : 0;
    }
    SQ_HD static constexpr int max_window(int q = 0) {
        return q == inputs ? 1 : max_(window(q), max_window(q + 1));
    }
    SQ_HD static constexpr int max_planes(int q = 0) {
        return q == inputs ? 1 : max_(planes_of(q), max_planes(q + 1));
    }
    // Levels past the one computed that must have arrived: planes up to phi, and the
    // window's new top zhi (taken from the ring, so the input needs a plane there too).
    SQ_HD static constexpr int ahead(int q) {
        return (has_window(q) ? max_(in(q).phi, in(q).zhi) : in(q).phi) - in(q).plo;
    }
    SQ_HD static constexpr int lookahead(int q = 0) {
        return q == inputs ? 0 : max_(ahead(q), lookahead(q + 1));
    }
    SQ_HD static constexpr int planes_of(int q) { return in(q).phi - in(q).plo + 1; }
    // Elements from the tensor maps' origin to the range's first column: the farthest
    // reach to the left, so that every box starts at x >= 0 on a 16-byte boundary.
    SQ_HD static constexpr int shift(int q = 0) {
        return q == inputs ? 0 : max_(-left(q), shift(q + 1));
    }
};

// One block's march. X, Y: the tile; TY: rows per thread (the block is X x Y / TY
// threads); RING: slots; I0, J0: the range's origin; JJ, KK: strides of the fields;
// FULL: the tiles cover the range exactly, so no point needs a bounds check; CARRY: the
// z-carry (F's z-carry form).
template <class F, typename T, int X, int Y, int TY, int RING, int I0, int J0, int JJ, int KK,
          bool FULL = false, bool CARRY = false>
struct PlaneMarch {
    using L = PlaneLayout<F, X, Y, int(sizeof(T))>;
    static constexpr int inputs = L::inputs;
    static constexpr int outputs = F::plane_outputs;
    static constexpr int W = L::max_window();  // longest register window
    static constexpr int NP = L::max_planes(); // most plane levels of an input
    static_assert(RING >= L::lookahead() + 2, "the ring must hold lookahead + 2 levels");

    unsigned char* smem;
    int ci, cj;    // the tile's first point, relative to the range
    int ni, nj;    // the range's extents
    int kb, steps; // absolute level of the first step; steps the block computes
    int nlev;      // levels of the arrays: window loads stay within [0, nlev)

    // The last ring slot the block reads.
    SQ_HD int last() const { return steps - 1 + L::lookahead(); }
    // Input Q's box in ring slot s.
    template <int Q>
    SQ_HD T* box(int s) const {
        constexpr int offset = L::offset(Q);
        return reinterpret_cast<T*>(smem + s * L::slot_bytes + offset);
    }
    // The boxes of level p of the march (levels kb + p + plo), into slot p % RING:
    // load(q, dst, x, y, z) with the box's first cell in the tensor map's coordinates
    // (origin: element I0 - L::shift() of the field).
    template <class Load>
    SQ_HD void issue(int p, const Load& load) const {
        const int s = p % RING;
        static_for<inputs>([&](auto qc) {
            constexpr int q = decltype(qc)::value, x0 = L::left(q) + L::shift();
            load(q, box<q>(s), ci + x0, J0 + cj + L::in(q).ylo, kb + p + L::in(q).plo);
        });
    }

    // One thread: column il, rows jl0 .. jl0 + TY - 1 of the tile, with their windows.
    struct Thread {
        int il, jl0;
        T win[TY][inputs][W];
        T next[TY][outputs]; // the outputs at the next level, read a level ahead
        typename PlaneCarry<F, CARRY>::type carry[TY]; // the z faces above the last level
    };
    SQ_HD bool inside(const Thread& t, int r) const {
        return FULL || (ci + t.il < ni && cj + t.jl0 + r < nj);
    }
    // Fills each window but its top (levels kb + zlo .. kb + zhi - 1) from the fields, and
    // reads the output at the first level.
    template <class G>
    SQ_HD void begin(Thread& t, const G& g, const T* const (&in)[inputs]) const {
        const bool read_out = plane_reads_outputs(g, 0);
        SQ_PLANE_LOOP
        for (int r = 0; r < TY; ++r) {
            const int ij = (I0 + ci + t.il) + (J0 + cj + t.jl0 + r) * JJ;
            SQ_PLANE_LOOP
            for (int n = 0; n < outputs; ++n)
                t.next[r][n] = read_out && inside(t, r)
                                   ? *g.plane_output(n, I0 + ci + t.il, J0 + cj + t.jl0 + r, kb)
                                   : T(0);
            // Each input's window length a constant, so that the loop unrolls and the
            // window stays in registers.
            static_for<inputs>([&](auto qc) {
                constexpr int q = decltype(qc)::value;
                SQ_PLANE_LOOP
                for (int m = 0; m + 1 < L::window(q); ++m) {
                    const int l = kb + L::in(q).zlo + m;
                    t.win[r][q][m + 1] =
                        inside(t, r) && l >= 0 && l < nlev ? in[q][ij + l * KK] : T(0);
                }
            });
        }
    }
    // Step kl: slides the windows and computes the thread's points of level kb + kl.
    // Slots kl .. kl + lookahead must have arrived. G: F or a kernel derived from it.
    // The outputs (F::plane_output(n, i, j, k): the elements store adds to) are read a level
    // ahead, as the march's loads are: otherwise every level waits for a read from DRAM;
    // F::plane_store(i, j, k, old, value) then writes old + value where store would add
    // (old is 0 where plane_reads_outputs says the outputs are not read).
    template <class G>
    SQ_HD void step(Thread& t, const G& g, int kl) const {
        const int k = kb + kl, s0 = kl % RING;
        const bool read_out = plane_reads_outputs(g, 0);
        auto slot = [&](int m) { return s0 + m < RING ? s0 + m : s0 + m - RING; }; // m < RING
        SQ_PLANE_LOOP
        for (int r = 0; r < TY; ++r) {
            const int jl = t.jl0 + r;
            const int i = I0 + ci + t.il, j = J0 + cj + jl;
            T old[outputs];
            SQ_PLANE_LOOP
            for (int n = 0; n < outputs; ++n) {
                old[n] = t.next[r][n];
                if (read_out && kl + 1 < steps && inside(t, r))
                    t.next[r][n] = *g.plane_output(n, i, j, k + 1);
            }
            const T* planes[inputs][NP] = {}; // zeroed: entries past planes_of(q) too
            int at[inputs];                   // the point's cell in each input's box
            static_for<inputs>([&](auto qc) {
                constexpr int q = decltype(qc)::value, w = L::window(q);
                at[q] = (jl - L::in(q).ylo) * L::width(q) + (t.il - L::left(q));
                SQ_PLANE_LOOP
                for (int m = 0; m < L::planes_of(q); ++m) planes[q][m] = box<q>(slot(m)) + at[q];
                if constexpr (w > 0) {
                    SQ_PLANE_LOOP
                    for (int m = 0; m + 1 < w; ++m) t.win[r][q][m] = t.win[r][q][m + 1];
                    t.win[r][q][w - 1] = box<q>(slot(L::in(q).zhi - L::in(q).plo))[at[q]];
                }
            });
            if (!inside(t, r)) continue;
            const int ijk = i + j * JJ + k * KK;
            auto in = [&](int q, const T*) {
                const PlaneInput d = L::in(q);
                return PlanePtr<T, JJ, KK, W, NP>{planes[q], t.win[r][q],
                                                  -ijk,      L::width(q),
                                                  d.plo,     d.zlo,
                                                  d.zhi,     L::planes_of(q),
                                                  -at[q],    L::width(q) * L::height(q) - at[q]};
            };
            if constexpr (CARRY) {
                // The faces below: the march's first level computes them, the others carry.
                const auto lo = kl == 0 ? g.z_faces_with(in, i, j, k, 0) : t.carry[r];
                t.carry[r] = g.z_faces_with(in, i, j, k, 1);
                g.plane_store(i, j, k, old, g.value_with_z(in, i, j, k, lo, t.carry[r]));
            } else {
                g.plane_store(i, j, k, old, g.value_with(in, i, j, k));
            }
        }
    }
};

} // namespace sq

// The device side, compiled for the 3-D variants that run the planes traversal (SQ_PLANES,
// SQ_PLANE_RING and the geometry defines of traverse.cuh).
#if (defined(__CUDACC__) || defined(__CUDACC_RTC__)) && defined(SQ_3D) && SQ_PLANES

#ifndef SQ_PLANE_CARRY
#define SQ_PLANE_CARRY 0 // a kernel without the z-carry form
#endif

namespace sq {

// Tensor maps (CUtensorMap, 128 opaque bytes each), one per plane input, from the runtime.
struct alignas(64) PlaneMap {
    unsigned long long opaque[16];
};
template <int N>
struct PlaneMaps {
    PlaneMap m[N];
};

// Thread (0, 0) issues each level's boxes, every thread waits on the level's barriers and
// computes its rows; one block barrier per level frees the oldest slot.
template <class F>
__device__ __forceinline__ void planes_body(const F& g, int nlev,
                                            const PlaneMaps<F::plane_inputs>& maps) {
    using T = precision_t<F>;
    constexpr int ring = SQ_PLANE_RING;
    constexpr bool full = SQ_NI % SQ_BX == 0 && SQ_NJ % (SQ_BY * SQ_TY) == 0;
    using M = PlaneMarch<F, T, SQ_BX, SQ_BY * SQ_TY, SQ_TY, ring, SQ_I0, SQ_J0, SQ_JJ, SQ_KK, full,
                         SQ_PLANE_CARRY != 0>;
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
    typename M::Thread t{int(threadIdx.x), int(threadIdx.y) * SQ_TY, {}, {}, {}};
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

} // namespace sq

// The members as parameters, as tiles.cuh's sq_traverse_flat, followed by the inputs'
// tensor maps, which the runtime encodes at each launch.
template <class F>
__global__ void SQUALL_LAUNCH_BOUNDS sq_traverse_flat(
    SQ_FLAT_PARAMS, int sq_nlev, const __grid_constant__ sq::PlaneMaps<F::plane_inputs> sq_maps) {
    const F g{SQ_FLAT_INIT};
    sq::planes_body(g, sq_nlev, sq_maps);
}

#endif
