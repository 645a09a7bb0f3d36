// Hand-written advec_u (2i5, interior fast path) at 512^3 with reuse across threads: a z
// register window, x neighbours by warp shuffles, y register tiles or a shared plane, and
// software pipelining. A measurement, not part of the solver or its build: README.md.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <vector>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e = (x);                                                                       \
        if (e != cudaSuccess) {                                                                    \
            printf("CUDA %s line %d\n", cudaGetErrorString(e), __LINE__);                          \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

constexpr int N = 512, IGC = 16, JGC = 3, KGC = 3;

template <class T>
__device__ __forceinline__ T i2(T a, T b) {
    return T(0.5) * (a + b);
}
// docs/numerics.md's 5th-order upwind flux (kernels/common.cuh flux5), restated on values so
// that this file stands alone.
template <class T>
__device__ __forceinline__ T f5(T a, T b, T c, T d, T e, T f, T U) {
    T c6 = T(37. / 60.) * (c + d) - T(8. / 60.) * (b + e) + T(1. / 60.) * (a + f);
    T c5 = T(10. / 60.) * (d - c) - T(5. / 60.) * (e - b) + T(1. / 60.) * (f - a);
    return U * c6 - fabs(U) * c5;
}
// l[0..6] = a[-3..3]
template <class T>
__device__ __forceinline__ T div5(const T* l, T ulo, T uhi, T di) {
    return -(f5(l[1], l[2], l[3], l[4], l[5], l[6], uhi) -
             f5(l[0], l[1], l[2], l[3], l[4], l[5], ulo)) *
           di;
}
template <class T>
struct Args {
    T* ut;
    const T *u, *v, *w, *rho, *rhoh, *dzi;
    T dxi, dyi;
    int jj, kk;
};

template <class T>
__device__ __forceinline__ T point(const T* x, const T* y, const T* z, T vlo_m, T vlo, T vhi_m,
                                   T vhi, T wb_m, T wb, T wt_m, T wt, T dxi, T dyi, T rk, T rhk,
                                   T rhk1, T dzk) {
    T r =
        div5(x, i2(x[2], x[3]), i2(x[3], x[4]), dxi) + div5(y, i2(vlo_m, vlo), i2(vhi_m, vhi), dyi);
    T ftop = f5(z[1], z[2], z[3], z[4], z[5], z[6], i2(wt_m, wt));
    T fbot = f5(z[0], z[1], z[2], z[3], z[4], z[5], i2(wb_m, wb));
    return r - (rhk1 * ftop - rhk * fbot) / rk * dzk;
}

// Reference: one point per thread.
template <class T>
__global__ void __launch_bounds__(256) naive(Args<T> a) {
    int i = blockIdx.x * 256 + threadIdx.x, j = blockIdx.y, k = blockIdx.z;
    if (i >= N) return;
    int ijk = (i + IGC) + (j + JGC) * a.jj + (k + KGC) * a.kk;
    const T* u = a.u;
    int jj = a.jj, kk = a.kk;
    T x[7], y[7], z[7];
#pragma unroll
    for (int d = -3; d <= 3; ++d) {
        x[d + 3] = u[ijk + d];
        y[d + 3] = u[ijk + d * jj];
        z[d + 3] = u[ijk + d * kk];
    }
    const T *v = a.v, *w = a.w;
    int kg = k + KGC;
    a.ut[ijk] += point(x, y, z, v[ijk - 1], v[ijk], v[ijk - 1 + jj], v[ijk + jj], w[ijk - 1],
                       w[ijk], w[ijk - 1 + kk], w[ijk + kk], a.dxi, a.dyi, a.rho[kg], a.rhoh[kg],
                       a.rhoh[kg + 1], a.dzi[kg]);
}

// z-march: block (32, BY); thread owns column i, rows j0..j0+TY-1, levels k0..k0+KC-1.
// XSH: x neighbours (and v/w at i-1) by warp shuffles instead of loads.
template <class T, int BY, int TY, int KC, bool XSH, int MINB>
__global__ void __launch_bounds__(32 * BY, MINB) zmarch(Args<T> a) {
    const int lane = threadIdx.x;
    const int i = blockIdx.x * 32 + lane;
    const int j0 = (blockIdx.y * BY + threadIdx.y) * TY;
    const int k0 = blockIdx.z * KC;
    const int jj = a.jj, kk = a.kk;
    const T* __restrict__ u = a.u;
    const T* __restrict__ v = a.v;
    const T* __restrict__ w = a.w;
    T* __restrict__ ut = a.ut;
    int base = (i + IGC) + (j0 + JGC) * jj + (k0 + KGC) * kk;
    T zw[TY][7]; // u[k-3..k+3] per row
    T wk[TY];    // w[i, k]
#pragma unroll
    for (int r = 0; r < TY; ++r) {
#pragma unroll
        for (int d = 0; d < 6; ++d) zw[r][d + 1] = u[base + r * jj + (d - 3) * kk];
        wk[r] = w[base + r * jj];
    }
    T wkm[TY]; // w[i-1, k]
    if (XSH) {
#pragma unroll
        for (int r = 0; r < TY; ++r) {
            T wl = lane == 31 ? w[base + r * jj - 32] : T(0);
            T src = lane == 31 ? wl : wk[r];
            wkm[r] = __shfl_sync(0xffffffffu, src, (lane + 31) & 31);
        }
    } else {
#pragma unroll
        for (int r = 0; r < TY; ++r) wkm[r] = w[base + r * jj - 1];
    }
    for (int kl = 0; kl < KC; ++kl) {
        const int kg = k0 + kl + KGC;
        T ybuf[TY + 6];
        T vrow[TY + 1], vrowm[TY + 1], wn[TY], wnm[TY];
        T xl[TY][7];
#pragma unroll
        for (int r = 0; r < TY; ++r) {
#pragma unroll
            for (int d = 0; d < 6; ++d) zw[r][d] = zw[r][d + 1];
            zw[r][6] = u[base + r * jj + 3 * kk];
            wn[r] = w[base + r * jj + kk];
        }
#pragma unroll
        for (int d = 0; d < 3; ++d) {
            ybuf[d] = u[base + (d - 3) * jj];
            ybuf[TY + 3 + d] = u[base + (TY + d) * jj];
        }
#pragma unroll
        for (int r = 0; r <= TY; ++r) vrow[r] = v[base + r * jj];
        if (XSH) {
#pragma unroll
            for (int r = 0; r < TY; ++r) {
                const T c = zw[r][3];
                const T left = lane >= 29 ? u[base + r * jj - 32] : T(0);
                const T right = lane <= 2 ? u[base + r * jj + 32] : T(0);
#pragma unroll
                for (int d = 1; d <= 3; ++d) {
                    T sl = lane >= 32 - d ? left : c;
                    xl[r][3 - d] = __shfl_sync(0xffffffffu, sl, (lane - d) & 31);
                    T sr = lane < d ? right : c;
                    xl[r][3 + d] = __shfl_sync(0xffffffffu, sr, (lane + d) & 31);
                }
                xl[r][3] = c;
                T wl = lane == 31 ? w[base + r * jj + kk - 32] : T(0);
                wnm[r] = __shfl_sync(0xffffffffu, lane == 31 ? wl : wn[r], (lane + 31) & 31);
            }
#pragma unroll
            for (int r = 0; r <= TY; ++r) {
                T vl = lane == 31 ? v[base + r * jj - 32] : T(0);
                vrowm[r] = __shfl_sync(0xffffffffu, lane == 31 ? vl : vrow[r], (lane + 31) & 31);
            }
        } else {
#pragma unroll
            for (int r = 0; r < TY; ++r) {
#pragma unroll
                for (int d = -3; d <= 3; ++d)
                    xl[r][d + 3] = d == 0 ? zw[r][3] : u[base + r * jj + d];
                wnm[r] = w[base + r * jj + kk - 1];
            }
#pragma unroll
            for (int r = 0; r <= TY; ++r) vrowm[r] = v[base + r * jj - 1];
        }
#pragma unroll
        for (int r = 0; r < TY; ++r) ybuf[r + 3] = zw[r][3];
        const T rk = a.rho[kg], rhk = a.rhoh[kg], rhk1 = a.rhoh[kg + 1], dzk = a.dzi[kg];
#pragma unroll
        for (int r = 0; r < TY; ++r) {
            T val = point(xl[r], ybuf + r, zw[r], vrowm[r], vrow[r], vrowm[r + 1], vrow[r + 1],
                          wkm[r], wk[r], wnm[r], wn[r], a.dxi, a.dyi, rk, rhk, rhk1, dzk);
            ut[base + r * jj] += val;
            wk[r] = wn[r];
            wkm[r] = wnm[r];
        }
        base += kk;
    }
}

// Software-pipelined z-march: all loads of level k+1 are issued before level k is computed.
template <class T, int TY, bool XSH>
struct LevelLoads {
    T lead[TY], wn[TY], wnm[TY], x[TY][6], yh[6], v[TY + 1], vm[TY + 1], utv[TY];
    __device__ __forceinline__ void load(const T* __restrict__ u, const T* __restrict__ v_,
                                         const T* __restrict__ w, const T* __restrict__ ut, int b,
                                         int jj, int kk, int lane) {
#pragma unroll
        for (int r = 0; r < TY; ++r) {
            const int o = b + r * jj;
            lead[r] = u[o + 3 * kk];
            wn[r] = w[o + kk];
            utv[r] = ut[o];
            if (XSH) {
                wnm[r] = lane == 31 ? w[o + kk - 32] : T(0);
                x[r][0] = lane >= 29 ? u[o - 32] : T(0);
                x[r][1] = lane <= 2 ? u[o + 32] : T(0);
            } else {
                wnm[r] = w[o + kk - 1];
#pragma unroll
                for (int d = 0; d < 3; ++d) {
                    x[r][d] = u[o + d - 3];
                    x[r][d + 3] = u[o + d + 1];
                }
            }
        }
#pragma unroll
        for (int d = 0; d < 3; ++d) {
            yh[d] = u[b + (d - 3) * jj];
            yh[d + 3] = u[b + (TY + d) * jj];
        }
#pragma unroll
        for (int r = 0; r <= TY; ++r) {
            v[r] = v_[b + r * jj];
            vm[r] = XSH ? (lane == 31 ? v_[b + r * jj - 32] : T(0)) : v_[b + r * jj - 1];
        }
    }
};

template <class T>
__device__ __forceinline__ T shl(T c, T edge, int d, int lane) { // value at lane - d
    return __shfl_sync(0xffffffffu, lane >= 32 - d ? edge : c, (lane - d) & 31);
}
template <class T>
__device__ __forceinline__ T shr(T c, T edge, int d, int lane) { // value at lane + d
    return __shfl_sync(0xffffffffu, lane < d ? edge : c, (lane + d) & 31);
}

template <class T, int BY, int TY, int KC, bool XSH, int MINB>
__global__ void __launch_bounds__(32 * BY, MINB) zpipe(Args<T> a) {
    const int lane = threadIdx.x;
    const int i = blockIdx.x * 32 + lane;
    const int j0 = (blockIdx.y * BY + threadIdx.y) * TY;
    const int k0 = blockIdx.z * KC;
    const int jj = a.jj, kk = a.kk;
    const T* __restrict__ u = a.u;
    T* __restrict__ ut = a.ut;
    int base = (i + IGC) + (j0 + JGC) * jj + (k0 + KGC) * kk;
    T zw[TY][7], wk[TY], wkm[TY];
#pragma unroll
    for (int r = 0; r < TY; ++r) {
#pragma unroll
        for (int d = 0; d < 6; ++d) zw[r][d + 1] = u[base + r * jj + (d - 3) * kk];
        wk[r] = a.w[base + r * jj];
        if (XSH)
            wkm[r] = shl(wk[r], lane == 31 ? a.w[base + r * jj - 32] : T(0), 1, lane);
        else
            wkm[r] = a.w[base + r * jj - 1];
    }
    LevelLoads<T, TY, XSH> nxt;
    nxt.load(u, a.v, a.w, ut, base, jj, kk, lane);
    for (int kl = 0; kl < KC; ++kl) {
        const LevelLoads<T, TY, XSH> cur = nxt;
        if (kl + 1 < KC) nxt.load(u, a.v, a.w, ut, base + kk, jj, kk, lane);
        const int kg = k0 + kl + KGC;
        T ybuf[TY + 6], xl[TY][7], wn[TY], wnm[TY], vm[TY + 1];
#pragma unroll
        for (int r = 0; r < TY; ++r) {
#pragma unroll
            for (int d = 0; d < 6; ++d) zw[r][d] = zw[r][d + 1];
            zw[r][6] = cur.lead[r];
            wn[r] = cur.wn[r];
            const T c = zw[r][3];
            xl[r][3] = c;
            if (XSH) {
                wnm[r] = shl(wn[r], cur.wnm[r], 1, lane);
#pragma unroll
                for (int d = 1; d <= 3; ++d) {
                    xl[r][3 - d] = shl(c, cur.x[r][0], d, lane);
                    xl[r][3 + d] = shr(c, cur.x[r][1], d, lane);
                }
            } else {
                wnm[r] = cur.wnm[r];
#pragma unroll
                for (int d = 0; d < 3; ++d) {
                    xl[r][d] = cur.x[r][d];
                    xl[r][d + 4] = cur.x[r][d + 3];
                }
            }
        }
#pragma unroll
        for (int r = 0; r <= TY; ++r) vm[r] = XSH ? shl(cur.v[r], cur.vm[r], 1, lane) : cur.vm[r];
#pragma unroll
        for (int d = 0; d < 3; ++d) {
            ybuf[d] = cur.yh[d];
            ybuf[TY + 3 + d] = cur.yh[d + 3];
        }
#pragma unroll
        for (int r = 0; r < TY; ++r) ybuf[r + 3] = zw[r][3];
        const T rk = a.rho[kg], rhk = a.rhoh[kg], rhk1 = a.rhoh[kg + 1], dzk = a.dzi[kg];
#pragma unroll
        for (int r = 0; r < TY; ++r) {
            T val = point(xl[r], ybuf + r, zw[r], vm[r], cur.v[r], vm[r + 1], cur.v[r + 1], wkm[r],
                          wk[r], wnm[r], wn[r], a.dxi, a.dyi, rk, rhk, rhk1, dzk);
            ut[base + r * jj] = cur.utv[r] + val;
            wk[r] = wn[r];
            wkm[r] = wnm[r];
        }
        base += kk;
    }
}

// zpipe + the y neighbours of a block's own rows through a shared plane (double-buffered,
// one barrier per level); only the 6 halo rows at the block's edges come from global memory.
template <class T, int TY, int NH>
struct LevelLoadsS {
    T lead[TY], wn[TY], wnm[TY], xe[TY][2], v[TY + 1], vm[TY + 1], utv[TY], eh[NH];
};
template <class T, int BY, int TY, int KC, int MINB>
__global__ void __launch_bounds__(32 * BY, MINB) zsm(Args<T> a) {
    constexpr int R = BY * TY, NH = (6 + BY - 1) / BY;
    __shared__ T pl[2][R + 6][32];
    const int lane = threadIdx.x, wy = threadIdx.y;
    const int i = blockIdx.x * 32 + lane;
    const int jb = blockIdx.y * R, j0 = jb + wy * TY;
    const int k0 = blockIdx.z * KC;
    const int jj = a.jj, kk = a.kk;
    const T* __restrict__ u = a.u;
    const T* __restrict__ v = a.v;
    const T* __restrict__ w = a.w;
    T* __restrict__ ut = a.ut;
    int base = (i + IGC) + (j0 + JGC) * jj + (k0 + KGC) * kk;
    const int bb = (i + IGC) + (jb + JGC) * jj + (k0 + KGC) * kk; // block's first row
    T zw[TY][7], wk[TY], wkm[TY];
#pragma unroll
    for (int r = 0; r < TY; ++r) {
#pragma unroll
        for (int d = 0; d < 6; ++d) zw[r][d + 1] = u[base + r * jj + (d - 3) * kk];
        wk[r] = w[base + r * jj];
        wkm[r] = shl(wk[r], lane == 31 ? w[base + r * jj - 32] : T(0), 1, lane);
    }
    auto load = [&](LevelLoadsS<T, TY, NH>& L, int b, int bblk) {
#pragma unroll
        for (int r = 0; r < TY; ++r) {
            const int o = b + r * jj;
            L.lead[r] = u[o + 3 * kk];
            L.wn[r] = w[o + kk];
            L.utv[r] = ut[o];
            L.wnm[r] = lane == 31 ? w[o + kk - 32] : T(0);
            L.xe[r][0] = lane >= 29 ? u[o - 32] : T(0);
            L.xe[r][1] = lane <= 2 ? u[o + 32] : T(0);
        }
#pragma unroll
        for (int r = 0; r <= TY; ++r) {
            L.v[r] = v[b + r * jj];
            L.vm[r] = lane == 31 ? v[b + r * jj - 32] : T(0);
        }
#pragma unroll
        for (int q = 0; q < NH; ++q) {
            const int h = wy + q * BY;
            if (h < 6) L.eh[q] = u[bblk + (h < 3 ? h - 3 : R + h - 3) * jj];
        }
    };
    LevelLoadsS<T, TY, NH> nxt;
    load(nxt, base, bb);
    for (int kl = 0; kl < KC; ++kl) {
        const LevelLoadsS<T, TY, NH> cur = nxt;
        if (kl + 1 < KC) load(nxt, base + (kl + 1) * kk, bb + (kl + 1) * kk);
        const int kg = k0 + kl + KGC, buf = kl & 1;
        const int o = base + kl * kk;
#pragma unroll
        for (int r = 0; r < TY; ++r) {
#pragma unroll
            for (int d = 0; d < 6; ++d) zw[r][d] = zw[r][d + 1];
            zw[r][6] = cur.lead[r];
            pl[buf][3 + wy * TY + r][lane] = zw[r][3];
        }
#pragma unroll
        for (int q = 0; q < NH; ++q) {
            const int h = wy + q * BY;
            if (h < 6) pl[buf][h < 3 ? h : R + h][lane] = cur.eh[q];
        }
        __syncthreads();
        T ybuf[TY + 6], xl[TY][7], wn[TY], wnm[TY], vm[TY + 1];
#pragma unroll
        for (int d = 0; d < 3; ++d) {
            ybuf[d] = pl[buf][wy * TY + d][lane];
            ybuf[TY + 3 + d] = pl[buf][wy * TY + TY + 3 + d][lane];
        }
#pragma unroll
        for (int r = 0; r < TY; ++r) {
            const T c = zw[r][3];
            ybuf[r + 3] = c;
            xl[r][3] = c;
            wn[r] = cur.wn[r];
            wnm[r] = shl(wn[r], cur.wnm[r], 1, lane);
#pragma unroll
            for (int d = 1; d <= 3; ++d) {
                xl[r][3 - d] = shl(c, cur.xe[r][0], d, lane);
                xl[r][3 + d] = shr(c, cur.xe[r][1], d, lane);
            }
        }
#pragma unroll
        for (int r = 0; r <= TY; ++r) vm[r] = shl(cur.v[r], cur.vm[r], 1, lane);
        const T rk = a.rho[kg], rhk = a.rhoh[kg], rhk1 = a.rhoh[kg + 1], dzk = a.dzi[kg];
#pragma unroll
        for (int r = 0; r < TY; ++r) {
            T val = point(xl[r], ybuf + r, zw[r], vm[r], cur.v[r], vm[r + 1], cur.v[r + 1], wkm[r],
                          wk[r], wnm[r], wn[r], a.dxi, a.dyi, rk, rhk, rhk1, dzk);
            ut[o + r * jj] = cur.utv[r] + val;
            wk[r] = wn[r];
            wkm[r] = wnm[r];
        }
    }
}

// Bounds for the zpipe shfl structure: HALO=false drops every load that exists only for a
// halo (x edges, y halo rows, v's extra row, w/v at i-1 edges; the values are wrapped inside
// the warp or tile instead, so the result is wrong); MATH=false replaces the arithmetic by a
// plain sum of the same inputs.
template <class T, int BY, int TY, int KC, bool HALO, bool MATH, int MINB>
__global__ void __launch_bounds__(32 * BY, MINB) zbound(Args<T> a) {
    const int lane = threadIdx.x;
    const int i = blockIdx.x * 32 + lane;
    const int j0 = (blockIdx.y * BY + threadIdx.y) * TY;
    const int k0 = blockIdx.z * KC;
    const int jj = a.jj, kk = a.kk;
    const T* __restrict__ u = a.u;
    const T* __restrict__ v = a.v;
    const T* __restrict__ w = a.w;
    T* __restrict__ ut = a.ut;
    const int base = (i + IGC) + (j0 + JGC) * jj + (k0 + KGC) * kk;
    T zw[TY][7], wk[TY], wkm[TY];
#pragma unroll
    for (int r = 0; r < TY; ++r) {
#pragma unroll
        for (int d = 0; d < 6; ++d) zw[r][d + 1] = u[base + r * jj + (d - 3) * kk];
        wk[r] = w[base + r * jj];
        wkm[r] = shl(wk[r], HALO && lane == 31 ? w[base + r * jj - 32] : wk[r], 1, lane);
    }
    struct L {
        T lead[TY], wn[TY], wnm[TY], xe[TY][2], yh[6], v[TY + 1], vm[TY + 1], utv[TY];
    };
    auto load = [&](L& q, int b) {
#pragma unroll
        for (int r = 0; r < TY; ++r) {
            const int o = b + r * jj;
            q.lead[r] = u[o + 3 * kk];
            q.wn[r] = w[o + kk];
            q.utv[r] = ut[o];
            if (HALO) {
                q.wnm[r] = lane == 31 ? w[o + kk - 32] : T(0);
                q.xe[r][0] = lane >= 29 ? u[o - 32] : T(0);
                q.xe[r][1] = lane <= 2 ? u[o + 32] : T(0);
            }
        }
#pragma unroll
        for (int r = 0; r <= TY; ++r) {
            if (HALO || r < TY) q.v[r] = v[b + r * jj];
            if (HALO) q.vm[r] = lane == 31 ? v[b + r * jj - 32] : T(0);
        }
        if (HALO) {
#pragma unroll
            for (int d = 0; d < 3; ++d) {
                q.yh[d] = u[b + (d - 3) * jj];
                q.yh[d + 3] = u[b + (TY + d) * jj];
            }
        }
    };
    L nxt;
    load(nxt, base);
    for (int kl = 0; kl < KC; ++kl) {
        L cur = nxt;
        if (kl + 1 < KC) load(nxt, base + (kl + 1) * kk);
        const int kg = k0 + kl + KGC, o = base + kl * kk;
        if (!HALO) {
            cur.v[TY] = cur.v[0];
#pragma unroll
            for (int r = 0; r <= TY; ++r) cur.vm[r] = cur.v[r];
#pragma unroll
            for (int r = 0; r < TY; ++r) {
                cur.wnm[r] = cur.wn[r];
                cur.xe[r][0] = cur.xe[r][1] = cur.lead[r];
            }
#pragma unroll
            for (int d = 0; d < 3; ++d) {
                cur.yh[d] = cur.lead[d % TY];
                cur.yh[d + 3] = cur.lead[(TY - 1 - d % TY)];
            }
        }
        T ybuf[TY + 6], xl[TY][7], wn[TY], wnm[TY], vm[TY + 1];
#pragma unroll
        for (int r = 0; r < TY; ++r) {
#pragma unroll
            for (int d = 0; d < 6; ++d) zw[r][d] = zw[r][d + 1];
            zw[r][6] = cur.lead[r];
            const T c = zw[r][3];
            xl[r][3] = c;
            ybuf[r + 3] = c;
            wn[r] = cur.wn[r];
            wnm[r] = shl(wn[r], cur.wnm[r], 1, lane);
#pragma unroll
            for (int d = 1; d <= 3; ++d) {
                xl[r][3 - d] = shl(c, cur.xe[r][0], d, lane);
                xl[r][3 + d] = shr(c, cur.xe[r][1], d, lane);
            }
        }
#pragma unroll
        for (int r = 0; r <= TY; ++r) vm[r] = shl(cur.v[r], cur.vm[r], 1, lane);
#pragma unroll
        for (int d = 0; d < 3; ++d) {
            ybuf[d] = cur.yh[d];
            ybuf[TY + 3 + d] = cur.yh[d + 3];
        }
        const T rk = a.rho[kg], rhk = a.rhoh[kg], rhk1 = a.rhoh[kg + 1], dzk = a.dzi[kg];
#pragma unroll
        for (int r = 0; r < TY; ++r) {
            T val;
            if (MATH) {
                val = point(xl[r], ybuf + r, zw[r], vm[r], cur.v[r], vm[r + 1], cur.v[r + 1],
                            wkm[r], wk[r], wnm[r], wn[r], a.dxi, a.dyi, rk, rhk, rhk1, dzk);
            } else {
                val = vm[r] + cur.v[r] + vm[r + 1] + cur.v[r + 1] + wkm[r] + wk[r] + wnm[r] +
                      wn[r] + rk;
#pragma unroll
                for (int d = 0; d < 7; ++d) val += xl[r][d] + ybuf[r + d] + zw[r][d];
            }
            ut[o + r * jj] = cur.utv[r] + val;
            wk[r] = wn[r];
            wkm[r] = wnm[r];
        }
    }
}

#include "tma_planes.cuh"
#include "tma_stage.cuh"

template <class T>
__global__ void copyk(const T* __restrict__ a, T* __restrict__ b, size_t n) {
    size_t q = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (q < n) b[q] = a[q];
}
static const char* g_filter = nullptr;
template <class T>
struct Bench {
    size_t jj = N + 2 * IGC, kk = jj * (N + 2 * JGC), tot = kk * (N + 2 * KGC);
    T *u, *v, *w, *ut, *ut0, *ref, *rho, *rhoh, *dzi;
    cudaEvent_t e0, e1;
    double bytes = 5.0 * sizeof(T) * double(N) * N * N;
    Bench() {
        std::vector<T> h(tot);
        T** arrs[4] = {&u, &v, &w, &ut0};
        for (int a = 0; a < 4; ++a) {
            srand(11 + a);
            for (auto& x : h) x = T(rand()) / RAND_MAX - T(0.5);
            CK(cudaMalloc(arrs[a], tot * sizeof(T)));
            CK(cudaMemcpy(*arrs[a], h.data(), tot * sizeof(T), cudaMemcpyHostToDevice));
        }
        CK(cudaMalloc(&ut, tot * sizeof(T)));
        CK(cudaMalloc(&ref, tot * sizeof(T)));
        std::vector<T> p(N + 2 * KGC + 1);
        T** pa[3] = {&rho, &rhoh, &dzi};
        for (int a = 0; a < 3; ++a) {
            for (size_t q = 0; q < p.size(); ++q) p[q] = T(1) + T(0.01) * q + a;
            CK(cudaMalloc(pa[a], p.size() * sizeof(T)));
            CK(cudaMemcpy(*pa[a], p.data(), p.size() * sizeof(T), cudaMemcpyHostToDevice));
        }
        cudaEventCreate(&e0);
        cudaEventCreate(&e1);
        CK(cudaMemcpy(ref, ut0, tot * sizeof(T), cudaMemcpyDeviceToDevice));
        naive<T><<<dim3(2, N, N), 256>>>(args(ref));
        CK(cudaDeviceSynchronize());
        std::vector<float> ts;
        for (int r = 0; r < 13; ++r) {
            cudaEventRecord(e0);
            copyk<T><<<unsigned((tot + 255) / 256), 256>>>(u, ut, tot);
            cudaEventRecord(e1);
            cudaEventSynchronize(e1);
            float ms;
            cudaEventElapsedTime(&ms, e0, e1);
            if (r >= 3) ts.push_back(ms);
        }
        std::sort(ts.begin(), ts.end());
        printf("copy %zu elements: %.3f ms, %.2f TB/s\n", tot, ts[5],
               2.0 * tot * sizeof(T) / (ts[5] * 1e-3) / 1e12);
    }
    Args<T> args(T* o) {
        return Args<T>{o, u, v, w, rho, rhoh, dzi, T(3.1), T(2.3), int(jj), int(kk)};
    }
    template <class F>
    void run(const char* name, F launch) {
        if (g_filter && !strstr(name, g_filter)) return;
        CK(cudaMemcpy(ut, ut0, tot * sizeof(T), cudaMemcpyDeviceToDevice));
        launch(args(ut));
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        if (getenv("AUR_ONCE")) { // one launch only (for compute-sanitizer)
            printf("%s: launched once\n", name);
            return;
        }
        // check
        std::vector<T> a(tot), b(tot);
        CK(cudaMemcpy(a.data(), ut, tot * sizeof(T), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(b.data(), ref, tot * sizeof(T), cudaMemcpyDeviceToHost));
        double md = 0;
        for (size_t q = 0; q < tot; ++q)
            md = std::max(md, double(std::abs(a[q] - b[q])) / (1e-30 + std::abs(double(b[q])) + 1));
        std::vector<float> ts;
        for (int r = 0; r < 18; ++r) {
            cudaEventRecord(e0);
            launch(args(ut));
            cudaEventRecord(e1);
            cudaEventSynchronize(e1);
            float ms;
            cudaEventElapsedTime(&ms, e0, e1);
            if (r >= 3) ts.push_back(ms);
        }
        std::sort(ts.begin(), ts.end());
        float ms = ts[ts.size() / 2];
        printf("%-6s %-40s %8.3f ms  %5.1f %%  maxrel %.1e\n", sizeof(T) == 8 ? "double" : "float",
               name, ms, 100.0 * bytes / (ms * 1e-3) / 3.99e12, md);
        fflush(stdout);
    }
};

template <class T, int BY, int TY, int KC, bool XSH, int MINB>
void zm(Bench<T>& b) {
    char name[128];
    snprintf(name, sizeof name, "zmarch BY%d TY%d KC%d %s minb%d", BY, TY, KC,
             XSH ? "shfl" : "ldx ", MINB);
    b.run(name, [](Args<T> a) {
        zmarch<T, BY, TY, KC, XSH, MINB><<<dim3(N / 32, N / (BY * TY), N / KC), dim3(32, BY)>>>(a);
    });
}

template <class T, int BY, int TY, int KC, bool XSH, int MINB>
void zp(Bench<T>& b) {
    char name[128];
    snprintf(name, sizeof name, "zpipe BY%d TY%d KC%d %s minb%d", BY, TY, KC, XSH ? "shfl" : "ldx ",
             MINB);
    b.run(name, [](Args<T> a) {
        zpipe<T, BY, TY, KC, XSH, MINB><<<dim3(N / 32, N / (BY * TY), N / KC), dim3(32, BY)>>>(a);
    });
}
template <class T, int BY, int TY, int KC, int MINB>
void zs(Bench<T>& b) {
    char name[128];
    snprintf(name, sizeof name, "zsm BY%d TY%d KC%d minb%d", BY, TY, KC, MINB);
    b.run(name, [](Args<T> a) {
        zsm<T, BY, TY, KC, MINB><<<dim3(N / 32, N / (BY * TY), N / KC), dim3(32, BY)>>>(a);
    });
}
template <class T, int BY, int TY, int KC, bool HALO, bool MATH, int MINB>
void zb(Bench<T>& b) {
    char name[128];
    snprintf(name, sizeof name, "zbound BY%d TY%d KC%d %s %s minb%d", BY, TY, KC,
             HALO ? "halo" : "NOHALO", MATH ? "math" : "NOMATH", MINB);
    b.run(name, [](Args<T> a) {
        zbound<T, BY, TY, KC, HALO, MATH, MINB>
            <<<dim3(N / 32, N / (BY * TY), N / KC), dim3(32, BY)>>>(a);
    });
}
// Runs a plane kernel kern(args, map_u, map_v, map_w) with `sm` bytes of dynamic shared
// memory; box[f] = {x, y} cells of field f's tensor-map box (u, v, w, ut).
template <class T, class K>
void run_planes(Bench<T>& b, const char* name, K kern, dim3 grid, dim3 block, size_t sm,
                const int (&box)[4][2]) {
    if (sm > 227 * 1024) {
        printf("%s: %zu bytes of shared memory, skipped\n", name, sm);
        return;
    }
    const size_t ny = N + 2 * JGC, nz = N + 2 * KGC;
    const CUtensorMap mu = field_map(b.u, b.jj, ny, nz, box[0][0], box[0][1]);
    const CUtensorMap mv = field_map(b.v, b.jj, ny, nz, box[1][0], box[1][1]);
    const CUtensorMap mw = field_map(b.w, b.jj, ny, nz, box[2][0], box[2][1]);
    const CUtensorMap mt = field_map(b.ut, b.jj, ny, nz, box[3][0], box[3][1]);
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(sm)));
    b.run(name, [=](Args<T> a) { kern<<<grid, block, sm>>>(a, mu, mv, mw, mt); });
}

