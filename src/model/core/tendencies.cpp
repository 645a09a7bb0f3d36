// One Runge-Kutta substep's tendencies: the Smagorinsky closure, advection (with the
// buoyancy), diffusion and the sponge. Every point computation is a kernel struct from
// kernels/, launched over the interior of its vertical position (interior.h).
#include <utility>

#include "backends/launch.h"
#include "kernels/advec.cuh"
#include "kernels/boundary.cuh"
#include "kernels/diff.cuh"
#include "kernels/diff_fused.cuh"
#include "kernels/forcing.cuh"
#include "kernels/tend_fused.cuh"
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
    // The stability correction's N^2 comes from the scalar that carries the buoyancy.
    const T g_over_thref = buoyancy_factor();
    const T* th = has_buoyancy() ? buoyancy_scalar() : nullptr;
    if (fused_tendencies()) {
        launch_on_grid(sq::StrainEviscSmag<T>{.evisc = f_.evisc.data(),
                                              .u = f_.u.data(),
                                              .v = f_.v.data(),
                                              .w = f_.w.data(),
                                              .th = th,
                                              .g_over_thref = g_over_thref,
                                              .mlen2 = smag_mlen2_.data(),
                                              .prandtl_t = T(cfg_.prandtl_t)});
    } else {
        launch_on_grid(sq::Strain2<T>{
            .strain2 = f_.strain2.data(), .u = f_.u.data(), .v = f_.v.data(), .w = f_.w.data()});
        launch_on_grid(sq::EviscSmag<T>{.evisc = f_.evisc.data(),
                                        .strain2 = f_.strain2.data(),
                                        .th = th,
                                        .g_over_thref = g_over_thref,
                                        .mlen2 = smag_mlen2_.data(),
                                        .prandtl_t = T(cfg_.prandtl_t)});
    }
    launch_2d(
        range_2d(),
        sq::GhostMirror<T>{
            .a = f_.evisc.data(), .kstart = d.kstart, .kend = d.kend, .jj = d.jj, .kk = d.kk});
    // In flight while the advection runs (tendencies() finishes it): only the diffusion
    // reads evisc's ghost cells.
    halo_.start(f_.evisc.data(), d.kcells);
}

template <typename T>
void Model<T>::advection() {
    T *u = f_.u.data(), *v = f_.v.data(), *w = f_.w.data();
    if (cfg_.advec == AdvecScheme::second) {
        launch_on_grid(sq::AdvecU2<T>{.tend = f_.ut.data(), .u = u, .v = v, .w = w});
        launch_on_grid(sq::AdvecV2<T>{.tend = f_.vt.data(), .u = u, .v = v, .w = w});
        if (has_buoyancy())
            launch_on_grid(sq::AdvecW2Buoy<T>{.wt = f_.wt.data(),
                                              .u = u,
                                              .v = v,
                                              .w = w,
                                              .th = buoyancy_scalar(),
                                              .g_over_thref = buoyancy_factor(),
                                              .thref = buoyancy_reference()});
        else
            launch_on_grid(sq::AdvecW2<T>{.tend = f_.wt.data(), .u = u, .v = v, .w = w});
        if (f_.has_scalar)
            launch_on_grid(
                sq::AdvecS2<T>{.st = f_.st.data(), .s = f_.s.data(), .u = u, .v = v, .w = w});
    } else {
        launch_on_grid(sq::AdvecU2i5<T>{.tend = f_.ut.data(), .u = u, .v = v, .w = w});
        launch_on_grid(sq::AdvecV2i5<T>{.tend = f_.vt.data(), .u = u, .v = v, .w = w});
        if (has_buoyancy())
            launch_on_grid(sq::AdvecW2i5Buoy<T>{.wt = f_.wt.data(),
                                                .u = u,
                                                .v = v,
                                                .w = w,
                                                .th = buoyancy_scalar(),
                                                .g_over_thref = buoyancy_factor(),
                                                .thref = buoyancy_reference()});
        else
            launch_on_grid(sq::AdvecW2i5<T>{.tend = f_.wt.data(), .u = u, .v = v, .w = w});
        if (f_.has_scalar)
            launch_on_grid(
                sq::AdvecS2i5<T>{.st = f_.st.data(), .s = f_.s.data(), .u = u, .v = v, .w = w});
    }
    passive_advection();
}

