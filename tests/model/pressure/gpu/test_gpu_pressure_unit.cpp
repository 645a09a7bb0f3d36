// CPU-only checks of the GPU pressure solver (label unit, run in CI):
// - its kernels (kernels/pressure_spectral.cuh) declare every member once, in order, with
//   a shape and use that fits it;
// - they compile with NVRTC for sm_90 through the GPU backend's definitions, in the default
//   and in sampled configurations, float and double;
// - constructing the solver needs the active backend with a device, and says why not;
// - the device-to-device exchange between ranks falls back to host staging, saying why;
// - the solver's own steps (spectral_steps.h: the kernel structs, their ranges and
//   members), run on the CPU through launch.h with FFTW standing in for cuFFT (same R2C
//   layout and sign), reproduce the CPU PressureSolver.
// The test runs with SQUALL_CUDA_DRIVER pointing at a missing library (see CMakeLists.txt).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "backends/cuda/gpu_launch.h"
#include "kernels/pressure_spectral.cuh"
#include "model/comm/device_exchange.h"
#include "model/decomp.h"
#include "model/pressure/pressure.h"
#include "model/pressure/pressure_gpu.h"
#include "pressure_test_util.h"
#include "runtime/log.h"

using namespace squall;

namespace {

// ---- declarations ----

// What declare() says about each member, and where the member lies in the struct.
struct Declared {
    std::string name, shape;
    sq::Use use;
    size_t offset, size, align;
    bool pointer, to_const;
};

// A member's type without __restrict__, which GCC's type traits do not see through.
template <class V>
struct Unrestricted {
    using type = V;
};
template <class P>
struct Unrestricted<P * SQ_RESTRICT> {
    using type = P*;
};

template <class F>
struct Recorder {
    const F& f;
    std::vector<Declared> out;

