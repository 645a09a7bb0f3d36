// Periodic halo exchange (model/core/halo.h) against the periodic extension of a global
// field, on 1, 2 (2x1 and 1x2) and 4 (2x2) ranks: every interior point holds a value unique
// to its global (i, j, k); after exchange(a, nk) every ghost column, row and corner of
// levels 0 .. nk-1 must hold the value of the interior point it wraps to, and levels from
// nk up must be untouched. Includes grids narrower than the ghost width on one rank (the
// wrap repeats the interior). Run with 4 MPI ranks: sub-communicators run each layout.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <string>
#include <vector>

#include "model/config/config.h"
#include "model/core/halo.h"
#include "model/decomp.h"
#include "model/field.h"
#include "model/grid.h"

namespace squall {
namespace {

double global_value(int ig, int jg, int k) {
    return 1.0 + ig + 1000.0 * jg + 1.0e6 * k;
}

// Wraps a global index into [0, n).
int wrap(int g, int n) {
    return ((g % n) + n) % n;
}

// Errors on this rank for one layout and level count (0 when all is right).
int check_layout(MPI_Comm comm, int itot, int jtot, int ktot, int npx, int npy, int nk) {
    Config cfg;
    cfg.grid.itot = itot, cfg.grid.jtot = jtot, cfg.grid.ktot = ktot;
    cfg.grid.xsize = cfg.grid.ysize = cfg.grid.zsize = 1.0;
    Decomposition decomp = Decomposition::make(comm, npx, npy);
    const Grid<double> grid = Grid<double>::make(cfg, npx, npy, decomp.px, decomp.py);
    const GridDims& d = grid.d;
    const double poison = -7.25;
    Field3d<double> a(d);
    a.fill(poison);
    for (int k = 0; k < d.kcells; ++k)
        for (int j = d.jstart; j < d.jend; ++j)
            for (int i = d.istart; i < d.iend; ++i)
                a(i, j, k) = global_value(d.ioffset + i - d.istart, d.joffset + j - d.jstart, k);
    {
        Halo<double> halo(d, decomp);
        halo.exchange(a.data(), nk);
    }
    int errors = 0;
    for (int k = 0; k < d.kcells; ++k)
        for (int j = 0; j < d.jcells; ++j)
            for (int i = 0; i < d.icells; ++i) {
                const bool interior = i >= d.istart && i < d.iend && j >= d.jstart && j < d.jend;
                if (interior) continue;
                const int ig = wrap(d.ioffset + i - d.istart, itot);
                const int jg = wrap(d.joffset + j - d.jstart, jtot);
                const double want = k < nk ? global_value(ig, jg, k) : poison;
                if (a(i, j, k) != want && ++errors <= 5)
                    ADD_FAILURE() << itot << "x" << jtot << "x" << ktot << " on " << npx << "x"
                                  << npy << ", nk " << nk << ", rank (" << decomp.px << ","
                                  << decomp.py << "): ghost (" << i << "," << j << "," << k
                                  << ") = " << a(i, j, k) << ", want " << want;
            }
    decomp.free();
    return errors;
}

TEST(Halo, GhostCellsAreThePeriodicExtensionOnEveryLayout) {
    int world = 1, rank = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    ASSERT_EQ(world, 4) << "run this test with 4 MPI ranks";
    struct Layout {
        int npx, npy;
    };
    struct Case {
        int itot, jtot, ktot;
        std::vector<Layout> layouts;
    };
    const std::vector<Case> cases = {
        {12, 10, 4, {{1, 1}, {2, 1}, {1, 2}, {2, 2}}},
        {6, 6, 2, {{1, 1}, {2, 2}}}, // 3 x 3 points per rank: exactly the ghost width
        {2, 1, 2, {{1, 1}}},         // narrower than the ghost width: the wrap repeats
        {1, 5, 2, {{1, 1}}},
    };
    for (const Case& c : cases)
        for (const Layout& l : c.layouts) {
            const int n = l.npx * l.npy;
            MPI_Comm comm;
            MPI_Comm_split(MPI_COMM_WORLD, rank < n ? 0 : MPI_UNDEFINED, rank, &comm);
            if (comm == MPI_COMM_NULL) continue;
            const int kcells = c.ktot + 2; // one ghost level below and above
            for (int nk : {kcells, 2, 1})
                check_layout(comm, c.itot, c.jtot, c.ktot, l.npx, l.npy, nk);
            MPI_Comm_free(&comm);
        }
}

} // namespace
} // namespace squall
