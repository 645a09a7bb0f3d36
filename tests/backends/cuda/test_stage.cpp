// The shared-memory staging of src/backends/cuda/stage.cuh, on the host: the staging code
// the GPU runs (loads, ring slots, mirrors, rebased kernel copy) with plain copies in
// place of cp.async and the bulk row copies, for every block and step of launches over an
// awkward grid, in both fills (element and row; rows on the model's aligned layout, which
// takes the bulk path, and on unpadded rows, which do not). At every
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

// ROWS: the row fill. A bulk copy must be what the copy engine accepts: 16-byte aligned
// source and destination, a multiple of 16 bytes; `bulk_faults` counts the others.
template <bool ROWS>
struct HostCopy {
    static constexpr bool by_rows = ROWS;
    long* bulk_faults;
    long* bulk_elements;
    template <typename T>
    static void copy(T* dst, const T* src) {
        *dst = *src;
    }
    template <typename T>
    void bulk(T* dst, const T* src, int count, int) const {
        const auto at16 = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
        if (!at16(dst) || !at16(src) || count * sizeof(T) % 16 != 0 || count <= 0) ++*bulk_faults;
        *bulk_elements += count;
        std::copy(src, src + count, dst);
    }
    void init() const {}
    void commit(int) const {}
    void wait(int) const {}
};

constexpr int kMaxElements = 24; // box elements per emulated thread, at most

struct Layout {
    int spx, spy, levels, depth, threads;
};

// What a staged launch did: points whose staged value differs from the direct one (0:
// staging is exact), bulk copies the copy engine would refuse, elements copied in bulk.
struct Outcome {
    long mismatches = 0, bulk_faults = 0, bulk_elements = 0;
};

template <class F, class Staged = F, bool ROWS = false>
Outcome stage_launch(const TestGrid& g, const Layout& lay, uint32_t seed) {
    using T = decltype(gpu::detail::value_type_of(static_cast<const F*>(nullptr)));
    F f = blank_kernel<F>(g);
    std::vector<std::vector<T>> storage;
    fill<F, T>(f, g, storage, seed);
    Staged src{};
    static_cast<F&>(src) = f; // Staged: F with other declarations, no other members
    const sq::Range3 r = g.range<F>();
    const int ni = r.i1 - r.i0, nj = r.j1 - r.j0, nk = r.k1 - r.k0, h = Staged::stage_reach;
    const int lx = sq::stage_reach_x(h, int(sizeof(T)), ROWS);
    sq::StageCount count{lay.depth};
    Staged::staged_inputs(count, src);
    sq::StageGeom geom{};
    geom.box(lay.spx, lay.spy, lx, h, r.i0, r.j0, ni, nj, 0, 0);
    geom.depth = lay.depth, geom.jj = g.jj(), geom.kk = g.kk(), geom.nlev = r.k1 + 1;
    std::vector<T> smem(size_t(count.planes * geom.plane()));
    Outcome out;
    if ((geom.plane() + lay.threads - 1) / lay.threads > kMaxElements) {
        out.mismatches = -1;
        return out;
    }
    const HostCopy<ROWS> copy{&out.bulk_faults, &out.bulk_elements};
    for (int ck = 0; ck < nk; ck += lay.levels)
        for (int cj = 0; cj < nj; cj += lay.spy)
            for (int ci = 0; ci < ni; ci += lay.spx) {
                std::fill(smem.begin(), smem.end(), std::numeric_limits<T>::quiet_NaN());
                sq::StageGeom b = geom;
                b.box(lay.spx, lay.spy, lx, h, r.i0, r.j0, ni, nj, ci, cj);
                b.kb = r.k0 + ck, b.steps = std::min(lay.levels, nk - ck);
                Staged staged = src;
                using St = sq::Stager<Staged, T, HostCopy<ROWS>, kMaxElements>;
                std::vector<St> threads(size_t(lay.threads),
                                        St{b, smem.data(), 0, lay.threads, copy, {}});
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
                            if (std::memcmp(&want, &got, sizeof want) != 0) ++out.mismatches;
                        }
                }
            }
    return out;
}

template <class F, class Staged = F>
long mismatches(const TestGrid& g, const Layout& lay, uint32_t seed) {
    return stage_launch<F, Staged>(g, lay, seed).mismatches;
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
    // advec_{u,v,w,s}_2i5, advec_w_2i5_buoy and diff_uvw_smag, in float and double.
    EXPECT_EQ(for_each_kernel(Kernels3d{}, [](auto* f, int& n) { check_kernel(f, n); }), 12);
}

// The row fill: exact on both layouts; on the aligned one most of every row goes by bulk
// copies the copy engine accepts, on unpadded rows whatever is misaligned goes element by
// element.
template <class F>
void check_kernel_rows(F*, int& kernels) {
    if constexpr (requires { F::stage_reach; }) {
        TestGrid unpadded = kGrid;
        unpadded.align = 1;
        uint32_t seed = 11;
        for (const Layout& lay : kLayouts) {
            const std::string what = std::string(F::name) + " rows over " +
                                     std::to_string(lay.spx) + "x" + std::to_string(lay.spy);
            const Outcome a = stage_launch<F, F, true>(kGrid, lay, seed);
            EXPECT_EQ(a.mismatches, 0) << what;
            EXPECT_EQ(a.bulk_faults, 0) << what;
            EXPECT_GT(a.bulk_elements, 0) << what;
            const Outcome u = stage_launch<F, F, true>(unpadded, lay, seed++);
            EXPECT_EQ(u.mismatches, 0) << what << ", unpadded rows";
            EXPECT_EQ(u.bulk_faults, 0) << what << ", unpadded rows";
        }
        ++kernels;
    }
}

TEST(Stage, RowFillMatchesTheGlobalFieldsBitForBit) {
    EXPECT_EQ(for_each_kernel(Kernels3d{}, [](auto* f, int& n) { check_kernel_rows(f, n); }), 12);
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
