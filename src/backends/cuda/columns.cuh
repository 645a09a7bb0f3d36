#pragma once
// Per-column kernels, operator()(i, j): one thread per column, a 2-D grid of 2-D blocks.
// Device code, compiled for the per-column variants (SQ_2D).
#if defined(__CUDACC_RTC__)
#include "index_map.cuh"
#else
#include "backends/cuda/index_map.cuh"
#endif

#if (defined(__CUDACC__) || defined(__CUDACC_RTC__)) && defined(SQ_2D)
template <class F>
__global__ void SQUALL_LAUNCH_BOUNDS sq_traverse_2d(F f) {
    F g = f;
    sq::trav_set_strides(g, SQ_JJ, SQ_KK, 0);
    const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
    const int j = int(blockIdx.y * blockDim.y + threadIdx.y);
    if (i < SQ_NI && j < SQ_NJ) g(SQ_I0 + i, SQ_J0 + j);
}
#endif
