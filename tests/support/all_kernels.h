#pragma once
// Every kernel struct of kernels/, from the KernelList at the end of each header, sorted by
// how a backend maps it onto points. A new kernel in an existing header needs no edit here;
// a new header adds its list below. The GPU pressure solver's kernels
// (kernels/pressure_spectral.cuh) index FFT layouts and have tests of their own.
#include "kernels/advec.cuh"
#include "kernels/boundary.cuh"
#include "kernels/diagnostics.cuh"
#include "kernels/diff.cuh"
#include "kernels/diff_fused.cuh"
#include "kernels/forcing.cuh"
#include "kernels/halo.cuh"
#include "kernels/kernel.cuh"
#include "kernels/pressure.cuh"
#include "kernels/surface.cuh"
#include "kernels/tend_fused.cuh"
#include "kernels/thermo.cuh"
#include "kernels/timeint.cuh"

#include <type_traits>

namespace squall::testing {

using sq::KernelList;

template <template <class> class... A, template <class> class... B>
KernelList<A..., B...> operator+(KernelList<A...>, KernelList<B...>);
using AllKernels = decltype(sq::AdvecKernels{} + sq::BoundaryKernels{} + sq::DiagnosticKernels{} +
                            sq::DiffKernels{} + sq::DiffFusedKernels{} + sq::ForcingKernels{} +
                            sq::HaloKernels{} + sq::PressureKernels{} + sq::SurfaceKernels{} +
                            sq::TendFusedKernels{} + sq::ThermoKernels{} + sq::TimeintKernels{});

// The forms of the kernel contract (kernels/kernel.cuh): operator()(i, j, k) returning void
// (3-D), operator()(i, j) (per column), or returning the point's value (a reduction: max,
// or sum where its traits say summed).
template <class F>
concept Reduction = sq::contract::Reduction<F>;
template <class F>
concept PointKernel = sq::contract::PointForm<F> && !Reduction<F>;
template <class F>
concept ColumnKernel = sq::contract::ColumnForm<F>;
// Whether F is one of the list's kernels (in either precision).
template <class F, template <class> class... K>
constexpr bool in_list(KernelList<K...>) {
    return ((std::is_same_v<F, K<float>> || std::is_same_v<F, K<double>>) || ...);
}
template <class F>
constexpr bool is_halo() {
    return in_list<F>(sq::HaloKernels{});
}

template <class F>
struct Is3d : std::bool_constant<PointKernel<F> && !is_halo<F>()> {};
template <class F>
struct Is2d : std::bool_constant<ColumnKernel<F>> {};
template <class F>
struct IsMax : std::bool_constant<Reduction<F> && !sq::traits_v<F>.summed> {};
template <class F>
struct IsSum : std::bool_constant<Reduction<F> && sq::traits_v<F>.summed> {};

template <template <class> class... K>
constexpr int list_size(KernelList<K...>) {
    return int(sizeof...(K));
}

// The kernels K of a list for which Keep<K<double>>::value holds.
template <template <class> class Keep, template <class> class K>
auto keep_if() {
    if constexpr (Keep<K<double>>::value)
        return KernelList<K>{};
    else
        return KernelList<>{};
}
template <template <class> class Keep, template <class> class... K>
auto filter(KernelList<K...>) {
    return (KernelList<>{} + ... + keep_if<Keep, K>());
}

// The model's tunable 3-D kernels, per-column kernels, reductions, and halo copies.
using Kernels3d = decltype(filter<Is3d>(AllKernels{}));
using Kernels2d = decltype(filter<Is2d>(AllKernels{}));
using Reductions = decltype(filter<IsMax>(AllKernels{}));
using SumReductions = decltype(filter<IsSum>(AllKernels{}));
using HaloKernels = sq::HaloKernels;

// w kernels run over kstart+1 <= k < kend, all others over kstart <= k < kend.
template <class F>
constexpr bool on_w_levels() {
    return sq::traits_v<F>.on_w_levels;
}

} // namespace squall::testing
