#pragma once
// Which transport moves the GPU ranks' blocks (halos, pressure transposes) between the
// ranks of a communicator:
//   NCCL        - ncclSend/ncclRecv on the device, within and across nodes; needs
//                 libnccl (nccl_library.h) on every rank and a GPU of its own per rank
//                 (NCCL refuses two ranks on one device);
//   CUDA IPC    - device copies into the peers' mapped buffers; all ranks on one node;
//   staged MPI  - device -> page-locked host -> MPI -> host -> device; always works.
// SQUALL_GPU_TRANSPORT selects one: auto (the default: the first of the three that can be
// used), nccl, ipc or staged. An explicit choice that cannot be used is an error, on every
// rank, naming why: a measurement asked of one transport must not silently come from
// another. SQUALL_GPU_DIRECT=0 (older) means staged under auto.
// choose_gpu_transport() is the rule alone (no MPI, no device), for tests;
// gather_transport_inputs() collects what it needs over MPI.
#include <mpi.h>

#include <string>
#include <string_view>
#include <vector>

namespace squall {

enum class GpuTransport { nccl, ipc, staged };
enum class TransportSetting { automatic, nccl, ipc, staged };

// "NCCL", "CUDA IPC", "staged MPI".
const char* transport_name(GpuTransport t);
// "", "auto", "nccl", "ipc", "staged" (case-sensitive); throws std::invalid_argument
// naming SQUALL_GPU_TRANSPORT and the accepted values otherwise.
TransportSetting parse_transport_setting(std::string_view text);

// Everything the choice depends on, the same on every rank of the communicator.
struct TransportInputs {
    TransportSetting setting = TransportSetting::automatic;
    bool gpu_direct_off = false; // SQUALL_GPU_DIRECT=0 (on some rank)
    bool nccl_loaded = false;    // libnccl loaded on every rank
    std::string nccl_missing;    // why not, when !nccl_loaded
    std::string nccl_version;    // "2.28.9", when loaded
    // Each rank's GPU (a UUID); "" where unknown, which rules NCCL out.
    std::vector<std::string> device_ids;
    int nodes = 1;           // nodes the ranks are on
    std::string ipc_failure; // set when CUDA IPC was tried and failed on some rank
};

struct TransportChoice {
    GpuTransport transport = GpuTransport::staged;
    // One line for the log, e.g. "GPU transport: staged MPI through host memory (NCCL
    // not found: tried ...; CUDA IPC: ranks on 2 nodes)".
    std::string line;
};

// The rule. Throws std::runtime_error when the setting names a transport the inputs
// rule out.
TransportChoice choose_gpu_transport(const TransportInputs& in);

// Collective over comm: the setting (all ranks must agree, else every rank throws), NCCL's
// presence (loaded only when the setting allows NCCL), each rank's current GPU and the
// number of nodes. Needs the GPU opened (runtime/driver.h) for the device ids.
TransportInputs gather_transport_inputs(MPI_Comm comm);

// Logs the choice's line once per process (world rank 0; a repeated line is not logged
// again), as a warning when `failed` (an attempted transport failed).
void log_transport_choice(const TransportChoice& c, bool failed);

} // namespace squall
