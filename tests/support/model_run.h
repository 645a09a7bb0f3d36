#pragma once
// Helpers for tests that run the model: loading shipped cases and building models on a
// communicator.
#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "model/config/config.h"
#include "model/core/model.h"

namespace squall::test {

inline Config load_case(const std::string& name, std::vector<std::string> overrides = {}) {
    return load_config(std::string(SQUALL_SOURCE_DIR) + "/cases/" + name + ".yaml", overrides);
}

// The first n ranks of MPI_COMM_WORLD (collective; MPI_COMM_NULL on the others): a test
// run with more ranks compares layouts of fewer.
inline MPI_Comm first_ranks(int n) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm comm;
    MPI_Comm_split(MPI_COMM_WORLD, rank < n ? 0 : MPI_UNDEFINED, rank, &comm);
    return comm;
}

// A model on `comm` with the decomposition the config asks for (or an automatic one).
template <typename T>
struct ModelRun {
    Config cfg;
    Decomposition decomp;
    std::unique_ptr<Model<T>> model;
    // initialise = false: the caller sets the state (e.g. Model::restart).
    ModelRun(Config c, MPI_Comm comm, bool initialise = true) : cfg(std::move(c)) {
        int n = 1;
        MPI_Comm_size(comm, &n);
        const Decomp2 np = resolve_decomposition(cfg, n);
        decomp = Decomposition::make(comm, np.npx, np.npy);
        model = std::make_unique<Model<T>>(cfg, decomp);
        if (initialise) model->initialise();
    }
    ~ModelRun() {
        model.reset();
        decomp.free();
    }
};

// Interior of a field gathered on rank 0 as a global itot x jtot x ktot array (x fastest).
template <typename T>
std::vector<double> gather_global(const Field3d<T>& a, const Decomposition& dc) {
    const GridDims& d = a.dims();
    std::vector<double> local;
    local.reserve(std::size_t(d.imax) * d.jmax * d.kmax);
    for (int k = d.kstart; k < d.kend; ++k)
        for (int j = d.jstart; j < d.jend; ++j)
            for (int i = d.istart; i < d.iend; ++i) local.push_back(double(a(i, j, k)));
    std::vector<double> all(dc.rank == 0 ? local.size() * dc.nprocs : 0);
    MPI_Gather(local.data(), int(local.size()), MPI_DOUBLE, all.data(), int(local.size()),
               MPI_DOUBLE, 0, dc.comm);
    if (dc.rank != 0) return {};
    std::vector<double> global(std::size_t(d.itot) * d.jtot * d.ktot);
    for (int r = 0; r < dc.nprocs; ++r) {
        const int px = r % dc.npx, py = r / dc.npx;
        std::size_t c = std::size_t(r) * local.size();
        for (int k = 0; k < d.kmax; ++k)
            for (int j = 0; j < d.jmax; ++j)
                for (int i = 0; i < d.imax; ++i) {
                    const std::size_t gi = std::size_t(px) * d.imax + i,
                                      gj = std::size_t(py) * d.jmax + j;
                    global[gi + gj * d.itot + std::size_t(k) * d.itot * d.jtot] = all[c++];
                }
    }
    return global;
}

} // namespace squall::test
