// Buoyancy, pressure, diagnostic and time-integration kernels (thermo.cuh, pressure.cuh,
// timeint.cuh) against the independent references on the random non-cubic stretched grid.
#include "kernels/pressure.cuh"
#include "kernels/thermo.cuh"
#include "kernels/timeint.cuh"

#include "ref_harness.h"

#include <string>

using namespace sqtest;

namespace {

template <typename T>
class MiscKernels : public ::testing::Test {};
using Precisions = ::testing::Types<double, float>;
TYPED_TEST_SUITE(MiscKernels, Precisions);

} // namespace

TYPED_TEST(MiscKernels, Buoyancy) {
    using T = TypeParam;
    const Inputs in = make_inputs<T>();
    const RefGrid& g = in.g;
    const Metrics<T> m(g);
    const auto th = to_t<T>(in.th), b = to_t<T>(in.s);
    const double gt = as_t<T>(9.81 / 300.0), thref = as_t<T>(300.0);
    auto out = to_t<T>(in.tend0);
    sq::BuoyancyTh<T> kn{};
    kn.wt = out.data();
    kn.th = th.data();
    kn.g_over_thref = T(gt);
    kn.thref = T(thref);
    kn.jj = m.jj;
    kn.kk = m.kk;
    run_kernel(kn, g, g.kstart + 1, g.kend);
    const Vec ref = sqref::ref_buoyancy_th(g, in.th, gt, thref);
    SQ_EXPECT_MATCH(T, compare(g, out, expect_added(in.tend0, ref), in.tend0, g.kstart + 1, g.kend),
                    "BuoyancyTh");

    // "buoy" mode: the scalar is b, through the same kernel with g/thref = 1, thref = 0.
    auto outb = to_t<T>(in.tend0);
    sq::BuoyancyTh<T> kb{.wt = outb.data(),
                         .th = b.data(),
                         .g_over_thref = T(1),
                         .thref = T(0),
                         .jj = m.jj,
                         .kk = m.kk};
    run_kernel(kb, g, g.kstart + 1, g.kend);
    const Vec refb = sqref::ref_buoyancy_b(g, in.s);
    SQ_EXPECT_MATCH(T,
                    compare(g, outb, expect_added(in.tend0, refb), in.tend0, g.kstart + 1, g.kend),
                    "BuoyancyTh (b)");
}

// w's advection and buoyancy in one pass: the two independent references added to the
// tendency, in both thermo modes ("buoy" as g/thref = 1, thref = 0).
template <typename T, class MakeKernel>
void check_advec_w_buoy(const Inputs& in, const Vec& advec, const char* what, MakeKernel make) {
    const RefGrid& g = in.g;
    const auto th = to_t<T>(in.th);
    const double gt = as_t<T>(9.81 / 300.0), thref = as_t<T>(300.0);
    const Vec buoy[] = {sqref::ref_buoyancy_th(g, in.th, gt, thref),
                        sqref::ref_buoyancy_b(g, in.th)};
    const T factor[] = {T(gt), T(1)}, reference[] = {T(thref), T(0)};
    for (int mode = 0; mode < 2; ++mode) {
        auto wt = to_t<T>(in.tend0);
        run_kernel(make(wt.data(), th.data(), factor[mode], reference[mode]), g, g.kstart + 1,
                   g.kend);
        Vec both(g.ncells);
        for (int n = 0; n < g.ncells; ++n) both[n] = double((long double)advec[n] + buoy[mode][n]);
        const std::string label = std::string(what) + (mode ? " (b)" : " (th)");
        SQ_EXPECT_MATCH(
            T, compare(g, wt, expect_added(in.tend0, both), in.tend0, g.kstart + 1, g.kend),
            label.c_str());
    }
}

TYPED_TEST(MiscKernels, AdvecW2i5Buoy) {
    using T = TypeParam;
    const Inputs in = make_inputs<T>();
    const RefGrid& g = in.g;
    const Metrics<T> m(g);
    const auto u = to_t<T>(in.u), v = to_t<T>(in.v), w = to_t<T>(in.w);
    check_advec_w_buoy<T>(in, sqref::ref_advec_2i5(g, sqref::Loc::W, in.w, in.u, in.v, in.w),
                          "AdvecW2i5Buoy", [&](T* wt, const T* th, T factor, T reference) {
                              return sq::AdvecW2i5Buoy<T>{.wt = wt,
                                                          .u = u.data(),
                                                          .v = v.data(),
                                                          .w = w.data(),
                                                          .th = th,
                                                          .dzhi = m.dzhi.data(),
                                                          .rho = m.rho.data(),
                                                          .rhoh = m.rhoh.data(),
                                                          .dxi = m.dxi,
                                                          .dyi = m.dyi,
                                                          .g_over_thref = factor,
                                                          .thref = reference,
                                                          .jj = m.jj,
                                                          .kk = m.kk,
                                                          .kstart = g.kstart,
                                                          .kend = g.kend};
                          });
}

