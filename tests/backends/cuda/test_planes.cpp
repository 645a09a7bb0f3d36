// The planes traversal of src/backends/cuda/planes.cuh, on the host: the march the GPU runs
// (ring slots, boxes, register windows, PlanePtr's split of flat offsets) with plain box
// copies in place of the copy engine, for every block of launches over an awkward grid.
// The boxes are copied the way a tensor map reads them (from the maps' origin, zeros
// outside the array), and must satisfy the copy engine's alignment rules. At every point
// the march must store bit for bit what the kernel computes from the global fields; the
// ring starts as NaN, so a read of a box or level that was not loaded shows. A reach or
// window declared one point or level short must be caught.
#include "backends/cuda/planes.cuh"
#include "host_fill.h"
#include "kernels/tend_fused.cuh"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace {

using namespace squall;
using namespace squall::gpu;
using namespace squall::gpu::testing;

constexpr TestGrid kGrid{37, 23, 19};
constexpr int kJJ = kGrid.jj(), kKK = kGrid.kk();

// What an emulated launch did: stored values that differ from the direct computation,
// points stored twice or never, boxes the copy engine would refuse.
struct Outcome {
    long mismatches = 0, visits_wrong = 0, box_faults = 0;
};

// P with a count of the points computed (value_with, or value_with_z under the z-carry, is
// called once per point).
template <class P, typename T>
struct Counting : P {
    std::vector<int>* visits;
    long pad;
    void visit(int i, int j, int k) const { ++(*visits)[size_t(pad + i + j * kJJ + k * kKK)]; }
    template <class In>
    auto value_with(const In& in, int i, int j, int k) const {
        visit(i, j, k);
        return P::value_with(in, i, j, k);
    }
    template <class In, class Z>
    auto value_with_z(const In& in, int i, int j, int k, const Z& lo, const Z& hi) const {
        visit(i, j, k);
        return P::value_with_z(in, i, j, k, lo, hi);
    }
};

