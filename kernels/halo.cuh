#pragma once
// Periodic halo exchange as per-point kernels, so that it runs wherever the fields live
// (launch() on the CPU or the GPU). Not physics: pure copies, bitwise exact.
// x pass: the igc ghost columns of the interior rows; y pass: the jgc ghost rows over the
// full icells width, so the corners follow the x pass. The x kernels take a row (j, k) per
// point (their traversal's first two indices), the y kernels count the ghost layer
// g0 = 0 .. gc-1 with their second index; nk levels (kcells for fields, 1 for 2-D surface
// arrays). Packed buffers are ordered (k, j, i), i fastest, matching across ranks: x
// buffers hold igc*jmax*nk values, y buffers jgc*icells*nk (rows without the padding that
// aligns them in memory, jj >= icells).
#include "common.cuh"

namespace sq {

// One rank along x: wrap from the opposite interior edge, a whole row (its igc ghosts on
// both sides) per point. The traversal's first index is the row j and its second the level
// k: range {jstart,jend, 0,nk, 0,1}, so that neighbouring threads take neighbouring rows (a
// range igc wide along x left most threads of every block idle). The names say so (x
// kernels end in _rows), since records tuned for that range must not be picked for this
// one. Modular indexing also covers imax < igc.
template <typename T>
struct HaloWrapX {
    static constexpr const char* name = "halo_wrap_x_rows";
    T* a;
    int istart, iend, imax, igc;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(a), sq::Use::inout);
        d.scalars(SQ_ARG(istart), SQ_ARG(iend), SQ_ARG(imax), SQ_ARG(igc), SQ_ARG(jj), SQ_ARG(kk));
    }
    SQ_HD void operator()(int j, int k, int) const {
        T* row = a + index3(0, j, k, jj, kk);
        for (int g = 1; g <= igc; ++g) {
            row[istart - g] = row[istart + (imax - g % imax) % imax];
            row[iend - 1 + g] = row[istart + (g - 1) % imax];
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

// Several ranks along x: the west and east interior columns into send buffers, a row per
// point as HaloWrapX (range {jstart,jend, 0,nk, 0,1}).
template <typename T>
struct HaloPackX {
    static constexpr const char* name = "halo_pack_x_rows";
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
    SQ_HD void operator()(int j, int k, int) const {
        const int c = igc * ((j - jstart) + jmax * k);
        const int row = index3(0, j, k, jj, kk);
        for (int i0 = 0; i0 < igc; ++i0) {
            send_w[c + i0] = a[istart + i0 + row];
            send_e[c + i0] = a[iend - igc + i0 + row];
        }
    }
};

// Received columns into the west and east ghosts. Same range and layout as HaloPackX.
template <typename T>
struct HaloUnpackX {
    static constexpr const char* name = "halo_unpack_x_rows";
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
    SQ_HD void operator()(int j, int k, int) const {
        const int c = igc * ((j - jstart) + jmax * k);
        const int row = index3(0, j, k, jj, kk);
        for (int i0 = 0; i0 < igc; ++i0) {
            a[istart - igc + i0 + row] = recv_w[c + i0];
            a[iend + i0 + row] = recv_e[c + i0];
        }
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
