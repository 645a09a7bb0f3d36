#pragma once
// The single launch point for every per-point kernel. Model code never loops over
// grid points itself: it hands a kernel struct and a range to launch(), and the active
// backend maps it onto threads: the GPU backend (src/backends/cuda) once
// gpu::activate() has been called, else the CPU backend (OpenMP loops).
// Only kernel structs with a `name` go to the GPU; other callables (lambdas over host
// data, e.g. diagnostics) always run on the CPU.
#include "backends/cpu/cpu_launch.h"

#if SQUALL_HAVE_CUDA
#include "backends/cuda/gpu_launch.h"
#endif

namespace squall {

#if SQUALL_HAVE_CUDA
template <class F>
constexpr bool gpu_kernel = requires {
    F::name;
};
#endif

template <class F>
void launch(const sq::Range3& r, const F& f) {
#if SQUALL_HAVE_CUDA
    if constexpr (gpu_kernel<F>)
        if (gpu::active()) return gpu::launch(r, f);
#endif
    cpu::for_each(r, f);
}

// Per-column kernels: operator()(i, j) over [i0,i1) x [j0,j1) (k0/k1 ignored).
template <class F>
void launch_2d(const sq::Range3& r, const F& f) {
#if SQUALL_HAVE_CUDA
    if constexpr (gpu_kernel<F>)
        if (gpu::active()) return gpu::launch_2d(r, f);
#endif
    cpu::for_each_2d(r, f);
}

// Reductions over the points of r (local to this rank; the caller reduces over MPI).
template <class F>
auto launch_max(const sq::Range3& r, const F& f) {
#if SQUALL_HAVE_CUDA
    if constexpr (gpu_kernel<F>)
        if (gpu::active()) return gpu::reduce_max(r, f);
#endif
    return cpu::reduce_max(r, f);
}

template <class F>
auto launch_sum(const sq::Range3& r, const F& f) {
#if SQUALL_HAVE_CUDA
    if constexpr (gpu_kernel<F>)
        if (gpu::active()) return gpu::reduce_sum(r, f);
#endif
    return cpu::reduce_sum(r, f);
}

} // namespace squall
