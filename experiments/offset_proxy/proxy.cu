// Compile-only check (no GPU needed): can per-point code that reads p[ijk + off] through
// a pointer-like proxy have its flat offsets split into (di, dj, dk) at compile time, so
// that z-neighbours of the point's own column come from a register window and the rest
// from a shared-memory plane? Build: nvcc -std=c++17 -arch=sm_90 -ptx proxy.cu; the PTX
// must hold no local memory and no integer division (check.sh).
constexpr int JJ = 544, KK = JJ * 518; // the strides of a padded 512^3 field
constexpr int SX = 72;                 // row stride of the shared-memory box

// Per-point helpers written once for raw pointers and proxies alike (the solver's
// flux5 and advec_div5 with the pointer type as a template parameter).
template <class P, class T>
__device__ __forceinline__ T flux5(P p, int s, T U) {
    const T a = p[-3 * s], b = p[-2 * s], c = p[-s], d = p[0], e = p[s], f = p[2 * s];
    const T c6 = T(37. / 60.) * (c + d) - T(8. / 60.) * (b + e) + T(1. / 60.) * (a + f);
    const T c5 = T(10. / 60.) * (d - c) - T(5. / 60.) * (e - b) + T(1. / 60.) * (f - a);
    return U * c6 - fabs(U) * c5;
}
template <class P, class T>
__device__ __forceinline__ T div5(P a, int s, T ulo, T uhi, T di) {
    return -(flux5(a + s, s, uhi) - flux5(a, s, ulo)) * di;
}

// A flat offset o = di + dj * JJ + dk * KK with |di|, |dj| < JJ / 2 split into its parts.
__device__ __forceinline__ constexpr int nearest(int o, int m) {
    return (o + (o >= 0 ? m / 2 : -(m / 2))) / m;
}

// The proxy: offsets relative to the point; dk != 0 only on the point's own column.
template <class T>
struct ColumnPtr {
    const T* plane; // the shared-memory plane at the point's level, at the point
    const T* win;   // the point's column, levels k-3 .. k+3 (registers of the caller)
    int off;
    __device__ ColumnPtr operator+(int n) const { return {plane, win, off + n}; }
    __device__ T operator[](int n) const {
        const int o = off + n, dk = nearest(o, KK), r = o - dk * KK, dj = nearest(r, JJ);
        if (dk != 0) return win[dk + 3];
        return plane[(r - dj * JJ) + dj * SX];
    }
};

// The per-point code as the solver writes it: u's x, y and z divergence at (i, j, k),
// with the flat index worked out here, apart from the one the proxy was given.
template <class P, class T>
__device__ __forceinline__ T point(P u, int i, int j, int k, T dxi, T dyi, T dzi) {
    const int ijk = i + j * JJ + k * KK;
    const P a = u + ijk;
    return div5(a, 1, a[0], a[1], dxi) + div5(a, JJ, a[0], a[JJ], dyi) +
           div5(a, KK, a[0], a[KK], dzi);
}

// A block marches levels: the plane stands in for a TMA-filled ring slot, the column
// window slides in registers; each point's value goes out to `out`.
template <class T>
__global__ void __launch_bounds__(256)
    march(const T* __restrict__ u, T* __restrict__ out, T dxi, T dyi, T dzi) {
    __shared__ T plane[SX * 14];
    const int i = threadIdx.x + 4, j = threadIdx.y + 3;
    const int i0 = blockIdx.x * 64, j0 = blockIdx.y * 8;
    T win[7];
    const int base = (i0 + i) + (j0 + j) * JJ;
#pragma unroll
    for (int d = 0; d < 7; ++d) win[d] = u[base + (d + 3) * KK];
    for (int k = 6; k < 512; ++k) {
        __syncthreads();
        plane[threadIdx.x + threadIdx.y * SX] = u[base + k * KK]; // stand-in for the fill
        __syncthreads();
        const int ijk = base + k * KK;
        const ColumnPtr<T> p{plane + i + j * SX, win, -ijk};
        out[ijk] = point(p, i0 + i, j0 + j, k, dxi, dyi, dzi);
#pragma unroll
        for (int d = 0; d < 6; ++d) win[d] = win[d + 1];
        win[6] = u[ijk + 4 * KK];
    }
}
template __global__ void march<double>(const double*, double*, double, double, double);
template __global__ void march<float>(const float*, float*, float, float, float);
