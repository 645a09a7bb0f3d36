// Serial checks of the pressure solver: residual of the discrete Poisson operator for a
// random right-hand side (double and float, stretched grids, 3-D and 2-D), and exact
// discrete eigenfunctions on a uniform grid.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <ostream>
#include <vector>

#include "model/decomp.h"
#include "model/pressure/pressure.h"
#include "model/pressure/transpose.h"
#include "pressure_test_util.h"

using namespace squall;

namespace {

// Solve a random RHS on one rank and return the relative residual of the full operator.
template <typename T>
double random_rhs_residual(int itot, int jtot, int ktot, bool stretched, unsigned seed) {
    const Config cfg = ptest::make_case(itot, jtot, ktot, stretched);
    const Grid<T> grid = Grid<T>::make(cfg, 1, 1, 0, 0);
    Decomposition decomp = Decomposition::make(MPI_COMM_SELF, 1, 1);
    const std::vector<double> rhs = ptest::random_global(itot, jtot, ktot, seed);
    Field3d<T> p(grid.d);
    ptest::scatter_to_field(rhs, p);
    // The RHS as the solver saw it (rounded to T), so float runs are judged fairly.
    const std::vector<double> rhs_t = ptest::field_to_global(p);
    {
        PressureSolver<T> solver(grid, decomp);
        solver.solve(p);
    }
    decomp.free();
    // Bottom ghost must mirror the first level.
    const GridDims& d = grid.d;
    for (int j = d.jstart; j < d.jend; ++j)
        for (int i = d.istart; i < d.iend; ++i) EXPECT_EQ(p(i, j, d.kstart - 1), p(i, j, d.kstart));
    const double res = ptest::residual(grid, ptest::field_to_global(p), rhs_t);
    std::printf("  %dx%dx%d %s: relative residual %.3e\n", itot, jtot, ktot,
                sizeof(T) == 8 ? "double" : "float", res);
    return res;
}

} // namespace

TEST(PressureSerial, RandomRhsResidualDoubleStretched) {
    const double res = random_rhs_residual<double>(24, 20, 16, true, 1);
    EXPECT_LT(res, 1e-12);
}

TEST(PressureSerial, RandomRhsResidualDoubleUniformOddSizes) {
    // Odd itot/jtot exercise half-complex layouts without a Nyquist entry.
    EXPECT_LT(random_rhs_residual<double>(15, 9, 7, false, 2), 1e-12);
}

TEST(PressureSerial, RandomRhsResidualDouble2d) {
    EXPECT_LT(random_rhs_residual<double>(32, 1, 24, true, 3), 1e-12);
}

TEST(PressureSerial, RandomRhsResidualFloatStretched) {
    const double res = random_rhs_residual<float>(24, 20, 16, true, 4);
    EXPECT_LT(res, 1e-4);
}

TEST(PressureSerial, RandomRhsResidualFloat2d) {
    EXPECT_LT(random_rhs_residual<float>(32, 1, 24, true, 5), 1e-4);
}

// pi = h(x) g(y) f(z) with h, g a cosine or sine of wavenumber n, m and f a discrete
// eigenvector of the vertical operator on a uniform grid; then L(pi) = lambda pi exactly,
// lambda = 2(cos(2 pi n/itot)-1)/dx^2 + 2(cos(2 pi m/jtot)-1)/dy^2 + 2(cos(theta)-1)/dz^2.
// Vertical eigenvectors: f = cos(theta (k+1/2)) with theta = pi l/ktot (Neumann at both
// walls, non-mean modes) or theta = pi (l+1/2)/ktot (pi = 0 on the top face, mean mode).
struct Mode {
    int n, m, l;
    bool sin_x, sin_y;
};

void PrintTo(const Mode& m, std::ostream* os) {
    *os << "(n=" << m.n << ", m=" << m.m << ", l=" << m.l << (m.sin_x ? ", sin x" : "")
        << (m.sin_y ? ", sin y" : "") << ")";
}

class PressureEigen : public ::testing::TestWithParam<Mode> {};

