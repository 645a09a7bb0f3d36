#include "model/comm/device_exchange.h"

#include <cstdlib>
#include <cstring>
#include <exception>
#include <stdexcept>

#include "runtime/log.h"

namespace squall {

DeviceExchange::DeviceExchange(MPI_Comm comm, rt::DevicePtr recv) : comm_(comm) {
    int rank = 0, nranks = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    peer_recv_.assign(std::size_t(nranks), 0);

    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int node_size = 0;
    MPI_Comm_size(node, &node_size);
    MPI_Comm_free(&node);
    // Decided together, so that every rank takes the same path even if the environment
    // differs between them.
    const char* env = std::getenv("SQUALL_GPU_DIRECT");
    int wanted = env && std::strcmp(env, "0") == 0 ? 0 : 1, all_wanted = 0;
    MPI_Allreduce(&wanted, &all_wanted, 1, MPI_INT, MPI_MIN, comm);
    if (!all_wanted) {
        reason_ = "SQUALL_GPU_DIRECT=0";
        return;
    }
    if (node_size != nranks) {
        reason_ = "the ranks span several nodes";
        return;
    }

    // Every rank's handle to every rank; each maps the others'.
    int ok = 1;
    std::string why;
    rt::IpcHandle mine;
    try {
        mine = rt::Driver::get().ipc_handle(recv);
    } catch (const std::exception& e) {
        ok = 0;
        why = e.what();
    }
    std::vector<rt::IpcHandle> all(static_cast<std::size_t>(nranks));
    MPI_Allgather(mine.bytes.data(), int(mine.bytes.size()), MPI_BYTE, all.data(),
                  int(mine.bytes.size()), MPI_BYTE, comm);
    for (int q = 0; q < nranks && ok; ++q) {
        if (q == rank) continue;
        try {
            peer_recv_[std::size_t(q)] = rt::Driver::get().ipc_open(all[std::size_t(q)]);
        } catch (const std::exception& e) {
            ok = 0;
            why = e.what();
        }
    }
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    direct_ = all_ok == 1;
    if (!direct_) {
        reason_ = ok ? "another rank could not map a peer buffer" : "CUDA IPC failed: " + why;
        rt::log_warn("GPU exchange between ranks goes through host memory: {}", reason_);
        for (rt::DevicePtr& p : peer_recv_) rt::Driver::get().ipc_close(p), p = 0;
    }
}

// Every rank unmaps its peers' buffers before any rank frees its own (the owners free
// them after this destructor): freeing an exported allocation that a peer still maps is
// undefined. Construction was collective, so destruction is too.
DeviceExchange::~DeviceExchange() {
    for (rt::DevicePtr p : peer_recv_) rt::Driver::get().ipc_close(p);
    if (direct_) MPI_Barrier(comm_);
}

void DeviceExchange::begin() const {
    rt::Driver::get().synchronize();
    MPI_Barrier(comm_);
}

void DeviceExchange::put(int q, rt::DevicePtr src, std::size_t offset, std::size_t bytes) const {
    if (bytes == 0 || !failure_.empty()) return;
    try {
        rt::Driver::get().copy_device(peer_recv_[std::size_t(q)] + offset, src, bytes);
    } catch (const std::exception& e) {
        failure_ = e.what();
    }
}

// The reduction doubles as the barrier; a failed copy on any rank throws on every rank
// instead of leaving the others waiting.
void DeviceExchange::end() const {
    if (failure_.empty()) {
        try {
            rt::Driver::get().synchronize();
        } catch (const std::exception& e) {
            failure_ = e.what();
        }
    }
    int ok = failure_.empty() ? 1 : 0, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm_);
    if (all_ok) return;
    const std::string why = failure_.empty() ? "a device copy failed on another rank" : failure_;
    failure_.clear();
    throw std::runtime_error("GPU exchange between ranks: " + why);
}

} // namespace squall
