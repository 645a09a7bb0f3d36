// The whole model on the GPU against the same model on the CPU: a 50-step drycbl run
// (48^3, LES, surface layer, sponge; fixed dt = the case's 5 s) in the same precision on
// both backends. Compared: horizontal-mean profiles (u, v, th, w variance, resolved heat
// flux), computed here from the final fields independently of the model's statistics
// code, the full fields, and the global diagnostics. Skips when there is no usable GPU.
//
// Tolerances. Both backends evaluate the same kernel structs in the same precision; they
// differ only by round-off: FMA contraction on the GPU, the order of the reductions and
// cuFFT vs FFTW in the pressure solve. This flow amplifies round-off strongly (random
// initial perturbations, the surface-layer solve, developing convection), so the bound is
// calibrated in the test itself: a CPU twin whose initial fields carry a random relative
// perturbation of 10 epsilon shows how far round-off alone moves the result (measured:
// 5e-12 on profiles and 3e-11 on fields in double, 4e-3 and 2e-2 in float, i.e. float
// runs of this case decorrelate at the percent level within 250 s). The GPU must stay
// within 30 times the twin's distance (it injects round-off at every operation, the twin
// once) and under fixed caps of its scale: 1e-9 (profiles) and 1e-8 (fields) in double,
// 1e-1 and 3e-1 in float. The double test is the sharp one: a missing halo exchange, a
// wrong boundary or a kernel over a wrong range gives O(1e-3..1) differences there.
#include "tests/support/gpu_required.h"
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "model/config/config.h"
#include "model/core/gpu_session.h"
#include "model/core/model.h"
#include "tests/support/model_run.h"