// F: the kernel computed; P: the declarations the march uses (F or a variant with other
// plane inputs). X, Y, TY, RING, LEVELS as the tunables block_x, block_y * tile_y, tile_y,
// plane_ring and plane_levels; CARRY as plane_carry. adjust (if given) changes the filled
// kernel (a null wall flux, say).
template <class F, class P, int X, int Y, int TY, int RING, int LEVELS, bool CARRY = false>
Outcome planes_launch(uint32_t seed, void (*adjust)(F&) = nullptr) {
    using T = sq::precision_t<F>;
    const TestGrid& g = kGrid;
    F f = blank_kernel<F>(g);
    std::vector<std::vector<T>> storage;
    fill<F, T>(f, g, storage, seed);
    if (adjust) adjust(f);
    const sq::Range3 r = g.range<F>();
    constexpr int I0 = kGrid.igc, J0 = kGrid.igc;
    EXPECT_EQ(r.i0, I0);
    EXPECT_EQ(r.j0, J0);
    const int ni = r.i1 - r.i0, nj = r.j1 - r.j0, nk = r.k1 - r.k0, nlev = r.k1 + 1;
    using M = sq::PlaneMarch<P, T, X, Y, TY, RING, I0, J0, kJJ, kKK, false, CARRY>;
    using L = typename M::L;

    // The direct results (the CPU path, f(i, j, k) at every point), then the outputs put back
    // to their start for the march to accumulate into.
    P marched{};
    static_cast<F&>(marched) = f;
    constexpr int outputs = P::plane_outputs;
    T* out[outputs];
    std::vector<T> start[outputs], want[outputs];
    const size_t count = g.elements(Shape::field);
    for (int n = 0; n < outputs; ++n) {
        out[n] = const_cast<T*>(marched.plane_output(n, 0, 0, 0)) - g.pad();
        start[n].assign(out[n], out[n] + count);
    }
    for (int k = r.k0; k < r.k1; ++k)
        for (int j = r.j0; j < r.j1; ++j)
            for (int i = r.i0; i < r.i1; ++i) f(i, j, k);
    for (int n = 0; n < outputs; ++n) {
        want[n].assign(out[n], out[n] + count);
        std::copy(start[n].begin(), start[n].end(), out[n]);
    }
    std::vector<int> visits(count, 0);
    Counting<P, T> counted{marched, &visits, g.pad()};

    const T* in[L::inputs];
    f.plane_arrays(in);
    Outcome o;
    std::vector<unsigned char> smem(size_t(RING * L::slot_bytes) + 128);
    unsigned char* ring =
        smem.data() + (128 - reinterpret_cast<uintptr_t>(smem.data()) % 128) % 128;
    const int rows = g.jcells();
    // A tensor map of input q: origin at element I0 - shift, extents jj x rows x nlev.
    auto load = [&](int q, T* dst, int x, int y, int z) {
        const T* origin = in[q] + (I0 - L::shift());
        const auto at = [](const void* p, int b) {
            return reinterpret_cast<uintptr_t>(p) % b == 0;
        };
        if (!at(origin, 16) || !at(dst, 128) || (x * sizeof(T)) % 16 != 0 ||
            (L::width(q) * sizeof(T)) % 16 != 0 || L::width(q) > 256 || L::height(q) > 256 || x < 0)
            ++o.box_faults;
        for (int b = 0; b < L::height(q); ++b)
            for (int a = 0; a < L::width(q); ++a) {
                const int xx = x + a, yy = y + b;
                const bool inside =
                    xx >= 0 && xx < kJJ && yy >= 0 && yy < rows && z >= 0 && z < nlev;
                dst[a + b * L::width(q)] = inside ? origin[xx + yy * kJJ + size_t(z) * kKK] : T(0);
            }
    };
    for (int ck = 0; ck < nk; ck += LEVELS)
        for (int cj = 0; cj < nj; cj += Y)
            for (int ci = 0; ci < ni; ci += X) {
                std::fill(smem.begin(), smem.end(), 0xff); // NaN in both precisions
                const M m{ring, ci, cj, ni, nj, r.k0 + ck, std::min(LEVELS, nk - ck), nlev};
                std::vector<typename M::Thread> threads;
                for (int ty = 0; ty < Y / TY; ++ty)
                    for (int tx = 0; tx < X; ++tx) threads.push_back({tx, ty * TY, {}, {}, {}});
                for (int p = 0; p < RING - 1 && p <= m.last(); ++p) m.issue(p, load);
                for (auto& t : threads) m.begin(t, counted, in);
                for (int kl = 0; kl < m.steps; ++kl) {
                    if (kl + RING - 1 <= m.last()) m.issue(kl + RING - 1, load);
                    for (auto& t : threads) m.step(t, counted, kl);
                }
            }
    for (int n = 0; n < outputs; ++n)
        for (size_t e = 0; e < count; ++e)
            if (std::memcmp(&want[n][e], &out[n][e], sizeof(T)) != 0) ++o.mismatches;
    for (int k = 0; k < g.kcells(); ++k)
        for (int j = 0; j < g.jcells(); ++j)
            for (int i = 0; i < kJJ; ++i) {
                const bool in_range =
                    i >= r.i0 && i < r.i1 && j >= r.j0 && j < r.j1 && k >= r.k0 && k < r.k1;
                if (visits[size_t(g.pad() + i + j * kJJ + k * kKK)] != (in_range ? 1 : 0))
                    ++o.visits_wrong;
            }
    return o;
}

template <class T>
using U = sq::AdvecU2i5<T>;
template <class T>
using Diff = sq::DiffUVWSmag<T>;

template <class F, int X, int Y, int TY, int RING, int LEVELS, bool CARRY = false>
void expect_exact(uint32_t seed, void (*adjust)(F&) = nullptr) {
    const Outcome o = planes_launch<F, F, X, Y, TY, RING, LEVELS, CARRY>(seed, adjust);
    const std::string what = std::string(F::name) + " " + std::to_string(X) + "x" +
                             std::to_string(Y) + " tile, " + std::to_string(TY) + " rows, ring " +
                             std::to_string(RING) + ", " + std::to_string(LEVELS) + " levels" +
                             (CARRY ? ", z faces carried" : "");
    EXPECT_EQ(o.mismatches, 0) << what;
    EXPECT_EQ(o.visits_wrong, 0) << what;
    EXPECT_EQ(o.box_faults, 0) << what;
}

TEST(Planes, AdvecU2i5MatchesTheGlobalFieldsBitForBit) {
    // Tiles that do and do not divide the grid, march lengths shorter than, equal to and
    // longer than the column, every ring depth the lookahead allows.
    expect_exact<U<double>, 16, 4, 1, 5, 7>(1);
    expect_exact<U<double>, 32, 8, 2, 6, 19>(2);
    expect_exact<U<double>, 16, 16, 4, 7, 64>(3);
    expect_exact<U<float>, 16, 4, 2, 5, 5>(4);
    expect_exact<U<float>, 32, 2, 1, 6, 64>(5);
    // Tiles larger than the grid, many rows per thread.
    expect_exact<U<double>, 128, 16, 8, 7, 32>(6);
    expect_exact<U<double>, 16, 64, 4, 6, 512>(7);
    expect_exact<U<float>, 64, 32, 8, 5, 3>(8);
}

