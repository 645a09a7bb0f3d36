// Monin-Obukhov surface layer (LES): u* and 1/L per column, then the momentum fluxes and
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
    const T g_over_thref = cfg_.thermo == ThermoType::dry ? T(cfg_.gravity / cfg_.thref) : T(1);
    const T* sflux = f_.has_scalar ? f_.s_fluxbot.data() : nullptr;
    // One extra column west and south so the face kernels find both neighbours.
    const sq::Range3 r_ext{d.istart - 1, d.iend, d.jstart - 1, d.jend, 0, 1};
    launch_2d(r_ext,
              sq::SurfaceMost<T>{f_.ustar.data(), f_.obuk_inv.data(), f_.u.data(), f_.v.data(),
                                 sflux, g_over_thref, T(bc.u_bot), T(bc.v_bot), z1, z0m,
                                 sq::most::umin_default<T>(), d.kstart, d.jj, d.kk});
    launch_2d(range_2d(),
              sq::SurfaceMomentumFlux<T>{f_.u_fluxbot.data(), f_.v_fluxbot.data(),
                                         f_.dudz_bot.data(), f_.dvdz_bot.data(), f_.u.data(),
                                         f_.v.data(), f_.ustar.data(), f_.obuk_inv.data(),
                                         T(bc.u_bot), T(bc.v_bot), z1, z0m, d.kstart, d.jj, d.kk});
    if (f_.has_scalar)
        launch_2d(range_2d(), sq::SurfaceScalar<T>{f_.dsdz_bot.data(), f_.s_fluxbot.data(),
                                                   f_.ustar.data(), f_.obuk_inv.data(), z1, d.jj});
}

template void Model<float>::surface_layer();
template void Model<double>::surface_layer();

} // namespace squall
