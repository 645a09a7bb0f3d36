#pragma once
// Monin-Obukhov surface layer (docs/numerics.md "Boundary conditions" -> surface model).
//
// Similarity functions of zeta = z/L (L: Obukhov length):
//   unstable (zeta < 0, Wilson 2001): phi = (1 + g |zeta|^(2/3))^(-1/2), g = 3.6 (m), 7.9 (h);
//   stable  (zeta >= 0):              phi_m = 1 + 5 zeta,  phi_h = (1 + 4 zeta)^2.
// psi(zeta) = integral_0^zeta (1 - phi(x))/x dx. For Wilson, substituting
// q = sqrt(1 + g s^(2/3)) with s = |x| turns the integrand into 2/(q+1) dq * 3/2, so
//   psi = 3 ln((1 + sqrt(1 + g |zeta|^(2/3))) / 2);
// stable: psi_m = -5 zeta, psi_h = -8 zeta - 8 zeta^2.
//
// Everything is written in terms of 1/L (obuk_inv) so that neutral (1/L = 0) is regular.
// Includes only common.cuh; the float/double math wrappers below keep float in float on
// the host (unqualified sqrt(float) would pick the double C function there).
#include "common.cuh"
#include "moist.cuh"

namespace sq {

namespace most {

// von Karman constant.
template <typename T>
SQ_HD constexpr T kappa_vk() {
    return T(0.4);
}

// Minimum wind speed (m/s) used in the Obukhov-length solve and u*: with |U1| -> 0 the
// similarity relations degenerate (free convection), so |U1| is replaced by max(|U1|, umin).
template <typename T>
SQ_HD constexpr T umin_default() {
    return T(0.1);
}

// |zeta|^(2/3) without pow: cbrt(zeta^2).
template <typename T>
SQ_HD T abs_pow23(T zeta) {
    return cbrt_(zeta * zeta);
}

// --- similarity functions ---------------------------------------------------------------
template <typename T>
SQ_HD T phi_m(T zeta) {
    if (zeta <= T(0)) return T(1) / sqrt_(T(1) + T(3.6) * abs_pow23(zeta));
    return T(1) + T(5) * zeta;
}

template <typename T>
SQ_HD T phi_h(T zeta) {
    if (zeta <= T(0)) return T(1) / sqrt_(T(1) + T(7.9) * abs_pow23(zeta));
    const T a = T(1) + T(4) * zeta;
    return a * a;
}

template <typename T>
SQ_HD T psi_m(T zeta) {
    if (zeta <= T(0)) return T(3) * log_(T(0.5) * (T(1) + sqrt_(T(1) + T(3.6) * abs_pow23(zeta))));
    return T(-5) * zeta;
}

template <typename T>
SQ_HD T psi_h(T zeta) {
    if (zeta <= T(0)) return T(3) * log_(T(0.5) * (T(1) + sqrt_(T(1) + T(7.9) * abs_pow23(zeta))));
    return T(-8) * zeta * (T(1) + zeta);
}

// --- transfer coefficients ----------------------------------------------------------------
// fm = kappa / (ln(z1/z0m) - psi_m(z1/L) + psi_m(z0m/L)), so that u* = |U1| fm.
// fm_log takes ln(z1/z0m) precomputed: the Obukhov-length solve evaluates fm ~10 times
// per column with the same heights.
template <typename T>
SQ_HD T fm_log(T log_z1_z0m, T z1, T z0m, T obuk_inv) {
    return kappa_vk<T>() / (log_z1_z0m - psi_m(z1 * obuk_inv) + psi_m(z0m * obuk_inv));
}
template <typename T>
SQ_HD T fm(T z1, T z0m, T obuk_inv) {
    return fm_log(log_(z1 / z0m), z1, z0m, obuk_inv);
}

// fm and phi_m(z1/L) of one face together. Unstable, both come from q = 1/phi_m(z1/L):
// |z0m/L|^(2/3) is r23 = (z0m/z1)^(2/3) times |z1/L|^(2/3), and the two psi_m combine into
// one log, psi_m(z1/L) - psi_m(z0m/L) = 3 ln((1 + q) / (1 + q0)). One cube root and one
// log per face instead of three each.
template <typename T>
struct FmPhiM {
    T fm, phi_m;
};
template <typename T>
SQ_HD FmPhiM<T> fm_phi_m(T log_z1_z0m, T r23, T z1, T z0m, T obuk_inv) {
    const T zeta = z1 * obuk_inv;
    if (zeta > T(0)) return {fm_log(log_z1_z0m, z1, z0m, obuk_inv), T(1) + T(5) * zeta};
    const T a23 = abs_pow23(zeta);
    const T q = sqrt_(T(1) + T(3.6) * a23), q0 = sqrt_(T(1) + T(3.6) * r23 * a23);
    return {kappa_vk<T>() / (log_z1_z0m - T(3) * log_((T(1) + q) / (T(1) + q0))), T(1) / q};
}

// fh = kappa / (ln(z1/z0h) - psi_h(z1/L) + psi_h(z0h/L)): scalar flux = -u* fh (s1 - s_0).
template <typename T>
SQ_HD T fh(T z1, T z0h, T obuk_inv) {
    return kappa_vk<T>() / (log_(z1 / z0h) - psi_h(z1 * obuk_inv) + psi_h(z0h * obuk_inv));
}

// --- Obukhov length -----------------------------------------------------------------------
// With u* = U fm(zeta) and L = -u*^3/(kappa B0), zeta = z1/L obeys
//   G(zeta) = zeta fm(zeta)^3 - Rb = 0,   Rb = -z1 kappa B0 / U^3.
// Unstable (B0 > 0, Rb < 0): zeta fm^3 decreases monotonically from 0 to -inf as zeta goes
//   to -inf, and fm(zeta) >= fm(0), so the root lies in [Rb/fm(0)^3, 0].
// Stable (B0 < 0, Rb > 0): with psi_m = -5 zeta, zeta fm^3 = kappa^3 zeta/(A + B zeta)^3
//   (A = ln(z1/z0m), B = 5 (1 - z0m/z1)) rises to its maximum at zeta* = A/(2B) and then
//   falls. The physical root is on [0, zeta*]; when Rb exceeds the maximum (strong cooling,
//   weak wind) no solution exists and zeta* is returned: the most stable state the
//   surface layer can carry.
// solve_obukhov_bracketed refines the bracket with the Illinois variant of regula falsi
// (always bracketed, superlinear), stopping at |G| <= tol |Rb| (tol ~ 1e-13 in double, 1e-6
// in float); solve_obukhov uses it for stable columns and Newton's method (below) for
// unstable ones, which takes fewer evaluations of the similarity functions.
template <typename T>
struct ObukResult {
    T ustar;
    T obuk_inv;
};

template <typename T>
SQ_HD T most_g(T zeta, T log_z1_z0m, T z1, T z0m, T rb) {
    const T f = fm_log(log_z1_z0m, z1, z0m, zeta / z1);
    return zeta * f * f * f - rb;
}

// zeta* = A/(2B), the most stable state the surface layer can carry (see above).
template <typename T>
SQ_HD T zeta_stable_max(T z1, T z0m) {
    const T A = log_(z1 / z0m), B = T(5) * (T(1) - z0m / z1);
    return A / (T(2) * B);
}

// The root of g on the bracket [a, b] (ga = g(a) <= 0 <= gb = g(b)) by the Illinois variant
// of regula falsi: always bracketed, superlinear. Stops at |g| <= tol_g or when the bracket
// is narrower than tol relative to the root.
template <typename T, class G>
SQ_HD T refine_root(const G& g, T a, T b, T ga, T gb, T tol, T tol_g) {
    T x = a;
    int side = 0; // which end was kept last time (Illinois halving)
    for (int it = 0; it < 200; ++it) {
        x = (a * gb - b * ga) / (gb - ga);
        if (!(x > a && x < b)) x = T(0.5) * (a + b); // degenerate: bisect
        const T gx = g(x);
        if (abs_(gx) <= tol_g || b - a <= tol * abs_(x)) break;
        if (gx < T(0)) {
            a = x;
            ga = gx;
            if (side == -1) gb *= T(0.5);
            side = -1;
        } else {
            b = x;
            gb = gx;
            if (side == 1) ga *= T(0.5);
            side = 1;
        }
    }
    return x;
}

template <typename T>
SQ_HD constexpr T root_tolerance() {
    return sizeof(T) == 4 ? T(1e-6) : T(1e-13);
}

// U: wind speed at z1 (already limited by umin); b0: surface buoyancy flux (m2/s3).
template <typename T>
SQ_HD ObukResult<T> solve_obukhov_bracketed(T U, T b0, T z1, T z0m) {
    const T kap = kappa_vk<T>();
    const T log_z = log_(z1 / z0m);
    const T f0 = fm_log(log_z, z1, z0m, T(0));
    ObukResult<T> r;
    if (b0 == T(0)) {
        r.ustar = U * f0;
        r.obuk_inv = T(0);
        return r;
    }
    const T rb = -z1 * kap * b0 / (U * U * U);
    T a, b; // bracket, G(a) <= 0 <= G(b)
    if (rb < T(0)) {
        a = rb / (f0 * f0 * f0);
        b = T(0);
    } else {
        const T zmax = zeta_stable_max(z1, z0m);
        if (most_g(zmax, log_z, z1, z0m, rb) <= T(0)) {
            r.ustar = U * fm_log(log_z, z1, z0m, zmax / z1);
            r.obuk_inv = zmax / z1;
            return r;
        }
        a = T(0);
        b = zmax;
    }
    // At zeta = 0 (one end of either bracket) G is 0 - Rb exactly (0 * f^3 = +0).
    const T ga = a == T(0) ? T(0) - rb : most_g(a, log_z, z1, z0m, rb);
    const T gb = b == T(0) ? T(0) - rb : most_g(b, log_z, z1, z0m, rb);
    const T tol = root_tolerance<T>();
    const T zeta = refine_root([&](T x) { return most_g(x, log_z, z1, z0m, rb); }, a, b, ga, gb,
                               tol, tol * abs_(rb));
    r.obuk_inv = zeta / z1;
    r.ustar = U * fm_log(log_z, z1, z0m, r.obuk_inv);
    return r;
}

// The first level's wind speed relative to the wall at the centre of the column whose first
// level is ijk (u and v averaged from their faces), at least umin.
template <typename T>
SQ_HD T column_wind(const T* u, const T* v, int ijk, int jj, T ubot, T vbot, T umin) {
    const T du = interp2(u[ijk], u[ijk + 1]) - ubot;
    const T dv = interp2(v[ijk], v[ijk + jj]) - vbot;
    return max_(sqrt_(du * du + dv * dv), umin);
}

// --- prescribed surface value ---------------------------------------------------------------
// With the surface scalar s0 given instead of its flux, the bulk relations
//   u* = U fm,  flux = -u* fh (s1 - s0),  1/L = -kappa g_over_thref flux / u*^3
// give, with Dm = kappa/fm and Dh = kappa/fh, an equation for zeta = z1/L alone:
//   G(zeta) = zeta Dh(zeta) / Dm(zeta)^2 - Rib = 0,  Rib = z1 g_over_thref (s1 - s0) / U^2.
// G(0) = -Rib, and zeta Dh/Dm^2 is unbounded on both sides (stable: Dh grows like zeta^2,
// Dm like zeta; unstable: Dm and Dh fall like |zeta|^(-1/3)), so every Rib has a root: no
// stable limit as with a prescribed flux. The bracket grows from the neutral estimate
// zeta = Rib ln(z1/z0m)^2 / ln(z1/z0h) until G changes sign.
template <typename T>
struct BulkResult {
    T ustar, obuk_inv, flux;
};

template <typename T>
SQ_HD BulkResult<T> solve_bulk(T U, T ds, T g_over_thref, T z1, T z0m, T z0h) {
    const T log_m = log_(z1 / z0m), log_h = log_(z1 / z0h), rm = z0m / z1, rh = z0h / z1;
    const T rib = z1 * g_over_thref * ds / (U * U);
    auto dm = [&](T zeta) { return log_m - psi_m(zeta) + psi_m(rm * zeta); };
    auto dh = [&](T zeta) { return log_h - psi_h(zeta) + psi_h(rh * zeta); };
    T zeta = T(0);
    if (rib != T(0)) {
        // G is negative below the root and positive above it; keep the bracket ordered.
        auto g = [&](T x) {
            const T m = dm(x);
            return x * dh(x) / (m * m) - rib;
        };
        T far = rib * log_m * log_m / log_h, gfar = g(far);
        for (int it = 0; it < 64 && (rib > T(0) ? gfar < T(0) : gfar > T(0)); ++it) {
            far *= T(2);
            gfar = g(far);
        }
        const T tol = root_tolerance<T>();
        zeta = rib > T(0) ? refine_root(g, T(0), far, -rib, gfar, tol, tol * abs_(rib))
                          : refine_root(g, far, T(0), gfar, -rib, tol, tol * abs_(rib));
    }
    BulkResult<T> r;
    r.ustar = U * kappa_vk<T>() / dm(zeta);
    r.flux = -r.ustar * kappa_vk<T>() / dh(zeta) * ds;
    r.obuk_inv = zeta / z1;
    return r;
}

// Unstable root (Rb < 0) by Newton's method in t = ln(-zeta), on
//   H(t) = ln(zeta fm(zeta)^3 / Rb) = t + 3 ln(kappa) - ln(-Rb) - 3 ln D,
//   fm = kappa / D,  D = A - psi_m(zeta) + psi_m(r zeta),  A = ln(z1/z0m),  r = z0m/z1.
// As x psi_m'(x) = 1 - phi_m(x), dD/dt = zeta dD/dzeta = phi_m(zeta) - phi_m(r zeta), so
// dH/dt = 1 + 3 (phi_m(r zeta) - phi_m(zeta)) / D >= 1 (phi_m falls with |zeta|): H is
// monotonic and nearly linear in t (psi_m grows like ln|zeta|), and Newton from the
// start below takes 3-5 evaluations to |H| <= tol (the accuracy is in docs/numerics.md). In t,
// |zeta|^(2/3) = exp(2t/3) and |r zeta|^(2/3) = r^(2/3) exp(2t/3), so an evaluation costs one exp,
// the two sqrt that psi_m and phi_m share, and two log; u* comes from the fm of the accepted point.
// tol: 1e-13 in double; 1e-5 in float, above the float round-off of H (D = A - psi_m + psi_m
// cancels when strongly unstable). The cap on the evaluations only guards against a non-finite
// input.
template <typename T>
SQ_HD ObukResult<T> solve_obukhov_unstable(T U, T rb, T z1, T z0m) {
    const T kap = kappa_vk<T>();
    const T log_z = log_(z1 / z0m), r = z0m / z1;
    const T r13 = cbrt_(r), r23 = r13 * r13;
    const T tol = sizeof(T) == 4 ? T(1e-5) : T(1e-13);
    const T h0 = T(3) * log_(kap) - log_(-rb); // H = t + h0 - 3 ln D
    // Start: 1/|zeta| = 1/|zeta_n| + 1/|zeta_f|, from the neutral root |zeta_n| = -Rb/fm(0)^3
    // and the free-convection one (|zeta| -> inf: D -> 3 (r^(-1/3) - 1) phi_m(zeta), so
    // zeta^2 = -Rb 27 (r^(-1/3) - 1)^3 / (kappa^3 3.6^(3/2))). It saves one evaluation.
    const T f0 = kap / log_z, c = T(1) / r13 - T(1);
    const T zeta_n = -rb / (f0 * f0 * f0);
    const T zeta_f = sqrt_(-rb * T(27) * c * c * c / (kap * kap * kap * T(3.6) * sqrt_(T(3.6))));
    T t = -log_(T(1) / zeta_n + T(1) / zeta_f);
    T f = f0, a23 = T(0); // fm and |zeta|^(2/3) at t
    for (int it = 0; it < 16; ++it) {
        a23 = exp_(t * T(2.0 / 3.0));
        const T q = sqrt_(T(1) + T(3.6) * a23);         // 1 / phi_m(zeta)
        const T q_r = sqrt_(T(1) + T(3.6) * r23 * a23); // 1 / phi_m(r zeta)
        // psi_m(r zeta) - psi_m(zeta) = 3 ln((1 + q_r) / (1 + q)).
        const T d = log_z + T(3) * log_((T(1) + q_r) / (T(1) + q));
        f = kap / d;
        const T h = t + h0 - T(3) * log_(d);
        if (!(abs_(h) > tol)) break;
        t -= h / (T(1) + T(3) * (T(1) / q_r - T(1) / q) / d);
    }
    ObukResult<T> res;
    res.ustar = U * f;
    res.obuk_inv = -a23 * sqrt_(a23) / z1; // zeta = -|zeta|^(2/3)^(3/2)
    return res;
}

// The Obukhov length of a column: Newton for unstable columns (B0 > 0), the bracketed solve
// for neutral and stable ones (whose similarity functions are polynomials, so each
// evaluation is cheap).
template <typename T>
SQ_HD ObukResult<T> solve_obukhov(T U, T b0, T z1, T z0m) {
    if (b0 > T(0))
        return solve_obukhov_unstable(U, -z1 * kappa_vk<T>() * b0 / (U * U * U), z1, z0m);
    return solve_obukhov_bracketed(U, b0, z1, z0m);
}

} // namespace most

// --- per-column functors (operator()(i, j); 2-D arrays indexed ij = i + j*jj) --------------

// u* and 1/L at each column from the lowest-level wind (cell centre, relative to the wall
// velocity ubot/vbot) and the prescribed surface scalar flux sfluxbot (kinematic, K m/s),
// with B0 = g_over_thref * sfluxbot (use g_over_thref = 1 for a buoyancy scalar).
// sfluxbot == nullptr means neutral (B0 = 0). Reads u[i+1] and v[j+1]: evaluate on
// [istart-1, iend) x [jstart-1, jend) after the halo exchange, so that the face functors
// below find both neighbouring columns without a 2-D exchange.
template <typename T>
struct SurfaceMost {
    T* ustar;          // writes
    T* obuk_inv;       // writes
    const T *u, *v;    // 3-D
    const T* sfluxbot; // 2-D, nullable
    T g_over_thref;
    T ubot, vbot; // wall velocities
    T z1;         // z[kstart]
    T z0m;
    T umin; // minimum wind speed (most::umin_default)
    int kstart;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.plane(SQ_ARG(ustar), sq::Use::out).plane(SQ_ARG(obuk_inv), sq::Use::out);
        d.fields(SQ_ARG(u), SQ_ARG(v)).plane(SQ_ARG(sfluxbot));
        d.scalars(SQ_ARG(g_over_thref), SQ_ARG(ubot), SQ_ARG(vbot), SQ_ARG(z1), SQ_ARG(z0m),
                  SQ_ARG(umin), SQ_ARG(kstart), SQ_ARG(jj), SQ_ARG(kk));
    }
    static constexpr const char* name = "surface_most";
    SQ_HD void operator()(int i, int j) const {
        const int ij = index2(i, j, jj);
        const T U = most::column_wind(u, v, index3(i, j, kstart, jj, kk), jj, ubot, vbot, umin);
        const T b0 = sfluxbot ? g_over_thref * sfluxbot[ij] : T(0);
        const most::ObukResult<T> r = most::solve_obukhov(U, b0, z1, z0m);
        ustar[ij] = r.ustar;
        obuk_inv[ij] = r.obuk_inv;
    }
};