TYPED_TEST(MiscKernels, AdvecW2Buoy) {
    using T = TypeParam;
    const Inputs in = make_inputs<T>();
    const RefGrid& g = in.g;
    const Metrics<T> m(g);
    const auto u = to_t<T>(in.u), v = to_t<T>(in.v), w = to_t<T>(in.w);
    check_advec_w_buoy<T>(in, sqref::ref_advec_2(g, sqref::Loc::W, in.w, in.u, in.v, in.w),
                          "AdvecW2Buoy", [&](T* wt, const T* th, T factor, T reference) {
                              return sq::AdvecW2Buoy<T>{.wt = wt,
                                                        .u = u.data(),
                                                        .v = v.data(),
                                                        .w = w.data(),
                                                        .th = th,
                                                        .dzhi = m.dzhi.data(),
                                                        .rho = m.rho.data(),
                                                        .rhoh = m.rhoh.data(),
                                                        .dxi = m.dxi,
                                                        .dyi = m.dyi,
                                                        .g_over_thref = factor,
                                                        .thref = reference,
                                                        .jj = m.jj,
                                                        .kk = m.kk};
                          });
}

TYPED_TEST(MiscKernels, PresIn) {
    using T = TypeParam;
    const Inputs in = make_inputs<T>();
    const RefGrid& g = in.g;
    const Metrics<T> m(g);
    const auto u = to_t<T>(in.u), v = to_t<T>(in.v), w = to_t<T>(in.w);
    const auto ut = to_t<T>(in.ut), vt = to_t<T>(in.vt), wt = to_t<T>(in.wt);
    const double dtsi = as_t<T>(1.0 / 0.37);
    auto p = to_t<T>(in.tend0);
    sq::PresIn<T> kn{};
    kn.p = p.data();
    kn.u = u.data();
    kn.v = v.data();
    kn.w = w.data();
    kn.ut = ut.data();
    kn.vt = vt.data();
    kn.wt = wt.data();
    kn.dzi = m.dzi.data();
    kn.rho = m.rho.data();
    kn.rhoh = m.rhoh.data();
    kn.dxi = m.dxi;
    kn.dyi = m.dyi;
    kn.dtsi = T(dtsi);
    kn.jj = m.jj;
    kn.kk = m.kk;
    run_kernel(kn, g, g.kstart, g.kend);
    const Vec ref = sqref::ref_pres_in(g, in.u, in.v, in.w, in.ut, in.vt, in.wt, dtsi);
    const Vec expect = expect_written(g, in.tend0, ref, g.kstart, g.kend);
    SQ_EXPECT_MATCH(T, compare(g, p, expect, Vec(g.ncells, 0.0), g.kstart, g.kend), "PresIn");
}

TYPED_TEST(MiscKernels, PresOut) {
    using T = TypeParam;
    const Inputs in = make_inputs<T>();
    const RefGrid& g = in.g;
    const Metrics<T> m(g);
    const auto p = to_t<T>(in.p);
    auto ut = to_t<T>(in.ut), vt = to_t<T>(in.vt), wt = to_t<T>(in.wt);
    sq::PresOut<T> kn{};
    kn.ut = ut.data();
    kn.vt = vt.data();
    kn.wt = wt.data();
    kn.p = p.data();
    kn.dzhi = m.dzhi.data();
    kn.dxi = m.dxi;
    kn.dyi = m.dyi;
    kn.kstart = g.kstart;
    kn.jj = m.jj;
    kn.kk = m.kk;
    run_kernel(kn, g, g.kstart, g.kend); // all levels: w at the wall must stay untouched
    const sqref::PresGrad ref = sqref::ref_pres_out(g, in.p);
    SQ_EXPECT_MATCH(T, compare(g, ut, expect_added(in.ut, ref.ut), in.ut, g.kstart, g.kend),
                    "PresOut ut");
    SQ_EXPECT_MATCH(T, compare(g, vt, expect_added(in.vt, ref.vt), in.vt, g.kstart, g.kend),
                    "PresOut vt");
    // wt at kstart is outside the compared range, so it must be bit-identical to the input.
    SQ_EXPECT_MATCH(T, compare(g, wt, expect_added(in.wt, ref.wt), in.wt, g.kstart + 1, g.kend),
                    "PresOut wt");
}

