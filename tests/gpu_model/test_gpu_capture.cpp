// SQUALL_CAPTURE on every tunable kernel of a production run. A short drycbl run on the
// GPU with SQUALL_CAPTURE='*' must save one capture for every kernel instance the run
// loads (the model's 3-D kernels with their members as parameters; 2-D kernels,
// reductions and halo copies as one struct; the reductions' second pass; the pressure
// solve's kernels), with no capture refused or failed. Each capture must then replay
// from its saved inputs to bit-identical outputs: the proof that it holds everything
// its kernel reads (what the tuner needs). Skips when there is no usable GPU.
#include "tests/gpu_required.h"
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <unistd.h>
#include <vector>

#include "model/config/config.h"
#include "model/core/gpu_session.h"
#include "model/core/model.h"
#include "runtime/log.h"
#include "runtime/replay.h"

namespace squall {
namespace {

namespace fs = std::filesystem;

TEST(GpuCapture, EveryKernelOfARunIsCapturedAndReplaysBitwise) {
    const fs::path dir =
        fs::temp_directory_path() / ("squall_capture_run_" + std::to_string(getpid()));
    // A small, non-cubic drycbl: LES, surface layer, sponge, all of a step's kernels.
    Config cfg = load_config(std::string(SQUALL_SOURCE_DIR) + "/cases/drycbl.yaml",
                             {"grid.itot=16", "grid.jtot=12", "grid.ktot=20",
                              "output.stats_every=0", "output.status_every=1000"});
    cfg.backend = Backend::gpu;
    fs::remove_all(dir);
    // Read when the runtime opens (open_gpu), so before it.
    setenv("SQUALL_CAPTURE", "*", 1);
    setenv("SQUALL_CAPTURE_DIR", dir.c_str(), 1);
    std::vector<std::string> warnings;
    rt::set_log_sink([&](rt::LogLevel level, const std::string& msg) {
        if (level >= rt::LogLevel::warn) warnings.push_back(msg);
    });
    const std::string why = open_gpu(MPI_COMM_WORLD);
    if (!why.empty()) rt::set_log_sink(nullptr);
    SQUALL_NEED_GPU(why.empty(), why);

    Decomposition decomp = Decomposition::make(MPI_COMM_WORLD, 1, 1);
    {
        gpu_dispatch(true);
        Model<double> m(cfg, decomp);
        m.precompile();
        m.initialise();
        m.set_fixed_dt(cfg.dt);
        for (int n = 0; n < 2; ++n) m.step();
        const Diagnostics d = m.diagnostics();
        EXPECT_GT(d.ke, 0.0);
        gpu_dispatch(false);
    }
    decomp.free();
    rt::Runtime& runtime = gpu_runtime();
    const std::vector<std::string> loaded = runtime.loaded_instances();

    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".json") files.push_back(e.path());
    std::set<std::string> captured;
    for (const fs::path& f : files) {
        const rt::Capture c = rt::load_capture(f.string());
        const std::string key = c.kernel.at("key").get<std::string>();
        captured.insert(key + " " + c.problem.to_string());
        const rt::ReplayResult r = rt::replay_capture(runtime, c);
        EXPECT_FALSE(r.outputs.empty()) << key;
        for (const auto& o : r.outputs)
            EXPECT_EQ(o.differing, 0u) << key << " " << o.name << ": max |diff| " << o.max_abs;
    }
    rt::set_log_sink(nullptr);
    for (const auto& w : warnings) ADD_FAILURE() << "warning during the run: " << w;

    const std::set<std::string> wanted(loaded.begin(), loaded.end());
    for (const auto& k : wanted) EXPECT_TRUE(captured.count(k)) << "not captured: " << k;
    for (const auto& k : captured) EXPECT_TRUE(wanted.count(k)) << "captured, not loaded: " << k;
    // Every form of kernel is among them.
    for (const char* name :
         {"advec_u_2i5_double", "diff_uvw_smag_double", "rk_update_double", "halo_wrap_x_double",
          "halo_wrap_y_double", "ghost_bottom_double", "surface_most_double", "cfl_double",
          "diag_ke_dz_double", "reduce_final_max_double", "reduce_final_sum_double",
          "pressure_gpu_pack_double", "pressure_gpu_thomas_double", "pressure_gpu_unpack_double"}) {
        bool found = false;
        for (const auto& k : captured) found |= k.rfind(std::string(name) + " ", 0) == 0;
        EXPECT_TRUE(found) << name;
    }
    std::printf("%zu captures of %zu loaded instances, all replayed bit for bit\n", files.size(),
                loaded.size());
    fs::remove_all(dir);
}

} // namespace
} // namespace squall
