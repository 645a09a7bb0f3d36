#pragma once
// Shared-memory staging for the traversal (tunable `stage`): a block owns an x-y chunk
// and marches up through `stage_levels` levels, one level per step. Each 3-D input the
// kernel declares (F::staged_inputs) lives in shared memory as a ring of x-y planes,
// the chunk plus F::stage_reach points on every side, and the levels it is read at
// around k (its window). Loads run `depth` levels ahead of the computation (on the
// device asynchronously, cp.async), so each element comes from L2 or DRAM once per block
// instead of once per stencil point, and the per-point function runs unchanged on a copy
// of the kernel whose input pointers and strides address the staged planes.
//
// A window must be contiguous for the kernel's `p + n*kk` arithmetic, so the ring of R
// planes is followed by mirrors of its first W - 1 planes: the window of step s starts
// at slot s % R and never wraps. R = W + depth + 1 keeps the planes of the step before
// intact while the next level loads (one barrier per level).
//
// Two ways to fill a plane (tunable `stage_fill`). 0: each thread copies box elements
// tid + m * threads, one `cp.async` per element. 1: each thread hands whole rows to the
// copy engine (`cp.async.bulk`, Hopper), tid + m * threads; the bulk copy needs 16-byte
// aligned rows of a multiple of 16 bytes, so the box then starts `lx` (the reach rounded
// up to 16 bytes) left of the chunk and is as much wider on the right.
//
// Everything here is host and device code; the device supplies the asynchronous copy and
// the barrier, the host test plain copies, and both run the same index arithmetic. Copy:
//   by_rows          false: a thread copies box elements; true: a thread copies box rows
//   copy(dst, src)   one element
//   bulk(dst, src, count, n)  (by_rows) the first `count` elements of a row, for step n
//   init()           before the first load (the device sets up its barriers)
//   commit(n)        after the loads of step n are issued
//   wait(s)          until step s's loads have landed and every thread sees them
#if defined(__CUDACC_RTC__)
#include "common.cuh"
#else
#include "kernels/common.cuh"
#endif

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define SQ_STAGE_LOOP _Pragma("unroll")
#else
#define SQ_STAGE_LOOP
#endif

namespace sq {

// The box and pipeline of one staged block.
struct StageGeom {
    int sx, sy;     // box extents: the chunk plus the reach on both sides (sx: row stride)
    int depth;      // levels loaded ahead of the one computed
    int jj, kk;     // strides of the global fields
    int x0, y0;     // absolute (i, j) of the box's first element
    int xfirst;     // first element of a row the stencil reads (stage_fill 1: lx - reach)
    int xlim, ylim; // box elements inside the allocation (the range plus the reach)
    int kb;         // absolute level of the block's first step
    int steps;      // steps the block computes (levels inside the range)
    int nlev;       // levels of the 3-D arrays: loads stay within [0, nlev)
    SQ_HD int plane() const { return sx * sy; }
    // The box of the chunk (spx x spy points) at (ci, cj) of a range that starts at
    // (i0, j0) and spans ni x nj: the chunk plus `reach` on every side, x widened to lx >=
    // reach on each side.
    SQ_HD void box(int spx, int spy, int lx, int reach, int i0, int j0, int ni, int nj, int ci,
                   int cj) {
        sx = spx + 2 * lx, sy = spy + 2 * reach;
        x0 = i0 + ci - lx, y0 = j0 + cj - reach, xfirst = lx - reach;
        xlim = min_(sx, ni - ci + lx + reach), ylim = min_(sy, nj - cj + 2 * reach);
    }
    SQ_HD static int window(int zlo, int zhi) { return zhi - zlo + 1; }
    SQ_HD int ring(int w) const { return w + depth + 1; }
    SQ_HD int planes(int w) const { return planes(w, depth); }
    // The ring plus the mirrors of its first w - 1 planes.
    SQ_HD static int planes(int w, int depth) { return 2 * w + depth; }
};

// How far the box reaches left and right of the chunk in x: the stencil's reach, for the
// row fill rounded up to whole 16-byte units so that every box row starts aligned.
SQ_HD constexpr int stage_reach_x(int reach, int elem_bytes, bool by_rows) {
    const int unit = 16 / elem_bytes;
    return by_rows ? (reach + unit - 1) / unit * unit : reach;
}

// Shared-memory planes of a kernel's staged inputs (host: the launch's dynamic shared
// memory; device: the offsets of each array).
struct StageCount {
    int depth = 1, planes = 0, fields = 0;
    template <class P>
    SQ_HD void field(P&, int zlo, int zhi) {
        planes += StageGeom::planes(StageGeom::window(zlo, zhi), depth), ++fields;
    }
    template <class P>
    SQ_HD void surface(P&) {
        ++planes;
    }
};

// Elements [0, n) of a box row that go by bulk copy: whole 16-byte units from the row's
// first element, which must lie on a 16-byte boundary (0 when it does not, or with fewer
// than 16 bytes). The rest of [xfirst, xlim) goes element by element. The bulk copy also
// reads the lx - reach elements before xfirst, which no stencil needs: on the model's
// layout they lie in the leading pad (grid.h), and an array without one starts on a
// 16-byte boundary, so a row that would begin before it is not aligned and goes
// element by element.
template <typename T>
SQ_HD int stage_row_bulk(const T* row, int xlim) {
    constexpr int unit = 16 / int(sizeof(T));
    if (reinterpret_cast<unsigned long long>(row) % 16 != 0) return 0;
    return xlim / unit * unit;
}

// Issues the loads of one step: relative level r = n + w - 1 of every field (the new top
// of its window n - depth steps later); with n = 0 the whole first window and the
// surfaces. Thread tid copies box elements tid + m * threads, m < MAXE, whose global
// offsets (x + y * jj from the box origin, -1 outside the allocation) it worked out once.
template <typename T, class Copy, int MAXE>
struct StageIssue {
    const StageGeom& g;
    const Copy& copy;
    T* smem;
    const int* goff;
    int n, tid, threads;
    int off = 0; // planes used by the arrays visited so far

