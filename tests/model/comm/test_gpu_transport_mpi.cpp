// The transport inputs gathered over two CPU ranks: the ranks agree on the setting or all
// throw, one rank's SQUALL_GPU_DIRECT=0 counts for all, and the node count.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <stdexcept>

#include "model/comm/gpu_transport.h"

using squall::gather_transport_inputs;

namespace {

int rank() {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

// Sets (or with nullptr unsets) a variable on one rank for the scope.
class RankEnv {
public:
    RankEnv(int on_rank, const char* name, const char* value) : name_(name) {
        if (rank() != on_rank) return;
        set_ = true;
        if (value)
            setenv(name, value, 1);
        else
            unsetenv(name);
    }
    ~RankEnv() {
        if (set_) unsetenv(name_);
    }

private:
    const char* name_;
    bool set_ = false;
};

// The message gather_transport_inputs() throws on this rank, "" if none.
std::string gather_error() {
    try {
        gather_transport_inputs(MPI_COMM_WORLD);
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "";
}

} // namespace

TEST(GpuTransportMpi, GathersOneEntryPerRankOnOneNode) {
    unsetenv("SQUALL_GPU_TRANSPORT");
    unsetenv("SQUALL_GPU_DIRECT");
    const squall::TransportInputs in = gather_transport_inputs(MPI_COMM_WORLD);
    int n = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    EXPECT_EQ(in.setting, squall::TransportSetting::automatic);
    EXPECT_FALSE(in.gpu_direct_off);
    EXPECT_EQ(int(in.device_ids.size()), n);
    EXPECT_EQ(in.nodes, 1); // mpiexec on this machine
    // No GPU is open in this process, so no rank's device is known: never NCCL.
    EXPECT_NE(squall::choose_gpu_transport(in).transport, squall::GpuTransport::nccl);
}

TEST(GpuTransportMpi, SettingsThatDifferFailOnEveryRank) {
    const RankEnv env(1, "SQUALL_GPU_TRANSPORT", "staged");
    EXPECT_EQ(gather_error(), "SQUALL_GPU_TRANSPORT differs between the ranks");
}

TEST(GpuTransportMpi, AnInvalidSettingFailsOnEveryRank) {
    const RankEnv env(1, "SQUALL_GPU_TRANSPORT", "bogus");
    const std::string e = gather_error();
    if (rank() == 1)
        EXPECT_EQ(e, "SQUALL_GPU_TRANSPORT=bogus: expected auto, nccl, ipc or staged");
    else
        EXPECT_EQ(e, "SQUALL_GPU_TRANSPORT is invalid on another rank");
}

TEST(GpuTransportMpi, GpuDirectOffOnOneRankCountsForAll) {
    const RankEnv env(1, "SQUALL_GPU_DIRECT", "0");
    const squall::TransportInputs in = gather_transport_inputs(MPI_COMM_WORLD);
    EXPECT_TRUE(in.gpu_direct_off);
    EXPECT_EQ(squall::choose_gpu_transport(in).transport, squall::GpuTransport::staged);
}

TEST(GpuTransportMpi, ExplicitNcclWithoutKnownGpusFailsOnEveryRank) {
    const RankEnv env0(0, "SQUALL_GPU_TRANSPORT", "nccl");
    const RankEnv env1(1, "SQUALL_GPU_TRANSPORT", "nccl");
    const squall::TransportInputs in = gather_transport_inputs(MPI_COMM_WORLD);
    EXPECT_EQ(in.setting, squall::TransportSetting::nccl);
    std::string e;
    try {
        squall::choose_gpu_transport(in);
    } catch (const std::runtime_error& ex) {
        e = ex.what();
    }
    EXPECT_EQ(e.rfind("SQUALL_GPU_TRANSPORT=nccl, but NCCL cannot be used: ", 0), 0u) << e;
}
