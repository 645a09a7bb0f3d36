// Periodic halo exchange (model/core/halo.h) against the periodic extension of a global
// field, on 1, 2 (2x1 and 1x2) and 4 (2x2) ranks: every interior point holds a value unique
// to its global (i, j, k); after exchange(a, nk) every ghost column, row and corner of
// levels 0 .. nk-1 must hold the value of the interior point it wraps to, and levels from
// nk up must be untouched. Includes grids narrower than the ghost width on one rank (the
// wrap repeats the interior), two arrays exchanged in one call (each must come out as
// if exchanged alone), and the exchange in two halves (start, finish) with other work or
// another exchange between them. Run with 4 MPI ranks: sub-communicators run each layout.
// HaloGpu does the same with the arrays and the exchange on the GPU (label gpu: the
// transfers on a stream of their own while the other array is written).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <string>
#include <vector>

#include "backends/launch.h"
#include "kernels/halo.cuh"
#include "model/config/config.h"
#include "model/core/gpu_session.h"
#include "model/core/halo.h"
#include "model/decomp.h"
#include "model/field.h"
#include "model/grid.h"
#include "tests/support/gpu_required.h"

namespace squall {
namespace {

double global_value(int ig, int jg, int k, int field = 0) {
    return 1.0 + ig + 1000.0 * jg + 1.0e6 * k + 0.5 * field;
}

// Wraps a global index into [0, n).
int wrap(int g, int n) {
    return ((g % n) + n) % n;
}

// How the arrays are exchanged: one; two in one call; one started, the other array's
// interior rewritten (as the model computes other fields meanwhile), then finished; one
// started and the other exchanged before it is finished.
enum class Mode { one, pair, split, split_then_other };

// Errors on this rank for one layout and level count (0 when all is right).
int check_layout(MPI_Comm comm, int itot, int jtot, int ktot, int npx, int npy, int nk, Mode mode,
                 bool on_device) {
    const bool pair = mode != Mode::one;
    Config cfg;
    cfg.grid.itot = itot, cfg.grid.jtot = jtot, cfg.grid.ktot = ktot;
    cfg.grid.xsize = cfg.grid.ysize = cfg.grid.zsize = 1.0;
    Decomposition decomp = Decomposition::make(comm, npx, npy);
    const Grid<double> grid = Grid<double>::make(cfg, npx, npy, decomp.px, decomp.py);
    const GridDims& d = grid.d;
    const double poison = -7.25;
    std::vector<Field3d<double>> fields;
    for (int n = 0; n < (pair ? 2 : 1); ++n) {
        Field3d<double>& a = fields.emplace_back(d, on_device);
        a.fill(poison);
        for (int k = 0; k < d.kcells; ++k)
            for (int j = d.jstart; j < d.jend; ++j)
                for (int i = d.istart; i < d.iend; ++i)
                    a(i, j, k) =
                        global_value(d.ioffset + i - d.istart, d.joffset + j - d.jstart, k, n);
        if (on_device) a.to_device();
    }
    {
        Halo<double> halo(d, decomp, on_device);
        switch (mode) {
        case Mode::one:
            halo.exchange(fields[0].data(), nk);
            break;
        case Mode::pair:
            halo.exchange({fields[0].data(), fields[1].data()}, nk);
            break;
        case Mode::split:
            halo.start(fields[0].data(), nk);
            for (int k = 0; k < d.kcells; ++k) // the same values, written again
                for (int j = d.jstart; j < d.jend; ++j)
                    for (int i = d.istart; i < d.iend; ++i)
                        fields[1](i, j, k) =
                            global_value(d.ioffset + i - d.istart, d.joffset + j - d.jstart, k, 1);
            if (on_device) fields[1].to_device();
            halo.exchange(fields[1].data(), nk); // finishes the first exchange first
            break;
        case Mode::split_then_other:
            halo.start(fields[1].data(), nk);
            halo.finish();
            halo.start(fields[0].data(), nk);
            break; // the destructor finishes it
        }
    }
    int errors = 0;
    for (int n = 0; n < int(fields.size()); ++n) {
        if (on_device) fields[size_t(n)].to_host();
        const Field3d<double>& a = fields[size_t(n)];
        for (int k = 0; k < d.kcells; ++k)
            for (int j = 0; j < d.jcells; ++j)
                for (int i = 0; i < d.icells; ++i) {
                    const bool interior =
                        i >= d.istart && i < d.iend && j >= d.jstart && j < d.jend;
                    if (interior) continue;
                    const int ig = wrap(d.ioffset + i - d.istart, itot);
                    const int jg = wrap(d.joffset + j - d.jstart, jtot);
                    const double want = k < nk ? global_value(ig, jg, k, n) : poison;
                    if (a(i, j, k) != want && ++errors <= 5)
                        ADD_FAILURE()
                            << itot << "x" << jtot << "x" << ktot << " on " << npx << "x" << npy
                            << ", nk " << nk << ", array " << n << " of " << fields.size()
                            << ", rank (" << decomp.px << "," << decomp.py << "): ghost (" << i
                            << "," << j << "," << k << ") = " << a(i, j, k) << ", want " << want;
                }
    }
    decomp.free();
    return errors;
}

void check_every_layout(bool on_device) {
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
                for (Mode mode : {Mode::one, Mode::pair, Mode::split, Mode::split_then_other})
                    check_layout(comm, c.itot, c.jtot, c.ktot, l.npx, l.npy, nk, mode, on_device);
            MPI_Comm_free(&comm);
        }
}

TEST(Halo, GhostCellsAreThePeriodicExtensionOnEveryLayout) {
    check_every_layout(false);
}

TEST(HaloGpu, GhostCellsAreThePeriodicExtensionOnEveryLayout) {
    const std::string why = open_gpu(MPI_COMM_WORLD);
    SQUALL_NEED_GPU(why.empty(), why);
    gpu_dispatch(true);
    check_every_layout(true);
    gpu_dispatch(false);
}

// The host exchange (one pass over several arrays) against the per-point kernels of
// kernels/halo.cuh that define the periodic wrap (HaloWrapX, then HaloWrapY), launched on
// the CPU backend: on arrays whose every cell, ghosts included, holds a distinct value,
// the two must leave bitwise the same arrays.
TEST(Halo, HostExchangeEqualsTheWrapKernels) {
    struct Case {
        int itot, jtot, ktot;
    };
    for (const Case& c : {Case{12, 10, 4}, Case{2, 1, 2}, Case{1, 5, 2}}) {
        Config cfg;
        cfg.grid.itot = c.itot, cfg.grid.jtot = c.jtot, cfg.grid.ktot = c.ktot;
        cfg.grid.xsize = cfg.grid.ysize = cfg.grid.zsize = 1.0;
        Decomposition decomp = Decomposition::make(MPI_COMM_SELF, 1, 1);
        const Grid<double> grid = Grid<double>::make(cfg, 1, 1, 0, 0);
        const GridDims& d = grid.d;
        std::vector<Field3d<double>> host, kern;
        for (int n = 0; n < 3; ++n)
            for (Field3d<double>* a : {&host.emplace_back(d), &kern.emplace_back(d)})
                for (int k = 0; k < d.kcells; ++k)
                    for (int j = 0; j < d.jcells; ++j)
                        for (int i = 0; i < d.icells; ++i)
                            (*a)(i, j, k) = std::sin(1.0 + i + 7.0 * j + 53.0 * k + 0.25 * n);
        const int nk = d.kcells - 1; // the top level stays as it is
        Halo<double>(d, decomp).exchange({host[0].data(), host[1].data(), host[2].data()}, nk);
        for (Field3d<double>& a : kern) {
            launch(sq::halo_x_range(d.jstart, d.jend, nk, igc),
                   sq::HaloWrapX<double>{.a = a.data(),
                                         .istart = d.istart,
                                         .iend = d.iend,
                                         .imax = d.imax,
                                         .igc = igc,
                                         .jj = d.jj,
                                         .kk = d.kk});
            launch(sq::Range3{0, d.icells, 0, jgc, 0, nk}, sq::HaloWrapY<double>{.a = a.data(),
                                                                                 .jstart = d.jstart,
                                                                                 .jend = d.jend,
                                                                                 .jmax = d.jmax,
                                                                                 .jj = d.jj,
                                                                                 .kk = d.kk});
        }
        for (int n = 0; n < 3; ++n)
            for (int k = 0; k < d.kcells; ++k)
                for (int j = 0; j < d.jcells; ++j)
                    for (int i = 0; i < d.icells; ++i)
                        ASSERT_EQ(host[size_t(n)](i, j, k), kern[size_t(n)](i, j, k))
                            << c.itot << "x" << c.jtot << "x" << c.ktot << " array " << n << " at ("
                            << i << "," << j << "," << k << ")";
        decomp.free();
    }
}

} // namespace
} // namespace squall
