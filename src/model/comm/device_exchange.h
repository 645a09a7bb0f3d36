#pragma once
// Moves blocks straight between the device buffers of the ranks of a communicator,
// through the transport gpu_transport.h chooses (collectively, at construction):
//   NCCL     - grouped ncclSend/ncclRecv on the given stream, within and across nodes;
//   CUDA IPC - when every rank is on this node: each rank maps the others' receive buffer
//              once (peer access between devices is enabled as needed, NVLink where there
//              is one) and writes its blocks into them with device copies.
// Nothing passes through host memory. A round is begin() (this rank's device work is
// done; with IPC, after the barrier every receiver is done with the last round), put()s
// and get()s, flush() (optional: the transfers go), end() (after it every block has
// arrived). The puts name the offset in the receiver's buffer (used by IPC), the gets the
// offset in this rank's (used by NCCL);
// both are issued on every transport, so a caller does not depend on which one runs.
// Between one pair of ranks, the blocks of a round pair up in order: the k-th put to q
// lands in q's k-th get from this rank. Receive buffers must outlive the exchange.
// direct() is false, and the caller stages through the host and MPI instead, when the
// transport is staged MPI; every rank of the communicator agrees on it.
// With a stream of its own (OwnStream), the transfers run beside the kernels of the
// default stream: they start after the device work queued before begin(), and kernels
// queued between begin() and end() run while they are in flight.
#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

#include "model/comm/gpu_transport.h"
#include "model/comm/nccl_library.h"
#include "runtime/driver.h"

namespace squall {

class DeviceExchange {
public:
    // Collective over comm; recv is this rank's device receive buffer, stream the one the
    // packing and unpacking kernels run on (NCCL queues its transfers there).
    DeviceExchange(MPI_Comm comm, rt::DevicePtr recv, rt::StreamHandle stream = nullptr);
    struct OwnStream {};
    DeviceExchange(MPI_Comm comm, rt::DevicePtr recv, OwnStream);
    ~DeviceExchange();
    DeviceExchange(const DeviceExchange&) = delete;
    DeviceExchange& operator=(const DeviceExchange&) = delete;

    GpuTransport transport() const { return transport_; }
    bool direct() const { return transport_ != GpuTransport::staged; }
    // The log line of the choice: the transport and why the others were not used.
    const std::string& reason() const { return reason_; }

    void begin() const;
    // Sends `bytes` from this rank's device memory at src to rank q, where they land at
    // byte offset `offset` of q's receive buffer.
    void put(int q, rt::DevicePtr src, std::size_t offset, std::size_t bytes) const;
    // Receives `bytes` from rank q at byte offset `offset` of this rank's receive buffer.
    void get(int q, std::size_t offset, std::size_t bytes) const;
    // Sets the round's transfers going: NCCL queues grouped sends and receives only when
    // the group closes (IPC copies start at put()). end() does it too; a caller that
    // overlaps work with the round calls it after the last get().
    void flush() const;
    // Throws if a transfer failed (IPC: on every rank if one failed on any).
    void end() const;
    // A round begun and never to be ended (the run is failing): with NCCL the destructor
    // then aborts the communicator instead of waiting for the peers; with CUDA IPC it
    // still waits for this rank's copies and meets the peers at its barrier.
    void abandon() const;

private:
    MPI_Comm comm_;
    rt::DevicePtr recv_;
    rt::StreamHandle stream_;
    bool own_stream_ = false;
    void* queued_ = nullptr; // OwnStream: the event of the default stream's work at begin()
    GpuTransport transport_ = GpuTransport::staged;
    std::string reason_;
    std::vector<rt::DevicePtr> peer_recv_; // IPC: mapped receive buffers; 0 for this rank
    nccl::Comm nccl_ = nullptr;
    mutable std::string failure_;      // first failed transfer of the current round
    mutable bool nccl_broken_ = false; // a failed NCCL call: abort, not destroy
    mutable bool grouped_ = false;     // between ncclGroupStart and ncclGroupEnd

    std::string open_ipc(); // "" or why it failed on this rank
    std::string open_nccl();
};

} // namespace squall