    template <class V>
    Recorder& add(const char* name, const char* shape, const V& v, sq::Use use) {
        using U = typename Unrestricted<V>::type;
        // C-style casts: GCC rejects reinterpret_cast of the address of a restrict pointer.
        const size_t off = size_t((const char*)&v - (const char*)&f);
        bool to_const = false;
        if constexpr (std::is_pointer_v<U>) to_const = std::is_const_v<std::remove_pointer_t<U>>;
        out.push_back(
            {name, shape, use, off, sizeof(U), alignof(U), std::is_pointer_v<U>, to_const});
        return *this;
    }
    template <class V>
    Recorder& field(const char* n, const V& v, sq::Use u = sq::Use::in) {
        return add(n, "field", v, u);
    }
    template <class V>
    Recorder& profile(const char* n, const V& v, sq::Use u = sq::Use::in) {
        return add(n, "profile", v, u);
    }
    template <class V>
    Recorder& plane(const char* n, const V& v, sq::Use u = sq::Use::in) {
        return add(n, "plane", v, u);
    }
    template <class V>
    Recorder& buffer(const char* n, const V& v, sq::Use u = sq::Use::in) {
        return add(n, "buffer", v, u);
    }
    template <class V>
    Recorder& scalar(const char* n, const V& v) {
        return add(n, "scalar", v, sq::Use::in);
    }
};

// Every member listed once and in order: each starts where the previous one ends (after
// alignment), and the last one ends the struct. Pointers have an array shape, read-only
// ones are read, writable ones say how they are written; scalars are T or int.
template <class F, class T>
void check_declaration() {
    const F f{};
    Recorder<F> r{f, {}};
    f.declare(r);
    SCOPED_TRACE(std::string(F::name) + (sizeof(T) == 8 ? " double" : " float"));
    ASSERT_FALSE(r.out.empty());
    size_t end = 0;
    std::set<std::string> names;
    for (const Declared& m : r.out) {
        EXPECT_TRUE(names.insert(m.name).second) << m.name << " declared twice";
        EXPECT_EQ(m.offset, (end + m.align - 1) / m.align * m.align) << m.name << " out of order";
        end = m.offset + m.size;
        if (m.pointer) {
            EXPECT_NE(m.shape, "scalar") << m.name;
            EXPECT_EQ(m.to_const, m.use == sq::Use::in) << m.name;
        } else {
            EXPECT_EQ(m.shape, "scalar") << m.name;
            EXPECT_TRUE(m.size == sizeof(int) || m.size == sizeof(T)) << m.name;
        }
    }
    EXPECT_EQ((end + alignof(F) - 1) / alignof(F) * alignof(F), sizeof(F)) << "members left out";
}

template <template <class> class... K>
void check_declarations(sq::KernelList<K...>) {
    (check_declaration<K<float>, float>(), ...);
    (check_declaration<K<double>, double>(), ...);
}

TEST(GpuPressureKernels, DeclareEveryMemberInOrder) {
    check_declarations(sq::PressureSpectralKernels{});
}

// ---- NVRTC through the backend's definitions ----

struct Job {
    rt::KernelDef def;
    rt::ProblemSize problem;
    rt::Config config;
};

// Each kernel as the solver builds it for a 40 x 24 x 16 grid (one rank) or its pencils.
template <typename T>
void add_jobs(std::vector<Job>& jobs, std::mt19937_64& rng) {
    const Config cfg = ptest::make_case(40, 24, 16, false);
    const Grid<T> grid = Grid<T>::make(cfg, 1, 1, 0, 0);
    const GridDims& d = grid.d;
    const sq::Range3 in{d.istart, d.iend, d.jstart, d.jend, d.kstart, d.kend};
    const sq::Range3 cols{0, 21 * 24, 0, 1, 0, 1}, zcols{0, 40 * 24, 0, 1, 0, 1};
    const sq::Range3 rows{0, 40 * 24, 0, 1, 0, 16}, half_rows{0, 21 * 24, 0, 1, 0, 16};
    const sq::Range3 copy{0, 40, 0, 24, 0, 16}, mirror{d.istart, d.iend, d.jstart, d.jend, 0, 1};
    auto add = [&](const rt::KernelDef& def, const sq::Range3& r) {
        const rt::ProblemSize p = gpu::problem_of(r);
        jobs.push_back({def, p, def.space().default_config()});
        const auto other = def.space().sample(rng, p, rt::DeviceInfo::for_arch("sm_90"));
        ASSERT_TRUE(other) << def.key();
        jobs.push_back({def, p, *other});
    };
    using gpu::Form;
    add(gpu::def_for(in, sq::PressurePack<T>{.packed = nullptr,
                                             .field = nullptr,
                                             .istart = d.istart,
                                             .jstart = d.jstart,
                                             .kstart = d.kstart,
                                             .itot = d.imax,
                                             .jtot = d.jmax,
                                             .stride = 1,
                                             .jj = d.jj,
                                             .kk = d.kk}),
        in);
    add(gpu::def_for(in, sq::PressureUnpack<T>{.field = nullptr,
                                               .packed = nullptr,
                                               .istart = d.istart,
                                               .jstart = d.jstart,
                                               .kstart = d.kstart,
                                               .itot = d.imax,
                                               .jtot = d.jmax,
                                               .stride = 1,
                                               .jj = d.jj,
                                               .kk = d.kk}),
        in);
    add(gpu::def_for(cols,
                     sq::PressureThomas<T>{.x = nullptr,
                                           .gam = nullptr,
                                           .bmat = nullptr,
                                           .coef = nullptr,
                                           .top_mean = T(-2),
                                           .ktot = 16,
                                           .ncol = 21 * 24},
                     Form::traverse2d),
        cols);
    add(gpu::def_for(zcols,
                     sq::PressureThomasReal<T>{.x = nullptr,
                                               .gam = nullptr,
                                               .bmat = nullptr,
                                               .coef = nullptr,
                                               .top_mean = T(-2),
                                               .ktot = 16,
                                               .ncol = 40 * 24},
                     Form::traverse2d),
        zcols);
    add(gpu::def_for(copy, sq::PressurePencilCopy<T>{.dst = nullptr,
                                                     .src = nullptr,
                                                     .src_base = 0,
                                                     .src_q = 0,
                                                     .src_a = 1,
                                                     .src_b = 40,
                                                     .src_c = 960,
                                                     .dst_base = 0,
                                                     .dst_q = 0,
                                                     .dst_a = 24,
                                                     .dst_b = 1,
                                                     .dst_c = 960,
                                                     .n2 = 16,
                                                     .q_first = 0,
                                                     .q_skip = -1}),
        copy);
    add(gpu::def_for(
            rows, sq::PressureHcFromComplex<T>{.hc = nullptr, .cplx = nullptr, .n = 40, .nj = 24}),
        rows);
    add(gpu::def_for(
            half_rows,
            sq::PressureComplexFromHc<T>{.cplx = nullptr, .hc = nullptr, .n = 40, .nj = 24}),
        half_rows);
    add(gpu::def_for(mirror,
                     sq::PressureMirrorBottom<T>{
                         .field = nullptr, .kstart = d.kstart, .jj = d.jj, .kk = d.kk},
                     Form::traverse2d),
        mirror);
}

TEST(GpuPressureCompile, KernelsCompileWithNvrtcForSm90) {
    std::vector<Job> jobs;
    std::mt19937_64 rng(2026);
    add_jobs<float>(jobs, rng);
    add_jobs<double>(jobs, rng);
    std::set<std::string> keys;
    for (const Job& j : jobs) keys.insert(j.def.key());
    EXPECT_EQ(keys.size(), 16u); // eight kernels in two precisions, each its own tuning key
    EXPECT_TRUE(keys.count("pressure_pencil_copy_double"));
    EXPECT_TRUE(keys.count("pressure_thomas_float"));
    rt::RuntimeOptions o;
    o.use_device = false;
    o.arch = "sm_90";
    o.cache_dir = ""; // memory only: really compile
    rt::Runtime runtime(o);
    std::vector<rt::CompileSpec> specs;
    for (const Job& j : jobs) specs.push_back(runtime.compile_spec(j.def, j.config, j.problem));
    std::vector<rt::CompiledPtr> out;
    ASSERT_NO_THROW(out = runtime.cache().get_all(specs));
    ASSERT_EQ(out.size(), specs.size());
    for (size_t n = 0; n < out.size(); ++n) {
        EXPECT_TRUE(out[n] && !out[n]->cubin.empty()) << specs[n].description;
        if (!out[n]) continue;
        EXPECT_EQ(out[n]->log.find("warning"), std::string::npos) << specs[n].description << "\n"
                                                                  << out[n]->log;
    }
}

// ---- no device ----

TEST(GpuPressureNoDevice, ConstructionNeedsTheActiveBackendWithADevice) {
    const Config cfg = ptest::make_case(8, 6, 4, false);
    const Grid<double> grid = Grid<double>::make(cfg, 1, 1, 0, 0);
    Decomposition decomp = Decomposition::make(MPI_COMM_SELF, 1, 1);
    auto construct = [&] { PressureSolverGpu<double> solver(grid, decomp); };
    EXPECT_THROW(construct(), std::logic_error);
    rt::RuntimeOptions o;
    o.use_device = false;
    o.cache_dir = "";
    gpu::Backend& b = gpu::activate(o);
    ASSERT_FALSE(b.runtime().has_device()) << "SQUALL_CUDA_DRIVER should hide any GPU here";
    try {
        construct();
        ADD_FAILURE() << "constructed a GPU solver without a GPU";
    } catch (const rt::NoDeviceError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("GPU pressure solver"), std::string::npos) << what;
        EXPECT_NE(what.find(b.runtime().no_device_reason()), std::string::npos) << what;
    }
    gpu::set_enabled(false);
    EXPECT_THROW(construct(), std::logic_error);
    gpu::deactivate();
    EXPECT_THROW(gpu::set_enabled(true), std::logic_error);
    EXPECT_FALSE(gpu::active());
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

// ---- the solve's steps on the host ----

// The GPU solver's single-rank solve with the backend off: its steps (the same structs,
// ranges and members), the same buffers and the same transform layouts (the real side in
// the field, PressureRealLayout), FFTW for cuFFT.
template <typename T>
void emulate_gpu_solve(const Grid<T>& grid, Field3d<T>& p) {
    ASSERT_FALSE(gpu::active());
    const GridDims& d = grid.d;
    const PressureGpuLayout<T> lay = PressureGpuLayout<T>::make(grid);
    const SpectralSteps<T> steps = lay.steps(d, lay.bmat.data(), lay.coef.data());
    const long ncplx = lay.ncol * d.ktot;
    std::vector<T> gam(std::size_t(ncplx), std::numeric_limits<T>::quiet_NaN());
    std::vector<T> cplx(std::size_t(2 * ncplx), T(0));
    if (!lay.needs_fft()) {
        steps.pack(p.data(), cplx.data());
        steps.thomas(cplx.data(), gam.data());
        return steps.unpack(cplx.data(), p.data());
    }
    PressureRealLayout real = lay.real_layout(d);
    T* first = p.data() + real.offset;
    ptest::Fft<T>::run(true, real.rank, real.n, d.ktot, first, cplx.data(), real.nembed,
                       real.stride, real.dist);
    steps.thomas(cplx.data(), gam.data());
    ptest::Fft<T>::run(false, real.rank, real.n, d.ktot, first, cplx.data(), real.nembed,
                       real.stride, real.dist);
    steps.mirror_bottom(p.data());
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
    // The Thomas kernel's columns are (n, m) with n fastest: 4 x 4 of them.
    const SpectralSteps<double> s = lay.steps(grid.d, nullptr, nullptr);
    EXPECT_EQ(s.ncf, 4);
    EXPECT_EQ(s.nslow, 4);
    EXPECT_EQ(s.stride, 1);
}

} // namespace