// The fused projection end and RK stage: the reference gradient added to the tendency,
// then the stage a += b dt at, at *= a_next, all in long double; with drop_tendencies the
// tendencies stay as they were.
TYPED_TEST(MiscKernels, PresOutRk) {
    using T = TypeParam;
    const Inputs in = make_inputs<T>();
    const RefGrid& g = in.g;
    const Metrics<T> m(g);
    const double b_dt = as_t<T>(0.9375 * 0.2), a_next = as_t<T>(-153.0 / 128.0);
    const auto p = to_t<T>(in.p);
    const sqref::PresGrad grad = sqref::ref_pres_out(g, in.p);
    // Expected state and tendency of one component on levels k0 <= k < kend.
    auto stage = [&](const Vec& a, const Vec& at, const Vec& grad_a, int k0, bool drop) {
        std::pair<Vec, Vec> e{a, at};
        for (int k = k0; k < g.kend; ++k)
            for (int j = g.jstart; j < g.jend; ++j)
                for (int i = g.istart; i < g.iend; ++i) {
                    const int n = g.idx(i, j, k);
                    const long double projected = (long double)at[n] + grad_a[n];
                    e.first[n] = double(a[n] + b_dt * projected);
                    if (!drop) e.second[n] = double(a_next * projected);
                }
        return e;
    };
    for (const int drop : {0, 1}) {
        SCOPED_TRACE(drop ? "tendencies dropped" : "tendencies kept");
        auto u = to_t<T>(in.u), v = to_t<T>(in.v), w = to_t<T>(in.w);
        auto ut = to_t<T>(in.ut), vt = to_t<T>(in.vt), wt = to_t<T>(in.wt);
        const sq::PresOutRk<T> kn{.u = u.data(),
                                  .v = v.data(),
                                  .w = w.data(),
                                  .ut = ut.data(),
                                  .vt = vt.data(),
                                  .wt = wt.data(),
                                  .p = p.data(),
                                  .dzhi = m.dzhi.data(),
                                  .dxi = m.dxi,
                                  .dyi = m.dyi,
                                  .b_dt = T(b_dt),
                                  .a_next = T(a_next),
                                  .kstart = g.kstart,
                                  .jj = m.jj,
                                  .kk = m.kk,
                                  .drop_tendencies = drop};
        run_kernel(kn, g, g.kstart, g.kend); // all levels: w at the wall must stay untouched
        const auto [u_e, ut_e] = stage(in.u, in.ut, grad.ut, g.kstart, drop);
        const auto [v_e, vt_e] = stage(in.v, in.vt, grad.vt, g.kstart, drop);
        const auto [w_e, wt_e] = stage(in.w, in.wt, grad.wt, g.kstart + 1, drop);
        // w and wt at kstart lie outside the compared range: they must be bit-identical.
        SQ_EXPECT_MATCH(T, compare(g, u, u_e, in.u, g.kstart, g.kend), "PresOutRk u");
        SQ_EXPECT_MATCH(T, compare(g, v, v_e, in.v, g.kstart, g.kend), "PresOutRk v");
        SQ_EXPECT_MATCH(T, compare(g, w, w_e, in.w, g.kstart + 1, g.kend), "PresOutRk w");
        if (drop) { // not even the interior's tendencies were written
            EXPECT_TRUE(ut == to_t<T>(in.ut) && vt == to_t<T>(in.vt) && wt == to_t<T>(in.wt));
        } else {
            SQ_EXPECT_MATCH(T, compare(g, ut, ut_e, in.ut, g.kstart, g.kend), "PresOutRk ut");
            SQ_EXPECT_MATCH(T, compare(g, vt, vt_e, in.vt, g.kstart, g.kend), "PresOutRk vt");
            SQ_EXPECT_MATCH(T, compare(g, wt, wt_e, in.wt, g.kstart + 1, g.kend), "PresOutRk wt");
        }
    }
}