template <class T, int XW, int BY, int TY, int KC, int RING, int MINB, bool ROWS = false,
          bool UTM = false>
void zt(Bench<T>& b) {
    constexpr int X = 32 * XW, Y = BY * TY;
    using G = PlaneGeom<T, X, Y>;
    char name[128];
    snprintf(name, sizeof name, "zplanes%s X%d Y%d TY%d KC%d ring%d minb%d",
             ROWS  ? "_rows"
             : UTM ? "_ut"
                   : "",
             X, Y, TY, KC, RING, MINB);
    const int box[4][2] = {{G::UX, G::UY}, {G::VX, G::VY}, {G::WX, G::WY}, {X, Y}};
    const size_t ut_ring = UTM ? 3 * X * Y * sizeof(T) : 0;
    run_planes(b, name, zplanes<T, XW, BY, TY, KC, RING, MINB, ROWS, UTM>,
               dim3(N / X, N / Y, N / KC), dim3(32 * XW, BY),
               size_t(RING) * G::slot_bytes + ut_ring + 128, box);
}

template <class T, int XW, int BY, int TY, int KC, int D, int MINB>
void zst(Bench<T>& b) {
    if constexpr (sizeof(T) == 8) { // planes of float boxes miss the 128-byte boundary
        constexpr int X = 32 * XW, Y = BY * TY;
        using B = StageBoxes<T, X, Y, D>;
        char name[128];
        snprintf(name, sizeof name, "zstage X%d Y%d TY%d KC%d depth%d minb%d", X, Y, TY, KC, D,
                 MINB);
        const int box[4][2] = {{B::SX, B::SY}, {B::SX, B::SY}, {B::SX, B::SY}, {B::SX, B::SY}};
        run_planes(b, name, zstage<T, XW, BY, TY, KC, D, MINB>, dim3(N / X, N / Y, N / KC),
                   dim3(32 * XW, BY), B::bytes + 128, box);
    }
}

