#include "model/comm/device_exchange.h"

#include <cstdlib>
#include <exception>
#include <stdexcept>

#include "runtime/log.h"

namespace squall {

DeviceExchange::DeviceExchange(MPI_Comm comm, rt::DevicePtr recv, rt::StreamHandle stream)
    : comm_(comm), recv_(recv), stream_(stream) {
    int nranks = 1;
    MPI_Comm_size(comm, &nranks);
    peer_recv_.assign(std::size_t(nranks), 0);

    // Every decision below rests on inputs all ranks share, so every rank takes the same
    // path, and throws together where an explicit setting cannot be met.
    TransportInputs in = gather_transport_inputs(comm);
    TransportChoice choice = choose_gpu_transport(in);
    bool failed = false;
    if (choice.transport == GpuTransport::nccl) {
        const std::string why = open_nccl();
        int ok = why.empty() ? 1 : 0, all_ok = 0;
        MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
        if (!all_ok) {
            if (nccl_) nccl::Library::get().comm_abort(nccl_);
            nccl_ = nullptr;
            in.nccl_loaded = false;
            in.nccl_missing = why.empty() ? "NCCL failed on another rank" : why;
            choice = choose_gpu_transport(in);
            failed = true;
        }
    }
    if (choice.transport == GpuTransport::ipc) {
        const std::string why = open_ipc();
        int ok = why.empty() ? 1 : 0, all_ok = 0;
        MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
        if (!all_ok) {
            for (rt::DevicePtr& p : peer_recv_) rt::Driver::get().ipc_close(p), p = 0;
            in.ipc_failure = why.empty() ? "another rank could not map a peer buffer" : why;
            choice = choose_gpu_transport(in);
            failed = true;
        }
    }
    transport_ = choice.transport;
    reason_ = choice.line;
    log_transport_choice(choice, failed);
}

DeviceExchange::DeviceExchange(MPI_Comm comm, rt::DevicePtr recv, OwnStream)
    : DeviceExchange(comm, recv) {
    if (!direct()) return; // staged: the caller's host copies and MPI
    const rt::Driver& drv = rt::Driver::get();
    stream_ = drv.stream_create();
    own_stream_ = true;
    queued_ = drv.event_create();
}

// Every rank's handle to every rank; each maps the others'.
std::string DeviceExchange::open_ipc() {
    int rank = 0, nranks = 1;
    MPI_Comm_rank(comm_, &rank);
    MPI_Comm_size(comm_, &nranks);
    std::string why;
    rt::IpcHandle mine;
    try {
        mine = rt::Driver::get().ipc_handle(recv_);
    } catch (const std::exception& e) {
        why = e.what();
    }
    std::vector<rt::IpcHandle> all(static_cast<std::size_t>(nranks));
    MPI_Allgather(mine.bytes.data(), int(mine.bytes.size()), MPI_BYTE, all.data(),
                  int(mine.bytes.size()), MPI_BYTE, comm_);
    for (int q = 0; q < nranks && why.empty(); ++q) {
        if (q == rank) continue;
        try {
            peer_recv_[std::size_t(q)] = rt::Driver::get().ipc_open(all[std::size_t(q)]);
        } catch (const std::exception& e) {
            why = e.what();
        }
    }
    return why;
}

// Rank 0 makes the id, every rank joins with it. A rank that fails inside
// ncclCommInitRank may leave the others waiting there; NCCL gives no way around that
// short of its non-blocking mode.
std::string DeviceExchange::open_nccl() {
    const nccl::Library& lib = nccl::Library::get();
    int rank = 0, nranks = 1;
    MPI_Comm_rank(comm_, &rank);
    MPI_Comm_size(comm_, &nranks);
    // NVLink multicast (NVLS) stays off unless the user turned it on: it reserves much
    // device memory and is of no use to point-to-point transfers.
    setenv("NCCL_NVLS_ENABLE", "0", 0);
    struct {
        int ok;
        nccl::UniqueId id;
    } root{};
    std::string why;
    if (rank == 0) {
        const nccl::Result r = lib.get_unique_id(&root.id);
        root.ok = r == nccl::success ? 1 : 0;
        if (!root.ok) why = lib.describe(r, "ncclGetUniqueId");
    }
    MPI_Bcast(&root, int(sizeof root), MPI_BYTE, 0, comm_);
    if (!root.ok) return why.empty() ? "ncclGetUniqueId failed on rank 0" : why;
    try {
        rt::Driver::get().make_current(); // NCCL uses the current context's device
    } catch (const std::exception& e) {
        return e.what();
    }
    const nccl::Result r = lib.comm_init_rank(&nccl_, nranks, root.id, rank);
    if (r != nccl::success) return lib.describe(r, "ncclCommInitRank", nccl_);
    return "";
}

// Every rank unmaps its peers' buffers before any rank frees its own (the owners free
// them after this destructor): freeing an exported allocation that a peer still maps is
// undefined. Construction was collective, so destruction is too.
DeviceExchange::~DeviceExchange() {
    const rt::Driver& drv = rt::Driver::get();
    if (nccl_) {
        const nccl::Library& lib = nccl::Library::get();
        if (nccl_broken_)
            lib.comm_abort(nccl_);
        else
            lib.comm_destroy(nccl_);
    } else {
        if (own_stream_) {
            try {
                drv.stream_synchronize(stream_); // copies still writing into the peers
            } catch (const std::exception&) {
            }
        }
        for (rt::DevicePtr p : peer_recv_) drv.ipc_close(p);
        if (transport_ == GpuTransport::ipc) MPI_Barrier(comm_);
    }
    if (own_stream_) {
        drv.event_destroy(queued_);
        drv.stream_destroy(stream_);
    }
}

void DeviceExchange::begin() const {
    if (transport_ == GpuTransport::nccl) {
        // The transfers queue behind the packing kernels: on the same stream, or on our
        // own after the default stream's work so far.
        if (own_stream_) {
            try {
                rt::Driver::get().event_record(queued_, nullptr);
                rt::Driver::get().stream_wait_event(stream_, queued_);
            } catch (const std::exception& e) {
                failure_ = e.what();
            }
        }
        const nccl::Library& lib = nccl::Library::get();
        const nccl::Result r = lib.group_start();
        grouped_ = r == nccl::success;
        if (!grouped_) failure_ = lib.describe(r, "ncclGroupStart", nccl_);
        return;
    }
    rt::Driver::get().synchronize();
    MPI_Barrier(comm_);
}

void DeviceExchange::put(int q, rt::DevicePtr src, std::size_t offset, std::size_t bytes) const {
    if (bytes == 0 || !failure_.empty()) return;
    if (transport_ == GpuTransport::nccl) {
        const nccl::Library& lib = nccl::Library::get();
        const nccl::Result r =
            lib.send(reinterpret_cast<const void*>(src), bytes, nccl::int8, q, nccl_, stream_);
        if (r != nccl::success) failure_ = lib.describe(r, "ncclSend", nccl_);
        return;
    }
    try {
        const rt::DevicePtr dst = peer_recv_[std::size_t(q)] + offset;
        if (own_stream_)
            rt::Driver::get().copy_device_async(dst, src, bytes, stream_);
        else
            rt::Driver::get().copy_device(dst, src, bytes);
    } catch (const std::exception& e) {
        failure_ = e.what();
    }
}

void DeviceExchange::get(int q, std::size_t offset, std::size_t bytes) const {
    if (bytes == 0 || !failure_.empty() || transport_ != GpuTransport::nccl) return;
    const nccl::Library& lib = nccl::Library::get();
    const nccl::Result r =
        lib.recv(reinterpret_cast<void*>(recv_ + offset), bytes, nccl::int8, q, nccl_, stream_);
    if (r != nccl::success) failure_ = lib.describe(r, "ncclRecv", nccl_);
}

void DeviceExchange::flush() const {
    if (transport_ != GpuTransport::nccl || !grouped_) return;
    // The group is closed even after a failed send or receive in it.
    const nccl::Library& lib = nccl::Library::get();
    const nccl::Result r = lib.group_end();
    grouped_ = false;
    if (r != nccl::success && failure_.empty()) failure_ = lib.describe(r, "ncclGroupEnd", nccl_);
}

void DeviceExchange::end() const {
    if (transport_ == GpuTransport::nccl) {
        flush();
        if (failure_.empty()) {
            try {
                // Waiting here keeps end()'s meaning (every block has arrived) and the
                // transfer time honest.
                rt::Driver::get().stream_synchronize(stream_);
            } catch (const std::exception& e) {
                failure_ = e.what();
            }
        }
        if (failure_.empty()) return;
        // The peers may be left waiting in their transfers: the communicator is aborted
        // at destruction, and the run's error handling ends the others.
        nccl_broken_ = true;
        const std::string why = failure_;
        failure_.clear();
        throw std::runtime_error("GPU exchange between ranks (NCCL): " + why);
    }
    // IPC: the reduction doubles as the barrier; a failed copy on any rank throws on every
    // rank instead of leaving the others waiting.
    if (failure_.empty()) {
        try {
            if (own_stream_)
                rt::Driver::get().stream_synchronize(stream_);
            else
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

void DeviceExchange::abandon() const {
    if (transport_ == GpuTransport::nccl) {
        if (grouped_) nccl::Library::get().group_end();
        grouped_ = false;
        nccl_broken_ = true;
    }
    failure_.clear();
}

} // namespace squall
