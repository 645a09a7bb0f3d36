// Monin-Obukhov surface layer (LES): u* and 1/L per column (and the scalar's flux where
// its surface value is prescribed), then the momentum fluxes and
// wall gradients on the velocity faces and the scalar wall gradient. The fluxes feed the
// diffusion kernels at kstart; the gradients set the wall ghost cells.
#include "backends/launch.h"
#include "kernels/surface.cuh"
#include "model/core/model.h"

namespace squall {

template <typename T>
void Model<T>::surface_layer() {
    const auto& d = g_.d;
    const auto& bc = cfg_.bc;
    const T z1 = g_.z[d.kstart], z0m = T(bc.surface.z0m);
    // The ground's velocity in the model's frame (grid.utrans, vtrans).
    const T ubot = T(bc.u_bot - cfg_.grid.utrans), vbot = T(bc.v_bot - cfg_.grid.vtrans);
    const T g_over_thref = buoyancy_factor();
    // Prescribed fluxes given in time (scalar_bot_times, bot_times): this step's value.
    if (f_.has_scalar && bc.s_bot == ScalarBc::flux && !bc.s_bot_table.empty())
        f_.s_fluxbot.fill(T(bc.s_bot_at(time())));
    for (std::size_t n = 0; n < f_.scalars.size(); ++n)
        if (!cfg_.scalars[n].bot_table.empty())
            f_.scalars[n].fluxbot.fill(T(cfg_.scalars[n].bot_at(time())));
    const T* sflux = f_.has_scalar ? f_.s_fluxbot.data() : nullptr;
    // One extra column west and south so the face kernels find both neighbours.
    const sq::Range3 r_ext{d.istart - 1, d.iend, d.jstart - 1, d.jend, 0, 1};
    if (moist()) { // the Obukhov length from the flux of thv
        const PassiveScalar<T>& qt = f_.scalars[std::size_t(qt_)];
        launch_2d(r_ext, sq::SurfaceVirtualFlux<T>{.thv_fluxbot = thv_fluxbot_.data(),
                                                   .thl_fluxbot = f_.s_fluxbot.data(),
                                                   .qt_fluxbot = qt.fluxbot.data(),
                                                   .thl = f_.s.data(),
                                                   .qt = qt.c.data(),
                                                   .kstart = d.kstart,
                                                   .jj = d.jj,
                                                   .kk = d.kk});
        sflux = thv_fluxbot_.data();
    }
    const bool ustar_given = bc.ustar > 0;
    if (ustar_given)
        launch_2d(r_ext, sq::SurfaceUstar<T>{.ustar = f_.ustar.data(),
                                             .obuk_inv = f_.obuk_inv.data(),
                                             .sfluxbot = sflux,
                                             .ustar0 = T(bc.ustar),
                                             .g_over_thref = g_over_thref,
                                             .jj = d.jj});
    else if (surface_value_given())
        launch_2d(r_ext, sq::SurfaceMostValue<T>{.ustar = f_.ustar.data(),
                                                 .obuk_inv = f_.obuk_inv.data(),
                                                 .sfluxbot = f_.s_fluxbot.data(),
                                                 .u = f_.u.data(),
                                                 .v = f_.v.data(),
                                                 .s = f_.s.data(),
                                                 .s0 = T(bc.s_bot_at(time())),
                                                 .g_over_thref = g_over_thref,
                                                 .ubot = ubot,
                                                 .vbot = vbot,
                                                 .z1 = z1,
                                                 .z0m = z0m,
                                                 .z0h = T(bc.surface.z0h),
                                                 .umin = sq::most::umin_default<T>(),
                                                 .kstart = d.kstart,
                                                 .jj = d.jj,
                                                 .kk = d.kk});
    else
        launch_2d(r_ext, sq::SurfaceMost<T>{.ustar = f_.ustar.data(),
                                            .obuk_inv = f_.obuk_inv.data(),
                                            .u = f_.u.data(),
                                            .v = f_.v.data(),
                                            .sfluxbot = sflux,
                                            .g_over_thref = g_over_thref,
                                            .ubot = ubot,
                                            .vbot = vbot,
                                            .z1 = z1,
                                            .z0m = z0m,
                                            .umin = sq::most::umin_default<T>(),
                                            .kstart = d.kstart,
                                            .jj = d.jj,
                                            .kk = d.kk});
    launch_2d(range_2d(), sq::SurfaceMomentumFlux<T>{.ufluxbot = f_.u_fluxbot.data(),
                                                     .vfluxbot = f_.v_fluxbot.data(),
                                                     .dudz_bot = f_.dudz_bot.data(),
                                                     .dvdz_bot = f_.dvdz_bot.data(),
                                                     .u = f_.u.data(),
                                                     .v = f_.v.data(),
                                                     .ustar = f_.ustar.data(),
                                                     .obuk_inv = f_.obuk_inv.data(),
                                                     .ubot = ubot,
                                                     .vbot = vbot,
                                                     .z1 = z1,
                                                     .z0m = z0m,
                                                     .umin = sq::most::umin_default<T>(),
                                                     .ustar_given = ustar_given,
                                                     .kstart = d.kstart,
                                                     .jj = d.jj,
                                                     .kk = d.kk});
    auto scalar_gradient = [&](DeviceArray<T>& dsdz_bot, const DeviceArray<T>& fluxbot) {
        launch_2d(range_2d(), sq::SurfaceScalar<T>{.dsdz_bot = dsdz_bot.data(),
                                                   .fluxbot = fluxbot.data(),
                                                   .ustar = f_.ustar.data(),
                                                   .obuk_inv = f_.obuk_inv.data(),
                                                   .z1 = z1,
                                                   .jj = d.jj});
    };
    if (f_.has_scalar) scalar_gradient(f_.dsdz_bot, f_.s_fluxbot);
    for (PassiveScalar<T>& c : f_.scalars) scalar_gradient(c.dcdz_bot, c.fluxbot);
}

template void Model<float>::surface_layer();
template void Model<double>::surface_layer();

} // namespace squall