TEST(Planes, AdvecV2i5AndS2i5MatchTheGlobalFieldsBitForBit) {
    expect_exact<sq::AdvecV2i5<double>, 16, 4, 1, 5, 7>(21);
    expect_exact<sq::AdvecV2i5<float>, 32, 8, 2, 6, 19>(22);
    expect_exact<sq::AdvecS2i5<double>, 32, 8, 2, 5, 64>(23);
    expect_exact<sq::AdvecS2i5<float>, 16, 16, 4, 7, 3>(24);
}

TEST(Planes, AdvecW2i5AndItsBuoyancyFusionMatchTheGlobalFieldsBitForBit) {
    expect_exact<sq::AdvecW2i5<double>, 16, 4, 1, 5, 7>(25);
    expect_exact<sq::AdvecW2i5<float>, 32, 8, 2, 6, 64>(26);
    expect_exact<sq::AdvecW2i5Buoy<double>, 32, 8, 2, 5, 19>(27);
    expect_exact<sq::AdvecW2i5Buoy<float>, 16, 16, 4, 7, 3>(28);
}

TEST(Planes, DiffUvwSmagMatchesTheGlobalFieldsBitForBit) {
    // Four inputs, three outputs (w's not written at the bottom wall), wall fluxes.
    expect_exact<Diff<double>, 16, 4, 1, 4, 7>(11);
    expect_exact<Diff<double>, 32, 8, 2, 5, 19>(12);
    expect_exact<Diff<float>, 16, 16, 4, 6, 64>(13);
    expect_exact<Diff<float>, 64, 2, 1, 4, 3>(14);
}

TEST(Planes, FusedTendenciesMatchTheGlobalFieldsBitForBit) {
    // Five inputs each; the momentum kernel's three outputs (w not at the bottom wall).
    // The momentum kernel reads u and v a level below the point off its column and three
    // above on it: a lookahead of 4, a ring of at least 6.
    expect_exact<sq::TendUVW2i5Smag<double>, 16, 4, 1, 6, 7>(31);
    expect_exact<sq::TendUVW2i5Smag<double>, 32, 8, 2, 7, 19>(32);
    expect_exact<sq::TendUVW2i5Smag<float>, 16, 16, 4, 8, 64>(33);
    expect_exact<sq::TendS2i5Smag<double>, 32, 8, 2, 5, 64>(34);
    expect_exact<sq::TendS2i5Smag<float>, 16, 4, 1, 6, 3>(35);
}

TEST(Planes, StrainEviscSmagMatchesTheGlobalFieldsBitForBit) {
    // Three inputs, an output written without being read; th read through its pointer.
    using S = sq::StrainEviscSmag<double>;
    expect_exact<S, 16, 4, 1, 4, 7>(51);
    expect_exact<S, 32, 8, 2, 5, 19>(52);
    expect_exact<sq::StrainEviscSmag<float>, 16, 16, 4, 6, 64>(53);
    expect_exact<sq::StrainEviscSmag<float>, 64, 2, 1, 4, 3>(54);
}

