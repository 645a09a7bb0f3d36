#pragma once
// Periodic halo exchange as per-point kernels, so that it runs wherever the fields live
// (launch() on the CPU or the GPU). Not physics: pure copies, bitwise exact.
// x pass: the igc ghost columns of the interior rows; y pass: the jgc ghost rows over the
// full icells width, so the corners follow the x pass. The x kernels take one ghost cell of
// row (j, k) per point (halo_x_range), the y kernels count the ghost layer
// g0 = 0 .. gc-1 with their second index; nk levels (kcells for fields, 1 for 2-D surface
// arrays). Packed buffers are ordered (k, j, i), i fastest, matching across ranks: x
// buffers hold igc*jmax*nk values, y buffers jgc*icells*nk (rows without the padding that
// aligns them in memory, jj >= icells).
#include "common.cuh"

namespace sq {

// The x kernels' range: a ghost cell per point, row j's 2 igc cells (west, then east) at
// points 2 igc j .. 2 igc (j + 1) - 1 of the first index, level k the second. A warp then
// moves whole rows' edges in a few accesses, each thread one value: with a row per thread
// (three loads and stores per side, ordered by possible aliasing) the 512^3 wrap took three
// times as long on an H100 (docs/performance.md). The names end in _cells, so that
// records tuned for earlier ranges are never picked for this one.
SQ_HD constexpr Range3 halo_x_range(int jstart, int jend, int nk, int igc) {
    return {2 * igc * jstart, 2 * igc * jend, 0, nk, 0, 1};
}

// Point p of halo_x_range: its row j and its ghost column's offset from the edge, i0 =
// 0 .. igc-1 west to east on either side.
struct HaloXCell {
    int j, i0;
    bool east;
};
SQ_HD HaloXCell halo_x_cell(int p, int igc) {
    const int n = 2 * igc, c = p % n;
    return {p / n, c < igc ? c : c - igc, c >= igc};
}

// One rank along x: wrap from the opposite interior edge. Modular indexing also covers
// imax < igc.
template <typename T>
struct HaloWrapX {
    static constexpr const char* name = "halo_wrap_x_cells";
    T* a;
    int istart, iend, imax, igc;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(a), sq::Use::inout);
        d.scalars(SQ_ARG(istart), SQ_ARG(iend), SQ_ARG(imax), SQ_ARG(igc), SQ_ARG(jj), SQ_ARG(kk));
    }
    SQ_HD void operator()(int p, int k, int) const {
        const HaloXCell c = halo_x_cell(p, igc);
        T* row = a + index3(0, c.j, k, jj, kk);
        if (c.east) { // ghost layer g = i0 + 1 past iend - 1
            row[iend + c.i0] = row[istart + c.i0 % imax];
        } else { // ghost layer g = igc - i0 before istart
            const int g = igc - c.i0;
            row[istart - g] = row[istart + (imax - g % imax) % imax];
        }
    }
};

// One rank along y: whole rows. Range {0,icells, 0,jgc, 0,nk}.
template <typename T>
struct HaloWrapY {
    static constexpr const char* name = "halo_wrap_y";
    T* a;
    int jstart, jend, jmax;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(a), sq::Use::inout);
        d.scalars(SQ_ARG(jstart), SQ_ARG(jend), SQ_ARG(jmax), SQ_ARG(jj), SQ_ARG(kk));
    }
    SQ_HD void operator()(int i, int g0, int k) const {
        const int g = g0 + 1;
        const int src_s = jstart + (jmax - g % jmax) % jmax;
        const int src_n = jstart + (g - 1) % jmax;
        const View3<T*> f = view3(a, jj, kk);
        f(i, jstart - g, k) = f(i, src_s, k);
        f(i, jend - 1 + g, k) = f(i, src_n, k);
    }
};