// The same with the surface value s0 of the scalar prescribed instead of its flux
// (most::solve_bulk): writes the flux too, which the scalar's wall gradient (SurfaceScalar)
// and diffusion then use as with a prescribed one. Same columns as SurfaceMost.
template <typename T>
struct SurfaceMostValue {
    T* ustar;           // writes
    T* obuk_inv;        // writes
    T* sfluxbot;        // writes
    const T *u, *v, *s; // 3-D
    T s0;               // surface value of the scalar
    T g_over_thref;
    T ubot, vbot;
    T z1, z0m, z0h;
    T umin;
    int kstart;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.plane(SQ_ARG(ustar), sq::Use::out).plane(SQ_ARG(obuk_inv), sq::Use::out);
        d.plane(SQ_ARG(sfluxbot), sq::Use::out).fields(SQ_ARG(u), SQ_ARG(v), SQ_ARG(s));
        d.scalars(SQ_ARG(s0), SQ_ARG(g_over_thref), SQ_ARG(ubot), SQ_ARG(vbot), SQ_ARG(z1),
                  SQ_ARG(z0m), SQ_ARG(z0h), SQ_ARG(umin), SQ_ARG(kstart), SQ_ARG(jj), SQ_ARG(kk));
    }
    static constexpr const char* name = "surface_most_value";
    SQ_HD void operator()(int i, int j) const {
        const int ij = index2(i, j, jj), ijk = index3(i, j, kstart, jj, kk);
        const T U = most::column_wind(u, v, ijk, jj, ubot, vbot, umin);
        const most::BulkResult<T> r = most::solve_bulk(U, s[ijk] - s0, g_over_thref, z1, z0m, z0h);
        ustar[ij] = r.ustar;
        obuk_inv[ij] = r.obuk_inv;
        sfluxbot[ij] = r.flux;
    }
};

