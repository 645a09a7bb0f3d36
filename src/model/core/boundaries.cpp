// Ghost cells of the prognostic fields: wall boundary conditions (kernels/boundary.cuh)
// and halos.
#include "backends/launch.h"
#include "kernels/boundary.cuh"
#include "model/core/model.h"

namespace squall {

// Ghost cells: wall ghosts of every interior column, then the horizontal halos (which
// carry the wall ghosts of the neighbouring columns along).
template <typename T>
void Model<T>::set_boundaries() {
    const auto& d = g_.d;
    const auto& bc = cfg_.bc;
    // The surface layer interpolates the lowest-level wind horizontally, so it needs the
    // halos of levels up to kstart; the full exchange below fills all of them.
    if (surface()) {
        if (surface_value_given())
            halo_.exchange({f_.u.data(), f_.v.data(), f_.s.data()}, d.kstart + 1);
        else
            halo_.exchange({f_.u.data(), f_.v.data()}, d.kstart + 1);
        surface_layer();
    }

    const sq::Range3 r = range_2d();
    const T dzh_bot = g_.dzh[d.kstart], dzh_top = g_.dzh[d.kend];
    auto mom = [&](Field3d<T>& a, T wall_bot, T wall_top, DeviceArray<T>& grad_bot) {
        if (surface())
            launch_2d(r, sq::GhostBottom<T>{.a = a.data(),
                                            .values = grad_bot.data(),
                                            .value = T(0),
                                            .dzh_wall = dzh_bot,
                                            .dirichlet = 0,
                                            .kstart = d.kstart,
                                            .jj = d.jj,
                                            .kk = d.kk});
        else
            launch_2d(r, sq::GhostBottom<T>{.a = a.data(),
                                            .values = nullptr,
                                            .value = wall_bot,
                                            .dzh_wall = dzh_bot,
                                            .dirichlet = bc.mom_bot == MomBc::noslip,
                                            .kstart = d.kstart,
                                            .jj = d.jj,
                                            .kk = d.kk});
        launch_2d(r, sq::GhostTop<T>{.a = a.data(),
                                     .value = bc.mom_top == MomBc::noslip ? wall_top : T(0),
                                     .dzh_wall = dzh_top,
                                     .dirichlet = bc.mom_top == MomBc::noslip,
                                     .kend = d.kend,
                                     .jj = d.jj,
                                     .kk = d.kk});
    };
    // Wall velocities in the model's frame (grid.utrans, vtrans).
    const auto& g = cfg_.grid;
    mom(f_.u, T(bc.u_bot - g.utrans), T(bc.u_top - g.utrans), f_.dudz_bot);
    mom(f_.v, T(bc.v_bot - g.vtrans), T(bc.v_top - g.vtrans), f_.dvdz_bot);
    launch_2d(r, sq::GhostW<T>{
                     .w = f_.w.data(), .kstart = d.kstart, .kend = d.kend, .jj = d.jj, .kk = d.kk});

    if (f_.has_scalar) {
        // A prescribed flux becomes a gradient through the molecular diffusivity.
        auto scalar_grad = [&](ScalarBc type, double value) -> T {
            if (type == ScalarBc::flux) return cfg_.kappa > 0 ? T(-value / cfg_.kappa) : T(0);
            return T(value);
        };
        if (surface())
            launch_2d(r, sq::GhostBottom<T>{.a = f_.s.data(),
                                            .values = f_.dsdz_bot.data(),
                                            .value = T(0),
                                            .dzh_wall = dzh_bot,
                                            .dirichlet = 0,
                                            .kstart = d.kstart,
                                            .jj = d.jj,
                                            .kk = d.kk});
        else
            launch_2d(r, sq::GhostBottom<T>{.a = f_.s.data(),
                                            .values = nullptr,
                                            .value = scalar_grad(bc.s_bot, bc.s_bot_at(time())),
                                            .dzh_wall = dzh_bot,
                                            .dirichlet = bc.s_bot == ScalarBc::dirichlet,
                                            .kstart = d.kstart,
                                            .jj = d.jj,
                                            .kk = d.kk});
        launch_2d(r, sq::GhostTop<T>{.a = f_.s.data(),
                                     .value = scalar_grad(bc.s_top, bc.s_top_value),
                                     .dzh_wall = dzh_top,
                                     .dirichlet = bc.s_top == ScalarBc::dirichlet,
                                     .kend = d.kend,
                                     .jj = d.jj,
                                     .kk = d.kk});
    }
    if (f_.has_scalar)
        halo_.exchange({f_.u.data(), f_.v.data(), f_.w.data(), f_.s.data()}, d.kcells);
    else
        halo_.exchange({f_.u.data(), f_.v.data(), f_.w.data()}, d.kcells);
}

template void Model<float>::set_boundaries();
template void Model<double>::set_boundaries();

} // namespace squall