template <typename T>
void Model<T>::passive_advection() {
    const T *u = f_.u.data(), *v = f_.v.data(), *w = f_.w.data();
    for (PassiveScalar<T>& c : f_.scalars) {
        if (cfg_.advec == AdvecScheme::second)
            launch_on_grid(
                sq::AdvecS2<T>{.st = c.ct.data(), .s = c.c.data(), .u = u, .v = v, .w = w});
        else
            launch_on_grid(
                sq::AdvecS2i5<T>{.st = c.ct.data(), .s = c.c.data(), .u = u, .v = v, .w = w});
    }
}

// The passive scalars diffuse as the thermo scalar does: kappa, and the eddy viscosity over
// the turbulent Prandtl number with smag2.
template <typename T>
void Model<T>::passive_diffusion() {
    for (PassiveScalar<T>& c : f_.scalars) {
        if (cfg_.diff == DiffType::constant)
            launch_on_grid(sq::DiffC2<T>{.at = c.ct.data(), .a = c.c.data(), .K = T(cfg_.kappa)});
        else if (cfg_.diff == DiffType::smag2)
            launch_on_grid(sq::DiffCSmag<T>{.st = c.ct.data(),
                                            .s = c.c.data(),
                                            .evisc = f_.evisc.data(),
                                            .prandtl_t_inv = T(1.0 / cfg_.prandtl_t),
                                            .kappa = T(cfg_.kappa),
                                            .fluxbot = surface() ? c.fluxbot.data() : nullptr,
                                            .fluxtop = nullptr});
    }
}

template <typename T>
void Model<T>::diffusion() {
    if (cfg_.diff == DiffType::constant) {
        const T nu = T(cfg_.nu), kappa = T(cfg_.kappa);
        launch_on_grid(sq::DiffU2<T>{.at = f_.ut.data(), .a = f_.u.data(), .K = nu});
        launch_on_grid(sq::DiffV2<T>{.at = f_.vt.data(), .a = f_.v.data(), .K = nu});
        launch_on_grid(sq::DiffW2<T>{.at = f_.wt.data(), .a = f_.w.data(), .K = nu});
        if (f_.has_scalar)
            launch_on_grid(sq::DiffC2<T>{.at = f_.st.data(), .a = f_.s.data(), .K = kappa});
    } else if (cfg_.diff == DiffType::smag2) {
        const T nu = T(cfg_.nu);
        const T* ufb = surface() ? f_.u_fluxbot.data() : nullptr;
        const T* vfb = surface() ? f_.v_fluxbot.data() : nullptr;
        const T* sfb = surface() ? f_.s_fluxbot.data() : nullptr;
        const T *u = f_.u.data(), *v = f_.v.data(), *w = f_.w.data(), *ev = f_.evisc.data();
        // u, v and w in one pass: the velocities and evisc are read once for all three.
        launch_on_grid(sq::DiffUVWSmag<T>{.ut = f_.ut.data(),
                                          .vt = f_.vt.data(),
                                          .wt = f_.wt.data(),
                                          .u = u,
                                          .v = v,
                                          .w = w,
                                          .evisc = ev,
                                          .nu = nu,
                                          .ufluxbot = ufb,
                                          .ufluxtop = nullptr,
                                          .vfluxbot = vfb,
                                          .vfluxtop = nullptr});
        if (f_.has_scalar)
            launch_on_grid(sq::DiffCSmag<T>{.st = f_.st.data(),
                                            .s = f_.s.data(),
                                            .evisc = ev,
                                            .prandtl_t_inv = T(1.0 / cfg_.prandtl_t),
                                            .kappa = T(cfg_.kappa),
                                            .fluxbot = sfb,
                                            .fluxtop = nullptr});
    }
    passive_diffusion();
}

// model.tendencies (runs_fused_tendencies): auto runs the fused kernels on the GPU (with
// their H200 wisdom the step takes 0.81-0.93 of the separate one, for 2i5 with smag2 and for
// 2 with constant diffusion) and the separate ones on the CPU, where the fused ones are
// slower (docs/performance.md).
// load_config refuses fused where they do not apply.
template <typename T>
bool Model<T>::fused_tendencies() const {
    return runs_fused_tendencies(cfg_);
}