// 1 for a column whose stable Obukhov solve had no root and returned zeta* (strong
// cooling, weak wind), else 0: summed over the interior, it tells the user how many
// columns run at the limit. A 2-D reduction over the range's k = 0 level.
template <typename T>
struct SurfaceStableLimit {
    const T* obuk_inv; // 2-D
    T z1, z0m;
    int jj;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.plane(SQ_ARG(obuk_inv)).scalars(SQ_ARG(z1), SQ_ARG(z0m), SQ_ARG(jj));
    }
    static constexpr const char* name = "surface_stable_limit";
    static constexpr Traits traits{.summed = true}; // a count of columns
    SQ_HD T operator()(int i, int j, int) const {
        return obuk_inv[index2(i, j, jj)] >= most::zeta_stable_max(z1, z0m) / z1 ? T(1) : T(0);
    }
};

// Surface momentum fluxes and gradients on the u- and v-faces. Choice: u* and 1/L are
// interpolated (interp2) from the two neighbouring columns to the face; fm and phi_m are
// then evaluated at the face with that 1/L. Flux:   ufluxbot = -(u - ubot) u* fm,
// or with a prescribed u* (ustar_given, boundary.ustar) the stress u*^2 against the face's
// wind: ufluxbot = -u*^2 du / |U|, du = u - ubot, |U| = max(sqrt(du^2 + dv^2), umin), dv the
// average of the four v around the u-face (the v-face alike).
// Gradient from the flux-gradient relation with K_m = kappa z1 u* / phi_m(z1/L):
//   dudz_bot = -ufluxbot / K_m = -ufluxbot phi_m / (u* kappa z1),
// so K_m dudz_bot = -ufluxbot exactly (the ghost cells then carry the same stress).
template <typename T>
struct SurfaceMomentumFlux {
    T *ufluxbot, *vfluxbot;    // writes
    T *dudz_bot, *dvdz_bot;    // writes
    const T *u, *v;            // 3-D
    const T *ustar, *obuk_inv; // 2-D, valid at i-1 and j-1 too
    T ubot, vbot;
    T z1, z0m;
    T umin;          // with ustar_given: the least wind speed
    int ustar_given; // 1: the stress is u*^2 (u* prescribed)
    int kstart;
    int jj, kk;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.plane(SQ_ARG(ufluxbot), sq::Use::out).plane(SQ_ARG(vfluxbot), sq::Use::out);
        d.plane(SQ_ARG(dudz_bot), sq::Use::out).plane(SQ_ARG(dvdz_bot), sq::Use::out);
        d.fields(SQ_ARG(u), SQ_ARG(v)).planes(SQ_ARG(ustar), SQ_ARG(obuk_inv));
        d.scalars(SQ_ARG(ubot), SQ_ARG(vbot), SQ_ARG(z1), SQ_ARG(z0m), SQ_ARG(umin),
                  SQ_ARG(ustar_given), SQ_ARG(kstart), SQ_ARG(jj), SQ_ARG(kk));
    }
    static constexpr const char* name = "surface_momentum_flux";
    // The flux of one face from its wind along the face normal (du) and, with a prescribed
    // u*, across it (dv_across, only read then).
    SQ_HD T face_flux(T du, T dv_across, T us, T fm) const {
        if (!ustar_given) return -du * us * fm;
        return -us * us * du / max_(sqrt_(du * du + dv_across * dv_across), umin);
    }
    SQ_HD void operator()(int i, int j) const {
        const int ij = index2(i, j, jj);
        const int ijk = index3(i, j, kstart, jj, kk);
        const T kz = most::kappa_vk<T>() * z1;
        const T log_z = log_(z1 / z0m), r23 = most::abs_pow23(z0m / z1); // the same per face
        { // u-face between columns i-1 and i
            const T us = interp2(ustar[ij - 1], ustar[ij]);
            const T li = interp2(obuk_inv[ij - 1], obuk_inv[ij]);
            const most::FmPhiM<T> f = most::fm_phi_m(log_z, r23, z1, z0m, li);
            const T dv = ustar_given ? interp2(interp2(v[ijk - 1], v[ijk]),
                                               interp2(v[ijk - 1 + jj], v[ijk + jj])) -
                                           vbot
                                     : T(0);
            const T flux = face_flux(u[ijk] - ubot, dv, us, f.fm);
            ufluxbot[ij] = flux;
            dudz_bot[ij] = -flux * f.phi_m / (us * kz);
        }
        { // v-face between columns j-1 and j
            const T us = interp2(ustar[ij - jj], ustar[ij]);
            const T li = interp2(obuk_inv[ij - jj], obuk_inv[ij]);
            const most::FmPhiM<T> f = most::fm_phi_m(log_z, r23, z1, z0m, li);
            const T du = ustar_given ? interp2(interp2(u[ijk - jj], u[ijk]),
                                               interp2(u[ijk - jj + 1], u[ijk + 1])) -
                                           ubot
                                     : T(0);
            const T flux = face_flux(v[ijk] - vbot, du, us, f.fm);
            vfluxbot[ij] = flux;
            dvdz_bot[ij] = -flux * f.phi_m / (us * kz);
        }
    }
};

