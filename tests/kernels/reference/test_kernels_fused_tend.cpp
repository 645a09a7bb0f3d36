// The fused tendency kernels (kernels/tend_fused.cuh) against the separate kernels they
// fuse, launched in the model's order (tendencies.cpp: the advection of every variable,
// then its diffusion, then the sponge on its levels): every element of every tendency
// array, ghost cells included, must be bitwise equal, on the random non-cubic stretched
// grid with walls, in float and double; 2i5 with Smagorinsky with and without wall fluxes
// and the sponge, 2 with constant diffusion. The RK's first stage (the tendencies start from
// zero, unread) against the separate kernels on zeroed tendencies, and the scalar kernels'
// RK stage against RkUpdate after them.
#include "kernels/tend_fused.cuh"

#include "ref_harness.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>

using namespace sqtest;

namespace {

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

// The fused results against the separate ones, bit for bit; every interior point received
// a tendency, nothing else was written (w's wall face included).
template <typename T>
void expect_same(const RefGrid& g, const State<T>& sep, const State<T>& fused,
                 const State<T>& initial) {
    const int ks = g.kstart, ke = g.kend;
    const struct {
        const char* name;
        const std::vector<T>&got, &want, &init;
        int k0;
    } outputs[] = {{"ut", fused.ut, sep.ut, initial.ut, ks},
                   {"vt", fused.vt, sep.vt, initial.vt, ks},
                   {"wt", fused.wt, sep.wt, initial.wt, ks + 1},
                   {"st", fused.st, sep.st, initial.st, ks}};
    for (const auto& o : outputs) {
        EXPECT_EQ(differing(o.got, o.want), 0) << o.name << ": fused differs from separate";
        const long interior = long(g.itot) * g.jtot * (ke - o.k0);
        EXPECT_EQ(differing(o.got, o.init), interior) << o.name;
        EXPECT_EQ(changed_outside(g, o.got, o.init, o.k0, ke), 0) << o.name;
    }
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

// first: the RK's first stage, the separate kernels adding into zeroed tendencies and the
// fused ones (first_stage) given NaN there.
template <typename T>
void check(bool with_flux, bool with_sponge, bool first = false) {
    SCOPED_TRACE(with_flux ? "with wall fluxes" : "resolved walls");
    SCOPED_TRACE(with_sponge ? "with the sponge" : "no sponge");
    SCOPED_TRACE(first ? "first stage" : "later stage");
    const Inputs in = make_inputs<T>();
    const RefGrid& g = in.g;
    const Metrics<T> m(g);
    State<T> initial(in), sep(in), fused(in);
    if (first) {
        initial.tendencies_at_first_stage(g, false);
        sep.tendencies_at_first_stage(g, false);
        fused.tendencies_at_first_stage(g, true);
    }
    const T* fb = with_flux ? initial.fluxbot.data() : nullptr;
    const T* ft = with_flux ? initial.fluxtop.data() : nullptr;
    const T g_over_thref = T(gravity / thref), tref = T(thref);
    const int ks = g.kstart, ke = g.kend;
    const SpongeProfiles<T> sp(g);

    // The separate kernels, as Model::advection() and Model::diffusion() launch them.
    const T *u = initial.u.data(), *v = initial.v.data(), *w = initial.w.data();
    const T *th = initial.th.data(), *ev = initial.evisc.data();
    const T *dzi = m.dzi.data(), *dzhi = m.dzhi.data(), *rho = m.rho.data(), *rhoh = m.rhoh.data();
    run_kernel(sq::AdvecU2i5<T>{.ut = sep.ut.data(),
                                .u = u,
                                .v = v,
                                .w = w,
                                .dzi = dzi,
                                .rho = rho,
                                .rhoh = rhoh,
                                .dxi = m.dxi,
                                .dyi = m.dyi,
                                .jj = m.jj,
                                .kk = m.kk,
                                .kstart = ks,
                                .kend = ke},
               g, ks, ke);
    run_kernel(sq::AdvecV2i5<T>{.vt = sep.vt.data(),
                                .u = u,
                                .v = v,
                                .w = w,
                                .dzi = dzi,
                                .rho = rho,
                                .rhoh = rhoh,
                                .dxi = m.dxi,
                                .dyi = m.dyi,
                                .jj = m.jj,
                                .kk = m.kk,
                                .kstart = ks,
                                .kend = ke},
               g, ks, ke);
    run_kernel(sq::AdvecW2i5Buoy<T>{.wt = sep.wt.data(),
                                    .u = u,
                                    .v = v,
                                    .w = w,
                                    .th = th,
                                    .dzhi = dzhi,
                                    .rho = rho,
                                    .rhoh = rhoh,
                                    .dxi = m.dxi,
                                    .dyi = m.dyi,
                                    .g_over_thref = g_over_thref,
                                    .thref = tref,
                                    .jj = m.jj,
                                    .kk = m.kk,
                                    .kstart = ks,
                                    .kend = ke},
               g, ks + 1, ke);
    run_kernel(sq::AdvecS2i5<T>{.st = sep.st.data(),
                                .s = th,
                                .u = u,
                                .v = v,
                                .w = w,
                                .dzi = dzi,
                                .rho = rho,
                                .rhoh = rhoh,
                                .dxi = m.dxi,
                                .dyi = m.dyi,
                                .jj = m.jj,
                                .kk = m.kk,
                                .kstart = ks,
                                .kend = ke},
               g, ks, ke);
    run_kernel(sq::DiffUVWSmag<T>{.ut = sep.ut.data(),
                                  .vt = sep.vt.data(),
                                  .wt = sep.wt.data(),
                                  .u = u,
                                  .v = v,
                                  .w = w,
                                  .evisc = ev,
                                  .dzi = dzi,
                                  .dzhi = dzhi,
                                  .rho = rho,
                                  .rhoh = rhoh,
                                  .dxi = m.dxi,
                                  .dyi = m.dyi,
                                  .nu = T(nu),
                                  .ufluxbot = fb,
                                  .ufluxtop = ft,
                                  .vfluxbot = ft,
                                  .vfluxtop = fb,
                                  .kstart = ks,
                                  .kend = ke,
                                  .jj = m.jj,
                                  .kk = m.kk},
               g, ks, ke);
    run_kernel(sq::DiffCSmag<T>{.st = sep.st.data(),
                                .s = th,
                                .evisc = ev,
                                .dzi = dzi,
                                .dzhi = dzhi,
                                .rho = rho,
                                .rhoh = rhoh,
                                .dxi = m.dxi,
                                .dyi = m.dyi,
                                .prandtl_t_inv = T(1 / prandtl_t),
                                .kappa = T(kappa),
                                .fluxbot = fb,
                                .fluxtop = ft,
                                .kstart = ks,
                                .kend = ke,
                                .jj = m.jj,
                                .kk = m.kk},
               g, ks, ke);
    if (with_sponge) // Model::sponge(): on its own levels only
        for (const auto& [at, a, ref] : {std::tuple{sep.ut.data(), u, sp.uref.data()},
                                         std::tuple{sep.vt.data(), v, sp.vref.data()},
                                         std::tuple{sep.st.data(), th, sp.sref.data()}})
            run_kernel(
                sq::Sponge<T>{
                    .at = at, .a = a, .aref = ref, .coef = sp.coef.data(), .jj = m.jj, .kk = m.kk},
                g, sp.kstart, ke);
    const T* coef = with_sponge ? sp.coef.data() : nullptr;

    // The fused kernels, both over the centred levels.
    run_kernel(sq::TendUVW2i5Smag<T>{.ut = fused.ut.data(),
                                     .vt = fused.vt.data(),
                                     .wt = fused.wt.data(),
                                     .u = u,
                                     .v = v,
                                     .w = w,
                                     .evisc = ev,
                                     .th = th,
                                     .dzi = dzi,
                                     .dzhi = dzhi,
                                     .rho = rho,
                                     .rhoh = rhoh,
                                     .dxi = m.dxi,
                                     .dyi = m.dyi,
                                     .nu = T(nu),
                                     .g_over_thref = g_over_thref,
                                     .thref = tref,
                                     .ufluxbot = fb,
                                     .ufluxtop = ft,
                                     .vfluxbot = ft,
                                     .vfluxtop = fb,
                                     .sponge_coef = coef,
                                     .uref = sp.uref.data(),
                                     .vref = sp.vref.data(),
                                     .sponge_kstart = sp.kstart,
                                     .kstart = ks,
                                     .kend = ke,
                                     .jj = m.jj,
                                     .kk = m.kk,
                                     .first_stage = first},
               g, ks, ke);
    run_kernel(tend_s(fused.st.data(), initial, m, g, fb, ft, coef, sp, first), g, ks, ke);

    expect_same(g, sep, fused, initial);
}

// 2nd-order advection and constant diffusion (TendUVW2Const, TendS2Const) the same way.
template <typename T>
void check_const(bool first = false) {
    SCOPED_TRACE(first ? "first stage" : "later stage");
    const Inputs in = make_inputs<T>();
    const RefGrid& g = in.g;
    const Metrics<T> m(g);
    State<T> initial(in), sep(in), fused(in);
    if (first) {
        initial.tendencies_at_first_stage(g, false);
        sep.tendencies_at_first_stage(g, false);
        fused.tendencies_at_first_stage(g, true);
    }
    const T g_over_thref = T(gravity / thref), tref = T(thref);
    const int ks = g.kstart, ke = g.kend;
    const T *u = initial.u.data(), *v = initial.v.data(), *w = initial.w.data();
    const T* th = initial.th.data();
    const T *dzi = m.dzi.data(), *dzhi = m.dzhi.data(), *rho = m.rho.data(), *rhoh = m.rhoh.data();
    run_kernel(sq::AdvecU2<T>{.ut = sep.ut.data(),
                              .u = u,
                              .v = v,
                              .w = w,
                              .dzi = dzi,
                              .rho = rho,
                              .rhoh = rhoh,
                              .dxi = m.dxi,
                              .dyi = m.dyi,
                              .jj = m.jj,
                              .kk = m.kk},
               g, ks, ke);
    run_kernel(sq::AdvecV2<T>{.vt = sep.vt.data(),
                              .u = u,
                              .v = v,
                              .w = w,
                              .dzi = dzi,
                              .rho = rho,
                              .rhoh = rhoh,
                              .dxi = m.dxi,
                              .dyi = m.dyi,
                              .jj = m.jj,
                              .kk = m.kk},
               g, ks, ke);
    run_kernel(sq::AdvecW2Buoy<T>{.wt = sep.wt.data(),
                                  .u = u,
                                  .v = v,
                                  .w = w,
                                  .th = th,
                                  .dzhi = dzhi,
                                  .rho = rho,
                                  .rhoh = rhoh,
                                  .dxi = m.dxi,
                                  .dyi = m.dyi,
                                  .g_over_thref = g_over_thref,
                                  .thref = tref,
                                  .jj = m.jj,
                                  .kk = m.kk},
               g, ks + 1, ke);
    run_kernel(sq::AdvecS2<T>{.st = sep.st.data(),
                              .s = th,
                              .u = u,
                              .v = v,
                              .w = w,
                              .dzi = dzi,
                              .rho = rho,
                              .rhoh = rhoh,
                              .dxi = m.dxi,
                              .dyi = m.dyi,
                              .jj = m.jj,
                              .kk = m.kk},
               g, ks, ke);
    const auto diff = [&](T* at, const T* a, double K) {
        return sq::DiffU2<T>{.at = at,
                             .a = a,
                             .dzi = dzi,
                             .dzhi = dzhi,
                             .rho = rho,
                             .rhoh = rhoh,
                             .dxi = m.dxi,
                             .dyi = m.dyi,
                             .K = T(K),
                             .jj = m.jj,
                             .kk = m.kk};
    };
    run_kernel(diff(sep.ut.data(), u, nu), g, ks, ke);
    run_kernel(diff(sep.vt.data(), v, nu), g, ks, ke);
    run_kernel(sq::DiffW2<T>{.at = sep.wt.data(),
                             .a = w,
                             .dzi = dzi,
                             .dzhi = dzhi,
                             .rho = rho,
                             .rhoh = rhoh,
                             .dxi = m.dxi,
                             .dyi = m.dyi,
                             .K = T(nu),
                             .jj = m.jj,
                             .kk = m.kk},
               g, ks + 1, ke);
    run_kernel(diff(sep.st.data(), th, kappa), g, ks, ke);

    run_kernel(sq::TendUVW2Const<T>{.ut = fused.ut.data(),
                                    .vt = fused.vt.data(),
                                    .wt = fused.wt.data(),
                                    .u = u,
                                    .v = v,
                                    .w = w,
                                    .th = th,
                                    .dzi = dzi,
                                    .dzhi = dzhi,
                                    .rho = rho,
                                    .rhoh = rhoh,
                                    .dxi = m.dxi,
                                    .dyi = m.dyi,
                                    .nu = T(nu),
                                    .g_over_thref = g_over_thref,
                                    .thref = tref,
                                    .kstart = ks,
                                    .jj = m.jj,
                                    .kk = m.kk,
                                    .first_stage = first},
               g, ks, ke);
    run_kernel(sq::TendS2Const<T>{.st = fused.st.data(),
                                  .s = th,
                                  .u = u,
                                  .v = v,
                                  .w = w,
                                  .dzi = dzi,
                                  .dzhi = dzhi,
                                  .rho = rho,
                                  .rhoh = rhoh,
                                  .dxi = m.dxi,
                                  .dyi = m.dyi,
                                  .kappa = T(kappa),
                                  .jj = m.jj,
                                  .kk = m.kk,
                                  .s_next = nullptr,
                                  .b_dt = T(0),
                                  .a_next = T(0),
                                  .first_stage = first,
                                  .drop_tendency = 0},
               g, ks, ke);
    expect_same(g, sep, fused, initial);
}

TYPED_TEST(FusedTendencies, BitwiseEqualToSeparateKernels) {
    check<TypeParam>(true, false);
    check<TypeParam>(false, false);
}

TYPED_TEST(FusedTendencies, WithTheSpongeBitwiseEqualToSeparateKernels) {
    check<TypeParam>(true, true);
    check<TypeParam>(false, true);
}

TYPED_TEST(FusedTendencies, SecondOrderConstantBitwiseEqualToSeparateKernels) {
    check_const<TypeParam>();
}

// At the first stage the fused kernels neither read their old tendencies (NaN here) nor
// need them: bitwise the separate kernels adding into zeros.
TYPED_TEST(FusedTendencies, FirstStageBitwiseEqualToSeparateKernelsFromZero) {
    check<TypeParam>(true, true, true);
    check<TypeParam>(false, false, true);
    check_const<TypeParam>(true);
}

// The scalar kernels' RK stage (s_next): bitwise RkUpdate after the tendency kernel without
// it, over the interior; s_next is written on the interior only; st is
// scaled by a_next or, with drop_tendency, not written at all.
template <typename T, class K>
void check_scalar_stage(K with_stage, const RefGrid& g, const State<T>& in, int drop) {
    SCOPED_TRACE(drop ? "tendency dropped" : "tendency kept");
    const int ks = g.kstart, ke = g.kend;
    const T b_dt = T(0.9375 * 0.2), a_next = T(-153.0 / 128.0);
    const std::vector<T> s_initial = in.th, st_initial = in.st, poison(in.th.size(), T(-7));
    // Reference: the kernel without the stage, then RkUpdate.
    std::vector<T> s_ref = s_initial, st_ref = st_initial;
    K plain = with_stage;
    plain.st = st_ref.data(), plain.s_next = nullptr;
    run_kernel(plain, g, ks, ke);
    run_kernel(sq::RkUpdate<T>{.a = s_ref.data(),
                               .at = st_ref.data(),
                               .b_dt = b_dt,
                               .a_next = a_next,
                               .jj = plain.jj,
                               .kk = plain.kk},
               g, ks, ke);
    // The stage in the kernel, into s_next.
    std::vector<T> st = st_initial, s_next = poison;
    with_stage.st = st.data(), with_stage.s_next = s_next.data();
    with_stage.b_dt = b_dt, with_stage.a_next = a_next, with_stage.drop_tendency = drop;
    run_kernel(with_stage, g, ks, ke);
    const long interior = long(g.itot) * g.jtot * (ke - ks);
    std::vector<T> s_expected = poison; // s_ref on the interior, untouched elsewhere
    for (int k = ks; k < ke; ++k)
        for (int j = g.jstart; j < g.jend; ++j)
            for (int i = g.istart; i < g.iend; ++i) {
                const size_t n = size_t(g.idx(i, j, k));
                s_expected[n] = s_ref[n];
            }
    EXPECT_EQ(differing(s_next, s_expected), 0) << "s_next";
    EXPECT_EQ(differing(s_next, poison), interior) << "s_next";
    if (drop)
        EXPECT_EQ(differing(st, st_initial), 0) << "st, dropped";
    else
        EXPECT_EQ(differing(st, st_ref), 0) << "st";
}

TYPED_TEST(FusedTendencies, ScalarStageBitwiseEqualToRkUpdateAfterTheKernel) {
    using T = TypeParam;
    const Inputs in = make_inputs<T>();
    const RefGrid& g = in.g;
    const Metrics<T> m(g);
    const State<T> s(in);
    const SpongeProfiles<T> sp(g);
    for (const int drop : {0, 1}) {
        check_scalar_stage(
            tend_s<T>(nullptr, s, m, g, s.fluxbot.data(), nullptr, sp.coef.data(), sp), g, s, drop);
        check_scalar_stage(sq::TendS2Const<T>{.st = nullptr,
                                              .s = s.th.data(),
                                              .u = s.u.data(),
                                              .v = s.v.data(),
                                              .w = s.w.data(),
                                              .dzi = m.dzi.data(),
                                              .dzhi = m.dzhi.data(),
                                              .rho = m.rho.data(),
                                              .rhoh = m.rhoh.data(),
                                              .dxi = m.dxi,
                                              .dyi = m.dyi,
                                              .kappa = T(kappa),
                                              .jj = m.jj,
                                              .kk = m.kk,
                                              .s_next = nullptr,
                                              .b_dt = T(0),
                                              .a_next = T(0),
                                              .first_stage = 0,
                                              .drop_tendency = 0},
                           g, s, drop);
    }
}

// The sum's order matters: adding the two terms first would change results in the last
// bit somewhere on this grid, so the test above can tell the orders apart.
TYPED_TEST(FusedTendencies, OrderOfTheSumIsVisible) {
    using T = TypeParam;
    const Inputs in = make_inputs<T>();
    const RefGrid& g = in.g;
    const Metrics<T> m(g);
    const State<T> s(in);
    const sq::TendS2i5Smag<T> k =
        tend_s<T>(nullptr, s, m, g, nullptr, nullptr, nullptr, SpongeProfiles<T>(g));
    long differ = 0;
    for (int kz = g.kstart; kz < g.kend; ++kz)
        for (int j = g.jstart; j < g.jend; ++j)
            for (int i = g.istart; i < g.iend; ++i) {
                const T old = s.st[size_t(g.idx(i, j, kz))];
                const auto val = k.value(i, j, kz);
                differ += (old + val.advec) + val.diff != old + (val.advec + val.diff);
            }
    EXPECT_GT(differ, 0);
}

// StrainEviscSmag against Strain2 then EviscSmag through the strain2 array, bit for bit,
// with and without the stability (th) and the Mason wall damping (in the mixing length
// profile); only the interior is written.
TYPED_TEST(FusedTendencies, StrainEviscSmagBitwiseEqualToStrainThenEvisc) {
    using T = TypeParam;
    const Inputs in = make_inputs<T>();
    const RefGrid& g = in.g;
    const Metrics<T> m(g);
    const State<T> s(in);
    const int ks = g.kstart, ke = g.kend;
    const T *u = s.u.data(), *v = s.v.data(), *w = s.w.data();
    const T g_over_thref = T(gravity / thref), cs = T(0.23), z0m = T(0.1);
    for (const bool stratified : {true, false})
        for (const int mason : {0, 1}) {
            SCOPED_TRACE(::testing::Message()
                         << "stratified " << stratified << ", mason " << mason);
            const T* th = stratified ? s.th.data() : nullptr;
            std::vector<T> strain2(s.u.size(), T(-7)), sep(s.u.size(), T(-3)), fused = sep;
            run_kernel(sq::Strain2<T>{.strain2 = strain2.data(),
                                      .u = u,
                                      .v = v,
                                      .w = w,
                                      .dzi = m.dzi.data(),
                                      .dzhi = m.dzhi.data(),
                                      .dxi = m.dxi,
                                      .dyi = m.dyi,
                                      .jj = m.jj,
                                      .kk = m.kk},
                       g, ks, ke);
            std::vector<T> mlen2(m.z.size(), T(0));
            for (int k = ks; k < ke; ++k)
                mlen2[size_t(k)] = sq::smag_mixing_length2(cs, m.dx, m.dy, m.dz[size_t(k)],
                                                           m.z[size_t(k)], z0m, mason != 0);
            run_kernel(sq::EviscSmag<T>{.evisc = sep.data(),
                                        .strain2 = strain2.data(),
                                        .th = th,
                                        .g_over_thref = g_over_thref,
                                        .z = m.z.data(),
                                        .mlen2 = mlen2.data(),
                                        .prandtl_t = T(prandtl_t),
                                        .jj = m.jj,
                                        .kk = m.kk},
                       g, ks, ke);
            run_kernel(sq::StrainEviscSmag<T>{.evisc = fused.data(),
                                              .u = u,
                                              .v = v,
                                              .w = w,
                                              .th = th,
                                              .g_over_thref = g_over_thref,
                                              .z = m.z.data(),
                                              .mlen2 = mlen2.data(),
                                              .dzi = m.dzi.data(),
                                              .dzhi = m.dzhi.data(),
                                              .dxi = m.dxi,
                                              .dyi = m.dyi,
                                              .prandtl_t = T(prandtl_t),
                                              .jj = m.jj,
                                              .kk = m.kk},
                       g, ks, ke);
            EXPECT_EQ(differing(fused, sep), 0);
            const std::vector<T> untouched(s.u.size(), T(-3));
            EXPECT_EQ(differing(fused, untouched), long(g.itot) * g.jtot * (ke - ks));
            EXPECT_EQ(changed_outside(g, fused, untouched, ks, ke), 0);
        }
}

} // namespace
