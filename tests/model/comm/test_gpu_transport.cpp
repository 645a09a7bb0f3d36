// The GPU transport rule (gpu_transport.h) for every combination that matters: NCCL only
// with a GPU per rank, CUDA IPC only on one node, staged MPI otherwise, and an explicit
// setting that cannot be met is an error.
#include <gtest/gtest.h>

#include <stdexcept>

#include "model/comm/gpu_transport.h"

using squall::choose_gpu_transport;
using squall::GpuTransport;
using squall::parse_transport_setting;
using squall::TransportInputs;
using squall::TransportSetting;

namespace {

const char* absent = "NCCL not found: tried /opt/nccl/lib/libnccl.so.2 (No such file)";

// n ranks, each on GPU ids[r]; NCCL present unless stated.
TransportInputs inputs(std::vector<std::string> ids, int nodes = 1, bool nccl = true) {
    TransportInputs in;
    in.device_ids = std::move(ids);
    in.nodes = nodes;
    in.nccl_loaded = nccl;
    in.nccl_missing = nccl ? "" : absent;
    in.nccl_version = nccl ? "2.28.9" : "";
    return in;
}

std::string error_of(const TransportInputs& in) {
    try {
        choose_gpu_transport(in);
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "";
}

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

} // namespace

TEST(GpuTransport, ParsesTheSetting) {
    EXPECT_EQ(parse_transport_setting(""), TransportSetting::automatic);
    EXPECT_EQ(parse_transport_setting("auto"), TransportSetting::automatic);
    EXPECT_EQ(parse_transport_setting("nccl"), TransportSetting::nccl);
    EXPECT_EQ(parse_transport_setting("ipc"), TransportSetting::ipc);
    EXPECT_EQ(parse_transport_setting("staged"), TransportSetting::staged);
    for (const char* bad : {"NCCL", "mpi", "auto "}) {
        try {
            parse_transport_setting(bad);
            ADD_FAILURE() << bad << " was accepted";
        } catch (const std::invalid_argument& e) {
            EXPECT_TRUE(contains(e.what(), "SQUALL_GPU_TRANSPORT")) << e.what();
            EXPECT_TRUE(contains(e.what(), "auto, nccl, ipc or staged")) << e.what();
        }
    }
}

TEST(GpuTransport, AutoTakesNcclWithOneGpuPerRank) {
    const auto one_node = choose_gpu_transport(inputs({"a", "b", "c", "d"}));
    EXPECT_EQ(one_node.transport, GpuTransport::nccl);
    EXPECT_EQ(one_node.line, "GPU transport: NCCL 2.28.9 (4 ranks on 1 node)");
    const auto two_nodes = choose_gpu_transport(inputs({"a", "b", "c", "d"}, 2));
    EXPECT_EQ(two_nodes.transport, GpuTransport::nccl);
    EXPECT_EQ(two_nodes.line, "GPU transport: NCCL 2.28.9 (4 ranks on 2 nodes)");
}

// The single-GPU test machine: 2 and 4 ranks on one device keep CUDA IPC.
TEST(GpuTransport, AutoNeverTakesNcclForRanksSharingAGpu) {
    const auto two = choose_gpu_transport(inputs({"g0", "g0"}));
    EXPECT_EQ(two.transport, GpuTransport::ipc);
    EXPECT_TRUE(contains(two.line, "CUDA IPC (NCCL: ranks 0 and 1 share GPU g0")) << two.line;
    EXPECT_EQ(choose_gpu_transport(inputs({"g0", "g0", "g0", "g0"})).transport, GpuTransport::ipc);
    // Two of four sharing is enough to rule NCCL out.
    const auto some = choose_gpu_transport(inputs({"g0", "g1", "g2", "g1"}));
    EXPECT_EQ(some.transport, GpuTransport::ipc);
    EXPECT_TRUE(contains(some.line, "ranks 1 and 3 share GPU g1")) << some.line;
    // Across nodes too, where IPC is out: staged.
    const auto staged = choose_gpu_transport(inputs({"g0", "g0", "g1", "g1"}, 2));
    EXPECT_EQ(staged.transport, GpuTransport::staged);
    EXPECT_TRUE(contains(staged.line, "CUDA IPC: ranks on 2 nodes")) << staged.line;
}

TEST(GpuTransport, AutoNeverTakesNcclWhenAGpuIsUnknown) {
    const auto c = choose_gpu_transport(inputs({"g0", ""}));
    EXPECT_EQ(c.transport, GpuTransport::ipc);
    EXPECT_TRUE(contains(c.line, "the GPU of rank 1 is unknown")) << c.line;
}

TEST(GpuTransport, AutoWithoutNccl) {
    const auto one_node = choose_gpu_transport(inputs({"a", "b"}, 1, false));
    EXPECT_EQ(one_node.transport, GpuTransport::ipc);
    EXPECT_EQ(one_node.line, std::string("GPU transport: CUDA IPC (") + absent + ")");
    const auto two_nodes = choose_gpu_transport(inputs({"a", "b"}, 2, false));
    EXPECT_EQ(two_nodes.transport, GpuTransport::staged);
    EXPECT_EQ(two_nodes.line, std::string("GPU transport: staged MPI through host memory (") +
                                  absent + "; CUDA IPC: ranks on 2 nodes)");
}

TEST(GpuTransport, AutoAfterFailedIpcIsStaged) {
    TransportInputs in = inputs({"g0", "g0"});
    in.ipc_failure = "cuIpcOpenMemHandle failed";
    const auto c = choose_gpu_transport(in);
    EXPECT_EQ(c.transport, GpuTransport::staged);
    EXPECT_TRUE(contains(c.line, "CUDA IPC failed: cuIpcOpenMemHandle failed")) << c.line;
}

TEST(GpuTransport, GpuDirectOffMeansStagedUnderAuto) {
    TransportInputs in = inputs({"a", "b"});
    in.gpu_direct_off = true;
    const auto c = choose_gpu_transport(in);
    EXPECT_EQ(c.transport, GpuTransport::staged);
    EXPECT_EQ(c.line, "GPU transport: staged MPI through host memory (SQUALL_GPU_DIRECT=0)");
    // An explicit transport wins over it.
    in.setting = TransportSetting::nccl;
    EXPECT_EQ(choose_gpu_transport(in).transport, GpuTransport::nccl);
    in.setting = TransportSetting::ipc;
    EXPECT_EQ(choose_gpu_transport(in).transport, GpuTransport::ipc);
}

TEST(GpuTransport, ExplicitNcclThatCannotBeUsedIsAnError) {
    TransportInputs in = inputs({"a", "b"}, 1, false);
    in.setting = TransportSetting::nccl;
    const std::string absent_error = error_of(in);
    EXPECT_EQ(absent_error,
              std::string("SQUALL_GPU_TRANSPORT=nccl, but NCCL cannot be used: ") + absent);
    TransportInputs shared = inputs({"g0", "g0"});
    shared.setting = TransportSetting::nccl;
    EXPECT_TRUE(contains(error_of(shared), "ranks 0 and 1 share GPU g0")) << error_of(shared);
    TransportInputs ok = inputs({"a", "b"}, 3);
    ok.setting = TransportSetting::nccl;
    EXPECT_EQ(choose_gpu_transport(ok).transport, GpuTransport::nccl);
}

TEST(GpuTransport, ExplicitIpcAndStaged) {
    TransportInputs in = inputs({"a", "b"}); // NCCL would do, but is not asked for
    in.setting = TransportSetting::ipc;
    const auto ipc = choose_gpu_transport(in);
    EXPECT_EQ(ipc.transport, GpuTransport::ipc);
    EXPECT_EQ(ipc.line, "GPU transport: CUDA IPC (SQUALL_GPU_TRANSPORT=ipc)");
    in.nodes = 2;
    EXPECT_EQ(error_of(in), "SQUALL_GPU_TRANSPORT=ipc, but CUDA IPC: ranks on 2 nodes");
    in.nodes = 1;
    in.ipc_failure = "cuIpcGetMemHandle failed";
    EXPECT_TRUE(contains(error_of(in), "CUDA IPC failed: cuIpcGetMemHandle failed"));
    in.setting = TransportSetting::staged;
    const auto staged = choose_gpu_transport(in);
    EXPECT_EQ(staged.transport, GpuTransport::staged);
    EXPECT_EQ(staged.line,
              "GPU transport: staged MPI through host memory (SQUALL_GPU_TRANSPORT=staged)");
}