// advection() and diffusion() with a buoyancy, for 2i5 with smag2 or 2 with constant
// diffusion: the momentum's and the scalar's advection and diffusion in one kernel each,
// bitwise the same tendencies (kernels/tend_fused.cuh). At the first stage they start from
// zero (the last stage dropped them: pressure_and_update); with the scalar's stage the
// scalar kernel writes the new scalar into s_next, which then becomes s.
template <typename T>
void Model<T>::advection_diffusion_fused(bool first, T b_dt, T a_next) {
    T* s_next = scalar_stage_in_tendencies() ? f_.s_next.data() : nullptr;
    const int first_stage = first;
    momentum_tendency_fused(first_stage);
    scalar_tendency_fused(f_.st, f_.s, f_.s_fluxbot, sponge_sref_.data(), first_stage, s_next, b_dt,
                          a_next, a_next == T(0));
    // The passive scalars: the same kernel without the RK stage (rk_update_scalar).
    for (std::size_t n = 0; n < f_.scalars.size(); ++n) {
        PassiveScalar<T>& c = f_.scalars[n];
        const T* sref = sponge_in_tendencies() ? sponge_cref_[n].data() : nullptr;
        scalar_tendency_fused(c.ct, c.c, c.fluxbot, sref, first_stage, nullptr, T(0), T(0), 0);
    }
    if (s_next) std::swap(f_.s, f_.s_next); // the new scalar becomes s
}

// u, v and w in one kernel, with the buoyancy (and the sponge with smag2).
template <typename T>
void Model<T>::momentum_tendency_fused(int first_stage) {
    const T *u = f_.u.data(), *v = f_.v.data(), *w = f_.w.data();
    if (cfg_.diff == DiffType::constant) {
        launch_on_grid(sq::TendUVW2Const<T>{.ut = f_.ut.data(),
                                            .vt = f_.vt.data(),
                                            .wt = f_.wt.data(),
                                            .u = u,
                                            .v = v,
                                            .w = w,
                                            .th = buoyancy_scalar(),
                                            .nu = T(cfg_.nu),
                                            .g_over_thref = buoyancy_factor(),
                                            .thref = buoyancy_reference(),
                                            .first_stage = first_stage});
        return;
    }
    launch_on_grid(sq::TendUVW2i5Smag<T>{
        .ut = f_.ut.data(),
        .vt = f_.vt.data(),
        .wt = f_.wt.data(),
        .u = u,
        .v = v,
        .w = w,
        .evisc = f_.evisc.data(),
        .th = buoyancy_scalar(),
        .nu = T(cfg_.nu),
        .g_over_thref = buoyancy_factor(),
        .thref = buoyancy_reference(),
        .ufluxbot = surface() ? f_.u_fluxbot.data() : nullptr,
        .ufluxtop = nullptr,
        .vfluxbot = surface() ? f_.v_fluxbot.data() : nullptr,
        .vfluxtop = nullptr,
        .sponge_coef = sponge_in_tendencies() ? sponge_coef_.data() : nullptr, // sponge() skips
        .uref = sponge_uref_.data(),
        .vref = sponge_vref_.data(),
        .sponge_kstart = sponge_kstart_,
        .first_stage = first_stage});
}

// One scalar's advection and diffusion (and with smag2 its sponge towards sref) in one
// kernel, with its RK stage into s_next when that is not null.
template <typename T>
void Model<T>::scalar_tendency_fused(Field3d<T>& st, const Field3d<T>& s,
                                     const DeviceArray<T>& fluxbot, const T* sref, int first_stage,
                                     T* s_next, T b_dt, T a_next, int drop_tendency) {
    const T *u = f_.u.data(), *v = f_.v.data(), *w = f_.w.data();
    if (cfg_.diff == DiffType::constant) {
        launch_on_grid(sq::TendS2Const<T>{.st = st.data(),
                                          .s = s.data(),
                                          .u = u,
                                          .v = v,
                                          .w = w,
                                          .kappa = T(cfg_.kappa),
                                          .s_next = s_next,
                                          .b_dt = b_dt,
                                          .a_next = a_next,
                                          .first_stage = first_stage,
                                          .drop_tendency = drop_tendency});
        return;
    }
    launch_on_grid(
        sq::TendS2i5Smag<T>{.st = st.data(),
                            .s = s.data(),
                            .u = u,
                            .v = v,
                            .w = w,
                            .evisc = f_.evisc.data(),
                            .prandtl_t_inv = T(1.0 / cfg_.prandtl_t),
                            .kappa = T(cfg_.kappa),
                            .fluxbot = surface() ? fluxbot.data() : nullptr,
                            .fluxtop = nullptr,
                            .sponge_coef = sponge_in_tendencies() ? sponge_coef_.data() : nullptr,
                            .sref = sref,
                            .sponge_kstart = sponge_kstart_,
                            .s_next = s_next,
                            .b_dt = b_dt,
                            .a_next = a_next,
                            .first_stage = first_stage,
                            .drop_tendency = drop_tendency});
}

