#pragma once
// The GPU pressure solver's kernels (docs/numerics.md "Pressure"), around the cuFFT calls of
// model/pressure/pressure_gpu.cpp. They work on the FFT's arrays, not on model fields, so
// besides the model's (i, j, k) they index three other layouts:
// - the packed FFT input of one rank: [k][j][i] over the interior, times `stride`
//   (1: reals; 2: the real parts of interleaved (re, im) pairs when there is no transform);
// - transform rows: n reals in half-complex order (FFTW's R2HC: re 0..n/2, then im) or
//   n/2+1 interleaved complex values (cuFFT's R2C), nj rows per level of the pencil;
// - columns of the transformed field: value col + ncol*k of column col, with NC
//   components per value (2: (re, im) pairs, 1: half-complex reals). Each column is a
//   tridiagonal system in k, solved by one thread (per-column kernels, operator()(i, j)).
// Rows and columns are traversed flat (all values of a level, all columns) so that every
// warp is full whatever the row length.
// Complex values are interleaved pairs of T, so every struct holds only pointers,
// scalars and ints. declare() is SQ_HD only because NVRTC refuses unannotated functions
// (the reductions' final pass compiles without -default-device); the host alone runs it.
#include "common.cuh"
#include "declare.cuh"

namespace sq {

// Thomas algorithm down and up column `col` of x (ncol columns per level, NC components
// per value; every component obeys the same real system). coef holds five arrays of ktot
// values: a, c (links to k-1 and k+1, zero at the walls), dz^2 rho, the diagonal without
// the wavenumber term, and dz^2/(itot jtot), which scales the right-hand side. Column 0
// adds top_mean to its last diagonal entry (the mean mode: pi = 0 on the top face; zero
// where this rank holds no mean mode).
//
// pressure_thomas_chunked: both sweeps go a chunk of thomas_chunk levels at a time, the
// chunk's values loaded into registers before the chunk's dependent chain of arithmetic
// runs, so a thread has the chunk's loads in flight at once instead of one level's (each
// level's load waited for the previous level's store). The elimination factors g(k) are
// not stored per level: the sweep up keeps 1/beta of each chunk's first level in gam
// (ncol * ceil(ktot / thomas_chunk) values of scratch) and the sweep down recomputes the
// chunk's factors from it with the same arithmetic. A complex value then moves 8 values of
// T instead of pressure_thomas_stored's 10 (x read and written by each sweep, against that
// plus its factor written and read back).
inline constexpr int thomas_chunk = 16;

// One column's system: coef's five arrays, its wavenumber term bm and its top fix.
template <typename T>
struct ThomasSystem {
    const T* a;
    const T* c;
    const T* dz2rho;
    const T* b_base;
    const T* rhs_scale;
    T bm, top_fix;
    int ktot;
    SQ_HD T diagonal(int k) const {
        return dz2rho[k] * bm + b_base[k] + (k == ktot - 1 ? top_fix : T(0));
    }
    // 1 / beta(k) from the factor g(k) = c(k-1) / beta(k-1).
    SQ_HD T inverse_pivot(int k, T g) const { return T(1) / (diagonal(k) - a[k] * g); }
};

// Levels [k0, k0 + thomas_chunk) of a column that lie below `kend`, into or out of r.
template <int NC, typename T>
SQ_HD void thomas_load_chunk(T (&r)[thomas_chunk][NC], const T* SQ_RESTRICT x, long col, long ncol,
                             int k0, int kend) {
    for (int m = 0; m < thomas_chunk; ++m)
        if (k0 + m < kend)
            for (int n = 0; n < NC; ++n) r[m][n] = x[NC * (col + ncol * (k0 + m)) + n];
}
template <int NC, typename T>
SQ_HD void thomas_store_chunk(const T (&r)[thomas_chunk][NC], T* SQ_RESTRICT x, long col, long ncol,
                              int k0, int kend) {
    for (int m = 0; m < thomas_chunk; ++m)
        if (k0 + m < kend)
            for (int n = 0; n < NC; ++n) x[NC * (col + ncol * (k0 + m)) + n] = r[m][n];
}

template <int NC, typename T>
SQ_HD void pressure_thomas_chunked(const ThomasSystem<T>& sys, long col, long ncol,
                                   T* SQ_RESTRICT x, T* SQ_RESTRICT gam) {
    const T *a = sys.a, *c = sys.c, *rhs_scale = sys.rhs_scale;
    const int ktot = sys.ktot;

    T r[thomas_chunk][NC];
    T v[NC] = {}; // the value of the level below (up), above (down)
    T binv = T(1);
    for (int k0 = 0; k0 < ktot; k0 += thomas_chunk) {
        thomas_load_chunk(r, x, col, ncol, k0, ktot);
        for (int m = 0; m < thomas_chunk; ++m) {
            const int k = k0 + m;
            if (k >= ktot) break;
            if (k == 0) {
                binv = T(1) / sys.diagonal(0);
                for (int n = 0; n < NC; ++n) v[n] = r[m][n] = rhs_scale[0] * r[m][n] * binv;
            } else {
                binv = sys.inverse_pivot(k, c[k - 1] * binv);
                for (int n = 0; n < NC; ++n)
                    v[n] = r[m][n] = (rhs_scale[k] * r[m][n] - a[k] * v[n]) * binv;
            }
            if (m == 0) gam[col + ncol * (k0 / thomas_chunk)] = binv;
        }
        thomas_store_chunk(r, x, col, ncol, k0, ktot);
    }
    // Down from the top chunk; level k uses g(k + 1). The top level is final.
    for (int k0 = (ktot - 2) / thomas_chunk * thomas_chunk; k0 >= 0; k0 -= thomas_chunk) {
        thomas_load_chunk(r, x, col, ncol, k0, ktot - 1);
        T g[thomas_chunk];
        T bi = gam[col + ncol * (k0 / thomas_chunk)];
        for (int m = 0; m < thomas_chunk; ++m) {
            const int k = k0 + m + 1;
            if (k >= ktot) break;
            g[m] = c[k - 1] * bi;
            if (m + 1 < thomas_chunk) bi = sys.inverse_pivot(k, g[m]);
        }
        for (int m = thomas_chunk - 1; m >= 0; --m)
            if (k0 + m < ktot - 1)
                for (int n = 0; n < NC; ++n) v[n] = r[m][n] = r[m][n] - g[m] * v[n];
        thomas_store_chunk(r, x, col, ncol, k0, ktot - 1);
    }
}

// The plain sweeps, a level at a time, with g(k) stored in gam (ncol * ktot values) on the
// way up and read back on the way down: 10 values of T per complex value.
template <int NC, typename T>
SQ_HD void pressure_thomas_stored(const ThomasSystem<T>& sys, long col, long ncol, T* SQ_RESTRICT x,
                                  T* SQ_RESTRICT gam) {
    const T *a = sys.a, *c = sys.c, *rhs_scale = sys.rhs_scale;
    const int ktot = sys.ktot;
    T* x0 = x + NC * col;
    T binv = T(1) / sys.diagonal(0);
    T v[NC];
    for (int n = 0; n < NC; ++n) x0[n] = v[n] = rhs_scale[0] * x0[n] * binv;
    for (int k = 1; k < ktot; ++k) {
        T* xk = x + NC * (col + ncol * k);
        const T g = c[k - 1] * binv;
        binv = sys.inverse_pivot(k, g);
        gam[col + ncol * k] = g;
        for (int n = 0; n < NC; ++n) xk[n] = v[n] = (rhs_scale[k] * xk[n] - a[k] * v[n]) * binv;
    }
    for (int k = ktot - 2; k >= 0; --k) {
        T* xk = x + NC * (col + ncol * k);
        const T g = gam[col + ncol * (k + 1)];
        for (int n = 0; n < NC; ++n) xk[n] = v[n] = xk[n] - g * v[n];
    }
}

// Per precision, the faster on an H200 at 512^3 (docs/performance.md, "Pressure solver"):
// in float the chunks took 0.64 ms a solve against 0.86; in double, where the recomputed
// factors' divisions are costly, 1.74 ms against 1.35 (the stored sweeps already move
// their bytes at the copy ceiling). gam: ncol * ktot values of scratch.
template <int NC, typename T>
SQ_HD void pressure_thomas_column(long col, long ncol, int ktot, T* SQ_RESTRICT x,
                                  T* SQ_RESTRICT gam, const T* SQ_RESTRICT bmat,
                                  const T* SQ_RESTRICT coef, T top_mean) {
    const ThomasSystem<T> sys{coef,
                              coef + ktot,
                              coef + 2 * ktot,
                              coef + 3 * ktot,
                              coef + 4 * ktot,
                              bmat[col],
                              col == 0 ? top_mean : T(0),
                              ktot};
    if constexpr (sizeof(T) == 8)
        pressure_thomas_stored<NC>(sys, col, ncol, x, gam);
    else
        pressure_thomas_chunked<NC>(sys, col, ncol, x, gam);
}

// Index of interior point (i, j, k) of the field in the packed FFT input.
SQ_HD long pressure_packed_index(int i, int j, int k, int istart, int jstart, int kstart, int itot,
                                 int jtot, int stride) {
    return long(stride) * ((i - istart) + long(itot) * ((j - jstart) + long(jtot) * (k - kstart)));
}

// One rank: the field's interior into the packed FFT input. Range: the interior.
template <typename T>
struct PressurePack {
    static constexpr const char* name = "pressure_pack";
    T* SQ_RESTRICT packed;
    const T* SQ_RESTRICT field;
    int istart, jstart, kstart;
    int itot, jtot; // interior extents: the packed rows and planes
    int stride;
    int jj, kk;