TYPED_TEST(MiscKernels, DivergenceAndCfl) {
    using T = TypeParam;
    const Inputs in = make_inputs<T>();
    const RefGrid& g = in.g;
    const Metrics<T> m(g);
    const auto u = to_t<T>(in.u), v = to_t<T>(in.v), w = to_t<T>(in.w);
    const Vec zero(g.ncells, 0.0);
    sq::Divergence<T> dv{};
    dv.u = u.data();
    dv.v = v.data();
    dv.w = w.data();
    dv.dzi = m.dzi.data();
    dv.rho = m.rho.data();
    dv.rhoh = m.rhoh.data();
    dv.dxi = m.dxi;
    dv.dyi = m.dyi;
    dv.jj = m.jj;
    dv.kk = m.kk;
    SQ_EXPECT_MATCH(T,
                    compare(g, run_reduction(dv, g, g.kstart, g.kend),
                            sqref::ref_divergence(g, in.u, in.v, in.w), zero, g.kstart, g.kend),
                    "Divergence");
    sq::Cfl<T> cf{};
    cf.u = u.data();
    cf.v = v.data();
    cf.w = w.data();
    cf.dzi = m.dzi.data();
    cf.dxi = m.dxi;
    cf.dyi = m.dyi;
    cf.jj = m.jj;
    cf.kk = m.kk;
    SQ_EXPECT_MATCH(T,
                    compare(g, run_reduction(cf, g, g.kstart, g.kend),
                            sqref::ref_cfl(g, in.u, in.v, in.w), zero, g.kstart, g.kend),
                    "Cfl");
}

TYPED_TEST(MiscKernels, RkUpdateAndSponge) {
    using T = TypeParam;
    const Inputs in = make_inputs<T>();
    const RefGrid& g = in.g;
    const Metrics<T> m(g);
    const double b_dt = as_t<T>(0.9375 * 0.2), a_next = as_t<T>(-153.0 / 128.0);
    auto a = to_t<T>(in.s), at = to_t<T>(in.ut);
    sq::RkUpdate<T> rk{};
    rk.a = a.data();
    rk.at = at.data();
    rk.b_dt = T(b_dt);
    rk.a_next = T(a_next);
    rk.jj = m.jj;
    rk.kk = m.kk;
    run_kernel(rk, g, g.kstart, g.kend);
    // Reference: new state and rescaled tendency as separate arrays.
    Vec a_new(g.ncells, 0.0), at_new(g.ncells, 0.0), sponge(g.ncells, 0.0);
    Vec aref(g.kcells), coef(g.kcells);
    for (int k = 0; k < g.kcells; ++k) {
        aref[k] = as_t<T>(0.1 * k - 0.5);
        coef[k] = as_t<T>(k > g.kend - 6 ? 0.05 * (k - g.kend + 6) : 0.0);
    }
    for (int k = g.kstart; k < g.kend; ++k)
        for (int j = g.jstart; j < g.jend; ++j)
            for (int i = g.istart; i < g.iend; ++i) {
                const int n = g.idx(i, j, k);
                a_new[n] = double((long double)b_dt * in.ut[n]);
                at_new[n] = double((long double)a_next * in.ut[n] - in.ut[n]);
                sponge[n] = double(-(long double)coef[k] * ((long double)in.s[n] - aref[k]));
            }
    SQ_EXPECT_MATCH(T, compare(g, a, expect_added(in.s, a_new), in.s, g.kstart, g.kend),
                    "RkUpdate a");
    SQ_EXPECT_MATCH(T, compare(g, at, expect_added(in.ut, at_new), in.ut, g.kstart, g.kend),
                    "RkUpdate at");

    const auto s = to_t<T>(in.s), aref_t = to_t<T>(aref), coef_t = to_t<T>(coef);
    auto st = to_t<T>(in.tend0);
    sq::Sponge<T> sp{};
    sp.at = st.data();
    sp.a = s.data();
    sp.aref = aref_t.data();
    sp.coef = coef_t.data();
    sp.jj = m.jj;
    sp.kk = m.kk;
    run_kernel(sp, g, g.kstart, g.kend);
    SQ_EXPECT_MATCH(T, compare(g, st, expect_added(in.tend0, sponge), in.tend0, g.kstart, g.kend),
                    "Sponge");
}
