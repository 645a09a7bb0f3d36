#pragma once
// Helpers shared by the fused-kernel tests (test_kernels_fused_tend.cpp,
// test_kernels_fused_stage_evisc.cpp): the typed fixture, the physical constants, the
// kernels' inputs, the bitwise comparisons, the sponge profiles and the TendS2i5Smag
// launcher. The fixture lives in a named namespace, not an anonymous one, so that both
// files' tests of the suite FusedTendencies use the same fixture class (gtest requires it).
#include "kernels/tend_fused.cuh"

#include "ref_harness.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace sqtest {

template <typename T>
class FusedTendencies : public ::testing::Test {};
using Precisions = ::testing::Types<double, float>;
TYPED_TEST_SUITE(FusedTendencies, Precisions);

constexpr double nu = 0.013, kappa = 0.017, prandtl_t = 1.0 / 3.0;
constexpr double gravity = 9.81, thref = 300;

// The inputs as the kernels see them, and the initial tendencies.
template <typename T>
struct State {
    std::vector<T> u, v, w, th, evisc, fluxbot, fluxtop, ut, vt, wt, st;
    explicit State(const Inputs& in)
        : u(to_t<T>(in.u)), v(to_t<T>(in.v)), w(to_t<T>(in.w)), th(to_t<T>(in.th)),
          evisc(to_t<T>(in.evisc)), fluxbot(to_t<T>(in.fluxbot)), fluxtop(to_t<T>(in.fluxtop)),
          ut(to_t<T>(in.ut)), vt(to_t<T>(in.vt)), wt(to_t<T>(in.wt)), st(to_t<T>(in.tend0)) {}
    // Every tendency set to 0, and with nan_inside the points it is computed at to NaN
    // (w's wall face is not one): what the first stage must not read.
    void tendencies_at_first_stage(const RefGrid& g, bool nan_inside) {
        for (std::vector<T>* a : {&ut, &vt, &wt, &st})
            for (int k = 0; k < g.kcells; ++k)
                for (int j = 0; j < g.jcells; ++j)
                    for (int i = 0; i < g.icells; ++i) {
                        const int k0 = a == &wt ? g.kstart + 1 : g.kstart;
                        const bool inside = k >= k0 && k < g.kend && i >= g.istart && i < g.iend &&
                                            j >= g.jstart && j < g.jend;
                        (*a)[size_t(g.idx(i, j, k))] =
                            nan_inside && inside ? std::numeric_limits<T>::quiet_NaN() : T(0);
                    }
    }
};

// Elements of a and b whose bits differ.
template <typename T>
long differing(const std::vector<T>& a, const std::vector<T>& b) {
    long n = 0;
    for (size_t p = 0; p < a.size(); ++p) n += std::memcmp(&a[p], &b[p], sizeof(T)) != 0;
    return n;
}

// Elements changed from the initial array outside [k0, k1) x the interior columns.
template <typename T>
long changed_outside(const RefGrid& g, const std::vector<T>& got, const std::vector<T>& initial,
                     int k0, int k1) {
    long n = 0;
    for (int k = 0; k < g.kcells; ++k)
        for (int j = 0; j < g.jcells; ++j)
            for (int i = 0; i < g.icells; ++i) {
                const bool inside =
                    k >= k0 && k < k1 && i >= g.istart && i < g.iend && j >= g.jstart && j < g.jend;
                const size_t p = size_t(g.idx(i, j, k));
                if (!inside) n += std::memcmp(&got[p], &initial[p], sizeof(T)) != 0;
            }
    return n;
}

// A sponge over the upper half of the levels: damping rates in (0, 0.05] there, 0 below
// (as the model's), reference profiles near the fields' values.
template <typename T>
struct SpongeProfiles {
    std::vector<T> coef, uref, vref, sref;
    int kstart;
    explicit SpongeProfiles(const RefGrid& g)
        : coef(size_t(g.kcells), T(0)), uref(coef), vref(coef), sref(coef),
          kstart((g.kstart + g.kend) / 2) {
        for (int k = 0; k < g.kcells; ++k) {
            const double x = std::sin(1.7 * k + 0.3);
            if (k >= kstart) coef[size_t(k)] = T(0.05 * (k - kstart + 1) / (g.kend - kstart));
            uref[size_t(k)] = T(0.9 + 0.2 * x), vref[size_t(k)] = T(1.1 - 0.3 * x);
            sref[size_t(k)] = T(1.0 + 0.1 * x);
        }
    }
};

// TendS2i5Smag on a state's inputs, writing st (wall fluxes fb, ft and the sponge's coef
// may be null).
template <typename T>
sq::TendS2i5Smag<T> tend_s(T* st, const State<T>& in, const Metrics<T>& m, const RefGrid& g,
                           const T* fb, const T* ft, const T* coef, const SpongeProfiles<T>& sp,
                           int first_stage = 0) {
    return {.st = st,
            .s = in.th.data(),
            .u = in.u.data(),
            .v = in.v.data(),
            .w = in.w.data(),
            .evisc = in.evisc.data(),
            .dzi = m.dzi.data(),
            .dzhi = m.dzhi.data(),
            .rho = m.rho.data(),
            .rhoh = m.rhoh.data(),
            .dxi = m.dxi,
            .dyi = m.dyi,
            .prandtl_t_inv = T(1 / prandtl_t),
            .kappa = T(kappa),
            .fluxbot = fb,
            .fluxtop = ft,
            .sponge_coef = coef,
            .sref = sp.sref.data(),
            .sponge_kstart = sp.kstart,
            .kstart = g.kstart,
            .kend = g.kend,
            .jj = m.jj,
            .kk = m.kk,
            .s_next = nullptr,
            .b_dt = T(0),
            .a_next = T(0),
            .first_stage = first_stage,
            .drop_tendency = 0};
}

} // namespace sqtest
