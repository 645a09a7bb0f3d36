#pragma once
// Reductions in two passes with a fixed grid, so the result does not depend on timing:
// pass 1 (sq_reduce<F, A, OP>) folds a grid-stride share of the points per thread, then a
// shared-memory tree per block into partial[block]; pass 2 (sq_reduce_final) folds the
// partials in one block. OP 0: max (in T), 1: sum (in double). Device code, compiled for
// the reduction variants (SQ_REDUCE).
#if defined(__CUDACC_RTC__)
#include "index_map.cuh"
#else
#include "backends/cuda/index_map.cuh"
#endif

#if (defined(__CUDACC__) || defined(__CUDACC_RTC__)) && defined(SQ_REDUCE)

namespace sq {

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