    SQ_HD void operator()(int i, int j, int k) const {
        packed[pressure_packed_index(i, j, k, istart, jstart, kstart, itot, jtot, stride)] =
            field[index3_long(i, j, k, jj, kk)];
    }

    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.buffer(SQ_ARG(packed), Use::out).field(SQ_ARG(field));
        d.scalar(SQ_ARG(istart)).scalar(SQ_ARG(jstart)).scalar(SQ_ARG(kstart));
        d.scalar(SQ_ARG(itot)).scalar(SQ_ARG(jtot)).scalar(SQ_ARG(stride));
        d.scalar(SQ_ARG(jj)).scalar(SQ_ARG(kk));
    }
};

// One rank: the solution back into the field, the first level mirrored into the ghost
// below the wall (Neumann, as the momentum update expects). Range: the interior.
template <typename T>
struct PressureUnpack {
    static constexpr const char* name = "pressure_unpack";
    T* SQ_RESTRICT field;
    const T* SQ_RESTRICT packed;
    int istart, jstart, kstart;
    int itot, jtot;
    int stride;
    int jj, kk;

    SQ_HD void operator()(int i, int j, int k) const {
        const T v =
            packed[pressure_packed_index(i, j, k, istart, jstart, kstart, itot, jtot, stride)];
        const long ijk = index3_long(i, j, k, jj, kk);
        field[ijk] = v;
        if (k == kstart) field[ijk - kk] = v;
    }

    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(field), Use::inout).buffer(SQ_ARG(packed));
        d.scalar(SQ_ARG(istart)).scalar(SQ_ARG(jstart)).scalar(SQ_ARG(kstart));
        d.scalar(SQ_ARG(itot)).scalar(SQ_ARG(jtot)).scalar(SQ_ARG(stride));
        d.scalar(SQ_ARG(jj)).scalar(SQ_ARG(kk));
    }
};

