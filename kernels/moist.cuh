#pragma once
// Non-precipitating moist thermodynamics, per point (docs/numerics.md "Moist
// thermodynamics"): the prognostic liquid-water potential temperature thl and total water
// qt give, at a level's reference pressure p and Exner function exner = (p/p0)^(Rd/cp),
// the temperature T and the liquid water ql by saturation adjustment, and the virtual
// potential temperature that the buoyancy takes:
//   thl = th - Lv/(cp exner) ql,   th = T / exner,
//   ql  = max(0, qt - qsat(p, T)),
//   thv = th (1 + (Rv/Rd - 1) qv - ql) = th (1 + (Rv/Rd - 1) qt - (Rv/Rd) ql),  qv = qt - ql.
// Saturation vapour pressure over liquid water from Magnus' formula (Bolton 1980):
//   es(T) = 611.2 exp(17.67 (T - 273.15) / (T - 29.65)) Pa.
#include "common.cuh"

namespace sq {

namespace moist {

// Physical constants (SI).
template <typename T>
struct Constants {
    static constexpr T rd = T(287.04); // gas constant of dry air (J/kg/K)
    static constexpr T rv = T(461.5);  // gas constant of water vapour (J/kg/K)
    static constexpr T cp = T(1005.0); // specific heat of dry air at constant pressure
    static constexpr T lv = T(2.5e6);  // latent heat of vaporisation (J/kg)
    static constexpr T p0 = T(1.0e5);  // reference pressure of th (Pa)
    static constexpr T ep = rd / rv;   // ratio of the gas constants
    static constexpr T t0 = T(273.15); // 0 deg C (K)
};

// Saturation vapour pressure over liquid water (Pa) and its derivative d ln es / dT.
template <typename T>
SQ_HD T esat(T temp) {
    return T(611.2) * exp_(T(17.67) * (temp - Constants<T>::t0) / (temp - T(29.65)));
}
template <typename T>
SQ_HD T dlnesat_dt(T temp) {
    const T d = temp - T(29.65);
    return T(17.67) * (Constants<T>::t0 - T(29.65)) / (d * d);
}

// Saturation specific humidity (kg/kg) at pressure p (Pa) and temperature temp (K).
template <typename T>
SQ_HD T qsat(T p, T temp) {
    const T es = esat(temp);
    return Constants<T>::ep * es / (p - (T(1) - Constants<T>::ep) * es);
}

// Its derivative in temperature at constant pressure: with q = ep es / (p - (1 - ep) es),
// dq/dT = q p / (p - (1 - ep) es) d ln es/dT.
template <typename T>
SQ_HD T dqsat_dt(T p, T temp) {
    const T es = esat(temp);
    const T den = p - (T(1) - Constants<T>::ep) * es;
    return Constants<T>::ep * es * p / (den * den) * dlnesat_dt(temp);
}

// The state of a point after saturation adjustment.
template <typename T>
struct Adjusted {
    T temp; // temperature (K)
    T ql;   // liquid water (kg/kg)
};

// Saturation adjustment: the T for which T = T_l + Lv/cp (qt - qsat(p, T)) when the point
// is saturated (T_l = thl exner, the temperature the point would have with all its water
// as vapour), else T_l and no liquid. Newton's method from T_l on f(T) = T - T_l - Lv/cp
// (qt - qsat(p, T)), which is increasing and convex (qsat is): f(T_l) < 0, the first step
// lands at or above the root (a convex function lies above its tangents) and the iterates
// then fall monotonically to it. It stops when a step is below 1e-10 K (1e-4 K in float).
template <typename T>
SQ_HD Adjusted<T> saturation_adjust(T thl, T qt, T p, T exner) {
    using C = Constants<T>;
    const T tl = thl * exner;
    Adjusted<T> r{tl, T(0)};
    if (qt <= qsat(p, tl)) return r;
    const T tol = sizeof(T) == 4 ? T(1e-4) : T(1e-10);
    T temp = tl;
    for (int it = 0; it < 20; ++it) {
        const T f = temp - tl - C::lv / C::cp * (qt - qsat(p, temp));
        const T df = T(1) + C::lv / C::cp * dqsat_dt(p, temp);
        const T step = f / df;
        temp -= step;
        if (abs_(step) < tol) break;
    }
    r.temp = temp;
    r.ql = max_(qt - qsat(p, temp), T(0));
    return r;
}

// Virtual potential temperature with liquid loading.
template <typename T>
SQ_HD T thv(T th, T qt, T ql) {
    using C = Constants<T>;
    return th * (T(1) + (C::rv / C::rd - T(1)) * qt - C::rv / C::rd * ql);
}

// thv of a point from its prognostic state (adjusting it first).
template <typename T>
SQ_HD T thv_from_thl(T thl, T qt, T p, T exner) {
    const Adjusted<T> a = saturation_adjust(thl, qt, p, exner);
    return thv(a.temp / exner, qt, a.ql);
}

// The Exner function (p/p0)^(Rd/cp).
template <typename T>
SQ_HD T exner(T p) {
    return exp_(Constants<T>::rd / Constants<T>::cp * log_(p / Constants<T>::p0));
}

} // namespace moist

} // namespace sq
