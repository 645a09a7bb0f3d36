// The GPU pressure solver on the device (label gpu; skips without a GPU): for random
// right-hand sides on stretched, 2-D and odd-sized grids it must match the CPU
// PressureSolver and satisfy the discrete Poisson equation, set the bottom ghost and leave
// every other ghost cell untouched. Its kernels go through the GPU backend, which the
// test activates once.
#include "tests/support/gpu_required.h"
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <vector>

#include "backends/cuda/gpu_launch.h"
#include "model/decomp.h"
#include "model/pressure/pressure.h"
#include "model/pressure/pressure_gpu.h"
#include "model/pressure/transpose.h"
#include "pressure_test_util.h"

using namespace squall;

namespace {

// The backend, activated on first use; nullptr without a GPU (the reason in why()).
struct Gpu {
    std::string reason;
    gpu::Backend* backend = nullptr;
    Gpu() {
        try {
            backend = &gpu::activate();
        } catch (const rt::NoDeviceError& e) {
            reason = e.what();
        }
    }
};
Gpu& gpu_once() {
    static Gpu g;
    return g;
}
bool have_gpu() {
    return gpu_once().backend != nullptr;
}
const std::string& why() {
    return gpu_once().reason;
}
rt::Runtime& runtime() {
    return gpu_once().backend->runtime();
}

template <typename T>
void check_against_cpu(int itot, int jtot, int ktot, bool stretched, unsigned seed, double tol,
                       int solves = 1) {
    SQUALL_NEED_GPU(have_gpu(), why());
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
        // The whole allocation, leading pad included, as the model's fields have it.
        const int pad = grid.d.pad;
        rt::DeviceBuffer dev(sizeof(T) * (pad + p_gpu.size()));
        PressureSolverGpu<T> solver(grid, decomp);
        EXPECT_FALSE(solver.pencils());
        // Repeated solves of the same RHS must give the same answer (no stale state).
        for (int s = 0; s < solves; ++s) {
            dev.upload(p_gpu.data() - pad);
            solver.solve(reinterpret_cast<T*>(dev.get()) + pad);
        }
        rt::Driver::get().synchronize();
        dev.download(p_gpu.data() - pad);
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

// The pencil copy kernel in sampled configurations of the backend's traversal (tiles,
// deferred stores, block orders) and in the default one, against the host copy, bit for
// bit, for the six copies of a one-rank layout: x <-> y and y <-> z are transposes,
// z-column <-> x a straight copy. 40 x 24 x 12 leaves partial blocks and tiles.
TEST(GpuPressure, PencilCopySampledConfigurationsMatchHost) {
    SQUALL_NEED_GPU(have_gpu(), why());
    const Config cfg = ptest::make_case(40, 24, 12, false);
    const Grid<double> grid = Grid<double>::make(cfg, 1, 1, 0, 0);
    Decomposition decomp = Decomposition::make(MPI_COMM_SELF, 1, 1);
    const PencilLayout lay(grid.d, decomp);
    // Every map addresses [0, n): the z-column map the model field, the pencils nlocal.
    const long n = std::max<long>(lay.nlocal, long(grid.d.kk) * grid.d.kcells);
    std::vector<double> src(std::size_t(n), 0.0), want(src.size()), got(src.size());
    for (std::size_t m = 0; m < src.size(); ++m) src[m] = 1.0 + double(m % 9973) * 1e-3;
    rt::DeviceBuffer src_d(sizeof(double) * src.size()), dst_d(src_d.size());
    src_d.upload(src.data());
    const auto* s_dev = reinterpret_cast<const double*>(src_d.get());
    auto* d_dev = reinterpret_cast<double*>(dst_d.get());
    std::mt19937_64 rng(7);
    int tested = 0;
    for (const PencilStep& fwd : {lay.zcol_x, lay.x_y, lay.y_z})
        for (const PencilStep& s : {fwd, fwd.reversed()}) {
            const PencilCopy c = s.own();
            std::fill(want.begin(), want.end(), -1.0);
            pencil_copy_host(c, src.data(), want.data());
            const sq::Range3 r = pencil_copy_range(c);
            const auto f = pencil_copy_kernel(c, s_dev, d_dev);
            const rt::KernelDef def = gpu::def_for(r, f);
            const rt::ProblemSize p = gpu::problem_of(r);
            std::vector<rt::Config> configs{def.space().default_config()};
            for (int k = 0; k < 24; ++k)
                if (auto cf = def.space().sample(rng, p, runtime().device()))
                    configs.push_back(*cf);
            for (const rt::Config& cf : configs) {
                std::fill(got.begin(), got.end(), -1.0);
                dst_d.upload(got.data());
                rt::KernelInstance k = runtime().instantiate(def, p, cf);
                gpu::launch_instance(k, r, f);
                rt::Driver::get().synchronize();
                dst_d.download(got.data());
                ASSERT_EQ(got, want) << def.space().format(cf) << " at " << p.to_string();
                ++tested;
            }
        }
    std::printf("  pencil copy: %d launches, all equal to the host copy\n", tested);
    EXPECT_GE(tested, 6 * 20);
    decomp.free();
}

// The backend's recording notes the solve's kernels without running them (cuFFT still
// runs, on whatever the buffers hold); the solve afterwards is unchanged: bit for bit that
// of a solver that never recorded, and the CPU solver's to 1e-12.
TEST(GpuPressure, RecordingNotesTheKernels) {
    SQUALL_NEED_GPU(have_gpu(), why());
    const Config cfg = ptest::make_case(16, 8, 8, true);
    const Grid<double> grid = Grid<double>::make(cfg, 1, 1, 0, 0);
    Decomposition decomp = Decomposition::make(MPI_COMM_SELF, 1, 1);
    // A size no other test uses, so that no variant is cached yet.
    PressureSolverGpu<double> solver(grid, decomp);
    Field3d<double> p(grid.d);
    ptest::scatter_to_field(ptest::random_global(16, 8, 8, 41), p);
    // The CPU reference, before the recording (a GPU solve here would compile the variants
    // that the recording must find uncached).
    Field3d<double> cpu(grid.d);
    ptest::scatter_to_field(ptest::random_global(16, 8, 8, 41), cpu);
    PressureSolver<double>(grid, decomp).solve(cpu);
    const int pad = grid.d.pad;
    rt::DeviceBuffer dev(sizeof(double) * (pad + p.size()));
    double* field = reinterpret_cast<double*>(dev.get()) + pad;
    // A solve of p by s on the device, the whole allocation (pad, ghosts) read back.
    auto solve_p = [&](PressureSolverGpu<double>& s) {
        Field3d<double> out(grid.d);
        dev.upload(p.data() - pad);
        s.solve(field);
        rt::Driver::get().synchronize();
        dev.download(out.data() - pad);
        return out;
    };
    dev.upload(p.data() - pad);
    gpu::Backend& b = gpu::backend();
    b.begin_recording();
    solver.solve(field);
    EXPECT_EQ(b.end_recording(), 2u); // thomas, the bottom mirror
    Field3d<double> after;
    ASSERT_NO_THROW(after = solve_p(solver));
    // A solver that never recorded runs the same kernels and cuFFT plans on the same data,
    // with no atomics: the recording left nothing behind only if the two agree bitwise.
    PressureSolverGpu<double> fresh_solver(grid, decomp);
    const Field3d<double> fresh = solve_p(fresh_solver);
    const double *a = after.data() - pad, *f = fresh.data() - pad;
    for (std::size_t m = 0; m < std::size_t(pad) + p.size(); ++m)
        ASSERT_EQ(std::bit_cast<std::uint64_t>(a[m]), std::bit_cast<std::uint64_t>(f[m]))
            << "element " << m << ": " << a[m] << " after the recording, " << f[m] << " fresh";
    // Both would agree if the recording broke the shared kernels (or stayed on): the CPU
    // solver anchors them, to check_against_cpu's tolerance.
    const std::vector<double> got = ptest::field_to_global(after),
                              want = ptest::field_to_global(cpu);
    double maxdiff = 0, maxref = 0;
    for (std::size_t n = 0; n < want.size(); ++n) {
        maxdiff = std::max(maxdiff, std::abs(got[n] - want[n]));
        maxref = std::max(maxref, std::abs(want[n]));
    }
    EXPECT_LT(maxdiff / maxref, 1e-12) << "max |GPU - CPU| " << maxdiff << " of " << maxref;
    // A field without the model's alignment is refused, naming the reason, before any work.
    try {
        solver.solve(field + 1);
        ADD_FAILURE() << "a misaligned field was accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("aligned"), std::string::npos) << e.what();
    }
    // With the dispatch off the solve refuses (its kernels would run on the host).
    gpu::set_enabled(false);
    EXPECT_THROW(solver.solve(field), std::logic_error);
    gpu::set_enabled(true);
    decomp.free();
}

} // namespace
