// The fused tendency kernels (kernels/tend_fused.cuh) against the separate kernels they
// fuse, launched in the model's order (tendencies.cpp: the advection of every variable,
// then its diffusion, then the sponge on its levels): every element of every tendency
// array, ghost cells included, must be bitwise equal, on the random non-cubic stretched
// grid with walls, in float and double; 2i5 with Smagorinsky with and without wall fluxes
// and the sponge, 2 with constant diffusion. The RK's first stage (the tendencies start from
// zero, unread) against the separate kernels on zeroed tendencies. (The scalar kernels' RK
// stage and StrainEviscSmag: test_kernels_fused_stage_evisc.cpp.)
#include "kernels/tend_fused.cuh"

#include "fused_tend_support.h"
#include "ref_harness.h"

#include <tuple>

using namespace sqtest;

namespace {

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
    run_kernel(sq::AdvecU2i5<T>{.tend = sep.ut.data(),
                                .u = u,
                                .v = v,
                                .w = w,
                                .dzi = dzi,
                                .dzhi = dzhi,
                                .rho = rho,
                                .rhoh = rhoh,
                                .dxi = m.dxi,
                                .dyi = m.dyi,
                                .jj = m.jj,
                                .kk = m.kk,
                                .kstart = ks,
                                .kend = ke},
               g, ks, ke);
    run_kernel(sq::AdvecV2i5<T>{.tend = sep.vt.data(),
                                .u = u,
                                .v = v,
                                .w = w,
                                .dzi = dzi,
                                .dzhi = dzhi,
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
    run_kernel(sq::AdvecU2<T>{.tend = sep.ut.data(),
                              .u = u,
                              .v = v,
                              .w = w,
                              .dzi = dzi,
                              .dzhi = dzhi,
                              .rho = rho,
                              .rhoh = rhoh,
                              .dxi = m.dxi,
                              .dyi = m.dyi,
                              .jj = m.jj,
                              .kk = m.kk},
               g, ks, ke);
    run_kernel(sq::AdvecV2<T>{.tend = sep.vt.data(),
                              .u = u,
                              .v = v,
                              .w = w,
                              .dzi = dzi,
                              .dzhi = dzhi,
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

} // namespace
