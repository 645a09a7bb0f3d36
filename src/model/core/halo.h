#pragma once
// Periodic ghost-cell exchange in x and y, through MPI when the direction is split over
// ranks and as a local copy when it is not. The y pass includes the x ghost columns so the
// corners are filled too. Packing, unpacking and the local wrap are kernels
// (kernels/halo.cuh) launched on the active backend. With on_device (one rank per GPU)
// the packed buffers go device to device (DeviceExchange: NCCL or CUDA IPC), else through
// the host for MPI.
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>

#include "model/comm/device_exchange.h"
#include "model/decomp.h"
#include "model/field.h"
#include "model/grid.h"

namespace squall {

template <typename T>
class Halo {
public:
    Halo(const GridDims& d, const Decomposition& decomp, bool on_device = false);
    ~Halo();
    Halo(const Halo&) = delete;
    Halo& operator=(const Halo&) = delete;
    // Exchange all ghost cells of a 3-D array with nk <= kcells levels (kcells for fields).
    // `a` is the pointer kernels use (device memory when on_device).
    void exchange(T* a, int nk) const { exchange({a}, nk); }
    // The same for several arrays at once: on the host, the local wraps of all of them are
    // one parallel pass of row copies (wrap_host), and the arrays' results are the same
    // copies as one at a time.
    void exchange(std::span<T* const> arrays, int nk) const;
    void exchange(std::initializer_list<T*> arrays, int nk) const {
        exchange(std::span<T* const>(arrays.begin(), arrays.size()), nk);
    }
    // Exchange the ghost cells of a 2-D (icells x jcells) array.
    void exchange_2d(T* a) const { exchange(a, 1); }
    // exchange(a, nk) in two halves, so that work which neither reads nor writes `a` runs
    // while its messages are in flight: start() packs the first direction split over
    // ranks and posts its messages, finish() waits for them, unpacks and does the rest,
    // with the same copies as exchange(). On the device the transfers run on a stream of
    // their own (NCCL, CUDA IPC), so the kernels launched in between run beside them, or
    // through the host and MPI (staged). Where no direction is split, start() does the
    // whole exchange. An exchange or start finishes a pending one first (the buffers are
    // shared); so does the destructor.
    void start(T* a, int nk) const;
    void finish() const;

private:
    GridDims d_;
    const Decomposition* decomp_;
    bool on_device_;
    // Send and receive buffers: two directions each, sized for kcells levels. The kernels
    // write the device ones when on_device; MPI always uses the host copies.
    mutable DeviceArray<T> send_, recv_;
    std::unique_ptr<DeviceExchange> direct_; // device to device, else null; after recv_
    // An exchange started and not finished: its array and its messages.
    struct Pending {
        T* a;
        int nk;
        bool x;    // the x direction is in flight (else y)
        int n = 0; // values per side
        MPI_Request req[4];
    };
    mutable std::optional<Pending> pending_;
    void exchange_x(T* a, int nk) const;
    void exchange_y(T* a, int nk) const;
    // exchange_x and exchange_y in their parts: packing (returns the values per side),
    // unpacking.
    int pack_x(T* a, int nk) const;
    void unpack_x(T* a, int nk) const;
    int pack_y(T* a, int nk) const;
    void unpack_y(T* a, int nk) const;
    // Host arrays: the periodic wraps along x and/or y (directions not split over ranks).
    void wrap_host(std::span<T* const> arrays, int nk, bool x, bool y) const;
    void sendrecv(int n, int lo, int hi, int tag) const;
    // sendrecv in two halves: the transfers of the first 2n packed values posted, then
    // waited for (and on the device through the host, copied back).
    void post_round(Pending& p, int lo, int hi, int tag, bool host_waits) const;
    void wait_round(Pending& p) const;
    // The MPI part of sendrecv on the host buffers.
    void post(MPI_Request req[4], int n, int lo, int hi, int tag) const;
};

} // namespace squall
