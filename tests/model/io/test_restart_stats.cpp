// Bitwise restart of the statistics: drycbl (16^3) with several samples runs n_total steps
// straight into one statistics file. Another run stops after n_first steps with a
// checkpoint, once exactly at a sample time and once between two samples; it is restarted
// from that checkpoint and overruns (writing samples after it, as a run killed after its
// last checkpoint does), then is restarted from the same checkpoint again to the end. Its
// statistics file, continued by each restart, must equal the straight run's: every dataset
// under /time, /profiles and /timeseries value by value (bytes), the same times, no sample
// twice and none missing. Float and double, 1 rank and 2x2 ranks. Run with 4 MPI ranks.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "model/io/checkpoint.h"
#include "restart_support.h"
#include "stats_compare.h"
#include "tests/support/model_run.h"

namespace squall::test {
namespace {

constexpr int n_total = 14;
// drycbl's steps at 16^3 are 5 s, then up to dtmax = 60 s: about three steps per sample.
constexpr double stats_every = 150;

enum class Stop { at_sample, between_samples };

Config drycbl(int npx, int npy, long max_steps, const std::string& precision,
              const std::string& stats_file) {
    return load_case("drycbl", {"grid.itot=16", "grid.jtot=16", "grid.ktot=16",
                                "mpi.npx=" + std::to_string(npx), "mpi.npy=" + std::to_string(npy),
                                "model.precision=" + precision, "model.backend=cpu",
                                "time.max_steps=" + std::to_string(max_steps),
                                "output.stats_every=" + std::to_string(stats_every),
                                "output.stats_file=" + stats_file, "output.status_every=1000",
                                "output.dir=" + scratch_dir()});
}

// The step to stop at: the one nearest the middle of the run that is a sample step (or
// that lies strictly between two, for Stop::between_samples), with at least one sample
// after t = 0 before it and two after it. -1 when there is none.
long choose_stop(const std::vector<long long>& sample_steps, Stop where) {
    long best = -1;
    for (long n = 1; n < n_total; ++n) {
        const bool is_sample =
            std::find(sample_steps.begin(), sample_steps.end(), n) != sample_steps.end();
        if (is_sample != (where == Stop::at_sample)) continue;
        const auto before = std::count_if(sample_steps.begin(), sample_steps.end(),
                                          [&](long long s) { return s > 0 && s < n; });
        const auto after = std::count_if(sample_steps.begin(), sample_steps.end(),
                                         [&](long long s) { return s > n; });
        if (before < 1 || after < 2) continue;
        if (best < 0 || std::abs(n - n_total / 2) < std::abs(best - n_total / 2)) best = n;
    }
    return best;
}

template <typename T>
void restart_stats_case(int npx, int npy, const std::string& prec, Stop where) {
    int nprocs = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    ASSERT_EQ(nprocs, 4) << "run this test with 4 MPI ranks";
    MPI_Comm comm = sub_comm(npx * npy);
    if (comm == MPI_COMM_NULL) return;
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    const std::string tag = prec + "_" + std::to_string(npx) + "x" + std::to_string(npy) +
                            (where == Stop::at_sample ? "_at_sample" : "_between");
    const std::string straight_file = tag + ".straight.stats.h5";
    const std::string restart_file = tag + ".restarted.stats.h5";
    const std::string straight_path = scratch_dir() + "/" + straight_file;
    const std::string restart_path = scratch_dir() + "/" + restart_file;

    {
        ModelRun<T> run(drycbl(npx, npy, n_total, prec, straight_file), comm);
        run.model->run();
        EXPECT_EQ(run.model->steps(), n_total);
    }
    long n_first = -1;
    if (rank == 0) n_first = choose_stop(stats_steps(straight_path), where);
    MPI_Bcast(&n_first, 1, MPI_LONG, 0, comm);
    ASSERT_GT(n_first, 0) << tag << ": output.stats_every gives no suitable stop step";

    // n_first steps, then a checkpoint.
    std::string checkpoint;
    double t_checkpoint = 0;
    {
        ModelRun<T> run(drycbl(npx, npy, n_first, prec, restart_file), comm);
        run.model->run();
        ASSERT_EQ(run.model->steps(), n_first);
        checkpoint = run.model->write_checkpoint();
        t_checkpoint = run.model->time();
    }
    // Restarts (a run-control change: max_steps); the first overruns to n_total - 1.
    for (const long max_steps : {long(n_total - 1), long(n_total)}) {
        const Config cfg = drycbl(npx, npy, max_steps, prec, restart_file);
        ModelRun<T> run(cfg, comm, /*initialise=*/false);
        run.model->restart(checkpoint);
        run.model->run();
        EXPECT_EQ(run.model->steps(), max_steps);
        if (rank == 0 && max_steps < n_total) {
            const std::vector<double> t = stats_times(restart_path);
            EXPECT_TRUE(!t.empty() && t.back() > t_checkpoint)
                << tag << ": the overrun wrote no sample after the checkpoint";
        }
    }
    MPI_Comm_free(&comm);
    if (rank != 0) return;

    const std::vector<double> times = stats_times(straight_path);
    const std::vector<long long> steps = stats_steps(straight_path);
    // Samples at 0, stats_every, 2 stats_every, ... up to the end of the straight run.
    ASSERT_GE(times.size(), 5u) << tag;
    for (std::size_t n = 0; n < times.size(); ++n)
        EXPECT_EQ(times[n], double(n) * stats_every) << tag << ": sample " << n;
    ASSERT_EQ(steps.size(), times.size()) << tag;
    EXPECT_EQ(steps.front(), 0) << tag;
    const bool at_sample = std::find(steps.begin(), steps.end(), n_first) != steps.end() &&
                           std::find(times.begin(), times.end(), t_checkpoint) != times.end();
    EXPECT_EQ(at_sample, where == Stop::at_sample) << tag << ": checkpoint at step " << n_first;
    std::printf("%s: %zu samples, steps %lld..%lld; checkpoint at step %ld, time %g s\n",
                tag.c_str(), times.size(), steps.front(), steps.back(), n_first, t_checkpoint);

    // The same samples, the same values: time and step compared here directly, everything
    // (also /time and /timeseries/step again) byte for byte below. The root attribute
    // "configuration" is the first part's, which differs in time.max_steps only.
    EXPECT_EQ(stats_times(restart_path), times) << tag;
    EXPECT_EQ(stats_steps(restart_path), steps) << tag;
    EXPECT_TRUE(io::case_differences(stats_attribute(straight_path, "configuration"),
                                     stats_attribute(restart_path, "configuration"))
                    .empty())
        << tag;
    std::string report;
    for (const std::string& d : stats_differences(straight_path, restart_path, {"/configuration"}))
        report += "\n  " + d;
    EXPECT_TRUE(report.empty()) << tag << ": checkpoint at step " << n_first << ", time "
                                << t_checkpoint << "; the statistics differ:" << report;
}

TEST(RestartStatistics, BitwiseDouble1Rank) {
    restart_stats_case<double>(1, 1, "double", Stop::at_sample);
    restart_stats_case<double>(1, 1, "double", Stop::between_samples);
}

TEST(RestartStatistics, BitwiseDouble2x2Ranks) {
    restart_stats_case<double>(2, 2, "double", Stop::at_sample);
    restart_stats_case<double>(2, 2, "double", Stop::between_samples);
}

TEST(RestartStatistics, BitwiseFloat1Rank) {
    restart_stats_case<float>(1, 1, "float", Stop::at_sample);
    restart_stats_case<float>(1, 1, "float", Stop::between_samples);
}

TEST(RestartStatistics, BitwiseFloat2x2Ranks) {
    restart_stats_case<float>(2, 2, "float", Stop::at_sample);
    restart_stats_case<float>(2, 2, "float", Stop::between_samples);
}

// The comparison itself: a statistics file with one value changed by one bit is found to
// differ, naming the dataset (so that the tests above can fail).
TEST(RestartStatistics, ComparisonFindsOneBit) {
    MPI_Comm comm = sub_comm(1);
    if (comm == MPI_COMM_NULL) return;
    const std::string a = "onebit_a.stats.h5", b = "onebit_b.stats.h5";
    for (const std::string& f : {a, b}) {
        ModelRun<double> run(drycbl(1, 1, 4, "double", f), comm);
        run.model->run();
    }
    const std::string pa = scratch_dir() + "/" + a, pb = scratch_dir() + "/" + b;
    // The files differ in the root attribute "configuration" only (output.stats_file).
    EXPECT_TRUE(stats_differences(pa, pb, {"/configuration"}).empty());
    EXPECT_EQ(stats_differences(pa, pb).size(), 1u);
    ASSERT_TRUE(flip_last_bit_for_testing(pb, "/profiles/th2", 3));
    const auto d = stats_differences(pa, pb, {"/configuration"});
    ASSERT_EQ(d.size(), 1u);
    EXPECT_NE(d[0].find("/profiles/th2: values differ, first at element 3"), std::string::npos)
        << d[0];
    MPI_Comm_free(&comm);
}

// A checkpoint written before a key existed (thermo.pbot, boundary.ustar, the forcing's
// geostrophic profiles): the key counts as its default there, so the case restarts while
// it keeps the default, and is refused, naming the key, once it does not.
TEST(CaseDifferences, KeysNewerThanTheCheckpointCountAsTheirDefaults) {
    const Config c = load_case("drycbl");
    YAML::Node old = YAML::Load(c.resolved_yaml);
    old["thermo"].remove("pbot");
    old["boundary"].remove("ustar");
    old["forcing"].remove("ug");
    YAML::Emitter e;
    e << old;
    const std::string before = e.c_str();
    EXPECT_TRUE(io::case_differences(before, c.resolved_yaml).empty());
    const Config changed = load_case("drycbl", {"boundary.ustar=0.3"});
    const auto d = io::case_differences(before, changed.resolved_yaml);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0], "boundary.ustar: checkpoint (absent), case 0.3");
}

} // namespace
} // namespace squall::test
