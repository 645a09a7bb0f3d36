// The large-scale forcings (kernels/forcing.cuh) against the independent references on the
// random non-cubic stretched grid, in both precisions.
#include "kernels/forcing.cuh"

#include "ref_harness.h"

using namespace sqtest;

namespace {

template <typename T>
class ForcingKernels : public ::testing::Test {};
using Precisions = ::testing::Types<double, float>;
TYPED_TEST_SUITE(ForcingKernels, Precisions);

TYPED_TEST(ForcingKernels, Coriolis) {
    using T = TypeParam;
    const Inputs in = make_inputs<T>();
    const RefGrid& g = in.g;
    const Metrics<T> m(g);
    // f of order one, so that the tendency is not lost against the random one it is added to
    // in float; a geostrophic wind that varies with height; all in the kernel's precision.
    const double f = as_t<T>(0.37);
    sqref::Vec ug(g.kcells), vg(g.kcells);
    for (int k = 0; k < g.kcells; ++k) {
        ug[k] = as_t<T>(0.8 + 0.05 * k);
        vg[k] = as_t<T>(-0.1 + 0.025 * k);
    }
    const auto u = to_t<T>(in.u), v = to_t<T>(in.v), ugt = to_t<T>(ug), vgt = to_t<T>(vg);
    auto ut = to_t<T>(in.ut), vt = to_t<T>(in.vt);
    run_kernel(sq::Coriolis<T>{.ut = ut.data(),
                               .vt = vt.data(),
                               .u = u.data(),
                               .v = v.data(),
                               .ug = ugt.data(),
                               .vg = vgt.data(),
                               .fc = T(f),
                               .jj = m.jj,
                               .kk = m.kk},
               g, g.kstart, g.kend);
    const sqref::CoriolisTend ref = sqref::ref_coriolis(g, in.u, in.v, f, ug, vg);
    SQ_EXPECT_MATCH(T, compare(g, ut, expect_added(in.ut, ref.ut), in.ut, g.kstart, g.kend),
                    "Coriolis (u)");
    SQ_EXPECT_MATCH(T, compare(g, vt, expect_added(in.vt, ref.vt), in.vt, g.kstart, g.kend),
                    "Coriolis (v)");
}

// The level sums in their two passes against a plain sum over each level's interior, all
// levels with ghosts included; accumulated in double, so float is as close as its inputs.
TYPED_TEST(ForcingKernels, LevelSums) {
    using T = TypeParam;
    const Inputs in = make_inputs<T>();
    const RefGrid& g = in.g;
    const auto a = to_t<T>(in.u);
    std::vector<T> column(std::size_t(g.icells) * std::size_t(std::max(g.kcells, g.jcells)), T(0));
    std::vector<T> level(std::size_t(g.kcells), T(0));
    const sq::ColumnSums<T> cs{.column_sum = column.data(),
                               .a = a.data(),
                               .jstart = g.jstart,
                               .jend = g.jend,
                               .jj = g.icells,
                               .kk = g.ijcells};
    const sq::LevelSums<T> ls{.level_sum = level.data(),
                              .column_sum = column.data(),
                              .istart = g.istart,
                              .iend = g.iend,
                              .jj = g.icells};
    for (int k = 0; k < g.kcells; ++k)
        for (int i = g.istart; i < g.iend; ++i) cs(i, k);
    for (int k = 0; k < g.kcells; ++k) ls(k, 0);
    for (int k = 0; k < g.kcells; ++k) {
        double want = 0, size = 0;
        for (int j = g.jstart; j < g.jend; ++j)
            for (int i = g.istart; i < g.iend; ++i) {
                want += double(a[std::size_t(g.idx(i, j, k))]);
                size += std::abs(double(a[std::size_t(g.idx(i, j, k))]));
            }
        EXPECT_NEAR(double(level[std::size_t(k)]), want,
                    (sizeof(T) == 4 ? 2e-7 : 1e-15) * size + 1e-300)
            << "level " << k;
    }
}

} // namespace