// One rank: the complex columns of the 2-D transform, (re, im) pairs; column cf + ncf*cs
// of transform row cs holds value cf. Range {0, ncol, 0, 1}: one thread per column,
// neighbouring threads on neighbouring columns.
template <typename T>
struct PressureThomas {
    static constexpr const char* name = "pressure_thomas";
    T* SQ_RESTRICT x;
    T* SQ_RESTRICT gam;
    const T* SQ_RESTRICT bmat; // bmati + bmatj per column
    const T* SQ_RESTRICT coef;
    T top_mean;
    int ktot;
    int ncol; // columns per level

    SQ_HD void operator()(int col, int) const {
        pressure_thomas_column<2>(col, ncol, ktot, x, gam, bmat, coef, top_mean);
    }

    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.buffer(SQ_ARG(x), Use::inout).buffer(SQ_ARG(gam), Use::out);
        d.buffer(SQ_ARG(bmat)).buffer(SQ_ARG(coef));
        d.scalar(SQ_ARG(top_mean)).scalar(SQ_ARG(ktot)).scalar(SQ_ARG(ncol));
    }
};

// Pencils: the real half-complex columns of the z-pencil, il + iblk*jl. Range {0, ncol,
// 0, 1}.
template <typename T>
struct PressureThomasReal {
    static constexpr const char* name = "pressure_thomas_real";
    T* SQ_RESTRICT x;
    T* SQ_RESTRICT gam;
    const T* SQ_RESTRICT bmat;
    const T* SQ_RESTRICT coef;
    T top_mean;
    int ktot;
    int ncol;

    SQ_HD void operator()(int col, int) const {
        pressure_thomas_column<1>(col, ncol, ktot, x, gam, bmat, coef, top_mean);
    }

    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.buffer(SQ_ARG(x), Use::inout).buffer(SQ_ARG(gam), Use::out);
        d.buffer(SQ_ARG(bmat)).buffer(SQ_ARG(coef));
        d.scalar(SQ_ARG(top_mean)).scalar(SQ_ARG(ktot)).scalar(SQ_ARG(ncol));
    }
};

// Pencils: one block copy of a transpose (model/pressure/transpose.h): element (a, b, z),
// z = n2*block + c, of the blocks q_first, q_first+1, ... skipping q_skip (-1: none).
// Element (a, b, c) of block q lies at base + q*s_q + a*s_a + b*s_b + c*s_c in either
// array. Range {0, n0, 0, n1, 0, n2 * blocks}. One side is strided when the copy is a
// transpose.
template <typename T>
struct PressurePencilCopy {
    static constexpr const char* name = "pressure_pencil_copy";
    T* SQ_RESTRICT dst;
    const T* SQ_RESTRICT src;
    int src_base, src_q, src_a, src_b, src_c;
    int dst_base, dst_q, dst_a, dst_b, dst_c;
    int n2, q_first, q_skip;

