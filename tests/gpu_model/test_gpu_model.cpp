// The whole model on the GPU against the same model on the CPU: a 50-step drycbl run
// (48^3, LES, surface layer, sponge, adaptive dt) in the same precision on both backends.
// Compared: horizontal-mean profiles (u, v, th, w variance, resolved heat flux), computed
// here from the final fields independently of the model's statistics code, the full
// fields, and the global diagnostics. Skips when there is no usable GPU.
//
// Tolerances. Both backends evaluate the same kernel structs in the same precision; they
// differ only by round-off: FMA contraction on the GPU, the order of the reductions (CFL
// for dt, diagnostics) and cuFFT vs FFTW in the pressure solve (about 1e-16 relative per
// transform in double). 50 steps of a developing CBL amplify such differences only
// mildly, so in double the mean profiles must agree to 1e-10 of their scale and the
// fields to 1e-8 of theirs (the measured differences, printed, are far smaller); in float
// (round-off 6e-8) to 2e-4 and 2e-3. A missing ghost-cell exchange, a wrong boundary, a
// kernel launched over the wrong range or left out gives O(1e-2..1) relative differences.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "model/config/config.h"
#include "model/core/gpu_session.h"
#include "model/core/model.h"

namespace squall {
namespace {

Config drycbl(Backend b, bool single) {
    Config cfg = load_config(std::string(SQUALL_SOURCE_DIR) + "/cases/drycbl.yaml",
                             {"output.stats_every=0", "output.status_every=1000",
                              std::string("model.precision=") + (single ? "float" : "double")});
    cfg.backend = b;
    return cfg;
}

struct Result {
    std::vector<std::vector<double>> profiles; // u, v, th - th0, w variance, w'th'
    std::vector<std::vector<double>> fields;   // interiors of u, v, w, th
    Diagnostics diag;
    double time = 0;
};

template <typename T>
Result run_model(Backend b, int steps) {
    Config cfg = drycbl(b, sizeof(T) == 4);
    Decomposition decomp = Decomposition::make(MPI_COMM_WORLD, 1, 1);
    Result r;
    {
        if (b == Backend::gpu) gpu_dispatch(true);
        Model<T> m(cfg, decomp);
        m.precompile();
        m.initialise();
        for (int n = 0; n < steps; ++n) m.step();
        r.diag = m.diagnostics();
        r.time = m.time();
        m.to_host();
        if (b == Backend::gpu) gpu_dispatch(false);
        const GridDims& d = m.grid().d;
        auto& f = m.fields();
        const double n2 = double(d.itot) * d.jtot;
        r.profiles.assign(5, std::vector<double>(d.ktot, 0.0));
        for (int k = d.kstart; k < d.kend; ++k) {
            double su = 0, sv = 0, ss = 0, sw2 = 0, ws = 0, wm = 0;
            for (int j = d.jstart; j < d.jend; ++j)
                for (int i = d.istart; i < d.iend; ++i) {
                    su += f.u(i, j, k);
                    sv += f.v(i, j, k);
                    ss += f.s(i, j, k) - cfg.init.th0;
                    wm += f.w(i, j, k);
                }
            const double smean = ss / n2;
            for (int j = d.jstart; j < d.jend; ++j)
                for (int i = d.istart; i < d.iend; ++i) {
                    const double w = f.w(i, j, k);
                    sw2 += w * w;
                    // Resolved flux at the face: w times the interpolated scalar anomaly.
                    ws += w * (0.5 * (f.s(i, j, k) + f.s(i, j, k - 1)) - cfg.init.th0 - smean);
                }
            const int kk = k - d.kstart;
            r.profiles[0][kk] = su / n2;
            r.profiles[1][kk] = sv / n2;
            r.profiles[2][kk] = smean;
            r.profiles[3][kk] = sw2 / n2 - (wm / n2) * (wm / n2);
            r.profiles[4][kk] = ws / n2;
        }
        for (auto* a : {&f.u, &f.v, &f.w, &f.s}) {
            std::vector<double> v;
            for (int k = d.kstart; k < d.kend; ++k)
                for (int j = d.jstart; j < d.jend; ++j)
                    for (int i = d.istart; i < d.iend; ++i)
                        v.push_back((*a)(i, j, k) - (a == &f.s ? cfg.init.th0 : 0.0));
            r.fields.push_back(std::move(v));
        }
    }
    decomp.free();
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
void compare(double tol_profile, double tol_field) {
    const std::string why = open_gpu(MPI_COMM_WORLD);
    if (!why.empty()) GTEST_SKIP() << "no usable GPU: " << why;
    constexpr int steps = 50;
    const Result gpu = run_model<T>(Backend::gpu, steps);
    const Result cpu = run_model<T>(Backend::cpu, steps);
    ASSERT_NEAR(gpu.time, cpu.time, 1e-6 * cpu.time) << "different time steps";
    const char* pname[] = {"u", "v", "th-th0", "w variance", "w'th'"};
    for (int p = 0; p < 5; ++p) {
        const double e = rel_diff(gpu.profiles[p], cpu.profiles[p]);
        std::printf("%-8s profile %-10s rel diff %.3e\n", sizeof(T) == 4 ? "float" : "double",
                    pname[p], e);
        EXPECT_LT(e, tol_profile) << pname[p];
    }
    const char* fname[] = {"u", "v", "w", "th-th0"};
    for (int p = 0; p < 4; ++p) {
        const double e = rel_diff(gpu.fields[p], cpu.fields[p]);
        std::printf("%-8s field   %-10s rel diff %.3e\n", sizeof(T) == 4 ? "float" : "double",
                    fname[p], e);
        EXPECT_LT(e, tol_field) << fname[p];
    }
    std::printf("time %.3f s after %d steps; ke gpu %.15e cpu %.15e; div gpu %.2e cpu %.2e\n",
                cpu.time, steps, gpu.diag.ke, cpu.diag.ke, gpu.diag.div, cpu.diag.div);
    EXPECT_NEAR(gpu.diag.ke, cpu.diag.ke, tol_profile * cpu.diag.ke);
    // The GPU run is a real run: the flow changed from the initial state and stays
    // divergence-free to round-off.
    EXPECT_GT(rel_diff(gpu.fields[2], std::vector<double>(gpu.fields[2].size(), 0.0)), 0.0);
    EXPECT_LT(gpu.diag.div, sizeof(T) == 4 ? 1e-3 : 1e-10);
}

TEST(GpuModel, DryCbl50StepsDoubleMatchesCpu) {
    compare<double>(1e-10, 1e-8);
}

TEST(GpuModel, DryCbl50StepsFloatMatchesCpu) {
    compare<float>(2e-4, 2e-3);
}

} // namespace
} // namespace squall
