// CPU-only checks of the GPU pressure solver (label unit, run in CI):
// - its kernels compile with NVRTC for sm_90, for default and non-default configurations;
// - constructing it without a GPU throws a NoDeviceError that names the reason;
// - the device-to-device exchange between ranks falls back to host staging, saying why;
// - its per-thread kernel code and layout, run on the host with FFTW standing in for
//   cuFFT (same R2C layout and sign), reproduce the CPU PressureSolver.
// The test runs with SQUALL_CUDA_DRIVER pointing at a missing library (see CMakeLists.txt).
#include <gtest/gtest.h>
#include <mpi.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "model/comm/device_exchange.h"
#include "model/decomp.h"
#include "model/pressure/pressure.h"
#include "model/pressure/pressure_gpu.cuh"
#include "model/pressure/pressure_gpu.h"
#include "pressure_test_util.h"
#include "runtime/log.h"

using namespace squall;

namespace {

TEST(GpuPressureCompile, KernelsCompileWithNvrtcForSm90) {
    rt::RuntimeOptions o;
    o.use_device = false;
    o.arch = "sm_90";
    o.cache_dir = ""; // memory only: really compile
    rt::Runtime runtime(o);
    for (const char* prec : {"float", "double"}) {
        for (const rt::KernelDef& def : pressure_gpu_kernel_defs(prec)) {
            const rt::ProblemSize size(40, 24, 16);
            const rt::Config dflt = def.space().default_config();
            rt::CompiledPtr c;
            ASSERT_NO_THROW(c = runtime.compile(def, dflt, size)) << def.key();
            ASSERT_TRUE(c);
            // One other valid configuration, so the tunable parameters really vary.
            int seen = 0;
            def.space().for_each_valid(
                size, rt::DeviceInfo::for_arch("sm_90"), [&](const rt::Config& cfg) {
                    if (cfg == dflt) return true;
                    EXPECT_NO_THROW(runtime.compile(def, cfg, size)) << def.key();
                    ++seen;
                    return false;
                });
            EXPECT_EQ(seen, 1) << def.key();
        }
    }
}

// The tiled (shared-memory) transpose of the pencil copy, at both tile sizes.
TEST(GpuPressureCompile, TiledPencilCopyCompiles) {
    rt::RuntimeOptions o;
    o.use_device = false;
    o.arch = "sm_90";
    o.cache_dir = "";
    rt::Runtime runtime(o);
    const rt::DeviceInfo h200 = rt::DeviceInfo::for_arch("sm_90");
    for (const char* prec : {"float", "double"}) {
        const auto defs = pressure_gpu_kernel_defs(prec);
        const auto copy = std::find_if(defs.begin(), defs.end(), [&](const rt::KernelDef& d) {
            return d.key() == std::string("pressure_gpu_pencil_copy_") + prec;
        });
        ASSERT_NE(copy, defs.end());
        const rt::ProblemSize size(40, 24, 16);
        for (const char* json : {R"({"tile": 32, "block_x": 32, "block_y": 8})",
                                 R"({"tile": 64, "block_x": 64, "block_y": 4})"}) {
            const rt::Config c = copy->space().config_from_json(nlohmann::json::parse(json));
            EXPECT_TRUE(copy->space().is_valid(c, size, h200)) << json;
            EXPECT_NO_THROW(runtime.compile(*copy, c, size)) << prec << " " << json;
        }
        // A tile needs block_x == tile.
        const rt::Config bad = copy->space().config_from_json(
            nlohmann::json::parse(R"({"tile": 32, "block_x": 64, "block_y": 4})"));
        EXPECT_FALSE(copy->space().is_valid(bad, size, h200));
    }
}

TEST(GpuPressureNoDevice, ConstructionThrowsWithTheReason) {
    rt::RuntimeOptions o;
    o.cache_dir = "";
    rt::Runtime runtime(o);
    ASSERT_FALSE(runtime.has_device()) << "SQUALL_CUDA_DRIVER should hide any GPU here";
    const Config cfg = ptest::make_case(8, 6, 4, false);
    const Grid<double> grid = Grid<double>::make(cfg, 1, 1, 0, 0);
    Decomposition decomp = Decomposition::make(MPI_COMM_SELF, 1, 1);
    try {
        PressureSolverGpu<double> solver(grid, decomp, runtime);
        ADD_FAILURE() << "constructed a GPU solver without a GPU";
    } catch (const rt::NoDeviceError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("GPU pressure solver"), std::string::npos) << what;
        EXPECT_NE(what.find(runtime.no_device_reason()), std::string::npos) << what;
    }
    decomp.free();
}

