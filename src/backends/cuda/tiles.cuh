#pragma once
// The generic tiled 3-D traversal: each thread computes a tile of points (index_map.cuh)
// by calling the kernel struct's operator()(i, j, k), or its value() then store() with
// deferred stores (SQ_DEFER). Entry points: sq_traverse<F>(F) takes the struct as the
// kernel parameter; sq_traverse_flat<F>(members..., sq_nlev) takes its members (the
// runtime can then capture every array), unless the variant runs the planes traversal
// (planes.cuh). Device code, compiled for the 3-D variants (SQ_3D), but for
// wall_levels_of (host tests).
#if defined(__CUDACC_RTC__)
#include "index_map.cuh"
#else
#include "backends/cuda/index_map.cuh"
#endif

namespace sq {

// F's wall_levels trait, or -1 for kernels without wall branches.
template <class F>
SQ_HD constexpr int wall_levels_of(int) {
    return traits_of<F>(0).wall_levels;
}
} // namespace sq

#if (defined(__CUDACC__) || defined(__CUDACC_RTC__)) && defined(SQ_3D)

namespace sq {

// Calls the kernel at the absolute index of a point visited by traverse_thread. Kernels
// with walls (kernels/README.md: wall_levels) branch only within wall_levels of kstart and
// kend, so away from the walls the traversal may promise the compiler that no branch is
// taken.
template <class F>
struct TravVisit {
    const F& g;
    SQ_HD void operator()(int i, int j, int k) const { g(SQ_I0 + i, SQ_J0 + j, SQ_K0 + k); }
    SQ_HD auto value(int i, int j, int k) const { return g.value(SQ_I0 + i, SQ_J0 + j, SQ_K0 + k); }
    template <class V>
    SQ_HD void store(int i, int j, int k, const V& v) const {
        g.store(SQ_I0 + i, SQ_J0 + j, SQ_K0 + k, v);
    }
    static constexpr int walls = wall_levels_of<F>(0); // -1: no wall branches
    SQ_HD bool z_interior(int k_lo, int k_hi) const {
        if constexpr (walls < 0)
            return false;
        else
            return SQ_K0 + k_lo >= g.kstart + walls && SQ_K0 + k_hi < g.kend - walls;
    }
    SQ_HD void assume_z_interior(int k) const {
        if constexpr (walls >= 0) {
            __builtin_assume(SQ_K0 + k >= g.kstart + walls);
            __builtin_assume(SQ_K0 + k < g.kend - walls);
        }
    }
};

template <class F>
__device__ __forceinline__ void traverse_body(const F& g) {
    constexpr TraverseShape s{SQ_NI, SQ_NJ, SQ_NK, SQ_BX, SQ_BY,   SQ_BZ, SQ_TX, SQ_TY,
                              SQ_TZ, SQ_CX, SQ_CY, SQ_CZ, SQ_PERM, SQ_MY, SQ_MZ, SQ_GROUP};
    constexpr int maxpts = SQ_DEFER ? SQ_TX * SQ_TY * SQ_TZ : 0; // values held per thread
    const TravVisit<F> visit{g};
    traverse_thread<maxpts>(s, int(blockIdx.x), int(threadIdx.x), int(threadIdx.y),
                            int(threadIdx.z), visit);
}

} // namespace sq

// The struct as the kernel parameter (kernels without a declaration).
template <class F>
__global__ void SQUALL_LAUNCH_BOUNDS sq_traverse(F f) {
    F g = f;
    sq::trav_set_strides(g, SQ_JJ, SQ_KK, 0);
    sq::traverse_body(g);
}

// The struct's members as separate parameters (SQ_FLAT_PARAMS / SQ_FLAT_INIT, generated
// from the kernel's declaration), plus sq_nlev, the levels of the 3-D arrays (capture
// sizes; the planes traversal's loads stay below it).
#if defined(SQ_FLAT_PARAMS) && !SQ_PLANES
template <class F>
__global__ void SQUALL_LAUNCH_BOUNDS sq_traverse_flat(SQ_FLAT_PARAMS, int sq_nlev) {
    const F g{SQ_FLAT_INIT};
    sq::traverse_body(g);
}
#endif

#endif
