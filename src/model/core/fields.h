#pragma once
// All arrays of one rank: prognostic fields with their tendencies, diagnostic fields,
// and 2-D surface arrays. Fields are members, not looked up by name, so hot code stays
// free of string work.
#include <vector>

#include "model/field.h"

namespace squall {

template <typename T>
struct Fields {
    Field3d<T> u, v, w, s;     // prognostic: velocities and the scalar (th or b)
    Field3d<T> ut, vt, wt, st; // tendencies (low-storage RK accumulators)
    Field3d<T> p;              // pressure (also holds the pressure RHS)
    Field3d<T> evisc, strain2; // LES closure
    bool has_scalar = false;

    // Surface arrays, indexed ij = i + j*jj over the full icells x jcells plane.
    std::vector<T> u_fluxbot, v_fluxbot, s_fluxbot; // kinematic fluxes at the bottom wall
    std::vector<T> dudz_bot, dvdz_bot, dsdz_bot;    // wall gradients (ghost cells)
    std::vector<T> ustar, obuk_inv;                 // surface-layer state

    Fields(const GridDims& d, bool with_scalar, bool with_les, bool with_surface)
        : u(d), v(d), w(d), ut(d), vt(d), wt(d), p(d), has_scalar(with_scalar) {
        if (with_scalar) {
            s = Field3d<T>(d);
            st = Field3d<T>(d);
        }
        if (with_les) {
            evisc = Field3d<T>(d);
            strain2 = Field3d<T>(d);
        }
        if (with_surface) {
            const std::size_t n = std::size_t(d.icells) * d.jcells;
            for (auto* a : {&u_fluxbot, &v_fluxbot, &s_fluxbot, &dudz_bot, &dvdz_bot, &dsdz_bot,
                            &ustar, &obuk_inv})
                a->assign(n, T(0));
        }
    }
};

} // namespace squall
