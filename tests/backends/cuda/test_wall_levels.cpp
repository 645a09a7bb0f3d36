// The wall_levels contract of kernels/README.md, checked on the host: a kernel that
// declares wall_levels W gives, at every level at least W away from both walls, exactly
// the same value when the walls are moved far away (so no wall branch can apply). The GPU
// traversal compiles its deferred tiles away from the walls under that assumption. The
// same check with W - 1 must find a difference, so an under-declared W cannot pass.
#include "backends/cuda/gpu_launch.h"
#include "backends/cuda/tiles.cuh"
#include "host_fill.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace {

using namespace squall;
using namespace squall::gpu;
using namespace squall::gpu::testing;

// Number of points at levels w_check or more away from both walls whose value changes when
// the walls move 20 levels further out.
template <class F>
int changed_points(const F& f, const sq::Range3& r, int w_check) {
    F far = f;
    far.kstart -= 20;
    far.kend += 20;
    int changed = 0;
    for (int k = r.k0; k < r.k1; ++k) {
        if (k < f.kstart + w_check || k >= f.kend - w_check) continue;
        for (int j = r.j0; j < r.j1; ++j)
            for (int i = r.i0; i < r.i1; ++i) {
                const auto a = f.value(i, j, k), b = far.value(i, j, k);
                static_assert(std::is_trivially_copyable_v<decltype(a)>);
                if (std::memcmp(&a, &b, sizeof a) != 0) ++changed;
            }
    }
    return changed;
}

template <class F>
void check_kernel(F*, int& kernels) {
    if constexpr (sq::wall_levels_of<F>(0) >= 0) {
        using T = sq::precision_t<F>;
        const TestGrid g{9, 7, 16};
        F f = blank_kernel<F>(g);
        std::vector<std::vector<T>> storage;
        fill<F, T>(f, g, storage, 7);
        const sq::Range3 r = g.range<F>();
        constexpr int w = sq::wall_levels_of<F>(0);
        EXPECT_EQ(changed_points(f, r, w), 0) << F::name << ": branches beyond wall_levels " << w;
        EXPECT_GT(changed_points(f, r, w - 1), 0)
            << F::name << ": wall_levels " << w << " is more than the kernel needs";
        ++kernels;
    }
}

TEST(WallLevels, DeclaredLevelsAreExactlyWhereTheWallBranchesAre) {
    // advec_{u,v,w,s}_2i5, advec_w_2i5_buoy, diff_{u,v,c}_smag, diff_uvw_smag and
    // tend_{uvw,s}_2i5_smag, in float and double.
    EXPECT_EQ(for_each_kernel(Kernels3d{}, [](auto* f, int& n) { check_kernel(f, n); }), 22);
}

} // namespace