TEST_P(PressureEigen, RecoversDiscreteEigenfunction) {
    const Mode md = GetParam();
    const int itot = 24, jtot = 20, ktot = 16;
    const Config cfg = ptest::make_case(itot, jtot, ktot, false);
    const Grid<double> grid = Grid<double>::make(cfg, 1, 1, 0, 0);
    Decomposition decomp = Decomposition::make(MPI_COMM_SELF, 1, 1);
    const double pi = std::numbers::pi;
    const bool mean = md.n == 0 && md.m == 0;
    const double theta = mean ? pi * (md.l + 0.5) / ktot : pi * double(md.l) / ktot;
    const double dz = cfg.grid.zsize / ktot, dx = cfg.grid.xsize / itot, dy = cfg.grid.ysize / jtot;
    const double lambda = 2 * (std::cos(2 * pi * md.n / itot) - 1) / (dx * dx) +
                          2 * (std::cos(2 * pi * md.m / jtot) - 1) / (dy * dy) +
                          2 * (std::cos(theta) - 1) / (dz * dz);
    auto exact = [&](int i, int j, int k) {
        const double ax = 2 * pi * md.n * (i + 0.5) / itot, ay = 2 * pi * md.m * (j + 0.5) / jtot;
        return (md.sin_x ? std::sin(ax) : std::cos(ax)) * (md.sin_y ? std::sin(ay) : std::cos(ay)) *
               std::cos(theta * (k + 0.5));
    };
    const GridDims& d = grid.d;
    Field3d<double> p(d);
    for (int k = 0; k < ktot; ++k)
        for (int j = 0; j < jtot; ++j)
            for (int i = 0; i < itot; ++i)
                p(d.istart + i, d.jstart + j, d.kstart + k) = lambda * exact(i, j, k);
    {
        PressureSolver<double> solver(grid, decomp);
        solver.solve(p);
    }
    decomp.free();
    double err = 0;
    for (int k = 0; k < ktot; ++k)
        for (int j = 0; j < jtot; ++j)
            for (int i = 0; i < itot; ++i)
                err = std::max(
                    err, std::abs(p(d.istart + i, d.jstart + j, d.kstart + k) - exact(i, j, k)));
    std::printf("  mode (%d,%d,%d): max error %.3e\n", md.n, md.m, md.l, err);
    EXPECT_LT(err, 1e-12) << "mode n=" << md.n << " m=" << md.m << " l=" << md.l;
}

INSTANTIATE_TEST_SUITE_P(Modes, PressureEigen,
                         ::testing::Values(Mode{1, 0, 0, false, false}, Mode{0, 1, 0, false, true},
                                           Mode{3, 2, 1, true, false}, Mode{5, 7, 4, true, true},
                                           Mode{12, 10, 15, true, true}, Mode{11, 3, 2, true, true},
                                           Mode{0, 0, 0, false, false},
                                           Mode{0, 0, 3, false, false}));

// The host pencil copy (block copies of rows, pointer loops for transposes) against the
// element the copy kernel defines, sq::PressurePencilCopy, bit for bit: the six copies of
// one-rank layouts whose sizes leave partial groups of rows, and a packing copy over
// several blocks with the own block skipped.
namespace {
void expect_copy_matches_definition(const PencilCopy& c, long n) {
    const std::size_t size = std::size_t(n);
    std::vector<double> src(size), want(size, -1.0), got(size, -1.0);
    for (std::size_t m = 0; m < src.size(); ++m) src[m] = 1.0 + double(m % 9973) * 1e-3;
    const sq::PressurePencilCopy<double> f = pencil_copy_kernel(c, src.data(), want.data());
    for (int z = 0; z < c.n2 * c.nblocks; ++z)
        for (int b = 0; b < c.n1; ++b)
            for (int a = 0; a < c.n0; ++a) f(a, b, z);
    pencil_copy_host(c, src.data(), got.data());
    ASSERT_EQ(got, want) << c.n0 << " x " << c.n1 << " x " << c.n2 << ", " << c.nblocks
                         << " block(s)";
}
} // namespace

TEST(PencilCopy, HostCopyMatchesTheKernelsElement) {
    Decomposition decomp = Decomposition::make(MPI_COMM_SELF, 1, 1);
    for (auto [itot, jtot, ktot] : {std::array{40, 24, 12}, {37, 19, 5}, {16, 48, 3}}) {
        const Grid<double> grid =
            Grid<double>::make(ptest::make_case(itot, jtot, ktot, false), 1, 1, 0, 0);
        const PencilLayout lay(grid.d, decomp);
        const long n = std::max<long>(lay.nlocal, long(grid.d.kk) * grid.d.kcells);
        for (const PencilStep& fwd : {lay.zcol_x, lay.x_y, lay.y_z})
            for (const PencilStep& s : {fwd, fwd.reversed()})
                expect_copy_matches_definition(s.own(), n);
    }
    // Four blocks of 21 x 18 x 3 packed from a transposed map, block 2 skipped.
    const PencilMap from{5, 21 * 18 * 3, 18, 1, 21 * 18}, packed{0, 21 * 18 * 3, 1, 21, 21 * 18};
    const PencilCopy pack{from, packed, 21, 18, 3, 3, 0, 2};
    expect_copy_matches_definition(pack, 5 + 4L * 21 * 18 * 3);
    decomp.free();
}
