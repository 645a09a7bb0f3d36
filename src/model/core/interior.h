#pragma once
// Launching a 3-D kernel over the interior of its own vertical position, so that where a
// kernel runs is stated once, on the kernel struct (on_w_levels), not again at each launch.
#include "backends/launch.h"
#include "model/grid.h"

namespace squall {

// Kernels that declare on_w_levels = true run on the w faces between the walls.
template <class F>
inline constexpr bool runs_on_w_levels = requires {
    requires F::on_w_levels;
};

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

} // namespace squall
