// SQUALL_CAPTURE on every tunable kernel of a production run. A short drycbl run on the
// GPU with SQUALL_CAPTURE='*' must save one capture for every kernel instance the run
// loads (the model's 3-D kernels with their members as parameters; 2-D kernels,
// reductions and halo copies as one struct; the reductions' second pass; the pressure
// solve's kernels), with no capture refused or failed. Each capture must then replay
// from its saved inputs to bit-identical outputs: the proof that it holds everything
// its kernel reads (what the tuner needs). Under mpirun every rank captures into one
// directory (the pencil pressure solve's kernels among them) and rank 0 replays all of
// them: each instance a rank loads must be captured once per rank that loaded it. Skips
// when there is no usable GPU.
#include "tests/support/gpu_required.h"
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

#include "model/config/config.h"
#include "model/core/gpu_session.h"
#include "model/core/model.h"
#include "runtime/log.h"
#include "runtime/replay.h"

namespace squall {
namespace {

namespace fs = std::filesystem;

// Every rank's lines, gathered on rank 0 (one multiset for all ranks; empty elsewhere).
std::map<std::string, int> gather_counts(const std::vector<std::string>& mine, int rank,
                                         int nprocs) {
    std::string joined;
    for (const auto& s : mine) joined += s + "\n";
    int len = int(joined.size());
    std::vector<int> lens(static_cast<size_t>(nprocs)), offs(lens);
    MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    int total = 0;
    for (int r = 0; r < nprocs; ++r) offs[size_t(r)] = total, total += lens[size_t(r)];
    std::string all(size_t(rank == 0 ? total : 0), '\0');
    MPI_Gatherv(joined.data(), len, MPI_CHAR, all.data(), lens.data(), offs.data(), MPI_CHAR, 0,
                MPI_COMM_WORLD);
    std::map<std::string, int> counts;
    for (size_t a = 0, b; (b = all.find('\n', a)) != std::string::npos; a = b + 1)
        ++counts[all.substr(a, b - a)];
    return counts;
}

// One run with model.tendencies = TENDENCIES: fused (what auto runs on the GPU) or separate.
// The runtime reads SQUALL_CAPTURE once and captures each instance once per process, so a
// process runs one of these tests (ctest gives each its own, by filter).
void capture_and_replay(const std::string& tendencies) {
    static bool ran = false;
    if (std::exchange(ran, true)) GTEST_SKIP() << "one capture run per process";
    int rank = 0, nprocs = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    long pid = long(getpid());
    MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    const fs::path dir = fs::temp_directory_path() /
                         ("squall_capture_run_" + tendencies + "_" + std::to_string(pid));
    // A small, non-cubic drycbl: LES, surface layer, sponge, all of a step's kernels.
    Config cfg =
        load_config(std::string(SQUALL_SOURCE_DIR) + "/cases/drycbl.yaml",
                    {"grid.itot=16", "grid.jtot=12", "grid.ktot=20", "output.stats_every=0",
                     "output.status_every=1000", "model.tendencies=" + tendencies});
    cfg.backend = Backend::gpu;
    if (rank == 0) fs::remove_all(dir);
    MPI_Barrier(MPI_COMM_WORLD);
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

    const Decomp2 np = resolve_decomposition(cfg, nprocs);
    Decomposition decomp = Decomposition::make(MPI_COMM_WORLD, np.npx, np.npy);
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
    std::vector<std::string> mine;
    for (const auto& l : runtime.loaded_instances()) mine.push_back(l.name());
    const std::map<std::string, int> loaded = gather_counts(mine, rank, nprocs);
    MPI_Barrier(MPI_COMM_WORLD); // every rank's captures are on disk

    if (rank == 0) {
        std::vector<fs::path> files;
        for (const auto& e : fs::directory_iterator(dir)) {
            EXPECT_NE(e.path().extension(), ".claim") << "left behind: " << e.path();
            if (e.path().extension() == ".json") files.push_back(e.path());
        }
        std::map<std::string, int> captured;
        for (const fs::path& f : files) {
            const rt::Capture c = rt::load_capture(f.string());
            const std::string key = c.kernel.at("key").get<std::string>();
            ++captured[key + " " + c.problem.to_string()];
            const rt::ReplayResult r = rt::replay_capture(runtime, c);
            EXPECT_FALSE(r.outputs.empty()) << key;
            for (const auto& o : r.outputs)
                EXPECT_EQ(o.differing, 0u) << key << " " << o.name << ": max |diff| " << o.max_abs;
        }
        for (const auto& [k, n] : loaded)
            EXPECT_EQ(captured[k], n) << "captures of " << k << " (loaded by " << n << " ranks)";
        for (const auto& [k, n] : captured)
            EXPECT_TRUE(loaded.count(k)) << "captured, not loaded: " << k;
        // Every form of kernel is among them (names or name prefixes). One rank wraps both
        // periodic axes and solves the pressure in one piece; several exchange the split
        // axis's halos through packed buffers and solve on pencils. Both mirror the pressure's
        // bottom ghost after the inverse transform.
        std::vector<std::string> forms = {"pres_out_rk_double",
                                          "halo_wrap_",
                                          "ghost_bottom_double",
                                          "surface_most_double",
                                          "cfl_double",
                                          "diag_ke_dz_double",
                                          "reduce_final_max_double",
                                          "reduce_final_sum_double"};
        if (tendencies == "fused")
            forms.insert(forms.end(), {"tend_uvw_2i5_smag_double", "tend_s_2i5_smag_double",
                                       "strain_evisc_smag_double"});
        else
            forms.insert(forms.end(),
                         {"advec_u_2i5_double", "advec_s_2i5_double", "diff_uvw_smag_double",
                          "strain2_double", "rk_update_double"}); // fused: in tend_s_2i5_smag
        if (nprocs == 1)
            forms.insert(forms.end(), {"halo_wrap_x_cells_double", "halo_wrap_y_double",
                                       "pressure_thomas_double", "pressure_mirror_bottom_double"});
        else
            forms.insert(forms.end(),
                         {"halo_pack_", "halo_unpack_", "pressure_pencil_copy_double",
                          "pressure_thomas_real_double", "pressure_hc_from_complex_double",
                          "pressure_complex_from_hc_double", "pressure_mirror_bottom_double"});
        for (const std::string& name : forms) {
            bool found = false;
            for (const auto& [k, n] : captured) found |= k.rfind(name, 0) == 0;
            EXPECT_TRUE(found) << name;
        }
        std::printf("%zu captures from %d rank(s) of %zu loaded instances, all replayed bit "
                    "for bit\n",
                    files.size(), nprocs, loaded.size());
        fs::remove_all(dir);
    }
    rt::set_log_sink(nullptr);
    for (const auto& w : warnings) ADD_FAILURE() << "warning during the run: " << w;
}

TEST(GpuCapture, EveryKernelOfAFusedRunIsCapturedAndReplaysBitwise) {
    capture_and_replay("fused");
}

TEST(GpuCapture, EveryKernelOfASeparateRunIsCapturedAndReplaysBitwise) {
    capture_and_replay("separate");
}

} // namespace
} // namespace squall
