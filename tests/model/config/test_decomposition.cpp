// resolve_decomposition(): given layouts, the automatic choice, and the message for each
// rule that can fail. An independent brute-force check covers many grids and rank counts.
#include "model/config/config.h"

#include <gtest/gtest.h>

#include <string>

using namespace squall;

namespace {

Config grid_case(int itot, int jtot, int ktot, int npx = 0, int npy = 0) {
    Config c;
    c.file = "case.yaml";
    c.mpi.source = "case.yaml:7:8";
    c.grid.itot = itot;
    c.grid.jtot = jtot;
    c.grid.ktot = ktot;
    c.mpi.npx = npx;
    c.mpi.npy = npy;
    return c;
}

std::string error_of(const Config& c, int nprocs) {
    try {
        const Decomp2 d = resolve_decomposition(c, nprocs);
        ADD_FAILURE() << "accepted " << d.npx << " x " << d.npy;
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

// The rules of docs/case-schema.md, written out again.
bool fits(int itot, int jtot, int ktot, int npx, int npy) {
    if (itot % npx || jtot % npy || ktot % npx || itot % npy || jtot % npx) return false;
    if (npx > 1 && itot / npx < 3) return false;
    if (npy > 1 && jtot / npy < 3) return false;
    return true;
}

} // namespace

TEST(Decomposition, GivenLayoutThatFits) {
    const Decomp2 d = resolve_decomposition(grid_case(64, 64, 32, 2, 2), 4);
    EXPECT_EQ(d.npx, 2);
    EXPECT_EQ(d.npy, 2);
    const Decomp2 s = resolve_decomposition(grid_case(32, 1, 16, 1, 1), 1);
    EXPECT_EQ(s.npx, 1);
    EXPECT_EQ(s.npy, 1);
}

TEST(Decomposition, AutomaticChoice) {
    struct Row {
        int itot, jtot, ktot, nprocs, npx, npy;
    };
    // Smallest imax + jmax; ties go to the larger npy.
    for (const Row& r : {Row{64, 64, 32, 1, 1, 1},  // serial
                         Row{64, 64, 32, 2, 1, 2},  // 64+32 either way: larger npy
                         Row{64, 64, 32, 4, 2, 2},  // 32+32 beats 64+16
                         Row{64, 64, 32, 8, 2, 4},  // 32+16 ties 16+32: larger npy
                         Row{96, 32, 24, 4, 4, 1},  // 24+32 beats 48+16 and 96+8
                         Row{32, 1, 16, 1, 1, 1},   // 2-D runs serially
                         Row{48, 48, 20, 6, 2, 3}}) // 24+16; 3x2 breaks ktot % npx
    {
        SCOPED_TRACE(testing::Message()
                     << r.itot << "x" << r.jtot << "x" << r.ktot << " on " << r.nprocs);
        const Decomp2 d = resolve_decomposition(grid_case(r.itot, r.jtot, r.ktot), r.nprocs);
        EXPECT_EQ(d.npx, r.npx);
        EXPECT_EQ(d.npy, r.npy);
    }
}

// The log's reason for an automatic layout: the choice, its cost and the alternatives
// with theirs; nothing when the case gave the layout.
TEST(Decomposition, AutomaticChoiceIsExplained) {
    const Config c = grid_case(64, 64, 32);
    const std::string why = explain_decomposition(c, 8, resolve_decomposition(c, 8));
    EXPECT_TRUE(contains(why, "layout 2 x 4 chosen automatically")) << why;
    EXPECT_TRUE(contains(why, "imax + jmax = 32 + 16 = 48")) << why;
    EXPECT_TRUE(contains(why, "1 x 8 (72), 4 x 2 (48), 8 x 1 (72)")) << why;
    const Config pinned = grid_case(64, 64, 32, 4, 0);
    EXPECT_TRUE(contains(explain_decomposition(pinned, 8, resolve_decomposition(pinned, 8)),
                         "with mpi.npx = 4: the fewest halo columns per rank, imax + jmax = 16 + "
                         "32 = 48; no other layout fits"));
    EXPECT_EQ(explain_decomposition(grid_case(64, 64, 32, 2, 4), 8, {2, 4}), "");
}

TEST(Decomposition, OneDirectionPinned) {
    Decomp2 d = resolve_decomposition(grid_case(64, 64, 32, 4, 0), 8);
    EXPECT_EQ(d.npx, 4);
    EXPECT_EQ(d.npy, 2);
    d = resolve_decomposition(grid_case(64, 64, 32, 0, 8), 8);
    EXPECT_EQ(d.npx, 1);
    EXPECT_EQ(d.npy, 8);
    const std::string msg = error_of(grid_case(64, 64, 32, 3, 0), 4);
    EXPECT_TRUE(contains(msg, "case.yaml:7:8: mpi: no decomposition of the 64 x 64 x 32 grid fits "
                              "4 ranks with mpi.npx = 3"))
        << msg;
    EXPECT_TRUE(contains(msg, "decompositions that fit 4 ranks: 1 x 4, 2 x 2, 4 x 1")) << msg;
}

TEST(Decomposition, EachRuleHasItsMessage) {
    struct Row {
        int itot, jtot, ktot, npx, npy, nprocs;
        const char* rule;
    };
    for (const Row& r : {
             Row{64, 64, 32, 2, 2, 2, "it needs npx * npy = 4 ranks but the run has 2"},
             Row{30, 32, 32, 4, 1, 4, "itot = 30 is not divisible by npx = 4"},
             Row{32, 30, 32, 1, 4, 4, "jtot = 30 is not divisible by npy = 4"},
             Row{32, 32, 30, 4, 1, 4, "ktot = 30 is not divisible by npx = 4"},
             Row{32, 33, 32, 1, 3, 3, "itot = 32 is not divisible by npy = 3"},
             Row{33, 32, 33, 3, 1, 3, "jtot = 32 is not divisible by npx = 3"},
             Row{8, 8, 8, 4, 1, 4, "imax = itot / npx = 8 / 4 = 2 is below the 3 ghost cells"},
             Row{8, 8, 8, 1, 4, 4, "jmax = jtot / npy = 8 / 4 = 2 is below the 3 ghost cells"},
         }) {
        const std::string msg = error_of(grid_case(r.itot, r.jtot, r.ktot, r.npx, r.npy), r.nprocs);
        SCOPED_TRACE(msg);
        EXPECT_TRUE(contains(
            msg, "case.yaml:7:8: mpi.npx: decomposition npx x npy = " + std::to_string(r.npx) +
                     " x " + std::to_string(r.npy) + " does not fit: " + r.rule));
        // Exactly one rule fails in each row, so nothing else is listed.
        EXPECT_TRUE(contains(msg, std::string(r.rule) + ". "));
    }
    // The ktot case lists the layouts that would work: 1 x 4 and 2 x 2 (4 x 1 is the one
    // that breaks ktot % npx).
    const std::string msg = error_of(grid_case(32, 32, 30, 4, 1), 4);
    EXPECT_TRUE(contains(msg, "Decompositions of the 32 x 32 x 30 grid that fit 4 ranks (npx x "
                              "npy): 1 x 4, 2 x 2; or set mpi.npx and mpi.npy to 0"))
        << msg;
}

TEST(Decomposition, NoneFits) {
    // A 2-D grid (jtot = 1) cannot be split: jtot % npx and jtot % npy both fail.
    std::string msg = error_of(grid_case(32, 1, 16), 2);
    EXPECT_TRUE(contains(msg, "case.yaml:7:8: mpi: no decomposition of the 32 x 1 x 16 grid fits "
                              "2 ranks (1 x 2: jtot = 1 is not divisible by npy = 2"))
        << msg;
    EXPECT_TRUE(contains(msg, "rank counts up to 16 that fit this grid: 1")) << msg;
    // Given layout, but no layout at all fits 5 ranks on 16^3: suggest counts that work.
    msg = error_of(grid_case(16, 16, 16, 5, 1), 5);
    EXPECT_TRUE(contains(msg, "No decomposition of the 16 x 16 x 16 grid fits 5 ranks; rank "
                              "counts up to 16 that fit this grid: 1, 2, 4, 8, 16"))
        << msg;
    msg = error_of(grid_case(16, 16, 16), 0);
    EXPECT_TRUE(contains(msg, "invalid number of ranks 0")) << msg;
}

// Brute force against the rules written out above: the choice fits, nothing cheaper fits,
// and an error comes exactly when no layout fits.
TEST(Decomposition, AgreesWithBruteForce) {
    for (int itot : {1, 6, 12, 24, 30, 64})
        for (int jtot : {1, 8, 9, 24})
            for (int ktot : {2, 12, 32})
                for (int n = 1; n <= 16; ++n) {
                    int best = -1;
                    for (int px = 1; px <= n; ++px)
                        if (n % px == 0 && fits(itot, jtot, ktot, px, n / px)) {
                            const int cost = itot / px + jtot / (n / px);
                            if (best < 0 || cost < best) best = cost;
                        }
                    const Config c = grid_case(itot, jtot, ktot);
                    if (best < 0) {
                        EXPECT_FALSE(error_of(c, n).empty());
                        continue;
                    }
                    const Decomp2 d = resolve_decomposition(c, n);
                    EXPECT_EQ(d.npx * d.npy, n);
                    EXPECT_TRUE(fits(itot, jtot, ktot, d.npx, d.npy));
                    EXPECT_EQ(itot / d.npx + jtot / d.npy, best);
                }
}