TEST(Planes, CarriedZFacesMatchTheGlobalFieldsBitForBit) {
    // The fused kernels with each z face computed once and carried up the march: marches
    // that start at the bottom wall, in the middle and end at the top one (the faces' orders
    // and the wall fluxes change there), one level long, and many rows per thread.
    using M = sq::TendUVW2i5Smag<double>;
    expect_exact<M, 16, 4, 1, 6, 7, true>(41);
    expect_exact<M, 32, 8, 2, 7, 19, true>(42);
    expect_exact<M, 16, 4, 1, 6, 1, true>(43);
    expect_exact<M, 16, 16, 4, 6, 2, true>(44);
    expect_exact<sq::TendUVW2i5Smag<float>, 16, 16, 4, 8, 64, true>(45);
    expect_exact<sq::TendUVW2i5Smag<float>, 32, 2, 1, 6, 5, true>(46);
    // The scalar kernel: one advection flux and one diffusion value per face.
    using S = sq::TendS2i5Smag<double>;
    expect_exact<S, 16, 4, 1, 5, 7, true>(47);
    expect_exact<S, 32, 8, 2, 6, 1, true>(48);
    expect_exact<sq::TendS2i5Smag<float>, 16, 16, 4, 5, 64, true>(49);
    // Without wall fluxes at the top (the model's usual case) or anywhere (resolved walls):
    // the carried faces at the walls then enter the results.
    expect_exact<M, 16, 4, 1, 6, 7, true>(50, [](M& f) { f.ufluxtop = f.vfluxtop = nullptr; });
    expect_exact<M, 32, 8, 2, 7, 19, true>(
        51, [](M& f) { f.ufluxtop = f.vfluxtop = f.ufluxbot = f.vfluxbot = nullptr; });
    expect_exact<S, 16, 4, 1, 5, 7, true>(52, [](S& f) { f.fluxtop = nullptr; });
    expect_exact<S, 32, 8, 2, 6, 19, true>(53, [](S& f) { f.fluxtop = f.fluxbot = nullptr; });
}

// Declarations one point or level short: the march must then differ somewhere.
// K with one part of one input's declaration moved by Short.
template <class K, int Input, int Part, int Short>
struct Shorten : K {
    SQ_HD static constexpr sq::PlaneInput plane_input(int n) {
        sq::PlaneInput d = K::plane_input(n);
        int* parts[8] = {&d.xlo, &d.xhi, &d.ylo, &d.yhi, &d.plo, &d.phi, &d.zlo, &d.zhi};
        if (n == Input) *parts[Part] += Short;
        return d;
    }
};

