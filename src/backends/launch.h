#pragma once
// The single launch point for every per-point kernel. Model code never loops over
// grid points itself: it hands a kernel struct and a range to launch(), and the active
// backend maps it onto threads: the GPU backend (src/backends/cuda) once
// gpu::activate() has been called, else the CPU backend (OpenMP loops).
// Only kernel structs with a `name` go to the GPU; other callables (lambdas over host
// data, e.g. diagnostics) always run on the CPU.
#include "backends/cpu/cpu_launch.h"
#include "kernels/kernel.cuh"

#if SQUALL_HAVE_CUDA
#include "backends/cuda/gpu_launch.h"
#endif

namespace squall {

namespace detail {

// The two backends behind one interface, so that the choice between them is made in one
// place (on_backend below).
struct CpuBackend {
    template <class F>
    static void launch(const sq::Range3& r, const F& f) {
        cpu::for_each(r, f);
    }
    template <class F>
    static void launch_2d(const sq::Range3& r, const F& f) {
        cpu::for_each_2d(r, f);
    }
    template <class F>
    static auto reduce_max(const sq::Range3& r, const F& f) {
        return cpu::reduce_max(r, f);
    }
    template <class F>
    static auto reduce_sum(const sq::Range3& r, const F& f) {
        return cpu::reduce_sum(r, f);
    }
};

#if SQUALL_HAVE_CUDA
struct GpuBackend {
    template <class F>
    static void launch(const sq::Range3& r, const F& f) {
        gpu::launch(r, f);
    }
    template <class F>
    static void launch_2d(const sq::Range3& r, const F& f) {
        gpu::launch_2d(r, f);
    }
    template <class F>
    static auto reduce_max(const sq::Range3& r, const F& f) {
        return gpu::reduce_max(r, f);
    }
    template <class F>
    static auto reduce_sum(const sq::Range3& r, const F& f) {
        return gpu::reduce_sum(r, f);
    }
};
#endif

// Calls op with the backend that runs F: the GPU for a kernel struct while the GPU
// dispatch is active, else the CPU. op is generic, so its GPU call is only instantiated
// for kernel structs (a host lambda could not be compiled for the GPU).
template <class F, class Op>
decltype(auto) on_backend(const Op& op) {
    if constexpr (requires { F::name; }) static_assert(sq::check_kernel<F>()); // kernels/kernel.cuh
#if SQUALL_HAVE_CUDA
    if constexpr (requires { F::name; })
        if (gpu::active()) return op(GpuBackend{});
#endif
    return op(CpuBackend{});
}

} // namespace detail

template <class F>
void launch(const sq::Range3& r, const F& f) {
    detail::on_backend<F>([&](auto backend) { backend.launch(r, f); });
}

// Per-column kernels: operator()(i, j) over [i0,i1) x [j0,j1) (k0/k1 ignored).
template <class F>
void launch_2d(const sq::Range3& r, const F& f) {
    detail::on_backend<F>([&](auto backend) { backend.launch_2d(r, f); });
}

// Reductions over the points of r (local to this rank; the caller reduces over MPI).
template <class F>
auto launch_max(const sq::Range3& r, const F& f) {
    static_assert(!sq::traits_v<F>.summed, "a summed reduction: launch_sum");
    return detail::on_backend<F>([&](auto backend) { return backend.reduce_max(r, f); });
}

template <class F>
auto launch_sum(const sq::Range3& r, const F& f) {
    static_assert(
        sq::traits_v<F>.summed || !requires { F::name; },
        "a kernel reduced by launch_sum says so: Traits{.summed = true}");
    return detail::on_backend<F>([&](auto backend) { return backend.reduce_sum(r, f); });
}

} // namespace squall
