#pragma once
// The kernel structs the model launches, as type lists for the GPU-backend tests and the
// benchmark, plus the range each is launched over.
#include "backends/cuda/declared.h"
#include "kernels/advec.cuh"
#include "kernels/boundary.cuh"
#include "kernels/diagnostics.cuh"
#include "kernels/diff.cuh"
#include "kernels/diff_fused.cuh"
#include "kernels/halo.cuh"
#include "kernels/pressure.cuh"
#include "kernels/surface.cuh"
#include "kernels/thermo.cuh"
#include "kernels/timeint.cuh"
#include "model/grid.h"

#include <concepts>
#include <string_view>
#include <type_traits>

namespace squall::gpu::testing {

using sq::KernelList;

// Every kernel, from the lists at the end of each kernels/ header: a new kernel in an
// existing header needs no edit here.
template <template <class> class... A, template <class> class... B>
KernelList<A..., B...> operator+(KernelList<A...>, KernelList<B...>);
using AllKernels = decltype(sq::AdvecKernels{} + sq::BoundaryKernels{} + sq::DiagnosticKernels{} +
                            sq::DiffKernels{} + sq::DiffFusedKernels{} + sq::HaloKernels{} +
                            sq::PressureKernels{} + sq::SurfaceKernels{} + sq::ThermoKernels{} +
                            sq::TimeintKernels{});

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

// How the backend maps a kernel: operator()(i, j, k) returning void (3-D), operator()(i, j)
// (per column), or returning the point's value (a reduction, max unless F::summed).
template <class F>
struct IsHalo : std::bool_constant<std::string_view(F::name).starts_with("halo_")> {};
template <class F>
    struct Is3d : std::bool_constant < requires(const F& f) {
    { f(0, 0, 0) } -> std::same_as<void>;
} && !IsHalo<F>::value > {};
template <class F>
    struct Is2d : std::bool_constant < requires(const F& f) {
    f(0, 0);
} > {};
template <class F>
        struct IsReduction : std::bool_constant < !Is2d<F>::value &&
    !requires(const F& f) {
    { f(0, 0, 0) } -> std::same_as<void>;
} > {};
template <class F>
    struct IsSum : std::bool_constant < IsReduction<F>::value&& requires {
    F::summed;
} > {};
template <class F>
        struct IsMax : std::bool_constant < IsReduction<F>::value &&
    !requires {
    F::summed;
} > {};

// Tunable 3-D kernels of the model (operator()(i, j, k), void).
using Kernels3d = decltype(filter<Is3d>(AllKernels{}));
// Per-column kernels (operator()(i, j)).
using Kernels2d = decltype(filter<Is2d>(AllKernels{}));
// Max- and sum-reductions.
using Reductions = decltype(filter<IsMax>(AllKernels{}));
using SumReductions = decltype(filter<IsSum>(AllKernels{}));
// Halo copies (3-D traversals over the halo ranges).
using HaloKernels = sq::HaloKernels;

// w kernels run over kstart+1 <= k < kend, all others over kstart <= k < kend.
template <class F>
constexpr bool on_w_levels() {
    return requires {
        F::on_w_levels;
    };
}

// A grid with the model's ghost cells (igc = jgc = 3, kgc = 1).
struct TestGrid {
    int itot, jtot, ktot;
    int igc = 3, kgc = 1;
    int align = squall::row_align; // the model's layout (grid.h); 1: unpadded rows
    constexpr int icells() const { return itot + 2 * igc; }
    constexpr int jcells() const { return jtot + 2 * igc; }
    constexpr int kcells() const { return ktot + 2 * kgc; }
    constexpr int jj() const { return squall::padded_row(icells(), align); }
    constexpr int kk() const { return jj() * jcells(); }
    constexpr long ncells() const { return long(kk()) * kcells(); }
    // Elements allocated before ijk = 0 so that i = igc is aligned, as in Field3d.
    constexpr int pad() const { return squall::leading_pad(igc, align); }
    // An array of a declared shape (fields, profiles, planes): elements allocated, and how
    // many of them lie before index 0.
    size_t lead(Shape shape) const { return shape == Shape::field ? size_t(pad()) : 0; }
    size_t elements(Shape shape) const {
        return shape == Shape::field     ? lead(shape) + size_t(ncells())
               : shape == Shape::profile ? size_t(kcells())
                                         : size_t(kk());
    }
    constexpr int kstart() const { return kgc; }
    constexpr int kend() const { return kgc + ktot; }
    template <class F>
    sq::Range3 range() const {
        return {igc, igc + itot, igc, igc + jtot, kstart() + (on_w_levels<F>() ? 1 : 0), kend()};
    }
    sq::Range3 range_2d() const { return {igc, igc + itot, igc, igc + jtot, 0, 1}; }
};

// A value-initialised kernel with the grid's strides and wall levels set.
template <class F>
F blank_kernel(const TestGrid& g) {
    F f{};
    if constexpr (requires { f.jj; }) f.jj = g.jj();
    if constexpr (requires { f.kk; }) f.kk = g.kk();
    if constexpr (requires { f.kstart; }) f.kstart = g.kstart();
    if constexpr (requires { f.kend; }) f.kend = g.kend();
    return f;
}

} // namespace squall::gpu::testing
