// Bitwise restart: drycbl (16^3) runs N+M steps straight, and N steps, a checkpoint, a new
// model restarted from it and M more steps; every field element must be equal (memcmp), in
// float and double, on 1 rank and on 2x2 ranks. A checkpoint written on 2x2 ranks and read
// on 1 rank continues to round-off. Run with 4 MPI ranks.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "restart_support.h"
#include "tests/support/model_run.h"

namespace squall::test {
namespace {

constexpr int n_first = 6, n_more = 5;

struct Result {
    std::vector<std::vector<double>> fields; // u, v, w, th, evisc (rank 0 only)
    long steps = 0;
    double time = 0;
};

// drycbl, or BOMEX (moist thermodynamics, qt as a passive scalar, the mean forcings), on
// 16 x 16 columns.
Config small_case(const std::string& name, int npx, int npy, long max_steps,
                  const std::string& precision) {
    std::vector<std::string> o = {"grid.itot=16",
                                  "grid.jtot=16",
                                  "mpi.npx=" + std::to_string(npx),
                                  "mpi.npy=" + std::to_string(npy),
                                  "model.precision=" + precision,
                                  "model.backend=cpu",
                                  "time.max_steps=" + std::to_string(max_steps),
                                  "output.stats_every=0",
                                  "output.status_every=1000",
                                  "output.dir=" + scratch_dir()};
    if (name == "drycbl") o.push_back("grid.ktot=16");
    if (name == "bomex")
        for (const char* x : {"grid.xsize=1600.0", "grid.ysize=1600.0", "grid.ktot=60",
                              "init.perturb_velocity=0.5"})
            o.push_back(x);
    return load_case(name, o);
}

template <typename T>
Result collect(ModelRun<T>& run) {
    Result r;
    auto& f = run.model->fields();
    for (Field3d<T>* a : {&f.u, &f.v, &f.w, &f.s, &f.evisc})
        r.fields.push_back(gather_global(*a, run.decomp));
    for (auto& c : f.scalars) r.fields.push_back(gather_global(c.c, run.decomp));
    r.steps = run.model->steps();
    r.time = run.model->time();
    return r;
}

// N+M steps without a stop.
template <typename T>
Result straight(const std::string& name, int npx, int npy, const std::string& prec) {
    Result r;
    MPI_Comm comm = sub_comm(npx * npy);
    if (comm == MPI_COMM_NULL) return r;
    {
        ModelRun<T> run(small_case(name, npx, npy, n_first + n_more, prec), comm);
        run.model->run();
        r = collect(run);
    }
    MPI_Comm_free(&comm);
    return r;
}

// N steps and a checkpoint on (npx, npy) ranks; a fresh model on (npx2, npy2) ranks
// restarts from it and takes M steps.
template <typename T>
Result restarted(const std::string& name, int npx, int npy, int npx2, int npy2,
                 const std::string& prec) {
    Result r;
    std::string file;
    MPI_Comm comm = sub_comm(npx * npy);
    if (comm != MPI_COMM_NULL) {
        ModelRun<T> run(small_case(name, npx, npy, n_first, prec), comm);
        run.model->run();
        EXPECT_EQ(run.model->steps(), n_first);
        file = run.model->write_checkpoint();
    }
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
    char path[512] = {};
    std::snprintf(path, sizeof path, "%s", file.c_str());
    MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    comm = sub_comm(npx2 * npy2);
    if (comm == MPI_COMM_NULL) return r;
    {
        // The restart may raise max_steps: a run-control key.
        const Config cfg = small_case(name, npx2, npy2, n_first + n_more, prec);
        ModelRun<T> run(cfg, comm, /*initialise=*/false);
        run.model->restart(path);
        run.model->run();
        r = collect(run);
    }
    MPI_Comm_free(&comm);
    return r;
}

void expect_bitwise(const Result& a, const Result& b, const char* what) {
    if (!rank0()) return;
    const char* names[] = {"u", "v", "w", "th", "evisc", "scalar"};
    EXPECT_EQ(a.steps, n_first + n_more) << what;
    EXPECT_EQ(a.steps, b.steps) << what;
    EXPECT_EQ(a.time, b.time) << what;
    ASSERT_EQ(a.fields.size(), b.fields.size());
    for (std::size_t n = 0; n < a.fields.size(); ++n) {
        const char* name = names[std::min<std::size_t>(n, 5)];
        ASSERT_EQ(a.fields[n].size(), b.fields[n].size()) << what << " " << name;
        ASSERT_GT(a.fields[n].size(), 0u);
        EXPECT_EQ(std::memcmp(a.fields[n].data(), b.fields[n].data(),
                              a.fields[n].size() * sizeof(double)),
                  0)
            << what << ": field " << name << " is not bitwise equal";
    }
    // The flow must have moved, or equality proves little.
    double wmax = 0;
    for (double x : a.fields[2]) wmax = std::max(wmax, std::abs(x));
    EXPECT_GT(wmax, 1e-4) << what;
}

template <typename T>
void bitwise_case(const std::string& prec, const std::string& name = "drycbl") {
    int nprocs = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    ASSERT_EQ(nprocs, 4) << "run this test with 4 MPI ranks";
    expect_bitwise(straight<T>(name, 1, 1, prec), restarted<T>(name, 1, 1, 1, 1, prec), "1 rank");
    expect_bitwise(straight<T>(name, 2, 2, prec), restarted<T>(name, 2, 2, 2, 2, prec),
                   "2x2 ranks");
}

TEST(Restart, BitwiseDouble1And2x2Ranks) {
    bitwise_case<double>("double");
}

TEST(Restart, BitwiseFloat1And2x2Ranks) {
    bitwise_case<float>("float");
}

// The moist state (thl, qt by name) and its reference state, recomputed from the case.
TEST(Restart, BomexBitwiseDouble1And2x2Ranks) {
    bitwise_case<double>("double", "bomex");
}

TEST(Restart, OtherRankCountContinuesToRoundOff) {
    const Result a = straight<double>("drycbl", 1, 1, "double");
    const Result b = restarted<double>("drycbl", 2, 2, 1, 1, "double");
    if (!rank0()) return;
    ASSERT_EQ(a.steps, b.steps);
    for (std::size_t n = 0; n < a.fields.size(); ++n) {
        double diff = 0, scale = 0;
        for (std::size_t i = 0; i < a.fields[n].size(); ++i) {
            diff = std::max(diff, std::abs(a.fields[n][i] - b.fields[n][i]));
            scale = std::max(scale, std::abs(a.fields[n][i]));
        }
        EXPECT_LE(diff, 1e-12 * scale) << "field " << n;
    }
}

// A write that fails on rank 0 in the middle of the gather: every rank throws (no rank
// waits forever) and the previous checkpoint stays.
TEST(Restart, FailedWriteOnFourRanksThrowsEverywhere) {
    MPI_Comm comm = sub_comm(4);
    ModelRun<double> run(small_case("drycbl", 2, 2, 2, "double"), comm);
    run.model->run();
    const std::string good = run.model->write_checkpoint();
    const std::string before = rank0() ? read_bytes(good) : "";
    // Every 9th checked HDF5 call of the writer fails in turn, from the file's creation
    // through the gather of the fields, until the calls run out and the write succeeds.
    const auto [failures, written] =
        fail_writes_in_turn(*run.model, 9, good, before, rank0(), [] {});
    EXPECT_TRUE(written);
    EXPECT_GT(failures, 10);
    if (rank0()) {
        for (const auto& e : std::filesystem::directory_iterator(scratch_dir()))
            EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();
    }
    MPI_Comm_free(&comm);
}

} // namespace
} // namespace squall::test
