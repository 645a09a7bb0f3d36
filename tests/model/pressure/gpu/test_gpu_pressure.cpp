// The GPU pressure solver on the device (label gpu; skips without a GPU): for random
// right-hand sides on stretched, 2-D and odd-sized grids it must match the CPU
// PressureSolver and satisfy the discrete Poisson equation, set the bottom ghost and leave
// every other ghost cell untouched.
#include "tests/support/gpu_required.h"
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "model/decomp.h"
#include "model/pressure/pressure.h"
#include "model/pressure/pressure_gpu.h"
#include "model/pressure/transpose.h"
#include "pressure_test_util.h"

using namespace squall;

namespace {

rt::Runtime& runtime() {
    static rt::Runtime rt;
    return rt;
}

template <typename T>
void check_against_cpu(int itot, int jtot, int ktot, bool stretched, unsigned seed, double tol,
                       int solves = 1) {
    SQUALL_NEED_GPU(runtime().has_device(), runtime().no_device_reason());
    const Config cfg = ptest::make_case(itot, jtot, ktot, stretched);
    const Grid<T> grid = Grid<T>::make(cfg, 1, 1, 0, 0);
    Decomposition decomp = Decomposition::make(MPI_COMM_SELF, 1, 1);
    const std::vector<double> rhs = ptest::random_global(itot, jtot, ktot, seed);
    Field3d<T> p_cpu(grid.d), p_gpu(grid.d);
    // Poison every ghost cell: the solver must neither read nor write them (but the one
    // below the wall).
    const T poison = std::numeric_limits<T>::quiet_NaN();
    p_cpu.fill(poison);
    p_gpu.fill(poison);
    ptest::scatter_to_field(rhs, p_cpu);
    ptest::scatter_to_field(rhs, p_gpu);
    const std::vector<double> rhs_t = ptest::field_to_global(p_gpu);

    {
        PressureSolver<T> solver(grid, decomp);
        solver.solve(p_cpu);
    }
    {
        const std::size_t bytes = sizeof(T) * p_gpu.size();
        rt::DeviceBuffer dev(bytes);
        PressureSolverGpu<T> solver(grid, decomp, runtime());
        EXPECT_FALSE(solver.pencils());
        // Repeated solves of the same RHS must give the same answer (no stale state).
        for (int s = 0; s < solves; ++s) {
            dev.upload(p_gpu.data());
            solver.solve(reinterpret_cast<T*>(dev.get()));
        }
        rt::Driver::get().synchronize();
        dev.download(p_gpu.data());
    }
    decomp.free();

    const GridDims& d = grid.d;
    double maxdiff = 0, maxref = 0;
    for (int k = 0; k < d.kcells; ++k)
        for (int j = 0; j < d.jcells; ++j)
            for (int i = 0; i < d.icells; ++i) {
                const bool written = i >= d.istart && i < d.iend && j >= d.jstart && j < d.jend &&
                                     k >= d.kstart - 1 && k < d.kend;
                if (!written) {
                    ASSERT_TRUE(std::isnan(p_gpu(i, j, k)))
                        << "ghost written at " << i << "," << j << "," << k;
                    continue;
                }
                ASSERT_TRUE(std::isfinite(p_gpu(i, j, k))) << i << "," << j << "," << k;
                maxdiff = std::max(maxdiff, std::abs(double(p_gpu(i, j, k)) - p_cpu(i, j, k)));
                maxref = std::max(maxref, std::abs(double(p_cpu(i, j, k))));
            }
    for (int j = d.jstart; j < d.jend; ++j)
        for (int i = d.istart; i < d.iend; ++i)
            ASSERT_EQ(p_gpu(i, j, d.kstart - 1), p_gpu(i, j, d.kstart));
    const double res = ptest::residual(grid, ptest::field_to_global(p_gpu), rhs_t);
    std::printf("  GPU %dx%dx%d %s: diff to CPU %.3e (relative), residual %.3e\n", itot, jtot, ktot,
                sizeof(T) == 8 ? "double" : "float", maxdiff / maxref, res);
    EXPECT_LT(maxdiff / maxref, tol);
    EXPECT_LT(res, tol);
}

TEST(GpuPressure, StretchedDouble) {
    check_against_cpu<double>(24, 20, 16, true, 21, 1e-12, 2);
}
TEST(GpuPressure, TwoDimensionalDouble) {
    check_against_cpu<double>(32, 1, 24, true, 22, 1e-12);
}
TEST(GpuPressure, OddSizesDouble) {
    check_against_cpu<double>(15, 9, 7, true, 23, 1e-12);
}
TEST(GpuPressure, YOnlyDouble) {
    check_against_cpu<double>(1, 12, 10, true, 24, 1e-12);
}
TEST(GpuPressure, SingleColumnDouble) {
    check_against_cpu<double>(1, 1, 9, true, 25, 1e-12);
}
TEST(GpuPressure, LargerDouble) {
    // Several thread blocks per kernel and a non-power-of-two level count.
    check_against_cpu<double>(96, 80, 45, true, 26, 1e-12);
}
TEST(GpuPressure, StretchedFloat) {
    check_against_cpu<float>(24, 20, 16, true, 31, 1e-4, 2);
}
TEST(GpuPressure, TwoDimensionalFloat) {
    check_against_cpu<float>(32, 1, 24, true, 32, 1e-4);
}
TEST(GpuPressure, OddSizesFloat) {
    check_against_cpu<float>(15, 9, 7, true, 33, 1e-4);
}

// Every configuration of the pencil copy kernel (one thread per element, and the tiled
// shared-memory transposes) against the host copy, bit for bit, for the six copies of a
// one-rank layout: x <-> y and y <-> z are transposes, z-column <-> x a straight copy.
// 40 x 24 x 12 leaves partial tiles at both tile sizes.
TEST(GpuPressure, PencilCopyEveryConfigurationMatchesHost) {
    SQUALL_NEED_GPU(runtime().has_device(), runtime().no_device_reason());
    const Config cfg = ptest::make_case(40, 24, 12, false);
    const Grid<double> grid = Grid<double>::make(cfg, 1, 1, 0, 0);
    Decomposition decomp = Decomposition::make(MPI_COMM_SELF, 1, 1);
    const PencilLayout lay(grid.d, decomp);
    const auto defs = pressure_gpu_kernel_defs("double");
    const auto copy = std::find_if(defs.begin(), defs.end(), [](const rt::KernelDef& d) {
        return d.key() == "pressure_gpu_pencil_copy_double";
    });
    ASSERT_NE(copy, defs.end());
    // Every map addresses [0, n): the z-column map the model field, the pencils nlocal.
    const long n = std::max<long>(lay.nlocal, long(grid.d.kk) * grid.d.kcells);
    std::vector<double> src(std::size_t(n), 0.0), want(src.size()), got(src.size());
    for (std::size_t m = 0; m < src.size(); ++m) src[m] = 1.0 + double(m % 9973) * 1e-3;
    rt::DeviceBuffer src_d(sizeof(double) * src.size()), dst_d(src_d.size());
    src_d.upload(src.data());
    int tested = 0, tiled = 0;
    for (const PencilStep& fwd : {lay.zcol_x, lay.x_y, lay.y_z})
        for (const PencilStep& s : {fwd, fwd.reversed()}) {
            const sq::PencilCopy c = s.own();
            std::fill(want.begin(), want.end(), -1.0);
            pencil_copy_host(c, src.data(), want.data());
            const rt::ProblemSize p(c.n0, c.n1, long(c.n2) * c.nblocks);
            for (const rt::Config& cf : copy->space().enumerate(p, runtime().device())) {
                std::fill(got.begin(), got.end(), -1.0);
                dst_d.upload(got.data());
                rt::KernelInstance k = runtime().instantiate(*copy, p, cf);
                k.launch(nullptr, c, reinterpret_cast<const double*>(src_d.get()),
                         reinterpret_cast<double*>(dst_d.get()));
                rt::Driver::get().synchronize();
                dst_d.download(got.data());
                ASSERT_EQ(got, want) << copy->space().format(cf) << " at " << p.to_string();
                ++tested;
                tiled += copy->space().format(cf).find("tile=0") == std::string::npos;
            }
        }
    std::printf("  pencil copy: %d launches, %d of them tiled, all equal to the host copy\n",
                tested, tiled);
    EXPECT_GE(tiled, 6 * 8); // tile 32 and 64, block_y 1..8, at each of the six copies
    decomp.free();
}

TEST(GpuPressure, StreamIsHonoured) {
    // The same solve on the default stream twice through set_stream(nullptr): a smoke test
    // that re-binding the plans to a stream works.
    SQUALL_NEED_GPU(runtime().has_device(), runtime().no_device_reason());
    const Config cfg = ptest::make_case(16, 8, 8, true);
    const Grid<double> grid = Grid<double>::make(cfg, 1, 1, 0, 0);
    Decomposition decomp = Decomposition::make(MPI_COMM_SELF, 1, 1);
    PressureSolverGpu<double> solver(grid, decomp, runtime());
    solver.set_stream(nullptr);
    Field3d<double> p(grid.d);
    ptest::scatter_to_field(ptest::random_global(16, 8, 8, 41), p);
    rt::DeviceBuffer dev(sizeof(double) * p.size());
    dev.upload(p.data());
    EXPECT_NO_THROW(solver.solve(reinterpret_cast<double*>(dev.get())));
    rt::Driver::get().synchronize();
    decomp.free();
}

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    ::testing::InitGoogleTest(&argc, argv);
    const int rc = RUN_ALL_TESTS();
    MPI_Finalize();
    return rc;
}