TEST(DeviceExchangeNoDevice, FallsBackToHostStagingWithTheReason) {
    std::vector<std::string> warnings;
    rt::set_log_sink([&](rt::LogLevel level, const std::string& m) {
        if (level == rt::LogLevel::warn) warnings.push_back(m);
    });
    const DeviceExchange ex(MPI_COMM_SELF, 0);
    rt::set_log_sink(nullptr);
    EXPECT_FALSE(ex.direct());
    EXPECT_NE(ex.reason().find("CUDA IPC failed"), std::string::npos) << ex.reason();
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("through host memory"), std::string::npos) << warnings[0];
}

// The GPU solver's steps on the host: the same layout, the same per-thread functions,
// the same buffer roles (real buffer doubles as the Thomas scratch) and the contiguous
// transform layout.
template <typename T>
void emulate_gpu_solve(const Grid<T>& grid, Field3d<T>& p) {
    const GridDims& d = grid.d;
    const PressureGpuLayout<T> lay = PressureGpuLayout<T>::make(grid);
    const long nreal = long(d.itot) * d.jtot * d.ktot, ncplx = lay.ncol * d.ktot;
    std::vector<T> real(std::size_t(std::max(nreal, ncplx)), std::numeric_limits<T>::quiet_NaN());
    std::vector<T> cplx(std::size_t(2 * ncplx), T(0));
    const sq::PressurePackDims pd{
        d.itot, d.jtot, d.ktot, d.istart, d.jstart, d.kstart, d.jj, d.kk, lay.needs_fft() ? 1 : 2};
    T* packed = lay.needs_fft() ? real.data() : cplx.data();
    for (int k = 0; k < d.ktot; ++k)
        for (int j = 0; j < d.jtot; ++j)
            for (int i = 0; i < d.itot; ++i) sq::pressure_pack_point(pd, i, j, k, p.data(), packed);
    int n[2] = {lay.nslow, lay.nfast};
    const int rank = lay.nslow > 1 ? 2 : 1;
    int* dims = rank == 2 ? n : n + 1;
    if (lay.needs_fft()) ptest::Fft<T>::run(true, rank, dims, d.ktot, real.data(), cplx.data());
    for (long col = 0; col < lay.ncol; ++col)
        sq::pressure_thomas_column<2>(col, lay.ncol, d.ktot, cplx.data(), real.data(),
                                      lay.bmat.data(), lay.coef.data(), lay.top_mean);
    if (lay.needs_fft()) ptest::Fft<T>::run(false, rank, dims, d.ktot, real.data(), cplx.data());
    for (int k = 0; k < d.ktot; ++k)
        for (int j = 0; j < d.jtot; ++j)
            for (int i = 0; i < d.itot; ++i)
                sq::pressure_unpack_point(pd, i, j, k, static_cast<const T*>(packed), p.data());
}