// Surface gradient of a scalar with a prescribed flux (at the column centre):
//   dsdz_bot = -fluxbot phi_h(z1/L) / (u* kappa z1)   (K_h = kappa z1 u* / phi_h).
template <typename T>
struct SurfaceScalar {
    T* dsdz_bot;               // writes
    const T* fluxbot;          // 2-D, prescribed
    const T *ustar, *obuk_inv; // 2-D
    T z1;
    int jj;
    // The one declaration of the members (kernels/declare.cuh).
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.plane(SQ_ARG(dsdz_bot), sq::Use::out);
        d.planes(SQ_ARG(fluxbot), SQ_ARG(ustar), SQ_ARG(obuk_inv));
        d.scalars(SQ_ARG(z1), SQ_ARG(jj));
    }
    static constexpr const char* name = "surface_scalar";
    SQ_HD void operator()(int i, int j) const {
        const int ij = index2(i, j, jj);
        dsdz_bot[ij] =
            -fluxbot[ij] * most::phi_h(z1 * obuk_inv[ij]) / (ustar[ij] * most::kappa_vk<T>() * z1);
    }
};

// The surface flux of the virtual potential temperature (thermo.type moist), which sets the
// Obukhov length, from the prescribed fluxes of thl and qt and the lowest level's values
// (unsaturated at the surface, so thv = thl (1 + c qt) with c = Rv/Rd - 1):
//   thv_flux = thl_flux (1 + c qt1) + c thl1 qt_flux.
// Same columns as SurfaceMost, which it precedes.
template <typename T>
struct SurfaceVirtualFlux {
    T* thv_fluxbot; // writes
    const T *thl_fluxbot, *qt_fluxbot;
    const T *thl, *qt; // 3-D
    int kstart;
    int jj, kk;
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.plane(SQ_ARG(thv_fluxbot), sq::Use::out).planes(SQ_ARG(thl_fluxbot), SQ_ARG(qt_fluxbot));
        d.fields(SQ_ARG(thl), SQ_ARG(qt)).scalars(SQ_ARG(kstart), SQ_ARG(jj), SQ_ARG(kk));
    }
    static constexpr const char* name = "surface_virtual_flux";
    SQ_HD void operator()(int i, int j) const {
        const int ij = index2(i, j, jj), ijk = index3(i, j, kstart, jj, kk);
        constexpr T c = moist::Constants<T>::rv / moist::Constants<T>::rd - T(1);
        thv_fluxbot[ij] = thl_fluxbot[ij] * (T(1) + c * qt[ijk]) + c * thl[ijk] * qt_fluxbot[ij];
    }
};