// Several ranks along x: the west and east interior columns into send buffers. Range
// halo_x_range, cells as HaloWrapX's.
template <typename T>
struct HaloPackX {
    static constexpr const char* name = "halo_pack_x_cells";
    T *send_w, *send_e;
    const T* a;
    int istart, iend, jstart, jmax, igc;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.buffer(SQ_ARG(send_w), sq::Use::out).buffer(SQ_ARG(send_e), sq::Use::out);
        d.field(SQ_ARG(a));
        d.scalars(SQ_ARG(istart), SQ_ARG(iend), SQ_ARG(jstart), SQ_ARG(jmax), SQ_ARG(igc),
                  SQ_ARG(jj), SQ_ARG(kk));
    }
    SQ_HD void operator()(int p, int k, int) const {
        const HaloXCell c = halo_x_cell(p, igc);
        const int n = igc * ((c.j - jstart) + jmax * k) + c.i0;
        const T* row = a + index3(0, c.j, k, jj, kk);
        if (c.east)
            send_e[n] = row[iend - igc + c.i0];
        else
            send_w[n] = row[istart + c.i0];
    }
};

// Received columns into the west and east ghosts. Same range and layout as HaloPackX.
template <typename T>
struct HaloUnpackX {
    static constexpr const char* name = "halo_unpack_x_cells";
    T* a;
    const T *recv_w, *recv_e;
    int istart, iend, jstart, jmax, igc;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(a), sq::Use::inout).buffers(SQ_ARG(recv_w), SQ_ARG(recv_e));
        d.scalars(SQ_ARG(istart), SQ_ARG(iend), SQ_ARG(jstart), SQ_ARG(jmax), SQ_ARG(igc),
                  SQ_ARG(jj), SQ_ARG(kk));
    }
    SQ_HD void operator()(int p, int k, int) const {
        const HaloXCell c = halo_x_cell(p, igc);
        const int n = igc * ((c.j - jstart) + jmax * k) + c.i0;
        T* row = a + index3(0, c.j, k, jj, kk);
        if (c.east)
            row[iend + c.i0] = recv_e[n];
        else
            row[istart - igc + c.i0] = recv_w[n];
    }
};

// Several ranks along y: the south and north interior rows. Range {0,icells, 0,jgc, 0,nk}.
template <typename T>
struct HaloPackY {
    static constexpr const char* name = "halo_pack_y";
    T *send_s, *send_n;
    const T* a;
    int jstart, jend, jgc, icells;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.buffer(SQ_ARG(send_s), sq::Use::out).buffer(SQ_ARG(send_n), sq::Use::out);
        d.field(SQ_ARG(a));
        d.scalars(SQ_ARG(jstart), SQ_ARG(jend), SQ_ARG(jgc), SQ_ARG(icells), SQ_ARG(jj),
                  SQ_ARG(kk));
    }
    SQ_HD void operator()(int i, int j0, int k) const {
        const int c = i + icells * (j0 + jgc * k);
        const View3<const T*> f = view3(a, jj, kk);
        send_s[c] = f(i, jstart + j0, k);
        send_n[c] = f(i, jend - jgc + j0, k);
    }
};

template <typename T>
struct HaloUnpackY {
    static constexpr const char* name = "halo_unpack_y";
    T* a;
    const T *recv_s, *recv_n;
    int jstart, jend, jgc, icells;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(a), sq::Use::inout).buffers(SQ_ARG(recv_s), SQ_ARG(recv_n));
        d.scalars(SQ_ARG(jstart), SQ_ARG(jend), SQ_ARG(jgc), SQ_ARG(icells), SQ_ARG(jj),
                  SQ_ARG(kk));
    }
    SQ_HD void operator()(int i, int j0, int k) const {
        const int c = i + icells * (j0 + jgc * k);
        const View3<T*> f = view3(a, jj, kk);
        f(i, jstart - jgc + j0, k) = recv_s[c];
        f(i, jend + j0, k) = recv_n[c];
    }
};

// Every kernel of this header (tests and benchmarks iterate over them).
using HaloKernels =
    KernelList<HaloWrapX, HaloWrapY, HaloPackX, HaloUnpackX, HaloPackY, HaloUnpackY>;

} // namespace sq
