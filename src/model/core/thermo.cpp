// Moist thermodynamics (thermo.type moist): the hydrostatic reference state and the virtual
// potential temperature the buoyancy takes (docs/numerics.md "Moist thermodynamics").
#include <cmath>

#include "backends/launch.h"
#include "kernels/moist.cuh"
#include "kernels/thermo.cuh"
#include "model/core/init.h"
#include "model/core/model.h"

namespace squall {

// The reference pressure by level from thermo.pbot, hydrostatic for the initial profiles of
// thl and qt (unperturbed): d ln p/dz = -g / (Rd Tv), with the virtual temperature Tv = thv
// exner of the saturation-adjusted state at that pressure. Each step (surface face to the
// first centre, centre to face, face to centre) takes the trapezoidal rule in 1/Tv, whose Tv
// at the far end depends on the pressure sought: a fixed-point iteration, which converges in
// a few sweeps (the dependence is weak). The reference is a property of the case, so a
// restart recomputes the same one. Ghost levels included (the closure reads thv there).
template <typename T>
void Model<T>::set_reference_state() {
    const GridDims& d = g_.d;
    qt_ = cfg_.scalar_index("qt");
    const ScalarConfig& qt_cfg = cfg_.scalars[std::size_t(qt_)];
    const double g = cfg_.gravity, rd = sq::moist::Constants<double>::rd;
    auto virtual_temperature = [&](double z, double p) {
        const double thl = initial_scalar_profile(cfg_.init, std::max(z, 0.0));
        const double qt = initial_passive_profile(cfg_.init, qt_cfg, std::max(z, 0.0));
        const double ex = sq::moist::exner(p);
        return sq::moist::thv_from_thl(thl, qt, p, ex) * ex;
    };
    // The pressure at z from the pressure p0 at z0.
    auto hydrostatic = [&](double z0, double p0, double z) {
        const double a0 = 1.0 / virtual_temperature(z0, p0);
        double p = p0;
        for (int it = 0; it < 6; ++it)
            p = p0 * std::exp(-g * (z - z0) / rd * 0.5 * (a0 + 1.0 / virtual_temperature(z, p)));
        return p;
    };
    std::vector<double> p(std::size_t(d.kcells), 0.0);
    double p_face = cfg_.pbot;
    p[std::size_t(d.kstart - 1)] =
        hydrostatic(double(g_.zh[d.kstart]), p_face, double(g_.z[d.kstart - 1]));
    for (int k = d.kstart; k <= d.kend; ++k) {
        const double zc = double(g_.z[k]);
        p[std::size_t(k)] = hydrostatic(double(g_.zh[k]), p_face, zc);
        if (k < d.kend) p_face = hydrostatic(zc, p[std::size_t(k)], double(g_.zh[k + 1]));
    }
    f_.pref.assign(std::size_t(d.kcells), T(0), on_device_);
    f_.exner_ref.assign(std::size_t(d.kcells), T(0), on_device_);
    rhoref_.assign(std::size_t(d.kcells), 0.0);
    for (int k = d.kstart - 1; k <= d.kend; ++k) {
        const std::size_t n = std::size_t(k);
        f_.pref[n] = T(p[n]);
        f_.exner_ref[n] = T(sq::moist::exner(p[n]));
        rhoref_[n] = p[n] / (rd * virtual_temperature(double(g_.z[k]), p[n]));
    }
    f_.rho_dz.assign(std::size_t(d.kcells), T(0), on_device_);
    for (int k = d.kstart; k < d.kend; ++k)
        f_.rho_dz[std::size_t(k)] = T(rhoref_[std::size_t(k)] * double(g_.dz[k]));
    f_.pref.to_device();
    f_.exner_ref.to_device();
    f_.rho_dz.to_device();
    if (surface()) thv_fluxbot_.assign(std::size_t(d.nplane()), T(0), on_device_);
}

// thv at every interior column, on the interior levels and the ghost levels next to the walls.
template <typename T>
void Model<T>::thermo_state() {
    if (!moist()) return;
    const GridDims& d = g_.d;
    launch(sq::Range3{d.istart, d.iend, d.jstart, d.jend, d.kstart - 1, d.kend + 1},
           sq::ThvMoist<T>{.thv = f_.thv.data(),
                           .thl = f_.s.data(),
                           .qt = f_.scalars[std::size_t(qt_)].c.data(),
                           .pref = f_.pref.data(),
                           .exner_ref = f_.exner_ref.data(),
                           .jj = d.jj,
                           .kk = d.kk});
}

// thv (thermo_state) and ql of the current state on the host, for the statistics: one
// saturation adjustment per point each, by the kernels (on the GPU there).
template <typename T>
void Model<T>::moist_state_for_stats() {
    thermo_state();
    const GridDims& d = g_.d;
    launch(range_c(), sq::QlMoist<T>{.ql = f_.ql.data(),
                                     .thl = f_.s.data(),
                                     .qt = f_.scalars[std::size_t(qt_)].c.data(),
                                     .pref = f_.pref.data(),
                                     .exner_ref = f_.exner_ref.data(),
                                     .jj = d.jj,
                                     .kk = d.kk});
    f_.thv.to_host();
    f_.ql.to_host();
}

template void Model<float>::set_reference_state();
template void Model<double>::set_reference_state();
template void Model<float>::thermo_state();
template void Model<double>::thermo_state();
template void Model<float>::moist_state_for_stats();
template void Model<double>::moist_state_for_stats();

} // namespace squall
