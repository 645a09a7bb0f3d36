#include "model/core/halo.h"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <exception>
#include <iterator>

#include "backends/cpu/cpu_profile.h"
#include "backends/launch.h"
#include "kernels/halo.cuh"
#include "model/comm/comm_time.h"
#include "runtime/log.h"

namespace squall {

template <typename T>
Halo<T>::Halo(const GridDims& d, const Decomposition& decomp, bool on_device)
    : d_(d), decomp_(&decomp), on_device_(on_device) {
    std::size_t n = 0;
    if (decomp.npx > 1) n = std::size_t(igc) * d.jmax * d.kcells;
    if (decomp.npy > 1) n = std::max(n, std::size_t(jgc) * d.icells * d.kcells);
    if (n > 0) {
        send_.assign(2 * n, T(0), on_device);
        recv_.assign(2 * n, T(0), on_device);
        // The kernels run on the legacy default stream, the transfers on one of their own.
        // Kept only when it moves the blocks device to device (else staged through MPI).
        if (on_device)
            direct_ = std::make_unique<DeviceExchange>(decomp.comm, recv_.device(),
                                                       DeviceExchange::OwnStream{});
        if (direct_ && !direct_->direct()) direct_.reset();
    }
}

template <typename T>
Halo<T>::~Halo() {
    if (!pending_) return;
    if (std::uncaught_exceptions() == 0) {
        try {
            finish();
        } catch (const std::exception& e) { // a destructor must not throw
            rt::log_error("halo exchange pending at the end: {}", e.what());
        }
        return;
    }
    // Unwinding (the run is failing): the peers may never send, so the receives are
    // cancelled rather than waited for, before their buffers go.
    if (direct_) {
        direct_->abandon();
        return;
    }
    for (int r = 0; r < 2; ++r) MPI_Cancel(&pending_->req[r]);
    MPI_Waitall(2, pending_->req, MPI_STATUSES_IGNORE);
    for (int r = 2; r < 4; ++r) MPI_Request_free(&pending_->req[r]);
}

template <typename T>
void Halo<T>::start(T* a, int nk) const {
    finish();
    const bool x_local = decomp_->npx == 1, y_local = decomp_->npy == 1;
    if (x_local && y_local) {
        exchange(a, nk);
        return;
    }
    Pending p{a, nk, !x_local, 0, {}};
    // On the device the transfers need not wait for the packing on the host where they
    // wait for it on the device (NCCL on the exchange's stream).
    const bool host_waits = on_device_ && !(direct_ && direct_->transport() == GpuTransport::nccl);
    if (p.x) {
        p.n = pack_x(a, nk);
        post_round(p, decomp_->west, decomp_->east, 1, host_waits);
    } else { // x is local: its wrap first, as in exchange()
        if (on_device_)
            exchange_x(a, nk);
        else
            wrap_host(std::span<T* const>(&a, 1), nk, true, false);
        p.n = pack_y(a, nk);
        post_round(p, decomp_->south, decomp_->north, 3, host_waits);
    }
    pending_ = p;
}

template <typename T>
void Halo<T>::finish() const {
    if (!pending_) return;
    Pending p = *pending_;
    pending_.reset();
    wait_round(p);
    if (!p.x) {
        unpack_y(p.a, p.nk);
        return;
    }
    unpack_x(p.a, p.nk);
    if (decomp_->npy == 1 && !on_device_)
        wrap_host(std::span<T* const>(&p.a, 1), p.nk, false, true);
    else
        exchange_y(p.a, p.nk);
}

template <typename T>
void Halo<T>::exchange(std::span<T* const> arrays, int nk) const {
    finish();
    const bool x_local = decomp_->npx == 1, y_local = decomp_->npy == 1;
    if (on_device_) { // the kernels of kernels/halo.cuh, on the device
        for (T* a : arrays) {
            exchange_x(a, nk);
            exchange_y(a, nk);
        }
        return;
    }
    // The y pass copies the x ghosts of interior rows, so x goes first for every array.
    if (!x_local)
        for (T* a : arrays) exchange_x(a, nk);
    if (x_local || y_local) wrap_host(arrays, nk, x_local, y_local);
    if (!y_local)
        for (T* a : arrays) exchange_y(a, nk);
}

// The copies of HaloWrapX and HaloWrapY (same sources, found the same modular way, so the
// ghost cells get the same values), as plain loops over the levels of all arrays: per
// level the x ghosts of the interior rows, then the y ghost rows over the full width.
// HaloWrapX as a per-point kernel computes its integer remainders per copy; here the
// sources are found once and each level is one task.
template <typename T>
void Halo<T>::wrap_host(std::span<T* const> arrays, int nk, bool x, bool y) const {
    const auto t0 = std::chrono::steady_clock::now();
    const GridDims& d = d_;
    int src_w[igc], src_e[igc], src_s[jgc], src_n[jgc]; // for ghost layer g = 1.. at [g-1]
    for (int g = 1; g <= igc; ++g) {
        src_w[g - 1] = d.istart + (d.imax - g % d.imax) % d.imax;
        src_e[g - 1] = d.istart + (g - 1) % d.imax;
    }
    for (int g = 1; g <= jgc; ++g) {
        src_s[g - 1] = d.jstart + (d.jmax - g % d.jmax) % d.jmax;
        src_n[g - 1] = d.jstart + (g - 1) % d.jmax;
    }
    T* const* a = std::data(arrays);
    const int na = int(arrays.size());
#pragma omp parallel for collapse(2) schedule(static)
    for (int n = 0; n < na; ++n)
        for (int k = 0; k < nk; ++k) {
            T* level = a[n] + std::ptrdiff_t(k) * d.kk;
            if (x)
                for (int j = d.jstart; j < d.jend; ++j) {
                    T* row = level + std::ptrdiff_t(j) * d.jj;
                    for (int g = 1; g <= igc; ++g) {
                        row[d.istart - g] = row[src_w[g - 1]];
                        row[d.iend - 1 + g] = row[src_e[g - 1]];
                    }
                }
            if (y)
                for (int g = 1; g <= jgc; ++g) {
                    std::copy_n(level + std::ptrdiff_t(src_s[g - 1]) * d.jj, d.icells,
                                level + std::ptrdiff_t(d.jstart - g) * d.jj);
                    std::copy_n(level + std::ptrdiff_t(src_n[g - 1]) * d.jj, d.icells,
                                level + std::ptrdiff_t(d.jend - 1 + g) * d.jj);
                }
        }
    if (cpu::profiling()) // as the kernels it replaces would be: by name and size
        cpu::record_launch(
            "halo_wrap_host", sq::Range3{0, d.icells, 0, d.jcells, 0, na * nk},
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

// Exchanges the first 2n values of the packed buffers: the low half goes to rank `lo`
// (west/south) and the high half to `hi`; the receive buffer's low half comes from lo.
template <typename T>
void Halo<T>::sendrecv(int n, int lo, int hi, int tag) const {
    Pending p{nullptr, 0, false, n, {}};
    post_round(p, lo, hi, tag, on_device_);
    wait_round(p);
}

template <typename T>
void Halo<T>::post_round(Pending& p, int lo, int hi, int tag, bool host_waits) const {
    // Every path below waits for the packing first; waiting here keeps the kernels out of
    // the transfers' time.
    if (host_waits) rt::Driver::get().synchronize();
    const CommTime::Scope timed(CommKind::halo);
    const int n = p.n;
    if (direct_) {
        // My low half lands in lo's high half (I am its hi neighbour) and vice versa.
        // Blocks between two ranks pair up in order, so with lo == hi (two ranks along
        // the direction) the high half goes first, matching the receiver's low half.
        const rt::DevicePtr send = send_.device();
        const std::size_t bytes = sizeof(T) * std::size_t(n);
        direct_->begin();
        direct_->put(hi, send + bytes, 0, bytes);
        direct_->put(lo, send, bytes, bytes);
        direct_->get(lo, 0, bytes);
        direct_->get(hi, bytes, bytes);
        direct_->flush();
        return;
    }
    if (on_device_) send_.copy_to_host(send_.host(), 2 * std::size_t(n));
    post(p.req, n, lo, hi, tag);
}

template <typename T>
void Halo<T>::wait_round(Pending& p) const {
    const CommTime::Scope timed(CommKind::halo); // the wait the overlap did not hide
    if (direct_) {
        direct_->end();
        return;
    }
    MPI_Waitall(4, p.req, MPI_STATUSES_IGNORE);
    if (on_device_) recv_.to_device(2 * std::size_t(p.n));
}

// Receives first (req[0], req[1]: from lo and hi), then sends (req[2], req[3]).
template <typename T>
void Halo<T>::post(MPI_Request req[4], int n, int lo, int hi, int tag) const {
    T* s = send_.host();
    T* r = recv_.host();
    MPI_Irecv(r, n, mpi_type<T>(), lo, tag, decomp_->comm, &req[0]);
    MPI_Irecv(r + n, n, mpi_type<T>(), hi, tag + 1, decomp_->comm, &req[1]);
    MPI_Isend(s + n, n, mpi_type<T>(), hi, tag, decomp_->comm, &req[2]);
    MPI_Isend(s, n, mpi_type<T>(), lo, tag + 1, decomp_->comm, &req[3]);
}

template <typename T>
void Halo<T>::exchange_x(T* a, int nk) const {
    const GridDims& d = d_;
    if (decomp_->npx == 1) {
        launch(sq::halo_x_range(d.jstart, d.jend, nk, igc), sq::HaloWrapX<T>{.a = a,
                                                                             .istart = d.istart,
                                                                             .iend = d.iend,
                                                                             .imax = d.imax,
                                                                             .igc = igc,
                                                                             .jj = d.jj,
                                                                             .kk = d.kk});
        return;
    }
    sendrecv(pack_x(a, nk), decomp_->west, decomp_->east, 1);
    unpack_x(a, nk);
}

// My west interior columns go to the west neighbour, my east ones to the east.
template <typename T>
int Halo<T>::pack_x(T* a, int nk) const {
    const GridDims& d = d_;
    const int n = igc * d.jmax * nk;
    launch(sq::halo_x_range(d.jstart, d.jend, nk, igc), sq::HaloPackX<T>{.send_w = send_.data(),
                                                                         .send_e = send_.data() + n,
                                                                         .a = a,
                                                                         .istart = d.istart,
                                                                         .iend = d.iend,
                                                                         .jstart = d.jstart,
                                                                         .jmax = d.jmax,
                                                                         .igc = igc,
                                                                         .jj = d.jj,
                                                                         .kk = d.kk});
    return n;
}

template <typename T>
void Halo<T>::unpack_x(T* a, int nk) const {
    const GridDims& d = d_;
    const int n = igc * d.jmax * nk;
    launch(sq::halo_x_range(d.jstart, d.jend, nk, igc),
           sq::HaloUnpackX<T>{.a = a,
                              .recv_w = recv_.data(),
                              .recv_e = recv_.data() + n,
                              .istart = d.istart,
                              .iend = d.iend,
                              .jstart = d.jstart,
                              .jmax = d.jmax,
                              .igc = igc,
                              .jj = d.jj,
                              .kk = d.kk});
}

template <typename T>
void Halo<T>::exchange_y(T* a, int nk) const {
    const GridDims& d = d_;
    if (decomp_->npy == 1) {
        launch(sq::Range3{0, d.icells, 0, jgc, 0, nk}, sq::HaloWrapY<T>{.a = a,
                                                                        .jstart = d.jstart,
                                                                        .jend = d.jend,
                                                                        .jmax = d.jmax,
                                                                        .jj = d.jj,
                                                                        .kk = d.kk});
        return;
    }
    sendrecv(pack_y(a, nk), decomp_->south, decomp_->north, 3);
    unpack_y(a, nk);
}

// Whole rows, without their alignment padding.
template <typename T>
int Halo<T>::pack_y(T* a, int nk) const {
    const GridDims& d = d_;
    const int n = jgc * d.icells * nk;
    launch(sq::Range3{0, d.icells, 0, jgc, 0, nk}, sq::HaloPackY<T>{.send_s = send_.data(),
                                                                    .send_n = send_.data() + n,
                                                                    .a = a,
                                                                    .jstart = d.jstart,
                                                                    .jend = d.jend,
                                                                    .jgc = jgc,
                                                                    .icells = d.icells,
                                                                    .jj = d.jj,
                                                                    .kk = d.kk});
    return n;
}

template <typename T>
void Halo<T>::unpack_y(T* a, int nk) const {
    const GridDims& d = d_;
    const int n = jgc * d.icells * nk;
    launch(sq::Range3{0, d.icells, 0, jgc, 0, nk}, sq::HaloUnpackY<T>{.a = a,
                                                                      .recv_s = recv_.data(),
                                                                      .recv_n = recv_.data() + n,
                                                                      .jstart = d.jstart,
                                                                      .jend = d.jend,
                                                                      .jgc = jgc,
                                                                      .icells = d.icells,
                                                                      .jj = d.jj,
                                                                      .kk = d.kk});
}

template class Halo<float>;
template class Halo<double>;

} // namespace squall
