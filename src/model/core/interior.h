#pragma once
// Launching a 3-D kernel over the interior of its own vertical position, so that where a
// kernel runs is stated once, on the kernel struct (on_w_levels), not again at each launch.
#include "backends/launch.h"
#include "model/core/metrics.h"
#include "model/grid.h"

namespace squall {

// Kernels whose traits say on_w_levels run on the w faces between the walls.
template <class F>
inline constexpr bool runs_on_w_levels = sq::traits_v<F>.on_w_levels;

// This rank's interior for F: kstart+1 <= k < kend on w levels (the wall faces hold
// boundary values), kstart <= k < kend at the cell centres.
template <class F>
sq::Range3 interior_of(const GridDims& d) {
    return {d.istart, d.iend, d.jstart, d.jend, runs_on_w_levels<F> ? d.kstart + 1 : d.kstart,
            d.kend};
}

template <class F>
void launch_interior(const GridDims& d, const F& f) {
    launch(interior_of<F>(d), f);
}

// k with the grid's members set: kernels name the grid's spacings, strides, wall levels
// and vertical metrics alike (dxi, jj, kstart, dzi, rho, ...), so a launch site states only
// what is particular to the kernel and fills the rest from here.
template <class K, typename T>
K on_grid(K k, const Grid<T>& g, const Metrics<T>& m) {
    if constexpr (requires { k.dx; }) k.dx = g.dx, k.dy = g.dy;
    if constexpr (requires { k.dxi; }) k.dxi = g.dxi, k.dyi = g.dyi;
    if constexpr (requires { k.jj; }) k.jj = g.d.jj, k.kk = g.d.kk;
    if constexpr (requires { k.kstart; }) k.kstart = g.d.kstart;
    if constexpr (requires { k.kend; }) k.kend = g.d.kend;
    if constexpr (requires { k.z; }) k.z = m.z;
    if constexpr (requires { k.dz; }) k.dz = m.dz;
    if constexpr (requires { k.dzi; }) k.dzi = m.dzi;
    if constexpr (requires { k.dzhi; }) k.dzhi = m.dzhi;
    if constexpr (requires { k.rho; }) k.rho = m.rho, k.rhoh = m.rhoh;
    return k;
}

} // namespace squall
