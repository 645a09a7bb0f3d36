// Failure handling of a run (src/model/core/failsafe.h): a NaN or Inf in a field stops the
// run naming the field, step, time and point, with a diagnostic file; the last steps
// before an output time are spread so that none is a sliver; the ETA counts the step
// limit; a case too large for host memory is refused before anything is allocated.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "model/core/failsafe.h"
#include "model/core/gpu_session.h"
#include "tests/support/model_run.h"

namespace fs = std::filesystem;

namespace squall::test {
namespace {

int world_rank() {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

// One directory for all ranks (named after rank 0's process), removed by rank 0.
struct TempDir {
    fs::path path;
    explicit TempDir(const std::string& tag) {
        int pid = int(getpid());
        MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
        path = fs::temp_directory_path() / ("squall_failsafe_" + tag + "_" + std::to_string(pid));
        if (world_rank() == 0) fs::remove_all(path);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    ~TempDir() {
        MPI_Barrier(MPI_COMM_WORLD);
        if (world_rank() == 0) fs::remove_all(path);
    }
};

std::string read_text(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// Sets one point, given in 0-based global interior indices, when this rank owns it.
template <typename T>
void set_global(Model<T>& m, Field3d<T>& f, int gi, int gj, int gk, T value) {
    const GridDims& d = m.grid().d;
    const int i = gi - d.ioffset, j = gj - d.joffset;
    if (i >= 0 && i < d.imax && j >= 0 && j < d.jmax)
        f(d.istart + i, d.jstart + j, d.kstart + gk) = value;
}

// A NaN in u after two steps: run() stops at once (its first status line) and names the
// field, the step, the time and the point; the diagnostic file holds the per-level table.
// On two ranks (1 x 2) the point lies on rank 1 and rank 0 reports it.
TEST(Failsafe, NanInFieldStopsTheRunNamingFieldStepTimeAndPoint) {
    TempDir dir("nan");
    ModelRun<double> run(load_case("taylorgreen", {"grid.itot=16", "grid.jtot=8", "grid.ktot=8",
                                                   "output.dir=" + dir.path.string()}),
                         MPI_COMM_WORLD);
    Model<double>& m = *run.model;
    m.step();
    m.step();
    const double t2 = m.time();
    set_global(m, m.fields().u, 5, 6, 3, std::numeric_limits<double>::quiet_NaN());
    std::string msg;
    try {
        m.run();
        FAIL() << "the run went on with a NaN in u";
    } catch (const NumericalFailure& e) {
        msg = e.what();
    }
    std::printf("%s\n", msg.c_str());
    EXPECT_NE(msg.find("after step 2 "), std::string::npos) << msg;
    EXPECT_NE(msg.find(fmt::format("(model time {:.9g} s)", t2)), std::string::npos) << msg;
    EXPECT_NE(msg.find("field u is nan at i = 5, j = 6, k = 3"), std::string::npos) << msg;
    EXPECT_NE(msg.find("1 non-finite points in all"), std::string::npos) << msg;
    EXPECT_EQ(m.steps(), 2);       // stopped before another step
    if (world_rank() != 0) return; // rank 0 writes the file
    const fs::path file = dir.path / "taylorgreen.failed.2.txt";
    ASSERT_TRUE(fs::exists(file)) << file;
    const std::string text = read_text(file);
    EXPECT_NE(text.find("field u is nan"), std::string::npos) << text;
    // One line per field and level (u, v, w: 8 levels each); level 3 of u counts the NaN.
    int lines = 0, u3_bad = -1;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#' || line.find("field") != std::string::npos) continue;
        std::istringstream w(line);
        std::string name;
        int k = -1;
        double z, mn, mx, bad;
        w >> name >> k >> z >> mn >> mx >> bad;
        ++lines;
        if (name == "u" && k == 3) u3_bad = int(bad);
        if (name == "u" && k != 3) {
            EXPECT_EQ(bad, 0) << line;
        }
    }
    EXPECT_EQ(lines, 3 * 8);
    EXPECT_EQ(u3_bad, 1);
}

// An Inf in the scalar of an LES (u, v, w finite): found through the scalar's mean, named
// "th", on any rank count.
TEST(Failsafe, InfInScalarIsNamed) {
    TempDir dir("inf");
    ModelRun<float> run(load_case("drycbl", {"grid.itot=16", "grid.jtot=16", "grid.ktot=16",
                                             "model.precision=float", "output.stats_every=0",
                                             "output.dir=" + dir.path.string()}),
                        MPI_COMM_WORLD);
    Model<float>& m = *run.model;
    m.step();
    set_global(m, m.fields().s, 11, 13, 2, std::numeric_limits<float>::infinity());
    try {
        m.run();
        FAIL() << "the run went on with an Inf in th";
    } catch (const NumericalFailure& e) {
        const std::string msg = e.what();
        std::printf("%s\n", msg.c_str());
        EXPECT_NE(msg.find("mean scalar = inf"), std::string::npos) << msg;
        EXPECT_NE(msg.find("field th is inf at i = 11, j = 13, k = 2"), std::string::npos) << msg;
    }
    if (world_rank() == 0) {
        EXPECT_TRUE(fs::exists(dir.path / "drycbl.failed.1.txt"));
    }
}

// The step sequences that spread_step() produces from a constant allowed step: they land
// exactly on the target, never exceed idt, and the last two steps are equal to within one
// unit whenever a plain clip would have left a remainder below half a step.
TEST(Failsafe, SpreadStepHasNoSlivers) {
    EXPECT_EQ(spread_step(10, 3), 3);
    EXPECT_EQ(spread_step(10, 10), 10);
    EXPECT_EQ(spread_step(10, 11), 6);
    EXPECT_EQ(spread_step(10, 15), 8);
    EXPECT_EQ(spread_step(10, 20), 10);
    EXPECT_EQ(spread_step(10, 25), 10);
    for (std::int64_t idt : {1LL, 2LL, 7LL, 999999999LL, 1000000000LL})
        for (std::int64_t target : {1LL, 5LL, 13LL, 1000LL, 5000000000LL, 4999999995LL}) {
            if (target / idt > 1000) continue; // long runs of full steps prove nothing more
            std::int64_t t = 0, prev = 0;
            int n = 0;
            while (t < target) {
                const std::int64_t s = spread_step(idt, target - t);
                ASSERT_GE(s, 1);
                ASSERT_LE(s, idt);
                if (prev > 0) {
                    EXPECT_GE(2 * s, prev) << idt << " " << target << " step " << n;
                }
                prev = s;
                t += s;
                ++n;
            }
            EXPECT_EQ(t, target);
        }
}

// The model with dtmax below the stability limits and output times that are no multiple
// of it: every output time is a step end, and no step is shorter than half the one before.
// dtmax = 1, stats_every = 5: the steps are exactly 1 s (no 5e-9 s remainders).
TEST(Failsafe, ModelStepsHitOutputTimesWithoutSlivers) {
    for (auto [dtmax, every] : {std::pair{"1", 5.0}, std::pair{"0.7", 5.0}}) {
        TempDir dir("spread");
        ModelRun<double> run(
            load_case("drycbl",
                      {"grid.itot=8", "grid.jtot=8", "grid.ktot=8", std::string("time.dt=") + dtmax,
                       std::string("time.dtmax=") + dtmax, "time.endtime=21",
                       fmt::format("output.stats_every={}", every),
                       "output.dir=" + dir.path.string()}),
            MPI_COMM_WORLD);
        Model<double>& m = *run.model;
        const auto units = [](double t) { return std::llround(t / 1e-9); };
        std::int64_t prev = 0, hits = 0;
        while (m.time() < 21) {
            m.step();
            const std::int64_t idt = units(m.dt());
            if (prev > 0) {
                EXPECT_GE(2 * idt, prev) << "dtmax " << dtmax << " step " << m.steps();
            }
            if (std::string(dtmax) == "1") {
                EXPECT_EQ(idt, 1000000000) << "step " << m.steps();
            }
            prev = idt;
            if (units(m.time()) % units(every) == 0) ++hits;
        }
        EXPECT_EQ(units(m.time()), units(21.0));
        EXPECT_EQ(hits, 4) << "dtmax " << dtmax; // 5, 10, 15, 20
    }
}

TEST(Failsafe, EtaCountsTheStepLimit) {
    // Half the model time and half the steps done in 10 s: 10 s left.
    EXPECT_DOUBLE_EQ(run_eta(10, 0, 50, 100, 0, 10, -1), 10);
    // 10 of 11 allowed steps done: the step limit ends the run first.
    EXPECT_DOUBLE_EQ(run_eta(10, 0, 50, 100, 0, 10, 11), 1);
    // Counted from where a continued run started (time 50 of 100, step 100).
    EXPECT_DOUBLE_EQ(run_eta(10, 50, 75, 100, 100, 110, -1), 10);
    EXPECT_DOUBLE_EQ(run_eta(10, 50, 75, 100, 100, 110, 120), 10);
    EXPECT_DOUBLE_EQ(run_eta(10, 50, 75, 100, 100, 115, 120), 10.0 / 3.0);
    EXPECT_DOUBLE_EQ(run_eta(0, 0, 0, 100, 0, 0, -1), 0);
}

// A 1024^3 double grid on one rank needs ~80 GiB of host memory: refused with the figure,
// without allocating (the grid object has no 3-D arrays).
TEST(Failsafe, CaseTooLargeForHostMemoryIsRefused) {
    int nprocs = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    Config cfg = load_case("taylorgreen", {"grid.itot=1024", "grid.jtot=1024", "grid.ktot=1024"});
    cfg.backend = Backend::cpu;
    const Decomp2 np = resolve_decomposition(cfg, nprocs);
    const Grid<double> g = Grid<double>::make(cfg, np.npx, np.npy, 0, 0);
    const std::size_t need = model_host_bytes(cfg, g.d);
    // 7 double fields of pad + ncells points and two pressure buffers at least; on one rank
    // 1056 x 1030 x 1026 + 29 points per field.
    if (nprocs == 1) {
        EXPECT_EQ(g.d.pad + g.d.ncells, 1056ll * 1030 * 1026 + 29);
    }
    EXPECT_GE(need, 7 * 8 * std::size_t(g.d.pad + g.d.ncells) +
                        2 * 8 * std::size_t(g.d.imax) * g.d.jmax * g.d.kmax);
    const std::size_t avail = host_memory_available();
    ASSERT_GT(avail, 0u) << "no MemAvailable in /proc/meminfo";
    if (double(need) * nprocs <= double(avail))
        GTEST_SKIP() << "this machine has " << avail << " bytes available, more than the case";
    try {
        check_host_memory(cfg, g.d, MPI_COMM_WORLD);
        FAIL() << "a case of " << need << " bytes was accepted";
    } catch (const std::runtime_error& e) {
        const std::string msg = e.what();
        std::printf("%s\n", msg.c_str());
        EXPECT_NE(msg.find("GiB of host memory"), std::string::npos) << msg;
        EXPECT_NE(msg.find("is available (MemAvailable"), std::string::npos) << msg;
    }
}

// The GPU memory estimate counts the arrays the device run allocates: under auto the fused
// closure keeps the strain rate in registers, and the fused scalar kernel writes its RK
// stage into a second scalar array, so as many 3-D arrays as separate.
TEST(Failsafe, DeviceEstimateFollowsTheTendencies) {
    Config cfg = load_case("drycbl", {});
    const Grid<double> g = Grid<double>::make(cfg, 1, 1, 0, 0);
    auto bytes = [&](Tendencies t) {
        cfg.tendencies = t;
        return model_device_bytes(cfg, g.d);
    };
    EXPECT_EQ(bytes(Tendencies::separate), bytes(Tendencies::automatic));
    EXPECT_EQ(bytes(Tendencies::fused), bytes(Tendencies::automatic));
}

// The estimates' count of 3-D arrays is what a model of the case allocates, for the
// separate and the fused kernels, with and without the scalar's stage in them (drycbl:
// 2i5 with Smagorinsky; drycbl_dns: a sponge kernel keeps the stage in rk_update), and with
// passive scalars and moist thermodynamics (bomex; its ql only with statistics).
TEST(Failsafe, FieldCountIsWhatTheModelAllocates) {
    for (const char* name : {"drycbl", "drycbl_dns", "bomex"})
        for (const char* t : {"separate", "fused"})
            for (const char* stats : {"output.stats_every=60", "output.stats_every=0"}) {
                SCOPED_TRACE(std::string(name) + ", " + t + ", " + stats);
                const Config cfg =
                    load_case(name, {std::string("model.tendencies=") + t, "model.backend=cpu",
                                     "grid.itot=8", "grid.jtot=8", "grid.ktot=8", stats});
                ModelRun<double> run(cfg, MPI_COMM_SELF);
                EXPECT_EQ(model_fields_3d(cfg), int(run.model->fields().fields_3d().size()));
            }
}

} // namespace
} // namespace squall::test