    SQ_HD void plane(T* dst, const T* src) const {
        if constexpr (Copy::by_rows) {
            for (int y = tid; y < g.ylim; y += threads) {
                T* d = dst + y * g.sx;
                const T* s = src + y * g.jj;
                const int bulk = stage_row_bulk(s, g.xlim);
                if (bulk > 0) copy.bulk(d, s, bulk, n);
                for (int x = bulk > 0 ? bulk : g.xfirst; x < g.xlim; ++x) copy.copy(d + x, s + x);
            }
        } else {
            SQ_STAGE_LOOP
            for (int m = 0; m < MAXE; ++m)
                if (goff[m] >= 0) copy.copy(dst + tid + m * threads, src + goff[m]);
        }
    }
    SQ_HD void level(const T* a, int zlo, int w, int r) const {
        const int l = g.kb + zlo + r, slot = r % g.ring(w);
        if (r > w - 1 + g.steps - 1 || l < 0 || l >= g.nlev) return;
        const T* src = a + (g.x0 + g.y0 * g.jj) + l * g.kk;
        plane(smem + (off + slot) * g.plane(), src);
        if (slot < w - 1) plane(smem + (off + slot + g.ring(w)) * g.plane(), src);
    }
    template <class P>
    SQ_HD void field(P& a, int zlo, int zhi) {
        const int w = StageGeom::window(zlo, zhi);
        if (n == 0)
            for (int r = 0; r < w; ++r) level(a, zlo, w, r);
        else
            level(a, zlo, w, n + w - 1);
        off += g.planes(w);
    }
    template <class P>
    SQ_HD void surface(P& a) {
        if (n == 0 && a) plane(smem + off * g.plane(), a + (g.x0 + g.y0 * g.jj));
        ++off;
    }
};

// Points the staged copy's inputs at step s's windows; surfaces (the same for every
// step) only with s < 0, keeping nullptr (no prescribed flux) as it is.
template <typename T>
struct StageRebase {
    const StageGeom& g;
    T* smem;
    int s;
    int off = 0;

    template <class P>
    SQ_HD void field(P& a, int zlo, int zhi) {
        const int w = StageGeom::window(zlo, zhi);
        if (s >= 0)
            a = smem + (off + s % g.ring(w)) * g.plane() -
                (g.x0 + g.y0 * g.sx + (g.kb + s + zlo) * g.plane());
        off += g.planes(w);
    }
    template <class P>
    SQ_HD void surface(P& a) {
        if (s < 0 && a) a = smem + off * g.plane() - (g.x0 + g.y0 * g.sx);
        ++off;
    }
};

// One block's staging: begin() works out the thread's box elements and issues the first
// windows; step(s) issues level s + depth, waits until step s's windows are complete and
// visible, and rebases `staged`, the kernel copy whose value() then reads shared memory
// (strides sx and sx * sy). MAXE: box elements per thread, at least ceil(plane / threads).
template <class F, typename T, class Copy, int MAXE>
struct Stager {
    StageGeom g;
    T* smem;
    int tid, threads;
    Copy copy;
    int goff[MAXE];

    SQ_HD void begin(const F& src, F& staged) {
        if constexpr (!Copy::by_rows) {
            SQ_STAGE_LOOP
            for (int m = 0; m < MAXE; ++m) {
                const int e = tid + m * threads, x = e % g.sx, y = e / g.sx;
                goff[m] =
                    e < g.plane() && x >= g.xfirst && x < g.xlim && y < g.ylim ? x + y * g.jj : -1;
            }
        }
        copy.init();
        for (int n = 0; n < g.depth; ++n) {
            StageIssue<T, Copy, MAXE> issue{g, copy, smem, goff, n, tid, threads};
            F::staged_inputs(issue, src);
            copy.commit(n);
        }
        staged.jj = g.sx;
        staged.kk = g.plane();
        StageRebase<T> surfaces{g, smem, -1};
        F::staged_inputs(surfaces, staged);
    }
    SQ_HD void step(int s, const F& src, F& staged) const {
        StageIssue<T, Copy, MAXE> issue{g, copy, smem, goff, s + g.depth, tid, threads};
        F::staged_inputs(issue, src);
        copy.commit(s + g.depth);
        copy.wait(s);
        StageRebase<T> rebase{g, smem, s};
        F::staged_inputs(rebase, staged);
    }
};

} // namespace sq
