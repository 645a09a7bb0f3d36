// The shared-memory staging of src/backends/cuda/stage.cuh, on the host: the staging code
// the GPU runs (loads, ring slots, mirrors, rebased kernel copy) with a plain copy in
// place of cp.async, for every block and step of launches over an awkward grid. At every
// point the staged copy of each stageable kernel must give bit for bit the value the
// kernel computes from the global fields; the shared memory starts as NaN, so a read
// outside what was loaded shows. Windows or a reach declared one level or point too
// small must be caught.
#include "backends/cuda/stage.cuh"
#include "host_fill.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace {

using namespace squall;
using namespace squall::gpu;
using namespace squall::gpu::testing;

struct HostCopy {
    template <typename T>
    static void copy(T* dst, const T* src) {
        *dst = *src;
    }
    static void commit() {}
    static void wait_and_sync(int) {}
};

constexpr int kMaxElements = 24; // box elements per emulated thread, at most

struct Layout {
    int spx, spy, levels, depth, threads;
};

// Number of points whose staged value differs from the direct one (0: staging is exact).
template <class F, class Staged = F>
long mismatches(const TestGrid& g, const Layout& lay, uint32_t seed) {
    using T = decltype(gpu::detail::value_type_of(static_cast<const F*>(nullptr)));
    F f = blank_kernel<F>(g);
    std::vector<std::vector<T>> storage;
    fill<F, T>(f, g, storage, seed);
    Staged src{};
    static_cast<F&>(src) = f; // Staged: F with other declarations, no other members
    const sq::Range3 r = g.range(F::name);
    const int ni = r.i1 - r.i0, nj = r.j1 - r.j0, nk = r.k1 - r.k0, h = Staged::stage_reach;
    sq::StageCount count{lay.depth};
    Staged::staged_inputs(count, src);
    sq::StageGeom geom{};
    geom.sx = lay.spx + 2 * h, geom.sy = lay.spy + 2 * h, geom.depth = lay.depth;
    geom.jj = g.jj(), geom.kk = g.kk(), geom.nlev = r.k1 + 1;
    std::vector<T> smem(size_t(count.planes * geom.plane()));
    if ((geom.plane() + lay.threads - 1) / lay.threads > kMaxElements) return -1;
    long bad = 0;
    for (int ck = 0; ck < nk; ck += lay.levels)
        for (int cj = 0; cj < nj; cj += lay.spy)
            for (int ci = 0; ci < ni; ci += lay.spx) {
                std::fill(smem.begin(), smem.end(), std::numeric_limits<T>::quiet_NaN());
                sq::StageGeom b = geom;
                b.x0 = r.i0 + ci - h, b.y0 = r.j0 + cj - h;
                b.xlim = std::min(b.sx, ni - ci + 2 * h), b.ylim = std::min(b.sy, nj - cj + 2 * h);
                b.kb = r.k0 + ck, b.steps = std::min(lay.levels, nk - ck);
                Staged staged = src;
                using St = sq::Stager<Staged, T, HostCopy, kMaxElements>;
                std::vector<St> threads(size_t(lay.threads),
                                        St{b, smem.data(), 0, lay.threads, {}});
                for (int s = 0; s < lay.levels; ++s) {
                    for (int tid = 0; tid < lay.threads; ++tid) {
                        St& st = threads[size_t(tid)];
                        st.tid = tid;
                        if (s == 0) st.begin(src, staged);
                        st.step(s, src, staged);
                    }
                    const int k = r.k0 + ck + s;
                    if (k >= r.k1) continue;
                    for (int j = r.j0 + cj; j < std::min(r.j0 + cj + lay.spy, r.j1); ++j)
                        for (int i = r.i0 + ci; i < std::min(r.i0 + ci + lay.spx, r.i1); ++i) {
                            const auto want = src.value(i, j, k), got = staged.value(i, j, k);
                            if (std::memcmp(&want, &got, sizeof want) != 0) ++bad;
                        }
                }
            }
    return bad;
}

const TestGrid kGrid{21, 13, 14};
const Layout kLayouts[] = {
    {8, 4, 5, 1, 32}, {16, 2, 16, 2, 64}, {4, 8, 3, 3, 8}, {32, 1, 64, 2, 64}};

template <class F>
void check_kernel(F*, int& kernels) {
    if constexpr (requires { F::stage_reach; }) {
        uint32_t seed = 1;
        for (const Layout& lay : kLayouts)
            EXPECT_EQ(mismatches<F>(kGrid, lay, seed++), 0)
                << F::name << " staged over " << lay.spx << "x" << lay.spy << " chunks, "
                << lay.levels << " levels, depth " << lay.depth;
        ++kernels;
    }
}

TEST(Stage, StagedKernelsMatchTheGlobalFieldsBitForBit) {
    // advec_{u,v,w,s}_2i5 and diff_uvw_smag, in float and double.
    EXPECT_EQ(for_each_kernel(Kernels3d{}, [](auto* f, int& n) { check_kernel(f, n); }), 10);
}

// Declarations one level or one point short: the check must see the difference.
struct UWindowShort : sq::AdvecU2i5<double> {
    template <class S, class K>
    static void staged_inputs(S& s, K& f) {
        s.field(f.u, -2, 3);
        s.field(f.v, 0, 0);
        s.field(f.w, 0, 1);
    }
};
struct WWindowShort : sq::AdvecU2i5<double> {
    template <class S, class K>
    static void staged_inputs(S& s, K& f) {
        s.field(f.u, -3, 3);
        s.field(f.v, 0, 0);
        s.field(f.w, 0, 0);
    }
};
struct ReachShort : sq::AdvecU2i5<double> {
    static constexpr int stage_reach = 2;
};
struct NoSurfaces : sq::DiffUVWSmag<double> {
    template <class S, class K>
    static void staged_inputs(S& s, K& f) {
        s.field(f.u, -1, 1);
        s.field(f.v, -1, 1);
        s.field(f.w, -1, 1);
        s.field(f.evisc, -1, 1);
    }
};

TEST(Stage, ShortDeclarationsAreCaught) {
    const Layout lay{8, 4, 5, 2, 32};
    using U = sq::AdvecU2i5<double>;
    EXPECT_EQ(mismatches<U>(kGrid, lay, 3), 0);
    EXPECT_GT((mismatches<U, UWindowShort>(kGrid, lay, 3)), 0);
    EXPECT_GT((mismatches<U, WWindowShort>(kGrid, lay, 3)), 0);
    EXPECT_GT((mismatches<U, ReachShort>(kGrid, lay, 3)), 0);
    EXPECT_GT((mismatches<sq::DiffUVWSmag<double>, NoSurfaces>(kGrid, lay, 3)), 0);
}

// On the device the level issued at step s loads while slower threads still read step
// s - 1's windows; the ring leaves room for both.
TEST(Stage, RingNeverOverwritesAWindowInUse) {
    sq::StageGeom g{};
    g.depth = 2;
    const int w = 7, ring = g.ring(w);
    // The level issued at step s (relative level s + depth + w - 1) must not land in the
    // slots of the windows of steps s - 1 and s.
    for (int s = 1; s < 40; ++s) {
        const int issued = (s + g.depth + w - 1) % ring;
        for (int r = s - 1; r < s + w; ++r) EXPECT_NE(issued, r % ring) << "step " << s;
    }
    EXPECT_EQ(g.planes(w), 2 * w + g.depth);
}

} // namespace