// The fused 2i5 tendency kernels subtract the sponge's damping themselves (bitwise what the
// sponge kernels would, after them): the sponge then costs no passes of its own.
template <typename T>
bool Model<T>::sponge_in_tendencies() const {
    return cfg_.sponge.enabled && fused_tendencies() && cfg_.diff == DiffType::smag2 &&
           sponge_kstart_ < g_.d.kend;
}

// The buoyancy joins w's advection (AdvecW2Buoy, AdvecW2i5Buoy): wt is read and written
// once for both instead of twice.
template <typename T>
bool Model<T>::has_buoyancy() const {
    return cfg_.thermo != ThermoType::none;
}
// BuoyancyTh's g/thref and thref (moist: of thv); "buoy" mode (the scalar is b) as 1 and 0.
template <typename T>
T Model<T>::buoyancy_factor() const {
    return cfg_.thermo == ThermoType::buoy ? T(1) : T(cfg_.gravity / cfg_.thref);
}
template <typename T>
T Model<T>::buoyancy_reference() const {
    return cfg_.thermo == ThermoType::buoy ? T(0) : T(cfg_.thref);
}

template <typename T>
void Model<T>::sponge() {
    if (!cfg_.sponge.enabled) return;
    const auto& d = g_.d;
    // Only the sponge's own levels: below them the rate is exactly 0, and at -= 0 * (...)
    // changes no finite value, so skipping them saves three passes over 3/4 of the grid.
    sq::Range3 r = range_c();
    r.k0 = sponge_kstart_;
    if (r.k0 >= r.k1) return;
    auto damp = [&](Field3d<T>& at, const Field3d<T>& a, const DeviceArray<T>& ref) {
        launch(r, sq::Sponge<T>{.at = at.data(),
                                .a = a.data(),
                                .aref = ref.data(),
                                .coef = sponge_coef_.data(),
                                .jj = d.jj,
                                .kk = d.kk});
    };
    if (!sponge_in_tendencies()) { // else the fused kernels damped u, v, w and s
        damp(f_.ut, f_.u, sponge_uref_);
        damp(f_.vt, f_.v, sponge_vref_);
        if (f_.has_scalar) damp(f_.st, f_.s, sponge_sref_);
    }
    // The passive scalars towards their initial profiles.
    for (std::size_t n = 0; n < f_.scalars.size() && !sponge_in_tendencies(); ++n)
        damp(f_.scalars[n].ct, f_.scalars[n].c, sponge_cref_[n]);
}

template <typename T>
void Model<T>::tendencies(bool first, T b_dt, T a_next) {
    if (fused_tendencies()) {
        halo_.finish();                                 // the eddy viscosity's (closure())
        advection_diffusion_fused(first, b_dt, a_next); // the passive scalars too
    } else {
        advection();
        halo_.finish();
        diffusion();
    }
    // The sponge before the forcing, as the fused kernels damp: the two orders sum the
    // tendencies alike, bit for bit.
    sponge();
    large_scale_forcing();
}

template <typename T>
void Model<T>::large_scale_forcing() {
    if (cfg_.coriolis.enabled())
        launch_on_grid(sq::Coriolis<T>{.ut = f_.ut.data(),
                                       .vt = f_.vt.data(),
                                       .u = f_.u.data(),
                                       .v = f_.v.data(),
                                       .ug = coriolis_ug_.data(),
                                       .vg = coriolis_vg_.data(),
                                       .fc = T(cfg_.coriolis.f)});
    if (profile_forcing_) profile_forcing_->apply(f_);
}

template class Model<float>;
template class Model<double>;

} // namespace squall
