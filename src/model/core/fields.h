#pragma once
// All arrays of one rank: prognostic fields with their tendencies, diagnostic fields,
// and 2-D surface arrays. Fields are members, not looked up by name, so hot code stays
// free of string work. With on_device every array also has a device copy (field.h).
#include <vector>

#include "model/field.h"

namespace squall {

// A passive scalar (scalars.<name>; moist's qt): its field and tendency, and the bottom
// wall's flux and gradient (prescribed flux: set once; surface model: the gradient per step).
template <typename T>
struct PassiveScalar {
    Field3d<T> c, ct;
    DeviceArray<T> fluxbot, dcdz_bot;
};

template <typename T>
struct Fields {
    Field3d<T> u, v, w, s;     // prognostic: velocities and the scalar (th or b)
    Field3d<T> ut, vt, wt, st; // tendencies (low-storage RK accumulators)
    // The fused scalar kernels' RK stage writes the new scalar here (its neighbours still
    // read s), and the model then swaps it with s (Model::tendencies).
    Field3d<T> s_next;
    Field3d<T> p;              // pressure (also holds the pressure RHS)
    Field3d<T> evisc, strain2; // LES closure (strain2: only for the separate closure kernels)
    bool has_scalar = false;
    bool on_device = false;
    std::vector<PassiveScalar<T>> scalars; // in the order of Config::scalars
    Field3d<T> thv; // moist: the virtual potential temperature the buoyancy takes
    Field3d<T> ql;  // moist: the liquid water, for the statistics (not in the step)
    // moist: the hydrostatic reference pressure, its Exner function and the reference density
    // times dz, by level (ghost levels too; set once by Model::set_reference_state).
    DeviceArray<T> pref, exner_ref, rho_dz;

    // Surface arrays, indexed ij = i + j*jj over the full icells x jcells plane.
    DeviceArray<T> u_fluxbot, v_fluxbot, s_fluxbot; // kinematic fluxes at the bottom wall
    DeviceArray<T> dudz_bot, dvdz_bot, dsdz_bot;    // wall gradients (ghost cells)
    DeviceArray<T> ustar, obuk_inv;                 // surface-layer state

    // with_strain2: the closure passes the strain rate through an array (not the fused
    // StrainEviscSmag); only with with_les. with_scalar_stage: s_next (with with_scalar).
    // npassive passive scalars; with_thv: the moist thermo's thv; with_ql: its liquid water,
    // which only the statistics keep (cross-sections and fields derive theirs into scratch).
    Fields(const GridDims& d, bool with_scalar, bool with_les, bool with_strain2, bool with_surface,
           bool with_scalar_stage, bool device = false, int npassive = 0, bool with_thv = false,
           bool with_ql = false)
        : u(d, device), v(d, device), w(d, device), ut(d, device), vt(d, device), wt(d, device),
          p(d, device), has_scalar(with_scalar), on_device(device), scalars(std::size_t(npassive)) {
        for (PassiveScalar<T>& c : scalars) {
            c.c = Field3d<T>(d, device);
            c.ct = Field3d<T>(d, device);
            const std::size_t n = std::size_t(d.nplane());
            c.fluxbot.assign(n, T(0), device);
            c.dcdz_bot.assign(n, T(0), device);
        }
        if (with_thv) thv = Field3d<T>(d, device);
        if (with_ql) ql = Field3d<T>(d, device);
        if (with_scalar) {
            s = Field3d<T>(d, device);
            st = Field3d<T>(d, device);
            if (with_scalar_stage) s_next = Field3d<T>(d, device);
        }
        if (with_les) {
            evisc = Field3d<T>(d, device);
            if (with_strain2) strain2 = Field3d<T>(d, device);
        }
        if (with_surface) {
            const std::size_t n = std::size_t(d.nplane());
            for (auto* a : surface_arrays()) a->assign(n, T(0), device);
        }
    }

    std::vector<Field3d<T>*> fields_3d() {
        std::vector<Field3d<T>*> r;
        for (auto* f :
             {&u, &v, &w, &s, &ut, &vt, &wt, &st, &s_next, &p, &evisc, &strain2, &thv, &ql})
            if (f->size() > 0) r.push_back(f);
        for (PassiveScalar<T>& c : scalars) r.insert(r.end(), {&c.c, &c.ct});
        return r;
    }
    std::vector<DeviceArray<T>*> surface_arrays() {
        return {&u_fluxbot, &v_fluxbot, &s_fluxbot, &dudz_bot,
                &dvdz_bot,  &dsdz_bot,  &ustar,     &obuk_inv};
    }
    // The arrays to_device()/to_host() move: the surface arrays, the passive scalars' too.
    std::vector<DeviceArray<T>*> planes() {
        std::vector<DeviceArray<T>*> r = surface_arrays();
        for (PassiveScalar<T>& c : scalars) r.insert(r.end(), {&c.fluxbot, &c.dcdz_bot});
        return r;
    }
    // Copies every array to the device / back to the host (no-ops on the CPU).
    void to_device() {
        for (auto* f : fields_3d()) f->to_device();
        for (auto* a : planes()) a->to_device();
    }
    void to_host() {
        for (auto* f : fields_3d()) f->to_host();
        for (auto* a : planes()) a->to_host();
    }
};

} // namespace squall
