// One Runge-Kutta substep's physics: boundaries, closure, tendencies, pressure, update.
// Every point computation is a kernel struct from kernels/, launched through launch().
#include "backends/launch.h"
#include "kernels/advec.cuh"
#include "kernels/boundary.cuh"
#include "kernels/diff.cuh"
#include "kernels/diff_fused.cuh"
#include "kernels/pressure.cuh"
#include "kernels/thermo.cuh"
#include "kernels/timeint.cuh"
#include "model/core/model.h"
#include "model/pressure/pressure.h"
#ifdef SQUALL_GPU_MODEL
#include "model/pressure/pressure_gpu.h"
#endif

namespace squall {

template <typename T>
sq::Range3 Model<T>::range_c() const {
    const auto& d = g_.d;
    return {d.istart, d.iend, d.jstart, d.jend, d.kstart, d.kend};
}
template <typename T>
sq::Range3 Model<T>::range_w() const {
    const auto& d = g_.d;
    return {d.istart, d.iend, d.jstart, d.jend, d.kstart + 1, d.kend};
}
template <typename T>
sq::Range3 Model<T>::range_2d() const {
    const auto& d = g_.d;
    return {d.istart, d.iend, d.jstart, d.jend, 0, 1};
}

// Ghost cells: wall ghosts of every interior column, then the horizontal halos (which
// carry the wall ghosts of the neighbouring columns along).
template <typename T>
void Model<T>::set_boundaries() {
    const auto& d = g_.d;
    const auto& bc = cfg_.bc;
    // The surface layer interpolates the lowest-level wind horizontally, so it needs the
    // halos of levels up to kstart; the full exchange below fills all of them.
    if (surface()) {
        halo_.exchange(f_.u.data(), d.kstart + 1);
        halo_.exchange(f_.v.data(), d.kstart + 1);
        surface_layer();
    }

    const sq::Range3 r = range_2d();
    const T dzh_bot = g_.dzh[d.kstart], dzh_top = g_.dzh[d.kend];
    auto mom = [&](Field3d<T>& a, T wall_bot, T wall_top, DeviceArray<T>& grad_bot) {
        if (surface())
            launch_2d(r, sq::GhostBottom<T>{a.data(), grad_bot.data(), T(0), dzh_bot, 0, d.kstart,
                                            d.jj, d.kk});
        else
            launch_2d(r, sq::GhostBottom<T>{a.data(), nullptr, wall_bot, dzh_bot,
                                            bc.mom_bot == MomBc::noslip, d.kstart, d.jj, d.kk});
        launch_2d(r, sq::GhostTop<T>{a.data(), bc.mom_top == MomBc::noslip ? wall_top : T(0),
                                     dzh_top, bc.mom_top == MomBc::noslip, d.kend, d.jj, d.kk});
    };
    mom(f_.u, T(bc.u_bot), T(bc.u_top), f_.dudz_bot);
    mom(f_.v, T(bc.v_bot), T(bc.v_top), f_.dvdz_bot);
    launch_2d(r, sq::GhostW<T>{f_.w.data(), d.kstart, d.kend, d.jj, d.kk});

    if (f_.has_scalar) {
        // A prescribed flux becomes a gradient through the molecular diffusivity.
        auto scalar_grad = [&](ScalarBc type, double value) -> T {
            if (type == ScalarBc::flux) return cfg_.kappa > 0 ? T(-value / cfg_.kappa) : T(0);
            return T(value);
        };
        if (surface())
            launch_2d(r, sq::GhostBottom<T>{f_.s.data(), f_.dsdz_bot.data(), T(0), dzh_bot, 0,
                                            d.kstart, d.jj, d.kk});
        else
            launch_2d(r, sq::GhostBottom<T>{f_.s.data(), nullptr,
                                            scalar_grad(bc.s_bot, bc.s_bot_value), dzh_bot,
                                            bc.s_bot == ScalarBc::dirichlet, d.kstart, d.jj, d.kk});
        launch_2d(r, sq::GhostTop<T>{f_.s.data(), scalar_grad(bc.s_top, bc.s_top_value), dzh_top,
                                     bc.s_top == ScalarBc::dirichlet, d.kend, d.jj, d.kk});
    }
    halo_.exchange(f_.u.data(), d.kcells);
    halo_.exchange(f_.v.data(), d.kcells);
    halo_.exchange(f_.w.data(), d.kcells);
    if (f_.has_scalar) halo_.exchange(f_.s.data(), d.kcells);
}

// Strain rate and eddy viscosity of the Smagorinsky closure.
template <typename T>
void Model<T>::closure() {
    if (!les()) return;
    const auto& d = g_.d;
    launch(range_c(), sq::Strain2<T>{f_.strain2.data(), f_.u.data(), f_.v.data(), f_.w.data(),
                                     m_.dzi, m_.dzhi, g_.dxi, g_.dyi, d.jj, d.kk});
    const bool dry = cfg_.thermo == ThermoType::dry || cfg_.thermo == ThermoType::buoy;
    const T g_over_thref = cfg_.thermo == ThermoType::dry ? T(cfg_.gravity / cfg_.thref) : T(1);
    launch(range_c(),
           sq::EviscSmag<T>{f_.evisc.data(), f_.strain2.data(), dry ? f_.s.data() : nullptr,
                            g_over_thref, m_.z, m_.dz, g_.dx, g_.dy, T(cfg_.cs), T(cfg_.prandtl_t),
                            T(cfg_.bc.surface.z0m), surface() ? 1 : 0, d.jj, d.kk});
    launch_2d(range_2d(), sq::GhostMirror<T>{f_.evisc.data(), d.kstart, d.kend, d.jj, d.kk});
    halo_.exchange(f_.evisc.data(), d.kcells);
}

template <typename T>
void Model<T>::advection() {
    const auto& d = g_.d;
    T *u = f_.u.data(), *v = f_.v.data(), *w = f_.w.data();
    const T *dzi = m_.dzi, *dzhi = m_.dzhi, *rho = m_.rho, *rhoh = m_.rhoh;
    if (cfg_.advec == AdvecScheme::second) {
        launch(range_c(),
               sq::AdvecU2<T>{f_.ut.data(), u, v, w, dzi, rho, rhoh, g_.dxi, g_.dyi, d.jj, d.kk});
        launch(range_c(),
               sq::AdvecV2<T>{f_.vt.data(), u, v, w, dzi, rho, rhoh, g_.dxi, g_.dyi, d.jj, d.kk});
        if (has_buoyancy())
            launch(range_w(),
                   sq::AdvecW2Buoy<T>{f_.wt.data(), u, v, w, f_.s.data(), dzhi, rho, rhoh, g_.dxi,
                                      g_.dyi, buoyancy_factor(), buoyancy_reference(), d.jj, d.kk});
        else
            launch(range_w(), sq::AdvecW2<T>{f_.wt.data(), u, v, w, dzhi, rho, rhoh, g_.dxi, g_.dyi,
                                             d.jj, d.kk});
        if (f_.has_scalar)
            launch(range_c(), sq::AdvecS2<T>{f_.st.data(), f_.s.data(), u, v, w, dzi, rho, rhoh,
                                             g_.dxi, g_.dyi, d.jj, d.kk});
    } else {
        const int ks = d.kstart, ke = d.kend;
        launch(range_c(), sq::AdvecU2i5<T>{f_.ut.data(), u, v, w, dzi, rho, rhoh, g_.dxi, g_.dyi,
                                           d.jj, d.kk, ks, ke});
        launch(range_c(), sq::AdvecV2i5<T>{f_.vt.data(), u, v, w, dzi, rho, rhoh, g_.dxi, g_.dyi,
                                           d.jj, d.kk, ks, ke});
        if (has_buoyancy())
            launch(range_w(), sq::AdvecW2i5Buoy<T>{f_.wt.data(), u, v, w, f_.s.data(), dzhi, rho,
                                                   rhoh, g_.dxi, g_.dyi, buoyancy_factor(),
                                                   buoyancy_reference(), d.jj, d.kk, ks, ke});
        else
            launch(range_w(), sq::AdvecW2i5<T>{f_.wt.data(), u, v, w, dzhi, rho, rhoh, g_.dxi,
                                               g_.dyi, d.jj, d.kk, ks, ke});
        if (f_.has_scalar)
            launch(range_c(), sq::AdvecS2i5<T>{f_.st.data(), f_.s.data(), u, v, w, dzi, rho, rhoh,
                                               g_.dxi, g_.dyi, d.jj, d.kk, ks, ke});
    }
}

template <typename T>
void Model<T>::diffusion() {
    const auto& d = g_.d;
    const T *dzi = m_.dzi, *dzhi = m_.dzhi, *rho = m_.rho, *rhoh = m_.rhoh;
    if (cfg_.diff == DiffType::constant) {
        const T nu = T(cfg_.nu), kappa = T(cfg_.kappa);
        launch(range_c(), sq::DiffU2<T>{f_.ut.data(), f_.u.data(), dzi, dzhi, rho, rhoh, g_.dxi,
                                        g_.dyi, nu, d.jj, d.kk});
        launch(range_c(), sq::DiffV2<T>{f_.vt.data(), f_.v.data(), dzi, dzhi, rho, rhoh, g_.dxi,
                                        g_.dyi, nu, d.jj, d.kk});
        launch(range_w(), sq::DiffW2<T>{f_.wt.data(), f_.w.data(), dzi, dzhi, rho, rhoh, g_.dxi,
                                        g_.dyi, nu, d.jj, d.kk});
        if (f_.has_scalar)
            launch(range_c(), sq::DiffC2<T>{f_.st.data(), f_.s.data(), dzi, dzhi, rho, rhoh, g_.dxi,
                                            g_.dyi, kappa, d.jj, d.kk});
    } else if (cfg_.diff == DiffType::smag2) {
        const T nu = T(cfg_.nu);
        const int ks = d.kstart, ke = d.kend;
        const T* ufb = surface() ? f_.u_fluxbot.data() : nullptr;
        const T* vfb = surface() ? f_.v_fluxbot.data() : nullptr;
        const T* sfb = surface() ? f_.s_fluxbot.data() : nullptr;
        const T *u = f_.u.data(), *v = f_.v.data(), *w = f_.w.data(), *ev = f_.evisc.data();
        // u, v and w in one pass: the velocities and evisc are read once for all three.
        launch(range_c(),
               sq::DiffUVWSmag<T>{f_.ut.data(), f_.vt.data(), f_.wt.data(), u,       v,    w,
                                  ev,           dzi,          dzhi,         rho,     rhoh, g_.dxi,
                                  g_.dyi,       nu,           ufb,          nullptr, vfb,  nullptr,
                                  ks,           ke,           d.jj,         d.kk});
        if (f_.has_scalar)
            launch(range_c(), sq::DiffCSmag<T>{f_.st.data(), f_.s.data(), ev, dzi, dzhi, rho, rhoh,
                                               g_.dxi, g_.dyi, T(1.0 / cfg_.prandtl_t),
                                               T(cfg_.kappa), sfb, nullptr, ks, ke, d.jj, d.kk});
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
    launch(r, sq::Sponge<T>{f_.ut.data(), f_.u.data(), sponge_uref_.data(), coef, d.jj, d.kk});
    launch(r, sq::Sponge<T>{f_.vt.data(), f_.v.data(), sponge_vref_.data(), coef, d.jj, d.kk});
    if (f_.has_scalar)
        launch(r, sq::Sponge<T>{f_.st.data(), f_.s.data(), sponge_sref_.data(), coef, d.jj, d.kk});
}

template <typename T>
void Model<T>::tendencies() {
    advection();
    diffusion();
    sponge();
}

// Projects the velocity tendencies onto a divergence-free field (docs/numerics.md) and takes
// the RK stage of u, v and w: the pressure solve for dts = b_dt, then the gradient and the
// stage in one pass (PresOutRk).
template <typename T>
void Model<T>::pressure_and_update(T b_dt, T a_next) {
    const auto& d = g_.d;
    // The divergence reads the tendencies at i+1 and j+1, so their halos must be current.
    halo_.exchange(f_.ut.data(), d.kcells);
    halo_.exchange(f_.vt.data(), d.kcells);
    halo_.exchange(f_.wt.data(), d.kcells);
    launch(range_c(), sq::PresIn<T>{f_.p.data(), f_.u.data(), f_.v.data(), f_.w.data(),
                                    f_.ut.data(), f_.vt.data(), f_.wt.data(), m_.dzi, m_.rho,
                                    m_.rhoh, g_.dxi, g_.dyi, T(1) / b_dt, d.jj, d.kk});
#ifdef SQUALL_GPU_MODEL
    if (pres_gpu_)
        pres_gpu_->solve(f_.p.data());
    else
#endif
        pres_->solve(f_.p);
    halo_.exchange(f_.p.data(), d.kcells);
    launch(range_c(), sq::PresOutRk<T>{f_.u.data(), f_.v.data(), f_.w.data(), f_.ut.data(),
                                       f_.vt.data(), f_.wt.data(), f_.p.data(), m_.dzhi, g_.dxi,
                                       g_.dyi, b_dt, a_next, d.kstart, d.jj, d.kk});
}

// The RK stage of the scalar: s += b dt s_t, then s_t *= a_next so the next stage simply
// adds into it.
template <typename T>
void Model<T>::rk_update_scalar(T b_dt, T a_next) {
    const auto& d = g_.d;
    if (f_.has_scalar)
        launch(range_c(), sq::RkUpdate<T>{f_.s.data(), f_.st.data(), b_dt, a_next, d.jj, d.kk});
}

// Remove the divergence of the initial velocity field: one projection with dts = 1.
template <typename T>
void Model<T>::project_initial() {
    set_boundaries();
    f_.ut.fill(T(0));
    f_.vt.fill(T(0));
    f_.wt.fill(T(0));
    pressure_and_update(T(1), T(0));
    set_boundaries();
}

template class Model<float>;
template class Model<double>;

} // namespace squall
