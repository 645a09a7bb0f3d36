// Ghost cells of the prognostic fields: wall boundary conditions (kernels/boundary.cuh)
// and halos.
#include <vector>

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
        // The surface value (its bulk flux) and moist's thv flux read the lowest scalars too.
        if (moist())
            halo_.exchange(
                {f_.u.data(), f_.v.data(), f_.s.data(), f_.scalars[std::size_t(qt_)].c.data()},
                d.kstart + 1);
        else if (surface_value_given())
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

    // A scalar's wall ghosts: from the surface model's gradient at the bottom where there is
    // one, else from its boundary conditions; a prescribed flux becomes a gradient through
    // the molecular diffusivity.
    auto scalar = [&](Field3d<T>& a, ScalarBc bot, double bot_value, ScalarBc top, double top_value,
                      DeviceArray<T>& grad_bot) {
        auto grad = [&](ScalarBc type, double value) -> T {
            if (type == ScalarBc::flux) return cfg_.kappa > 0 ? T(-value / cfg_.kappa) : T(0);
            return T(value);
        };
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
                                            .value = grad(bot, bot_value),
                                            .dzh_wall = dzh_bot,
                                            .dirichlet = bot == ScalarBc::dirichlet,
                                            .kstart = d.kstart,
                                            .jj = d.jj,
                                            .kk = d.kk});
        launch_2d(r, sq::GhostTop<T>{.a = a.data(),
                                     .value = grad(top, top_value),
                                     .dzh_wall = dzh_top,
                                     .dirichlet = top == ScalarBc::dirichlet,
                                     .kend = d.kend,
                                     .jj = d.jj,
                                     .kk = d.kk});
    };
    std::vector<T*> exchanged = {f_.u.data(), f_.v.data(), f_.w.data()};
    if (f_.has_scalar) {
        scalar(f_.s, bc.s_bot, bc.s_bot_at(time()), bc.s_top, bc.s_top_value, f_.dsdz_bot);
        exchanged.push_back(f_.s.data());
    }
    for (std::size_t n = 0; n < f_.scalars.size(); ++n) {
        const ScalarConfig& sc = cfg_.scalars[n];
        PassiveScalar<T>& c = f_.scalars[n];
        scalar(c.c, sc.bot, sc.bot_at(time()), sc.top, sc.top_value, c.dcdz_bot);
        exchanged.push_back(c.c.data());
    }
    halo_.exchange(exchanged, d.kcells);
}

template void Model<float>::set_boundaries();
template void Model<double>::set_boundaries();

} // namespace squall
