// One Runge-Kutta substep's tendencies: the Smagorinsky closure, advection (with the
// buoyancy), diffusion and the sponge. Every point computation is a kernel struct from
// kernels/, launched over the interior of its vertical position (interior.h).
#include "backends/launch.h"
#include "kernels/advec.cuh"
#include "kernels/boundary.cuh"
#include "kernels/diff.cuh"
#include "kernels/diff_fused.cuh"
#include "kernels/thermo.cuh"
#include "kernels/timeint.cuh"
#include "model/core/interior.h"
#include "model/core/model.h"

namespace squall {

template <typename T>
sq::Range3 Model<T>::range_c() const {
    const auto& d = g_.d;
    return {d.istart, d.iend, d.jstart, d.jend, d.kstart, d.kend};
}

template <typename T>
sq::Range3 Model<T>::range_2d() const {
    const auto& d = g_.d;
    return {d.istart, d.iend, d.jstart, d.jend, 0, 1};
}

// Strain rate and eddy viscosity of the Smagorinsky closure.
template <typename T>
void Model<T>::closure() {
    if (!les()) return;
    const auto& d = g_.d;
    launch_interior(d, sq::Strain2<T>{.strain2 = f_.strain2.data(),
                                      .u = f_.u.data(),
                                      .v = f_.v.data(),
                                      .w = f_.w.data(),
                                      .dzi = m_.dzi,
                                      .dzhi = m_.dzhi,
                                      .dxi = g_.dxi,
                                      .dyi = g_.dyi,
                                      .jj = d.jj,
                                      .kk = d.kk});
    const bool dry = cfg_.thermo == ThermoType::dry || cfg_.thermo == ThermoType::buoy;
    const T g_over_thref = cfg_.thermo == ThermoType::dry ? T(cfg_.gravity / cfg_.thref) : T(1);
    launch_interior(d, sq::EviscSmag<T>{.evisc = f_.evisc.data(),
                                        .strain2 = f_.strain2.data(),
                                        .th = dry ? f_.s.data() : nullptr,
                                        .g_over_thref = g_over_thref,
                                        .z = m_.z,
                                        .dz = m_.dz,
                                        .dx = g_.dx,
                                        .dy = g_.dy,
                                        .cs = T(cfg_.cs),
                                        .prandtl_t = T(cfg_.prandtl_t),
                                        .z0m = T(cfg_.bc.surface.z0m),
                                        .mason = surface() ? 1 : 0,
                                        .jj = d.jj,
                                        .kk = d.kk});
    launch_2d(
        range_2d(),
        sq::GhostMirror<T>{
            .a = f_.evisc.data(), .kstart = d.kstart, .kend = d.kend, .jj = d.jj, .kk = d.kk});
    halo_.exchange(f_.evisc.data(), d.kcells);
}

template <typename T>
void Model<T>::advection() {
    const auto& d = g_.d;
    T *u = f_.u.data(), *v = f_.v.data(), *w = f_.w.data();
    const T *dzi = m_.dzi, *dzhi = m_.dzhi, *rho = m_.rho, *rhoh = m_.rhoh;
    if (cfg_.advec == AdvecScheme::second) {
        launch_interior(d, sq::AdvecU2<T>{.ut = f_.ut.data(),
                                          .u = u,
                                          .v = v,
                                          .w = w,
                                          .dzi = dzi,
                                          .rho = rho,
                                          .rhoh = rhoh,
                                          .dxi = g_.dxi,
                                          .dyi = g_.dyi,
                                          .jj = d.jj,
                                          .kk = d.kk});
        launch_interior(d, sq::AdvecV2<T>{.vt = f_.vt.data(),
                                          .u = u,
                                          .v = v,
                                          .w = w,
                                          .dzi = dzi,
                                          .rho = rho,
                                          .rhoh = rhoh,
                                          .dxi = g_.dxi,
                                          .dyi = g_.dyi,
                                          .jj = d.jj,
                                          .kk = d.kk});
        if (has_buoyancy())
            launch_interior(d, sq::AdvecW2Buoy<T>{.wt = f_.wt.data(),
                                                  .u = u,
                                                  .v = v,
                                                  .w = w,
                                                  .th = f_.s.data(),
                                                  .dzhi = dzhi,
                                                  .rho = rho,
                                                  .rhoh = rhoh,
                                                  .dxi = g_.dxi,
                                                  .dyi = g_.dyi,
                                                  .g_over_thref = buoyancy_factor(),
                                                  .thref = buoyancy_reference(),
                                                  .jj = d.jj,
                                                  .kk = d.kk});
        else
            launch_interior(d, sq::AdvecW2<T>{.wt = f_.wt.data(),
                                              .u = u,
                                              .v = v,
                                              .w = w,
                                              .dzhi = dzhi,
                                              .rho = rho,
                                              .rhoh = rhoh,
                                              .dxi = g_.dxi,
                                              .dyi = g_.dyi,
                                              .jj = d.jj,
                                              .kk = d.kk});
        if (f_.has_scalar)
            launch_interior(d, sq::AdvecS2<T>{.st = f_.st.data(),
                                              .s = f_.s.data(),
                                              .u = u,
                                              .v = v,
                                              .w = w,
                                              .dzi = dzi,
                                              .rho = rho,
                                              .rhoh = rhoh,
                                              .dxi = g_.dxi,
                                              .dyi = g_.dyi,
                                              .jj = d.jj,
                                              .kk = d.kk});
    } else {
        const int ks = d.kstart, ke = d.kend;
        launch_interior(d, sq::AdvecU2i5<T>{.ut = f_.ut.data(),
                                            .u = u,
                                            .v = v,
                                            .w = w,
                                            .dzi = dzi,
                                            .rho = rho,
                                            .rhoh = rhoh,
                                            .dxi = g_.dxi,
                                            .dyi = g_.dyi,
                                            .jj = d.jj,
                                            .kk = d.kk,
                                            .kstart = ks,
                                            .kend = ke});
        launch_interior(d, sq::AdvecV2i5<T>{.vt = f_.vt.data(),
                                            .u = u,
                                            .v = v,
                                            .w = w,
                                            .dzi = dzi,
                                            .rho = rho,
                                            .rhoh = rhoh,
                                            .dxi = g_.dxi,
                                            .dyi = g_.dyi,
                                            .jj = d.jj,
                                            .kk = d.kk,
                                            .kstart = ks,
                                            .kend = ke});
        if (has_buoyancy())
            launch_interior(d, sq::AdvecW2i5Buoy<T>{.wt = f_.wt.data(),
                                                    .u = u,
                                                    .v = v,
                                                    .w = w,
                                                    .th = f_.s.data(),
                                                    .dzhi = dzhi,
                                                    .rho = rho,
                                                    .rhoh = rhoh,
                                                    .dxi = g_.dxi,
                                                    .dyi = g_.dyi,
                                                    .g_over_thref = buoyancy_factor(),
                                                    .thref = buoyancy_reference(),
                                                    .jj = d.jj,
                                                    .kk = d.kk,
                                                    .kstart = ks,
                                                    .kend = ke});
        else
            launch_interior(d, sq::AdvecW2i5<T>{.wt = f_.wt.data(),
                                                .u = u,
                                                .v = v,
                                                .w = w,
                                                .dzhi = dzhi,
                                                .rho = rho,
                                                .rhoh = rhoh,
                                                .dxi = g_.dxi,
                                                .dyi = g_.dyi,
                                                .jj = d.jj,
                                                .kk = d.kk,
                                                .kstart = ks,
                                                .kend = ke});
        if (f_.has_scalar)
            launch_interior(d, sq::AdvecS2i5<T>{.st = f_.st.data(),
                                                .s = f_.s.data(),
                                                .u = u,
                                                .v = v,
                                                .w = w,
                                                .dzi = dzi,
                                                .rho = rho,
                                                .rhoh = rhoh,
                                                .dxi = g_.dxi,
                                                .dyi = g_.dyi,
                                                .jj = d.jj,
                                                .kk = d.kk,
                                                .kstart = ks,
                                                .kend = ke});
    }
}

template <typename T>
void Model<T>::diffusion() {
    const auto& d = g_.d;
    const T *dzi = m_.dzi, *dzhi = m_.dzhi, *rho = m_.rho, *rhoh = m_.rhoh;
    if (cfg_.diff == DiffType::constant) {
        const T nu = T(cfg_.nu), kappa = T(cfg_.kappa);
        launch_interior(d, sq::DiffU2<T>{.at = f_.ut.data(),
                                         .a = f_.u.data(),
                                         .dzi = dzi,
                                         .dzhi = dzhi,
                                         .rho = rho,
                                         .rhoh = rhoh,
                                         .dxi = g_.dxi,
                                         .dyi = g_.dyi,
                                         .K = nu,
                                         .jj = d.jj,
                                         .kk = d.kk});
        launch_interior(d, sq::DiffV2<T>{.at = f_.vt.data(),
                                         .a = f_.v.data(),
                                         .dzi = dzi,
                                         .dzhi = dzhi,
                                         .rho = rho,
                                         .rhoh = rhoh,
                                         .dxi = g_.dxi,
                                         .dyi = g_.dyi,
                                         .K = nu,
                                         .jj = d.jj,
                                         .kk = d.kk});
        launch_interior(d, sq::DiffW2<T>{.at = f_.wt.data(),
                                         .a = f_.w.data(),
                                         .dzi = dzi,
                                         .dzhi = dzhi,
                                         .rho = rho,
                                         .rhoh = rhoh,
                                         .dxi = g_.dxi,
                                         .dyi = g_.dyi,
                                         .K = nu,
                                         .jj = d.jj,
                                         .kk = d.kk});
        if (f_.has_scalar)
            launch_interior(d, sq::DiffC2<T>{.at = f_.st.data(),
                                             .a = f_.s.data(),
                                             .dzi = dzi,
                                             .dzhi = dzhi,
                                             .rho = rho,
                                             .rhoh = rhoh,
                                             .dxi = g_.dxi,
                                             .dyi = g_.dyi,
                                             .K = kappa,
                                             .jj = d.jj,
                                             .kk = d.kk});
    } else if (cfg_.diff == DiffType::smag2) {
        const T nu = T(cfg_.nu);
        const int ks = d.kstart, ke = d.kend;
        const T* ufb = surface() ? f_.u_fluxbot.data() : nullptr;
        const T* vfb = surface() ? f_.v_fluxbot.data() : nullptr;
        const T* sfb = surface() ? f_.s_fluxbot.data() : nullptr;
        const T *u = f_.u.data(), *v = f_.v.data(), *w = f_.w.data(), *ev = f_.evisc.data();
        // u, v and w in one pass: the velocities and evisc are read once for all three.
        launch_interior(d, sq::DiffUVWSmag<T>{.ut = f_.ut.data(),
                                              .vt = f_.vt.data(),
                                              .wt = f_.wt.data(),
                                              .u = u,
                                              .v = v,
                                              .w = w,
                                              .evisc = ev,
                                              .dzi = dzi,
                                              .dzhi = dzhi,
                                              .rho = rho,
                                              .rhoh = rhoh,
                                              .dxi = g_.dxi,
                                              .dyi = g_.dyi,
                                              .nu = nu,
                                              .ufluxbot = ufb,
                                              .ufluxtop = nullptr,
                                              .vfluxbot = vfb,
                                              .vfluxtop = nullptr,
                                              .kstart = ks,
                                              .kend = ke,
                                              .jj = d.jj,
                                              .kk = d.kk});
        if (f_.has_scalar)
            launch_interior(d, sq::DiffCSmag<T>{.st = f_.st.data(),
                                                .s = f_.s.data(),
                                                .evisc = ev,
                                                .dzi = dzi,
                                                .dzhi = dzhi,
                                                .rho = rho,
                                                .rhoh = rhoh,
                                                .dxi = g_.dxi,
                                                .dyi = g_.dyi,
                                                .prandtl_t_inv = T(1.0 / cfg_.prandtl_t),
                                                .kappa = T(cfg_.kappa),
                                                .fluxbot = sfb,
                                                .fluxtop = nullptr,
                                                .kstart = ks,
                                                .kend = ke,
                                                .jj = d.jj,
                                                .kk = d.kk});
    }
}

// The buoyancy joins w's advection (AdvecW2Buoy, AdvecW2i5Buoy): wt is read and written
// once for both instead of twice.
template <typename T>
bool Model<T>::has_buoyancy() const {
    return cfg_.thermo == ThermoType::dry || cfg_.thermo == ThermoType::buoy;
}
// BuoyancyTh's g/thref and thref; "buoy" mode (the scalar is b) as 1 and 0.
template <typename T>
T Model<T>::buoyancy_factor() const {
    return cfg_.thermo == ThermoType::dry ? T(cfg_.gravity / cfg_.thref) : T(1);
}
template <typename T>
T Model<T>::buoyancy_reference() const {
    return cfg_.thermo == ThermoType::dry ? T(cfg_.thref) : T(0);
}

template <typename T>
void Model<T>::sponge() {
    if (!cfg_.sponge.enabled) return;
    const auto& d = g_.d;
    const T* coef = sponge_coef_.data();
    // Only the sponge's own levels: below them the rate is exactly 0, and at -= 0 * (...)
    // changes no finite value, so skipping them saves three passes over 3/4 of the grid.
    sq::Range3 r = range_c();
    r.k0 = sponge_kstart_;
    if (r.k0 >= r.k1) return;
    launch(r, sq::Sponge<T>{.at = f_.ut.data(),
                            .a = f_.u.data(),
                            .aref = sponge_uref_.data(),
                            .coef = coef,
                            .jj = d.jj,
                            .kk = d.kk});
    launch(r, sq::Sponge<T>{.at = f_.vt.data(),
                            .a = f_.v.data(),
                            .aref = sponge_vref_.data(),
                            .coef = coef,
                            .jj = d.jj,
                            .kk = d.kk});
    if (f_.has_scalar)
        launch(r, sq::Sponge<T>{.at = f_.st.data(),
                                .a = f_.s.data(),
                                .aref = sponge_sref_.data(),
                                .coef = coef,
                                .jj = d.jj,
                                .kk = d.kk});
}

template <typename T>
void Model<T>::tendencies() {
    advection();
    diffusion();
    sponge();
}

template class Model<float>;
template class Model<double>;

} // namespace squall
