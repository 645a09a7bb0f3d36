#pragma once
// The kernel lists (tests/support/all_kernels.h) and the grid and range each kernel is
// launched over, for the GPU-backend tests and the benchmark.
#include "backends/cuda/declared.h"
#include "model/grid.h"
#include "tests/support/all_kernels.h"

#include <random>
#include <string>
#include <string_view>

namespace squall::gpu::testing {

using namespace squall::testing;

// Random test data: values in [0.5, 1.5), away from zero, and for the velocities u, v and w
// either sign, so that the upwind fluxes (which read one side of a face or the other by the
// sign of the velocity there) run both ways. The moist kernels' state is physical instead
// (saturation adjustment has no meaning, nor a root, at 1 K and 1 Pa): thl, qt, the
// reference pressure and its Exner function spread so that some points are saturated and
// some are not.
template <class Rng>
double test_value(const std::string& member, Rng& rng) {
    auto uniform = [&](double lo, double hi) {
        return std::uniform_real_distribution<double>(lo, hi)(rng);
    };
    if (member == "thl") return uniform(295.0, 305.0);
    if (member == "qt") return uniform(0.01, 0.03);
    if (member == "pref") return uniform(8.0e4, 1.0e5);
    if (member == "exner_ref") return uniform(0.94, 1.0);
    const double v = uniform(0.5, 1.5);
    const bool velocity = member == "u" || member == "v" || member == "w";
    return velocity && std::uniform_int_distribution<int>(0, 1)(rng) ? -v : v;
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
