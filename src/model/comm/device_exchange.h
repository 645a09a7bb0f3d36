#pragma once
// Moves blocks straight between the device buffers of the ranks of a communicator, when
// every rank of it is on this node: each rank maps the others' receive buffer once
// (CUDA IPC; peer access between devices is enabled as needed, NVLink where there is
// one) and writes its blocks into them with device copies. Nothing passes through host
// memory. A round is begin() (this rank's device work is done, and after the barrier
// every receiver is done with the last round), put()s, end() (the copies are done, and
// after the barrier every block has arrived). Receive buffers must outlive the exchange.
// direct() is false, and the caller stages through the host and MPI instead, when the
// ranks span nodes, when SQUALL_GPU_DIRECT=0, or when any rank fails to map a buffer;
// every rank of the communicator agrees on it.
#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

#include "runtime/driver.h"

namespace squall {

class DeviceExchange {
public:
    // Collective over comm; recv is this rank's device receive buffer.
    DeviceExchange(MPI_Comm comm, rt::DevicePtr recv);
    ~DeviceExchange();
    DeviceExchange(const DeviceExchange&) = delete;
    DeviceExchange& operator=(const DeviceExchange&) = delete;

    bool direct() const { return direct_; }
    // Why the exchange is not direct (empty when it is).
    const std::string& reason() const { return reason_; }

    void begin() const;
    // Copies `bytes` from this rank's device memory at src to rank q's receive buffer at
    // byte offset `offset`.
    void put(int q, rt::DevicePtr src, std::size_t offset, std::size_t bytes) const;
    // Throws on every rank if a copy failed on any.
    void end() const;

private:
    MPI_Comm comm_;
    std::vector<rt::DevicePtr> peer_recv_; // mapped receive buffers; 0 for this rank
    bool direct_ = false;
    std::string reason_;
    mutable std::string failure_; // first failed copy of the current round
};

} // namespace squall