// A prescribed friction velocity (boundary.ustar): u* = ustar0 everywhere and 1/L from the
// surface buoyancy flux B0 = g_over_thref sfluxbot, 1/L = -kappa B0 / u*^3 (sfluxbot ==
// nullptr: neutral). Same columns as SurfaceMost.
template <typename T>
struct SurfaceUstar {
    T* ustar;          // writes
    T* obuk_inv;       // writes
    const T* sfluxbot; // 2-D, nullable
    T ustar0, g_over_thref;
    int jj;
    template <class D>
    SQ_HD constexpr void declare(D& d) const {
        d.plane(SQ_ARG(ustar), sq::Use::out).plane(SQ_ARG(obuk_inv), sq::Use::out);
        d.plane(SQ_ARG(sfluxbot)).scalars(SQ_ARG(ustar0), SQ_ARG(g_over_thref), SQ_ARG(jj));
    }
    static constexpr const char* name = "surface_ustar";
    SQ_HD void operator()(int i, int j) const {
        const int ij = index2(i, j, jj);
        const T b0 = sfluxbot ? g_over_thref * sfluxbot[ij] : T(0);
        ustar[ij] = ustar0;
        obuk_inv[ij] = -most::kappa_vk<T>() * b0 / (ustar0 * ustar0 * ustar0);
    }
};

// Every kernel of this header (tests and benchmarks iterate over them).
using SurfaceKernels =
    KernelList<SurfaceMost, SurfaceMostValue, SurfaceStableLimit, SurfaceMomentumFlux,
               SurfaceScalar, SurfaceVirtualFlux, SurfaceUstar>;

} // namespace sq