TEST(Planes, ShortDeclarationsAreCaught) {
    using F = U<double>;
    EXPECT_EQ((planes_launch<F, F, 16, 4, 1, 5, 7>(9).mismatches), 0);
    // u's reach in -y, u's window top, w's top plane level, v's reach in +y.
    EXPECT_GT((planes_launch<F, Shorten<F, 0, 2, 1>, 16, 4, 1, 5, 7>(9).mismatches), 0);
    EXPECT_GT((planes_launch<F, Shorten<F, 0, 7, -1>, 16, 4, 1, 5, 7>(9).mismatches), 0);
    EXPECT_GT((planes_launch<F, Shorten<F, 2, 5, -1>, 16, 4, 1, 5, 7>(9).mismatches), 0);
    EXPECT_GT((planes_launch<F, Shorten<F, 1, 3, -1>, 16, 4, 1, 5, 7>(9).mismatches), 0);
    // Scalar advection: s's window, u's reach in x, w's window (its only reads).
    using S = sq::AdvecS2i5<double>;
    EXPECT_EQ((planes_launch<S, S, 16, 4, 1, 5, 7>(9).mismatches), 0);
    EXPECT_GT((planes_launch<S, Shorten<S, 0, 6, 1>, 16, 4, 1, 5, 7>(9).mismatches), 0);
    EXPECT_GT((planes_launch<S, Shorten<S, 1, 1, -1>, 16, 4, 1, 5, 7>(9).mismatches), 0);
    EXPECT_GT((planes_launch<S, Shorten<S, 3, 7, -1>, 16, 4, 1, 5, 7>(9).mismatches), 0);
    // w's advection with buoyancy: u's levels, th's window.
    using WB = sq::AdvecW2i5Buoy<double>;
    EXPECT_EQ((planes_launch<WB, WB, 16, 4, 1, 5, 7>(9).mismatches), 0);
    EXPECT_GT((planes_launch<WB, Shorten<WB, 1, 4, 1>, 16, 4, 1, 5, 7>(9).mismatches), 0);
    EXPECT_GT((planes_launch<WB, Shorten<WB, 3, 6, 1>, 16, 4, 1, 5, 7>(9).mismatches), 0);
    // The fused diffusion: each input's reach in x and y, its plane levels and its window,
    // one short at a time (+1 raises a lower bound, -1 lowers an upper one).
    using D = Diff<double>;
    EXPECT_EQ((planes_launch<D, D, 16, 4, 1, 5, 7>(9).mismatches), 0);
    EXPECT_GT((planes_launch<D, Shorten<D, 0, 0, 1>, 16, 4, 1, 5, 7>(9).mismatches), 0);
    EXPECT_GT((planes_launch<D, Shorten<D, 1, 3, -1>, 16, 4, 1, 5, 7>(9).mismatches), 0);
    EXPECT_GT((planes_launch<D, Shorten<D, 2, 5, -1>, 16, 4, 1, 5, 7>(9).mismatches), 0);
    EXPECT_GT((planes_launch<D, Shorten<D, 0, 4, 1>, 16, 4, 1, 5, 7>(9).mismatches), 0);
    EXPECT_GT((planes_launch<D, Shorten<D, 3, 4, 1>, 16, 4, 1, 5, 7>(9).mismatches), 0);
    EXPECT_GT((planes_launch<D, Shorten<D, 0, 7, -1>, 16, 4, 1, 5, 7>(9).mismatches), 0);
    EXPECT_GT((planes_launch<D, Shorten<D, 2, 6, 1>, 16, 4, 1, 5, 7>(9).mismatches), 0);
    // The fused tendencies: the unions' widest parts (u's reach in -x from its own
    // advection, v's plane levels from the diffusion, w's window top) and the inputs only
    // one term reads (evisc's reach in +y, th's window bottom; the scalar's evisc window).
    using M = sq::TendUVW2i5Smag<double>;
    EXPECT_EQ((planes_launch<M, M, 16, 4, 1, 6, 7>(9).mismatches), 0);
    EXPECT_GT((planes_launch<M, Shorten<M, 0, 0, 1>, 16, 4, 1, 6, 7>(9).mismatches), 0);
    EXPECT_GT((planes_launch<M, Shorten<M, 1, 4, 1>, 16, 4, 1, 6, 7>(9).mismatches), 0);
    EXPECT_GT((planes_launch<M, Shorten<M, 2, 7, -1>, 16, 4, 1, 6, 7>(9).mismatches), 0);
    EXPECT_GT((planes_launch<M, Shorten<M, 3, 3, -1>, 16, 4, 1, 6, 7>(9).mismatches), 0);
    EXPECT_GT((planes_launch<M, Shorten<M, 4, 6, 1>, 16, 4, 1, 6, 7>(9).mismatches), 0);
    // The closure in one pass: u's reach in -y and +x, v's plane levels, w's top plane
    // level and reach in -x.
    using SE = sq::StrainEviscSmag<double>;
    EXPECT_EQ((planes_launch<SE, SE, 16, 4, 1, 5, 7>(9).mismatches), 0);
    EXPECT_GT((planes_launch<SE, Shorten<SE, 0, 2, 1>, 16, 4, 1, 5, 7>(9).mismatches), 0);
    EXPECT_GT((planes_launch<SE, Shorten<SE, 0, 1, -1>, 16, 4, 1, 5, 7>(9).mismatches), 0);
    EXPECT_GT((planes_launch<SE, Shorten<SE, 1, 4, 1>, 16, 4, 1, 5, 7>(9).mismatches), 0);
    EXPECT_GT((planes_launch<SE, Shorten<SE, 1, 5, -1>, 16, 4, 1, 5, 7>(9).mismatches), 0);
    EXPECT_GT((planes_launch<SE, Shorten<SE, 2, 5, -1>, 16, 4, 1, 5, 7>(9).mismatches), 0);
    EXPECT_GT((planes_launch<SE, Shorten<SE, 2, 0, 1>, 16, 4, 1, 5, 7>(9).mismatches), 0);
    using TS = sq::TendS2i5Smag<double>;
    EXPECT_EQ((planes_launch<TS, TS, 16, 4, 1, 5, 7>(9).mismatches), 0);
    EXPECT_GT((planes_launch<TS, Shorten<TS, 4, 7, -1>, 16, 4, 1, 5, 7>(9).mismatches), 0);
    EXPECT_GT((planes_launch<TS, Shorten<TS, 4, 0, 1>, 16, 4, 1, 5, 7>(9).mismatches), 0);
}

// Offsets split exactly into (di, dj, dk) over the range a stencil of reach 3 uses.
TEST(Planes, FlatOffsetsSplitIntoTheirParts) {
    int wrong = 0;
    for (int dk = -4; dk <= 4; ++dk)
        for (int dj = -4; dj <= 4; ++dj)
            for (int di = -4; di <= 4; ++di) {
                const int o = di + dj * kJJ + dk * kKK;
                const int k = sq::plane_nearest(o, kKK), rest = o - k * kKK;
                const int j = sq::plane_nearest(rest, kJJ);
                wrong += k != dk || j != dj || rest - j * kJJ != di;
            }
    EXPECT_EQ(wrong, 0);
}

} // namespace
