#pragma once
// Periodic ghost-cell exchange in x and y, through MPI when the direction is split over
// ranks and as a local copy when it is not. The y pass includes the x ghost columns so the
// corners are filled too. Packing, unpacking and the local wrap are kernels
// (kernels/halo.cuh) launched on the active backend. With on_device (one rank per GPU)
// the packed buffers go device to device (DeviceExchange: NCCL or CUDA IPC), else through
// the host for MPI.
#include <initializer_list>
#include <memory>

#include "model/comm/device_exchange.h"
#include "model/decomp.h"
#include "model/field.h"
#include "model/grid.h"

namespace squall {

template <typename T>
class Halo {
public:
    Halo(const GridDims& d, const Decomposition& decomp, bool on_device = false);
    // Exchange all ghost cells of a 3-D array with nk <= kcells levels (kcells for fields).
    // `a` is the pointer kernels use (device memory when on_device).
    void exchange(T* a, int nk) const { exchange({a}, nk); }
    // The same for several arrays at once: on the host, the local wraps of all of them are
    // one parallel pass of row copies (wrap_host), and the arrays' results are the same
    // copies as one at a time.
    void exchange(std::initializer_list<T*> arrays, int nk) const;
    // Exchange the ghost cells of a 2-D (icells x jcells) array.
    void exchange_2d(T* a) const { exchange(a, 1); }

private:
    GridDims d_;
    const Decomposition* decomp_;
    bool on_device_;
    // Send and receive buffers: two directions each, sized for kcells levels. The kernels
    // write the device ones when on_device; MPI always uses the host copies.
    mutable DeviceArray<T> send_, recv_;
    std::unique_ptr<DeviceExchange> direct_; // device to device (when direct()); after recv_
    void exchange_x(T* a, int nk) const;
    void exchange_y(T* a, int nk) const;
    // Host arrays: the periodic wraps along x and/or y (directions not split over ranks).
    void wrap_host(std::initializer_list<T*> arrays, int nk, bool x, bool y) const;
    void sendrecv(int n, int lo, int hi, int tag) const;
};

} // namespace squall
