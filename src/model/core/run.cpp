// Running a case: backend choice, decomposition, precision dispatch, model, time loop.
#include <fmt/core.h>
#include <fmt/ranges.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/core/failsafe.h"
#include "model/core/gpu_session.h"
#include "model/core/model.h"
#include "model/core/stop_signal.h"
#include "model/io/checkpoint.h"

namespace squall {

namespace {

// Resolves cfg.backend to cpu or gpu (design point 5). Returns false, after printing the
// reason on rank 0, when the choice cannot be honoured.
bool choose_backend(Config& cfg, const Decomposition& decomp, int rank) {
    if (cfg.backend == Backend::cpu) return true;
    const std::string reason = open_gpu(decomp.comm);
    // All ranks must agree: one rank without a GPU makes the whole run CPU (or fail).
    int ok = reason.empty() ? 1 : 0, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, decomp.comm);
    if (!all_ok) {
        const std::string why = reason.empty() ? "another rank has no usable GPU" : reason;
        if (cfg.backend == Backend::gpu) {
            if (rank == 0)
                fmt::print(stderr, "squall: error: backend 'gpu' requested, but {}\n", why);
            return false;
        }
        if (rank == 0)
            fmt::print("squall: backend auto: no usable GPU ({}); running on the CPU ({} OpenMP "
                       "thread(s))\n",
                       why, omp_get_max_threads());
        cfg.backend = Backend::cpu;
        return true;
    }
    // Memory check before anything is allocated on the device.
    const Grid<double> g = Grid<double>::make(cfg, decomp.npx, decomp.npy, decomp.px, decomp.py);
    const double need = double(model_device_bytes(cfg, g.d));
    const DeviceMemory mem = gpu_memory();
    int enough = (mem.total == 0 || need <= 0.95 * double(mem.free)) ? 1 : 0, all_enough = 0;
    MPI_Allreduce(&enough, &all_enough, 1, MPI_INT, MPI_MIN, decomp.comm);
    constexpr double gib = 1024.0 * 1024.0 * 1024.0;
    if (!all_enough) {
        if (rank == 0 || !enough)
            fmt::print(stderr,
                       "squall: error: case needs {:.2f} GiB on the GPU, only {:.2f} GiB free{}\n",
                       need / gib, double(mem.free) / gib, enough ? " on another rank" : "");
        return false;
    }
    if (rank == 0) {
        const auto& dev = gpu_runtime().device();
        fmt::print("squall: backend {}: running on the GPU ({}, {}); case needs {:.2f} GiB of "
                   "{:.2f} GiB free\n",
                   cfg.backend == Backend::gpu ? "gpu" : "auto", dev.name, dev.arch(), need / gib,
                   double(mem.free) / gib);
    }
    cfg.backend = Backend::gpu;
    return true;
}

// The end of a run says what it wrote and how to look at it: the case's files in
// output.dir (statistics, cross-sections, 3-D fields, checkpoints) and the plot command.
void print_written_files(const Config& cfg) {
    namespace fs = std::filesystem;
    const std::vector<std::string> checkpoints = io::list_checkpoints(cfg.output_dir, cfg.name);
    std::vector<std::string> files;
    long field_files = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(cfg.output_dir, ec)) {
        const std::string n = e.path().filename().string();
        const bool of_case = n.rfind(cfg.name + ".", 0) == 0 && e.path().extension() == ".h5";
        if (n.rfind(cfg.name + ".fields.", 0) == 0)
            ++field_files;
        else if ((of_case || n == cfg.stats_file) &&
                 std::find(checkpoints.begin(), checkpoints.end(), e.path().string()) ==
                     checkpoints.end())
            files.push_back(n);
    }
    std::sort(files.begin(), files.end());
    if (field_files)
        files.push_back(fmt::format("{} 3-D field file(s) {}.fields.*.h5", field_files, cfg.name));
    if (!checkpoints.empty())
        files.push_back(fmt::format("{} checkpoint(s) {}.chk.*.h5", checkpoints.size(), cfg.name));
    if (files.empty()) return;
    fmt::print("squall: wrote in {}: {}\n", cfg.output_dir, fmt::join(files, ", "));
    const fs::path stats = fs::path(cfg.output_dir) / cfg.stats_file;
    if (cfg.stats_every > 0 && fs::exists(stats, ec))
        fmt::print("squall: plot with: scripts/plot profiles {} -o {}_profiles.png "
                   "(scripts/plot --help: time series, cross-sections)\n",
                   stats.string(), cfg.name);
}

template <typename T>
int run_typed(const Config& cfg, const Decomposition& decomp) {
    int code = 0;
    const bool gpu = cfg.backend == Backend::gpu;
    if (gpu) gpu_dispatch(true);
    try {
        Model<T> model(cfg, decomp);
        if (gpu) {
            const auto t0 = std::chrono::steady_clock::now();
            const std::size_t n = model.precompile();
            const double s =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            if (decomp.rank == 0)
                fmt::print("squall: compiled {} GPU kernel variant(s) in parallel in {:.2f} s\n", n,
                           s);
        }
        if (cfg.restart.empty())
            model.initialise();
        else // "latest": the newest checkpoint of this case in output.dir
            model.restart(cfg.restart == "latest" ? io::latest_checkpoint(cfg.output_dir, cfg.name)
                                                  : cfg.restart);
        install_stop_handlers();
        model.run();
        remove_stop_handlers();
        code = model.exit_code();
        if (decomp.rank == 0) print_written_files(cfg);
    } catch (...) {
        remove_stop_handlers();
        if (gpu) gpu_dispatch(false);
        throw;
    }
    if (gpu) gpu_dispatch(false);
    return code;
}

} // namespace

int run_case(const Config& cfg_in) {
    Config cfg = cfg_in;
    int nprocs = 1, rank = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const Decomp2 np = resolve_decomposition(cfg, nprocs);
    Decomposition decomp = Decomposition::make(MPI_COMM_WORLD, np.npx, np.npy);
    // Refusals that would otherwise come after hours, or as a bare std::bad_alloc. The
    // output directory is created, and --overwrite removes earlier checkpoints, only after
    // the GPU and memory checks: a run refused by those leaves no trace.
    check_output_dir(cfg, decomp.comm);
    if (!choose_backend(cfg, decomp, rank)) {
        decomp.free();
        return 1;
    }
    check_host_memory(cfg, Grid<double>::make(cfg, np.npx, np.npy, decomp.px, decomp.py).d,
                      decomp.comm);
    prepare_output_dir(cfg, decomp.comm);
    if (rank == 0) {
        fmt::print("squall: case '{}' on {} rank(s) as {} x {}, precision {}, backend {}\n",
                   cfg.name, nprocs, np.npx, np.npy,
                   cfg.precision == Precision::single ? "float" : "double",
                   cfg.backend == Backend::gpu ? "gpu" : "cpu");
        if (nprocs > 1) {
            if (const std::string why = explain_decomposition(cfg, nprocs, np); !why.empty())
                fmt::print("squall: {}\n", why);
        }
        fmt::print("--- resolved configuration ---\n{}\n------------------------------\n",
                   cfg.resolved_yaml);
    }
    const int code = cfg.precision == Precision::single ? run_typed<float>(cfg, decomp)
                                                        : run_typed<double>(cfg, decomp);
    decomp.free();
    return code;
}

} // namespace squall
