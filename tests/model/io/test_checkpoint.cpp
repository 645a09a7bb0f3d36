// Checkpoint refusals and failures on one rank: a checkpoint of another grid, precision,
// stretching or physics is refused with a message naming each differing key; run-control
// keys may change; a failed write leaves the previous checkpoint intact; `latest` and the
// pruning of old checkpoints; the same state gives the same file, byte for byte.
#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include <hdf5.h>

#include "restart_support.h"
#include "tests/support/model_run.h"

namespace squall::test {
namespace {

namespace fs = std::filesystem;

class Checkpoint : public ::testing::Test {
protected:
    void SetUp() override {
        char name[] = "/tmp/squall_chk_XXXXXX";
        ASSERT_NE(mkdtemp(name), nullptr);
        dir = name;
    }
    void TearDown() override { fs::remove_all(dir); }

    Config drycbl(std::vector<std::string> extra = {}) {
        std::vector<std::string> o = {"grid.itot=16",      "grid.jtot=16",
                                      "grid.ktot=16",      "model.backend=cpu",
                                      "time.max_steps=2",  "output.stats_every=0",
                                      "output.dir=" + dir, "output.status_every=1000"};
        o.insert(o.end(), extra.begin(), extra.end());
        return load_case("drycbl", o);
    }
    // A checkpoint of the 16^3 double case after two steps.
    std::string good_checkpoint() {
        ModelRun<double> run(drycbl(), MPI_COMM_WORLD);
        run.model->run();
        return run.model->write_checkpoint();
    }
    // The message of restarting from file into a model of cfg ("" when accepted).
    template <typename T = double>
    std::string restart_error(const std::string& file, const Config& cfg) {
        ModelRun<T> run(cfg, MPI_COMM_WORLD, false);
        try {
            run.model->restart(file);
        } catch (const io::CheckpointError& e) {
            return e.what();
        }
        return "";
    }
    std::string dir;
};

TEST_F(Checkpoint, OtherGridIsRefusedNamingTheKeys) {
    const std::string file = good_checkpoint();
    const std::string msg = restart_error(file, drycbl({"grid.itot=32", "grid.zsize=2000"}));
    EXPECT_NE(msg.find(file), std::string::npos) << msg;
    EXPECT_NE(msg.find("grid.itot: checkpoint 16, case 32"), std::string::npos) << msg;
    EXPECT_NE(msg.find("grid.zsize: checkpoint 2400, case 2000"), std::string::npos) << msg;
    EXPECT_NE(msg.find("grid z (cell centres)"), std::string::npos) << msg;
}

TEST_F(Checkpoint, OtherStretchingIsRefused) {
    const std::string file = good_checkpoint();
    const std::string msg =
        restart_error(file, drycbl({"grid.stretch=tanh", "grid.stretch_factor=1.5"}));
    EXPECT_NE(msg.find("grid.stretch: checkpoint uniform, case tanh"), std::string::npos) << msg;
    EXPECT_NE(msg.find("grid z (cell centres) at k = 0"), std::string::npos) << msg;
}

TEST_F(Checkpoint, OtherPrecisionIsRefused) {
    const std::string file = good_checkpoint();
    const std::string msg = restart_error<float>(file, drycbl({"model.precision=float"}));
    EXPECT_NE(msg.find("model.precision: checkpoint double, case float"), std::string::npos) << msg;
}

TEST_F(Checkpoint, OtherPhysicsIsRefused) {
    const std::string file = good_checkpoint();
    const std::string msg = restart_error(file, drycbl({"diffusion.cs=0.2", "init.seed=3"}));
    EXPECT_NE(msg.find("diffusion.cs: checkpoint 0.23, case 0.2"), std::string::npos) << msg;
    EXPECT_NE(msg.find("init.seed: checkpoint 2, case 3"), std::string::npos) << msg;
    EXPECT_NE(msg.find("2 difference(s)"), std::string::npos) << msg;
}

TEST_F(Checkpoint, RunControlAndOutputKeysMayChange) {
    const std::string file = good_checkpoint();
    EXPECT_EQ(restart_error(
                  file, drycbl({"time.endtime=9000", "time.max_steps=50", "output.status_every=3",
                                "output.checkpoint_keep=5", "time.walltime_limit=100", "mpi.npx=1",
                                "model.tendencies=fused"})),
              "");
}

TEST_F(Checkpoint, MissingFileIsReported) {
    const std::string msg = restart_error(dir + "/nothing.h5", drycbl());
    EXPECT_NE(msg.find("cannot read checkpoint " + dir + "/nothing.h5"), std::string::npos) << msg;
}

// Every stage of a write can fail (as on a full disk): the new file never appears, the
// temporary file is removed, and an existing checkpoint of the same name is untouched.
TEST_F(Checkpoint, FailedWriteLeavesThePreviousCheckpoint) {
    ModelRun<double> run(drycbl(), MPI_COMM_WORLD);
    run.model->run();
    const std::string good = run.model->write_checkpoint();
    const std::string before = read_bytes(good);
    ASSERT_GT(before.size(), 16u * 16 * 16 * 8 * 5);
    // Every 7th checked HDF5 call fails in turn until the calls run out and a write succeeds.
    const auto [failures, written] = fail_writes_in_turn(*run.model, 7, good, before, true, [&] {
        for (const auto& e : fs::directory_iterator(dir))
            EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();
    });
    EXPECT_TRUE(written);
    EXPECT_GT(failures, 10); // the injection reached the writer's calls
    // A write after the failures succeeds again.
    EXPECT_NO_THROW(run.model->write_checkpoint());
}

// A checkpoint is reproducible: the same state written twice, more than a second apart
// (the resolution of HDF5's object times, which must not be stored), and written again by a
// model restarted from it, gives the same file byte for byte.
TEST_F(Checkpoint, SameStateGivesTheSameBytes) {
    ModelRun<double> run(drycbl(), MPI_COMM_WORLD);
    run.model->run();
    const std::string file = run.model->write_checkpoint();
    const std::string first = read_bytes(file);
    ASSERT_GT(first.size(), 16u * 16 * 16 * 8 * 5);
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    ASSERT_EQ(run.model->write_checkpoint(), file);
    EXPECT_TRUE(read_bytes(file) == first) << "a second checkpoint of the same state differs";
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    ModelRun<double> again(drycbl(), MPI_COMM_WORLD, /*initialise=*/false);
    again.model->restart(file);
    ASSERT_EQ(again.model->write_checkpoint(), file);
    EXPECT_TRUE(read_bytes(file) == first) << "the checkpoint of the restarted state differs";
}

TEST_F(Checkpoint, LatestAndKeep) {
    EXPECT_THROW(io::latest_checkpoint(dir, "drycbl"), io::CheckpointError);
    ModelRun<double> run(
        drycbl({"output.checkpoint_keep=2", "output.checkpoint_every=60", "time.max_steps=6"}),
        MPI_COMM_WORLD);
    run.model->run();
    const auto all = io::list_checkpoints(dir, "drycbl");
    ASSERT_EQ(all.size(), 2u); // more were written; the oldest were removed
    EXPECT_EQ(io::latest_checkpoint(dir, "drycbl"), all.back());
    EXPECT_EQ(fs::path(all.back()).filename().string(),
              io::checkpoint_name("drycbl", std::llround(run.model->time() / time_unit)));
    EXPECT_LT(all.front(), all.back());
    const io::CheckpointInfo info = io::read_checkpoint_info(all.back());
    EXPECT_EQ(info.nstep, 6);
    EXPECT_EQ(info.precision, "double");
    EXPECT_EQ(info.itot, 16);
    EXPECT_EQ(info.z.size(), 16u);
}

// Changes a checkpoint's data of one field in place, as a disk or a copy might: edit(values)
// gets the whole field (z, y, x), in double.
template <typename Edit>
void edit_field(const std::string& file, const std::string& name, Edit&& edit) {
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    const hid_t ds = H5Dopen2(f, ("fields/" + name).c_str(), H5P_DEFAULT);
    ASSERT_GE(ds, 0);
    std::vector<double> v(16u * 16 * 16);
    ASSERT_GE(H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0);
    edit(v);
    ASSERT_GE(H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), 0);
    H5Dclose(ds);
    H5Fclose(f);
}

// A finite bit flip in a field, or two values swapped, is refused with a message naming
// the file and the field; the untouched checkpoint restarts.
TEST_F(Checkpoint, CorruptFieldDataIsRefused) {
    const std::string file = good_checkpoint();
    const std::string copy = dir + "/copy.h5";
    fs::copy_file(file, copy);
    EXPECT_EQ(restart_error(file, drycbl()), "");
    edit_field(file, "th", [](std::vector<double>& v) {
        const std::size_t n = 5 * 256 + 4 * 16 + 3;
        const double before = v[n];
        v[n] = std::bit_cast<double>(std::bit_cast<std::uint64_t>(v[n]) ^ (std::uint64_t(1) << 40));
        ASSERT_TRUE(std::isfinite(v[n]));
        ASSERT_NE(v[n], before);
    });
    std::string msg = restart_error(file, drycbl());
    EXPECT_NE(msg.find("checkpoint " + file + " is corrupt: field th does not match its checksum"),
              std::string::npos)
        << msg;
    edit_field(copy, "u", [](std::vector<double>& v) {
        ASSERT_NE(v[300], v[301]); // a swap of equal values would change nothing
        std::swap(v[300], v[301]);
    });
    msg = restart_error(copy, drycbl());
    EXPECT_NE(msg.find("field u does not match its checksum"), std::string::npos) << msg;
}

// A checkpoint written before checksums (no attribute) still restarts, and the read says
// how many fields it could not verify.
TEST_F(Checkpoint, CheckpointWithoutChecksumsIsRead) {
    const std::string file = good_checkpoint();
    {
        const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
        ASSERT_GE(f, 0);
        for (const char* name : {"fields/u", "fields/th"})
            ASSERT_GE(H5Adelete_by_name(f, name, "checksum", H5P_DEFAULT), 0) << name;
        H5Fclose(f);
    }
    ModelRun<double> run(drycbl(), MPI_COMM_WORLD, false);
    Field3d<double> u(run.model->grid().d), th(run.model->grid().d), w(run.model->grid().d);
    EXPECT_EQ(io::read_checkpoint_fields<double>(file, {{"u", &u}, {"th", &th}, {"w", &w}},
                                                 run.model->decomp()),
              2u);
    testing::internal::CaptureStdout();
    const std::string error = restart_error(file, drycbl());
    const std::string log = testing::internal::GetCapturedStdout();
    EXPECT_EQ(error, "");
    EXPECT_NE(log.find("has no checksum for 2 of its 5 fields"), std::string::npos) << log;
}

TEST_F(Checkpoint, KeysAreValidated) {
    for (const char* bad : {"output.checkpoint_keep=0", "output.checkpoint_every=-1",
                            "output.checkpoint_wall=-5", "time.walltime_limit=-1"}) {
        try {
            drycbl({bad});
            ADD_FAILURE() << bad << " was accepted";
        } catch (const ConfigError& e) {
            const std::string key = std::string(bad).substr(0, std::string(bad).find('='));
            EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
        }
    }
}

} // namespace
} // namespace squall::test
