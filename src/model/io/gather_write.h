#pragma once
// Files of global 3-D arrays written with the serial HDF5 library (checkpoints, 3-D fields):
// rank 0 writes "<path>.tmp.<pid>", the other ranks send their blocks one at a time, each
// written as a hyperslab at once, and the file is renamed to path only when complete.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/decomp.h"
#include "model/field.h"
#include "model/io/h5.h"

namespace squall::io::gather {

// A rank's block of the global interior: offsets and sizes in x and y (all levels).
struct Block {
    int ioff, joff, imax, jmax;
};

// Runs each step unless an earlier one failed; an h5::Error becomes the message in `error`
// (the first failed step), so that rank 0 goes on receiving after a failure.
class Steps {
public:
    explicit Steps(std::string& error) : error_(error) {}
    template <typename F>
    void operator()(F&& action) {
        if (!error_.empty()) return;
        try {
            action();
        } catch (const h5::Error& e) {
            error_ = e.what();
        }
    }
    bool failed() const { return !error_.empty(); }

private:
    std::string& error_;
};

// Rank 0 receives the blocks of one dataset from the other ranks: write_root(tmp, blocks,
// error) builds the file, then it is renamed to path (on_renamed() runs after that; the
// temporary file is removed after a failure); the other ranks run send(). Collective over
// dc.comm: returns the first failure's message on every rank, empty when written.
std::string
write_file(const std::string& path, const GridDims& mine, const Decomposition& dc,
           const std::function<void(const std::string&, const std::vector<Block>&, std::string&)>&
               write_root,
           const std::function<void()>& send, const std::function<void()>& on_renamed = {});

// Rank 0: one dataset of shape ([1,] nk, jtot, itot) (`lead` leading unit dimensions: 0 or 1),
// block by block in rank order; pack_own() fills buf with rank 0's block. Every block is
// received even after a failure, so that no sender waits forever.
template <typename O, typename PackOwn>
void write_blocks(Steps& step, std::optional<h5::Id>& ds, const std::optional<h5::Id>& space,
                  int lead, int nk, const std::string& name, const std::vector<Block>& blocks,
                  const Decomposition& dc, std::vector<O>& buf, PackOwn&& pack_own) {
    for (int r = 0; r < dc.nprocs; ++r) {
        const Block& b = blocks[r];
        if (r == 0) {
            if (!step.failed()) pack_own();
        } else {
            buf.resize(std::size_t(b.imax) * b.jmax * nk);
            MPI_Recv(buf.data(), int(buf.size()), mpi_type<O>(), r, 0, dc.comm, MPI_STATUS_IGNORE);
        }
        step([&] {
            const hsize_t start[4] = {0, 0, hsize_t(b.joff), hsize_t(b.ioff)};
            const hsize_t count[4] = {1, hsize_t(nk), hsize_t(b.jmax), hsize_t(b.imax)};
            const int rank = 3 + lead;
            h5::Id mspace(H5Screate_simple(rank, count + 1 - lead, nullptr), H5Sclose,
                          "memory space");
            h5::check(H5Sselect_hyperslab(*space, H5S_SELECT_SET, start + 1 - lead, nullptr,
                                          count + 1 - lead, nullptr),
                      name + " block");
            h5::check(H5Dwrite(*ds, h5::mem_type<O>(), mspace, *space, H5P_DEFAULT, buf.data()),
                      "writing " + name);
        });
    }
    step([&] { ds->close("closing " + name); });
}

} // namespace squall::io::gather