template <typename T>
void check_emulation(int itot, int jtot, int ktot, bool stretched, unsigned seed, double tol) {
    const Config cfg = ptest::make_case(itot, jtot, ktot, stretched);
    const Grid<T> grid = Grid<T>::make(cfg, 1, 1, 0, 0);
    Decomposition decomp = Decomposition::make(MPI_COMM_SELF, 1, 1);
    const std::vector<double> rhs = ptest::random_global(itot, jtot, ktot, seed);
    Field3d<T> p_cpu(grid.d), p_emu(grid.d);
    const T poison = T(-7.25e3);
    p_cpu.fill(poison);
    p_emu.fill(poison);
    ptest::scatter_to_field(rhs, p_cpu);
    ptest::scatter_to_field(rhs, p_emu);
    const std::vector<double> rhs_t = ptest::field_to_global(p_emu);
    {
        PressureSolver<T> solver(grid, decomp);
        solver.solve(p_cpu);
    }
    decomp.free();
    emulate_gpu_solve(grid, p_emu);

    double maxdiff = 0, maxref = 0;
    const GridDims& d = grid.d;
    for (int k = 0; k < d.kcells; ++k)
        for (int j = 0; j < d.jcells; ++j)
            for (int i = 0; i < d.icells; ++i) {
                const bool interior = i >= d.istart && i < d.iend && j >= d.jstart && j < d.jend &&
                                      k >= d.kstart - 1 && k < d.kend;
                if (!interior) {
                    ASSERT_EQ(p_emu(i, j, k), poison)
                        << "ghost touched at " << i << "," << j << "," << k;
                    continue;
                }
                maxdiff = std::max(maxdiff, std::abs(double(p_emu(i, j, k)) - p_cpu(i, j, k)));
                maxref = std::max(maxref, std::abs(double(p_cpu(i, j, k))));
            }
    for (int j = d.jstart; j < d.jend; ++j)
        for (int i = d.istart; i < d.iend; ++i)
            ASSERT_EQ(p_emu(i, j, d.kstart - 1), p_emu(i, j, d.kstart));
    const double res = ptest::residual(grid, ptest::field_to_global(p_emu), rhs_t);
    std::printf("  emulated %dx%dx%d %s: diff to CPU %.3e (relative), residual %.3e\n", itot, jtot,
                ktot, sizeof(T) == 8 ? "double" : "float", maxdiff / maxref, res);
    EXPECT_LT(maxdiff / maxref, tol);
    EXPECT_LT(res, tol);
}

TEST(GpuPressureEmulation, StretchedDouble) {
    check_emulation<double>(24, 20, 16, true, 11, 1e-12);
}
TEST(GpuPressureEmulation, TwoDimensionalDouble) {
    check_emulation<double>(32, 1, 24, true, 12, 1e-12);
}
TEST(GpuPressureEmulation, OddSizesDouble) {
    check_emulation<double>(15, 9, 7, false, 13, 1e-12);
}
TEST(GpuPressureEmulation, YOnlyDouble) {
    // itot = 1: the transform runs along y.
    check_emulation<double>(1, 12, 10, true, 14, 1e-12);
}
TEST(GpuPressureEmulation, SingleColumnDouble) {
    // itot = jtot = 1: no transform, only the mean-mode tridiagonal solve.
    check_emulation<double>(1, 1, 9, true, 15, 1e-12);
}
TEST(GpuPressureEmulation, StretchedFloat) {
    check_emulation<float>(24, 20, 16, true, 16, 1e-4);
}
TEST(GpuPressureEmulation, OddSizesFloat) {
    check_emulation<float>(15, 9, 7, true, 17, 1e-4);
}

TEST(GpuPressureLayout, WavenumbersAndMeanMode) {
    const Config cfg = ptest::make_case(6, 4, 3, false);
    const Grid<double> grid = Grid<double>::make(cfg, 1, 1, 0, 0);
    const PressureGpuLayout<double> lay = PressureGpuLayout<double>::make(grid);
    EXPECT_EQ(lay.nfast, 6);
    EXPECT_EQ(lay.nslow, 4);
    EXPECT_EQ(lay.ncol, 4 * 4);
    EXPECT_EQ(lay.bmat[0], 0.0);
    // Column (n=3, m=2): the Nyquist modes, -4/dx^2 - 4/dy^2.
    const double expect = -4 * grid.dxi * grid.dxi - 4 * grid.dyi * grid.dyi;
    EXPECT_NEAR(lay.bmat[3 + 4 * 2], expect, 1e-12 * std::abs(expect));
    // Uniform grid: the mean-mode top term is -2 c at the top level.
    EXPECT_NEAR(lay.top_mean, -2.0, 1e-12);
}

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    ::testing::InitGoogleTest(&argc, argv);
    const int rc = RUN_ALL_TESTS();
    MPI_Finalize();
    return rc;
}
