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

template <typename T>
SQ_HD void pencil_copy_point(const PencilCopy& p, int a, int b, int z, const T* SQ_RESTRICT src,
                             T* SQ_RESTRICT dst) {
    const int c = z % p.n2;
    int q = p.q_first + z / p.n2;
    if (p.q_skip >= 0 && q >= p.q_skip) ++q;
    dst[p.dst.at(q, a, b, c)] = src[p.src.at(q, a, b, c)];
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
