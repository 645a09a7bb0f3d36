// The fused kernels' extras against the separate kernels, bit for bit (the tendencies
// themselves: test_kernels_fused_tend.cpp): the scalar kernels' RK stage against RkUpdate
// after them, the order of the tendency sum, and StrainEviscSmag against Strain2 then
// EviscSmag.
#include "kernels/tend_fused.cuh"

#include "fused_tend_support.h"
#include "ref_harness.h"

#include <vector>

using namespace sqtest;

namespace {

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
                               .kk = plain.kk,
                               .drop_tendency = 0},
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
