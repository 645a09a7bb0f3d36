#include "model/core/halo.h"

#include <cstring>

namespace squall {

template <typename T>
Halo<T>::Halo(const GridDims& d, const Decomposition& decomp) : d_(d), decomp_(&decomp) {}

template <typename T>
void Halo<T>::exchange(T* a, int nk) const {
    exchange_x(a, nk);
    exchange_y(a, nk);
}

template <typename T>
void Halo<T>::exchange_x(T* a, int nk) const {
    const GridDims& d = d_;
    const int jj = d.jj, kk = d.kk;
    if (decomp_->npx == 1) {
        // Periodic wrap within the rank. Modular indexing also covers imax < igc.
        for (int k = 0; k < nk; ++k)
            for (int j = d.jstart; j < d.jend; ++j) {
                T* row = a + j * jj + k * kk;
                for (int g = 1; g <= igc; ++g) {
                    row[d.istart - g] = row[d.istart + ((d.imax - g % d.imax) % d.imax)];
                    row[d.iend - 1 + g] = row[d.istart + (g - 1) % d.imax];
                }
            }
        return;
    }
    const int n = igc * d.jmax * nk;
    send_.resize(2 * n);
    recv_.resize(2 * n);
    T* send_w = send_.data();
    T* send_e = send_.data() + n;
    auto pack = [&](T* buf, int i0) {
        int c = 0;
        for (int k = 0; k < nk; ++k)
            for (int j = d.jstart; j < d.jend; ++j)
                for (int i = i0; i < i0 + igc; ++i) buf[c++] = a[i + j * jj + k * kk];
    };
    auto unpack = [&](const T* buf, int i0) {
        int c = 0;
        for (int k = 0; k < nk; ++k)
            for (int j = d.jstart; j < d.jend; ++j)
                for (int i = i0; i < i0 + igc; ++i) a[i + j * jj + k * kk] = buf[c++];
    };
    pack(send_w, d.istart);     // my west interior columns go to the west neighbour
    pack(send_e, d.iend - igc); // my east interior columns go to the east neighbour
    MPI_Request req[4];
    MPI_Irecv(recv_.data(), n, mpi_type<T>(), decomp_->west, 1, decomp_->comm, &req[0]);
    MPI_Irecv(recv_.data() + n, n, mpi_type<T>(), decomp_->east, 2, decomp_->comm, &req[1]);
    MPI_Isend(send_e, n, mpi_type<T>(), decomp_->east, 1, decomp_->comm, &req[2]);
    MPI_Isend(send_w, n, mpi_type<T>(), decomp_->west, 2, decomp_->comm, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    unpack(recv_.data(), d.istart - igc);
    unpack(recv_.data() + n, d.iend);
}

template <typename T>
void Halo<T>::exchange_y(T* a, int nk) const {
    const GridDims& d = d_;
    const int jj = d.jj, kk = d.kk, ic = d.icells;
    if (decomp_->npy == 1) {
        for (int k = 0; k < nk; ++k)
            for (int g = 1; g <= jgc; ++g) {
                const int src_s = d.jstart + ((d.jmax - g % d.jmax) % d.jmax);
                const int src_n = d.jstart + (g - 1) % d.jmax;
                std::memcpy(a + (d.jstart - g) * jj + k * kk, a + src_s * jj + k * kk,
                            ic * sizeof(T));
                std::memcpy(a + (d.jend - 1 + g) * jj + k * kk, a + src_n * jj + k * kk,
                            ic * sizeof(T));
            }
        return;
    }
    const int n = jgc * ic * nk;
    send_.resize(2 * n);
    recv_.resize(2 * n);
    T* send_s = send_.data();
    T* send_n = send_.data() + n;
    auto pack = [&](T* buf, int j0) {
        for (int k = 0; k < nk; ++k)
            for (int j = 0; j < jgc; ++j)
                std::memcpy(buf + (k * jgc + j) * ic, a + (j0 + j) * jj + k * kk, ic * sizeof(T));
    };
    auto unpack = [&](const T* buf, int j0) {
        for (int k = 0; k < nk; ++k)
            for (int j = 0; j < jgc; ++j)
                std::memcpy(a + (j0 + j) * jj + k * kk, buf + (k * jgc + j) * ic, ic * sizeof(T));
    };
    pack(send_s, d.jstart);
    pack(send_n, d.jend - jgc);
    MPI_Request req[4];
    MPI_Irecv(recv_.data(), n, mpi_type<T>(), decomp_->south, 3, decomp_->comm, &req[0]);
    MPI_Irecv(recv_.data() + n, n, mpi_type<T>(), decomp_->north, 4, decomp_->comm, &req[1]);
    MPI_Isend(send_n, n, mpi_type<T>(), decomp_->north, 3, decomp_->comm, &req[2]);
    MPI_Isend(send_s, n, mpi_type<T>(), decomp_->south, 4, decomp_->comm, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    unpack(recv_.data(), d.jstart - jgc);
    unpack(recv_.data() + n, d.jend);
}

template class Halo<float>;
template class Halo<double>;

} // namespace squall
