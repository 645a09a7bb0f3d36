// Running a case: decomposition, precision dispatch, model, time loop.
#include <fmt/core.h>

#include "model/core/model.h"

namespace squall {

namespace {
template <typename T>
void run_typed(const Config& cfg, const Decomposition& decomp) {
    Model<T> model(cfg, decomp);
    model.initialise();
    model.run();
}
} // namespace

int run_case(const Config& cfg) {
    int nprocs = 1, rank = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const Decomp2 np = resolve_decomposition(cfg, nprocs);
    Decomposition decomp = Decomposition::make(MPI_COMM_WORLD, np.npx, np.npy);
    if (rank == 0) {
        fmt::print("squall: case '{}' on {} rank(s) as {} x {}, precision {}\n", cfg.name, nprocs,
                   np.npx, np.npy, cfg.precision == Precision::single ? "float" : "double");
        fmt::print("--- resolved configuration ---\n{}\n------------------------------\n",
                   cfg.resolved_yaml);
    }
    if (cfg.precision == Precision::single)
        run_typed<float>(cfg, decomp);
    else
        run_typed<double>(cfg, decomp);
    decomp.free();
    return 0;
}

} // namespace squall