namespace squall {
namespace {

// Overrides of a case for these tests, by name: BOMEX on 24 x 24 columns, 2 g/kg moister
// than the published profile so that the saturation adjustment's cloudy branch runs from
// the first step (the case's own clouds take 25 minutes).
std::vector<std::string> test_overrides(const std::string& name) {
    if (name != "bomex") return {};
    return {"grid.itot=24", "grid.jtot=24", "grid.xsize=2400.0", "grid.ysize=2400.0",
            "init.profiles={z: [0.0, 520.0, 700.0, 1480.0, 2000.0, 3000.0], thl: [298.7, "
            "298.7, 299.39375, 302.4, 308.2, 311.85], qt: [19.0e-3, 18.3e-3, 17.25e-3, "
            "12.7e-3, 4.2e-3, 3.0e-3], u: [-8.75, -8.75, -8.75, -7.35, -6.41, -4.61]}"};
}

Config load_case(const char* name, Backend b, bool single, Tendencies tendencies) {
    std::vector<std::string> o = {"output.stats_every=0", "output.status_every=1000",
                                  std::string("model.precision=") + (single ? "float" : "double")};
    for (const std::string& x : test_overrides(name)) o.push_back(x);
    Config cfg = load_config(std::string(SQUALL_SOURCE_DIR) + "/cases/" + name + ".yaml", o);
    cfg.backend = b;
    cfg.tendencies = tendencies;
    return cfg;
}

struct Result {
    std::vector<std::vector<double>> profiles; // u, v, th - th0, w variance, w'th'
    std::vector<std::vector<double>> fields;   // interiors of u, v, w, th, passive scalars
    Diagnostics diag;
    double time = 0;
};

// A CPU run whose initial interior values are scaled by (1 + 10 eps r), r in [-1, 1].
template <typename T>
void perturb(Model<T>& m) {
    const GridDims& d = m.grid().d;
    auto& f = m.fields();
    const double eps = 10 * std::numeric_limits<T>::epsilon();
    unsigned long state = 12345;
    auto rnd = [&] { // LCG: reproducible, independent of the model's generator
        state = state * 6364136223846793005ul + 1442695040888963407ul;
        return double(state >> 11) * 0x1.0p-53 * 2 - 1;
    };
    for (auto* a : {&f.u, &f.v, &f.w, &f.s})
        for (int k = d.kstart; k < d.kend; ++k)
            for (int j = d.jstart; j < d.jend; ++j)
                for (int i = d.istart; i < d.iend; ++i)
                    (*a)(i, j, k) = T((*a)(i, j, k) * (1 + eps * rnd()));
    m.set_boundaries();
}

// Runs on all ranks of MPI_COMM_WORLD (automatic decomposition); the result is gathered
// on rank 0 (empty elsewhere).
template <typename T>
Result run_model(const char* name, Backend b, Tendencies tendencies, int steps,
                 bool perturbed = false) {
    Config cfg = load_case(name, b, sizeof(T) == 4, tendencies);
    int nprocs = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    const Decomp2 np = resolve_decomposition(cfg, nprocs);
    Decomposition decomp = Decomposition::make(MPI_COMM_WORLD, np.npx, np.npy);
    Result r;
    {
        if (b == Backend::gpu) gpu_dispatch(true);
        Model<T> m(cfg, decomp);
        m.precompile();
        m.initialise();
        if (perturbed) perturb(m);
        m.set_fixed_dt(cfg.dt);
        for (int n = 0; n < steps; ++n) m.step();
        r.diag = m.diagnostics();
        r.time = m.time();
        m.to_host();
        if (b == Backend::gpu) gpu_dispatch(false);
        auto& f = m.fields();
        for (auto* a : {&f.u, &f.v, &f.w, &f.s})
            r.fields.push_back(test::gather_global(*a, decomp));
        for (auto& c : f.scalars) r.fields.push_back(test::gather_global(c.c, decomp));
    }
    decomp.free();
    if (r.fields[0].empty()) return r; // not rank 0
    for (double& s : r.fields[3]) s -= cfg.init.th0;
    // Profiles from the global interiors (x fastest, then y, then z).
    const std::size_t ni = cfg.grid.itot, nj = cfg.grid.jtot, nk = cfg.grid.ktot, n2 = ni * nj;
    r.profiles.assign(5, std::vector<double>(nk, 0.0));
    const auto &u = r.fields[0], &v = r.fields[1], &w = r.fields[2], &th = r.fields[3];
    for (std::size_t k = 0; k < nk; ++k) {
        double su = 0, sv = 0, ss = 0, wm = 0, sw2 = 0, ws = 0, ss_below = 0;
        for (std::size_t ij = 0; ij < n2; ++ij) {
            su += u[ij + k * n2];
            sv += v[ij + k * n2];
            ss += th[ij + k * n2];
            wm += w[ij + k * n2];
            if (k > 0) ss_below += th[ij + (k - 1) * n2];
        }
        const double face_mean = 0.5 * (ss + ss_below) / double(n2);
        for (std::size_t ij = 0; ij < n2; ++ij) {
            const double wv = w[ij + k * n2];
            sw2 += wv * wv;
            // Resolved flux at the face (above the wall): w times the interpolated anomaly.
            if (k > 0) ws += wv * (0.5 * (th[ij + k * n2] + th[ij + (k - 1) * n2]) - face_mean);
        }
        r.profiles[0][k] = su / double(n2);
        r.profiles[1][k] = sv / double(n2);
        r.profiles[2][k] = ss / double(n2);
        r.profiles[3][k] = sw2 / double(n2) - (wm / double(n2)) * (wm / double(n2));
        r.profiles[4][k] = ws / double(n2);
    }
    return r;
}

// max |a - b| / max |b|
double rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
    double num = 0, den = 0;
    for (std::size_t n = 0; n < b.size(); ++n) {
        num = std::max(num, std::abs(a[n] - b[n]));
        den = std::max(den, std::abs(b[n]));
    }
    return den > 0 ? num / den : num;
}

template <typename T>
void compare(double cap_profile, double cap_field, Tendencies tendencies,
             const char* name = "drycbl") {
    const std::string why = open_gpu(MPI_COMM_WORLD);
    SQUALL_NEED_GPU(why.empty(), why);
    constexpr int steps = 50;
    const char* prec = sizeof(T) == 4 ? "float" : "double";
    const double floor = sizeof(T) == 4 ? 1e-5 : 1e-13; // when the twin is closer still
    const Result gpu = run_model<T>(name, Backend::gpu, tendencies, steps);
    const Result cpu = run_model<T>(name, Backend::cpu, tendencies, steps);
    const Result twin = run_model<T>(name, Backend::cpu, tendencies, steps, true);
    if (gpu.fields[0].empty()) return; // only rank 0 holds the gathered results
    ASSERT_DOUBLE_EQ(gpu.time, cpu.time);
    auto check = [&](const char* what, const char* name, const std::vector<double>& g,
                     const std::vector<double>& c, const std::vector<double>& t, double cap) {
        const double e = rel_diff(g, c), e_twin = rel_diff(t, c);
        std::printf("%-6s %-7s %-10s gpu-cpu %.3e  round-off twin %.3e  ratio %.1f\n", prec, what,
                    name, e, e_twin, e_twin > 0 ? e / e_twin : 0.0);
        EXPECT_LT(e, std::max(30 * e_twin, floor)) << what << " " << name;
        EXPECT_LT(e, cap) << what << " " << name;
        EXPECT_GT(e_twin, 0.0) << "the twin must differ: " << name;
    };
    const char* pname[] = {"u", "v", "th-th0", "w variance", "w'th'"};
    for (int p = 0; p < 5; ++p)
        check("profile", pname[p], gpu.profiles[p], cpu.profiles[p], twin.profiles[p], cap_profile);
    const char* fname[] = {"u", "v", "w", "th-th0"};
    for (int p = 0; p < 4; ++p)
        check("field", fname[p], gpu.fields[p], cpu.fields[p], twin.fields[p], cap_field);
    for (std::size_t p = 4; p < cpu.fields.size(); ++p) // the passive scalars
        check("field", "scalar", gpu.fields[p], cpu.fields[p], twin.fields[p], cap_field);
    std::printf("time %.3f s after %d steps; ke gpu %.15e cpu %.15e; div gpu %.2e cpu %.2e\n",
                cpu.time, steps, gpu.diag.ke, cpu.diag.ke, gpu.diag.div, cpu.diag.div);
    EXPECT_NEAR(gpu.diag.ke, cpu.diag.ke, cap_profile * cpu.diag.ke);
    // The GPU run is a real run: w developed from the initial state and the flow stays
    // divergence-free to round-off.
    EXPECT_GT(rel_diff(gpu.fields[2], std::vector<double>(gpu.fields[2].size(), 0.0)), 0.0);
    EXPECT_LT(gpu.diag.div, sizeof(T) == 4 ? 1e-4 : 1e-12);
}

// The separate tendency kernels (model.tendencies: separate; auto runs the fused ones on
// the GPU) on both backends.
TEST(GpuModel, DryCbl50StepsDoubleMatchesCpu) {
    compare<double>(1e-9, 1e-8, Tendencies::separate);
}

TEST(GpuModel, DryCbl50StepsFloatMatchesCpu) {
    compare<float>(1e-1, 3e-1, Tendencies::separate);
}

// The fused tendency and closure kernels (model.tendencies: fused) on both backends.
TEST(GpuModel, DryCbl50StepsFusedDoubleMatchesCpu) {
    compare<double>(1e-9, 1e-8, Tendencies::fused);
}

TEST(GpuModel, DryCbl50StepsFusedFloatMatchesCpu) {
    compare<float>(1e-1, 3e-1, Tendencies::fused);
}

// GABLS1: Coriolis, the sponge, the tabulated initial state and the surface layer with a
// prescribed, falling surface temperature (SurfaceMostValue).
TEST(GpuModel, Gabls1_50StepsFusedDoubleMatchesCpu) {
    compare<double>(1e-9, 1e-8, Tendencies::fused, "gabls1");
}

TEST(GpuModel, Gabls1_50StepsFusedFloatMatchesCpu) {
    compare<float>(1e-1, 3e-1, Tendencies::fused, "gabls1");
}

// BOMEX: moist thermodynamics (thv_moist, cloudy from the start), qt as a passive scalar,
// the prescribed u* and thv flux at the surface, subsidence, cooling and drying on the
// means, geostrophic wind profiles, the moving frame; separate and fused th kernels.
TEST(GpuModel, Bomex50StepsDoubleMatchesCpu) {
    compare<double>(1e-9, 1e-8, Tendencies::separate, "bomex");
}

TEST(GpuModel, Bomex50StepsFusedDoubleMatchesCpu) {
    compare<double>(1e-9, 1e-8, Tendencies::fused, "bomex");
}

TEST(GpuModel, Bomex50StepsFusedFloatMatchesCpu) {
    compare<float>(1e-1, 3e-1, Tendencies::fused, "bomex");
}

} // namespace
} // namespace squall