    SQ_HD void block_of(int z, int& q, int& c) const {
        c = z % n2;
        q = q_first + z / n2;
        if (q_skip >= 0 && q >= q_skip) ++q;
    }
    SQ_HD T value(int a, int b, int z) const {
        int q, c;
        block_of(z, q, c);
        return src[src_base + long(q) * src_q + long(a) * src_a + long(b) * src_b +
                   long(c) * src_c];
    }
    SQ_HD void store(int a, int b, int z, T v) const {
        int q, c;
        block_of(z, q, c);
        dst[dst_base + long(q) * dst_q + long(a) * dst_a + long(b) * dst_b + long(c) * dst_c] = v;
    }
    SQ_HD void operator()(int a, int b, int z) const { store(a, b, z, value(a, b, z)); }

    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.buffer(SQ_ARG(dst), Use::out).buffer(SQ_ARG(src));
        d.scalar(SQ_ARG(src_base)).scalar(SQ_ARG(src_q)).scalar(SQ_ARG(src_a));
        d.scalar(SQ_ARG(src_b)).scalar(SQ_ARG(src_c));
        d.scalar(SQ_ARG(dst_base)).scalar(SQ_ARG(dst_q)).scalar(SQ_ARG(dst_a));
        d.scalar(SQ_ARG(dst_b)).scalar(SQ_ARG(dst_c));
        d.scalar(SQ_ARG(n2)).scalar(SQ_ARG(q_first)).scalar(SQ_ARG(q_skip));
    }
};

// Pencils: transform rows from cuFFT's R2C output to half-complex order, so that every
// entry is an independent real column of the solve: hc[m] = Re X_m for m <= n/2,
// hc[n-m] = Im X_m for 0 < m < n-m. Range {0, n*nj, 0, 1, 0, levels}: entry p % n of row
// p / n of level k.
template <typename T>
struct PressureHcFromComplex {
    static constexpr const char* name = "pressure_hc_from_complex";
    T* SQ_RESTRICT hc;
    const T* SQ_RESTRICT cplx;
    int n, nj;

    SQ_HD void operator()(int p, int, int k) const {
        const int m = p % n;
        const long row = p / n + long(nj) * k;
        const T* x = cplx + 2 * long(n / 2 + 1) * row;
        hc[long(n) * row + m] = m <= n / 2 ? x[2 * m] : x[2 * (n - m) + 1];
    }

    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.buffer(SQ_ARG(hc), Use::out).buffer(SQ_ARG(cplx));
        d.scalar(SQ_ARG(n)).scalar(SQ_ARG(nj));
    }
};

// The inverse, before the C2R transform: complex value m (0 <= m <= n/2) of each row; the
// imaginary parts a real signal cannot have (m = 0 and, for even n, m = n/2) are zero.
// Range {0, (n/2+1)*nj, 0, 1, 0, levels}: value p % (n/2+1) of row p / (n/2+1).
template <typename T>
struct PressureComplexFromHc {
    static constexpr const char* name = "pressure_complex_from_hc";
    T* SQ_RESTRICT cplx;
    const T* SQ_RESTRICT hc;
    int n, nj;

    SQ_HD void operator()(int p, int, int k) const {
        const int half = n / 2 + 1, m = p % half;
        const long row = p / half + long(nj) * k;
        const T* h = hc + long(n) * row;
        T* x = cplx + 2 * (long(half) * row + m);
        x[0] = h[m];
        x[1] = m > 0 && n - m > m ? h[n - m] : T(0);
    }

    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.buffer(SQ_ARG(cplx), Use::out).buffer(SQ_ARG(hc));
        d.scalar(SQ_ARG(n)).scalar(SQ_ARG(nj));
    }
};

// After the inverse transform, which writes only the interior: the ghost level below the
// wall mirrors the first level (PressureUnpack does this itself). Range: the interior columns.
template <typename T>
struct PressureMirrorBottom {
    static constexpr const char* name = "pressure_mirror_bottom";
    T* SQ_RESTRICT field;
    int kstart;
    int jj, kk;

    SQ_HD void operator()(int i, int j) const {
        const long ijk = index3_long(i, j, kstart, jj, kk);
        field[ijk - kk] = field[ijk];
    }

    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.field(SQ_ARG(field), Use::inout);
        d.scalar(SQ_ARG(kstart)).scalar(SQ_ARG(jj)).scalar(SQ_ARG(kk));
    }
};

using PressureSpectralKernels =
    KernelList<PressurePack, PressureUnpack, PressureThomas, PressureThomasReal, PressurePencilCopy,
               PressureHcFromComplex, PressureComplexFromHc, PressureMirrorBottom>;

} // namespace sq
