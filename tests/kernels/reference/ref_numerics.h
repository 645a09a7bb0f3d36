#pragma once
// Slow, independent reference implementations of the per-point kernels, written from
// docs/numerics.md and the kernel conventions (docs of kernels/*.cuh), NOT from kernels/*.cuh.
// Style is deliberately different from the kernels: every reference first evaluates explicit
// face fluxes / stresses into full 3-D arrays (NaN where not defined) and then differences
// them, accumulating in long double. Results are returned as full-size arrays holding the
// tendency contribution only (zero outside the computed range).
#include <functional>

#include "ref_grid.h"

namespace sqref {

// Location of a variable on the Arakawa C grid.
enum class Loc { U, V, W, S };

// Vertical flux order of 2i5 at the face between phi[m-1] and phi[m] (0 = wall, no flux),
// as given by the near-wall table of docs/numerics.md (shifted by half a cell for w).
int order_2i5_z(Loc loc, int m, int kstart, int kend);
using ZOrder = std::function<int(int m)>;

// Advection tendency -div(U phi) of phi at location loc. Scheme 2: F2 on every face.
Vec ref_advec_2(const RefGrid& g, Loc loc, const Vec& phi, const Vec& u, const Vec& v,
                const Vec& w);
// Scheme 2i5: F5 horizontally, near-wall order table vertically; zorder overrides the table
// (used only to show that the comparison is sensitive to the order of one face).
Vec ref_advec_2i5(const RefGrid& g, Loc loc, const Vec& phi, const Vec& u, const Vec& v,
                  const Vec& w, const ZOrder& zorder = {});

// S2 = 2 S_ij S_ij at centres, from the strain tensor evaluated at its natural points
// (diagonal at centres, off-diagonal at edges, squared and averaged over the 4 edges).
// s2_floor is the kernel's tiny positive constant.
Vec ref_strain2(const RefGrid& g, const Vec& u, const Vec& v, const Vec& w, double s2_floor);

struct EviscParams {
    const Vec* th = nullptr; // nullptr: neutral (N2 = 0)
    double g_over_thref = 9.81 / 300.0;
    double cs = 0.23, prandtl_t = 1.0 / 3.0;
    double z0m = 0.1;
    bool mason = false;
    double eps = 1e-12; // stability limiter: min(Ri/Pr_t, 1 - eps)
};
Vec ref_evisc_smag(const RefGrid& g, const Vec& strain2, const EviscParams& p);

// Momentum diffusion with K = evisc + nu (smag2). fluxbot/fluxtop (ij arrays, nullptr:
// resolved wall) replace the vertical wall stress by -flux.
Vec ref_diff_u_smag(const RefGrid& g, const Vec& u, const Vec& v, const Vec& w, const Vec& evisc,
                    double nu, const Vec* fluxbot, const Vec* fluxtop);
Vec ref_diff_v_smag(const RefGrid& g, const Vec& u, const Vec& v, const Vec& w, const Vec& evisc,
                    double nu, const Vec* fluxbot, const Vec* fluxtop);
Vec ref_diff_w_smag(const RefGrid& g, const Vec& u, const Vec& v, const Vec& w, const Vec& evisc,
                    double nu);
// Scalar diffusion, face diffusivity interp2(evisc)/Pr_t + kappa.
Vec ref_diff_c_smag(const RefGrid& g, const Vec& s, const Vec& evisc, double prandtl_t_inv,
                    double kappa, const Vec* fluxbot, const Vec* fluxtop);
// Constant-K Laplacian, density weighted in z; z_staggered: variable on half levels (w).
Vec ref_diff_const(const RefGrid& g, const Vec& a, double K, bool z_staggered);

// Thermodynamics, pressure, diagnostics (docs/numerics.md and the kernel conventions).
Vec ref_buoyancy_th(const RefGrid& g, const Vec& th, double g_over_thref, double thref);
Vec ref_buoyancy_b(const RefGrid& g, const Vec& b);
Vec ref_pres_in(const RefGrid& g, const Vec& u, const Vec& v, const Vec& w, const Vec& ut,
                const Vec& vt, const Vec& wt, double dtsi);
struct PresGrad {
    Vec ut, vt, wt; // contributions -grad p (wt zero at kstart)
};
PresGrad ref_pres_out(const RefGrid& g, const Vec& p);
Vec ref_divergence(const RefGrid& g, const Vec& u, const Vec& v, const Vec& w);
Vec ref_cfl(const RefGrid& g, const Vec& u, const Vec& v, const Vec& w);
Vec ref_dn_smag(const RefGrid& g, const Vec& evisc, double prandtl_t);
Vec ref_dn_const(const RefGrid& g, double K);

// forcing.cuh: the Coriolis tendencies of u and v (kernels add them).
struct CoriolisTend {
    Vec ut, vt;
};
CoriolisTend ref_coriolis(const RefGrid& g, const Vec& u, const Vec& v, double f, const Vec& ug,
                          const Vec& vg);

} // namespace sqref