template <class T>
void all() {
    Bench<T> b;
    b.run("naive 256x1x1", [](Args<T> a) { naive<T><<<dim3(2, N, N), 256>>>(a); });
    zm<T, 8, 1, 32, false, 1>(b);
    zm<T, 8, 1, 32, true, 1>(b);
    zm<T, 8, 2, 32, false, 1>(b);
    zm<T, 8, 2, 32, true, 1>(b);
    zm<T, 4, 4, 32, false, 1>(b);
    zm<T, 4, 4, 32, true, 1>(b);
    zm<T, 8, 4, 32, true, 1>(b);
    zm<T, 4, 4, 64, true, 1>(b);
    zm<T, 4, 4, 16, true, 1>(b);
    zm<T, 8, 2, 64, true, 1>(b);
    zm<T, 16, 2, 32, true, 1>(b);
    zm<T, 4, 8, 32, true, 1>(b);
    zm<T, 8, 4, 16, true, 2>(b);
    zm<T, 4, 2, 32, true, 1>(b);
    zm<T, 2, 4, 32, true, 1>(b);
    zm<T, 2, 8, 32, true, 1>(b);
    zp<T, 8, 1, 32, false, 1>(b);
    zp<T, 8, 1, 32, true, 1>(b);
    zp<T, 8, 1, 32, false, 3>(b);
    zp<T, 8, 1, 32, true, 3>(b);
    zp<T, 8, 1, 16, false, 2>(b);
    zp<T, 8, 1, 64, false, 2>(b);
    zp<T, 4, 1, 32, false, 4>(b);
    zp<T, 16, 1, 32, false, 2>(b);
    zp<T, 8, 2, 32, false, 1>(b);
    zp<T, 8, 2, 32, true, 1>(b);
    zp<T, 8, 2, 32, false, 2>(b);
    zp<T, 4, 2, 32, true, 2>(b);
    zp<T, 4, 4, 32, false, 1>(b);
    zp<T, 4, 4, 32, true, 1>(b);
    zp<T, 4, 4, 16, true, 2>(b);
    zp<T, 4, 4, 8, true, 2>(b);
    zp<T, 2, 4, 16, true, 4>(b);
    zp<T, 8, 4, 16, true, 1>(b);
    zp<T, 4, 8, 16, true, 1>(b);
    zp<T, 4, 8, 8, true, 1>(b);
    zp<T, 2, 8, 16, true, 2>(b);
    zp<T, 2, 8, 8, true, 2>(b);
    zp<T, 4, 4, 16, false, 2>(b);
    zp<T, 4, 2, 16, true, 4>(b);
    zp<T, 8, 2, 16, true, 2>(b);
    zp<T, 4, 4, 32, true, 2>(b);
    zp<T, 2, 4, 8, true, 4>(b);
    zp<T, 1, 8, 16, true, 4>(b);
    zp<T, 1, 16, 16, true, 2>(b);
    zp<T, 2, 16, 8, true, 1>(b);
    zs<T, 4, 4, 32, 2>(b);
    zs<T, 8, 4, 32, 1>(b);
    zs<T, 8, 2, 32, 2>(b);
    zs<T, 16, 2, 32, 1>(b);
    zs<T, 8, 4, 16, 1>(b);
    zs<T, 16, 4, 32, 1>(b);
    zs<T, 4, 4, 16, 2>(b);
    zs<T, 8, 2, 16, 2>(b);
    zs<T, 16, 1, 32, 2>(b);
    zs<T, 8, 1, 32, 4>(b);
    zs<T, 32, 1, 32, 1>(b);
    zs<T, 16, 2, 64, 1>(b);
    zs<T, 8, 4, 64, 1>(b);
    zs<T, 16, 1, 32, 1>(b);
    zs<T, 16, 1, 64, 1>(b);
    zs<T, 8, 2, 32, 1>(b);
    zs<T, 8, 2, 64, 1>(b);
    zs<T, 8, 1, 32, 2>(b);
    zs<T, 8, 1, 32, 1>(b);
    zb<T, 4, 4, 32, true, true, 2>(b);
    zb<T, 4, 4, 32, false, true, 2>(b);
    zb<T, 4, 4, 32, true, false, 2>(b);
    zb<T, 4, 4, 32, false, false, 2>(b);
    zb<T, 4, 2, 32, true, true, 4>(b);
    zb<T, 4, 2, 32, false, true, 4>(b);
    zb<T, 4, 2, 32, false, false, 4>(b);
    zb<T, 8, 1, 32, false, false, 4>(b);
    zb<T, 8, 1, 32, false, true, 4>(b);
    zb<T, 8, 1, 32, true, true, 4>(b);
    zt<T, 1, 8, 2, 64, 6, 2>(b);
    zt<T, 1, 8, 2, 64, 5, 2>(b);
    zt<T, 1, 16, 1, 64, 6, 2>(b);
    zt<T, 2, 4, 2, 64, 6, 2>(b);
    zt<T, 1, 8, 4, 64, 5, 1>(b);
    zt<T, 2, 8, 2, 64, 4, 1>(b);
    zt<T, 1, 4, 4, 64, 6, 2>(b);
    zt<T, 1, 8, 2, 32, 6, 2>(b);
    zt<T, 1, 8, 2, 128, 6, 2>(b);
    zt<T, 2, 8, 1, 64, 6, 2>(b);
    zt<T, 2, 4, 2, 128, 6, 2>(b);
    zt<T, 2, 4, 2, 64, 5, 2>(b);
    zt<T, 2, 4, 2, 256, 6, 2>(b);
    zt<T, 2, 8, 2, 64, 5, 1>(b);
    zt<T, 2, 2, 4, 64, 6, 2>(b);
    zt<T, 4, 2, 4, 64, 5, 1>(b);
    zt<T, 4, 4, 2, 64, 5, 1>(b);
    zt<T, 2, 4, 2, 256, 6, 2, true>(b);
    zt<T, 2, 4, 2, 64, 6, 2, true>(b);
    zt<T, 1, 8, 2, 64, 6, 2, true>(b);
    zt<T, 2, 4, 2, 256, 5, 2, false, true>(b);
    zt<T, 2, 4, 2, 128, 5, 2, false, true>(b);
    zt<T, 2, 4, 2, 64, 5, 2, false, true>(b);
    zt<T, 2, 4, 2, 256, 6, 1, false, true>(b);
    zt<T, 1, 8, 2, 256, 5, 2, false, true>(b);
    zt<T, 2, 4, 1, 256, 5, 2, false, true>(b);
    zt<T, 2, 8, 1, 256, 5, 1, false, true>(b);
    zt<T, 4, 4, 2, 256, 5, 1, false, true>(b);
    zt<T, 2, 4, 2, 256, 5, 2>(b);
    zst<T, 2, 4, 2, 64, 1, 1>(b);
    zst<T, 2, 4, 2, 256, 1, 1>(b);
    zst<T, 2, 4, 2, 64, 2, 1>(b);
    zst<T, 2, 8, 1, 64, 1, 1>(b);
    zst<T, 1, 8, 1, 64, 1, 2>(b);
    zst<T, 1, 8, 1, 256, 1, 2>(b);
    zst<T, 1, 4, 2, 64, 1, 2>(b);
    zst<T, 1, 4, 2, 256, 1, 2>(b);
    zst<T, 1, 8, 2, 64, 1, 1>(b);
    zst<T, 1, 16, 1, 64, 1, 1>(b);
    zst<T, 2, 4, 1, 64, 1, 1>(b);
    zst<T, 1, 8, 1, 128, 1, 2>(b);
}

int main(int argc, char** argv) {
    if (argc > 1) g_filter = argv[1];
    all<double>();
    if (!getenv("AUR_DOUBLE_ONLY")) all<float>();
}
