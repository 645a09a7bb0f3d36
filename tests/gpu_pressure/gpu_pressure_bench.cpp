// Timing of the GPU pressure solver: ms per solve (median of 20 after 3 warm-up solves,
// CUDA events around each) for 256^3 and 512^3 in float and double on a unit cube.
// Usage: [mpirun -n P] gpu_pressure_bench [--quick] [--json FILE]   (--quick: 128^3, 256^3)
// With P ranks the domain is split 1 x P (pencil solve, one GPU per rank on a node); each
// solve starts after a barrier and its time is the slowest rank's.
// Repeated solves reuse the previous solution as the right-hand side; on a unit cube its
// magnitude shrinks slowly, so nothing overflows and the work per solve is unchanged.
#include <mpi.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "model/decomp.h"
#include "model/pressure/pressure_gpu.h"

using namespace squall;

namespace {

template <typename T>
nlohmann::json bench(rt::Runtime& runtime, int n, int repeats, int nprocs, int rank) {
    Config cfg;
    cfg.grid.itot = cfg.grid.jtot = cfg.grid.ktot = n;
    cfg.grid.xsize = cfg.grid.ysize = cfg.grid.zsize = 1.0;
    Decomposition decomp = Decomposition::make(MPI_COMM_WORLD, 1, nprocs);
    const Grid<T> grid = Grid<T>::make(cfg, 1, nprocs, decomp.px, decomp.py);
    const GridDims& d = grid.d;
    std::vector<T> host(std::size_t(d.ncells));
    for (std::size_t m = 0; m < host.size(); ++m)
        host[m] = T(std::sin(0.37 * double(m % 1000003)) + 0.1);
    rt::DeviceBuffer dev(sizeof(T) * host.size());
    dev.upload(host.data());
    std::vector<float> ms;
    {
        PressureSolverGpu<T> solver(grid, decomp, runtime);
        T* p = reinterpret_cast<T*>(dev.get());
        const rt::Driver& drv = rt::Driver::get();
        void* start = drv.event_create();
        void* stop = drv.event_create();
        for (int w = 0; w < 3; ++w) solver.solve(p);
        drv.synchronize();
        for (int r = 0; r < repeats; ++r) {
            MPI_Barrier(MPI_COMM_WORLD);
            drv.event_record(start, nullptr);
            solver.solve(p);
            drv.event_record(stop, nullptr);
            drv.event_synchronize(stop);
            float t = drv.event_elapsed_ms(start, stop);
            MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD);
            ms.push_back(t);
        }
        drv.event_destroy(start);
        drv.event_destroy(stop);
    }
    decomp.free();
    std::vector<float> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted[sorted.size() / 2];
    // Minimal traffic: field read + write, FFT input and output twice, two Thomas passes
    // over the complex data and the scratch. A yardstick, not a model of cuFFT.
    const double cells = double(n) * n * n;
    const double bytes = sizeof(T) * cells * (2 + 4 + 4 * 2 + 2);
    const char* prec = sizeof(T) == 8 ? "double" : "float";
    if (rank == 0)
        std::printf(
            "gpu_pressure %4d^3 %-6s %d rank(s)  median %8.3f ms  min %8.3f ms  (~%.0f GB/s "
            "moved in all)\n",
            n, prec, nprocs, median, double(sorted.front()), bytes / (median * 1e-3) / 1e9);
    return {{"size", {n, n, n}},   {"ranks", nprocs},          {"precision", prec},
            {"ms_median", median}, {"ms_min", sorted.front()}, {"ms_all", ms}};
}

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int nprocs = 1, rank = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    bool quick = false;
    std::string json_path;
    for (int a = 1; a < argc; ++a) {
        if (!std::strcmp(argv[a], "--quick"))
            quick = true;
        else if (!std::strcmp(argv[a], "--json") && a + 1 < argc)
            json_path = argv[++a];
    }
    int rc = 0;
    {
        // One GPU per rank on a node, as the model does.
        MPI_Comm node;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        int local = 0;
        MPI_Comm_rank(node, &local);
        MPI_Comm_free(&node);
        rt::RuntimeOptions opt;
        const int count = rt::Driver::get().available() ? rt::Driver::get().device_count() : 0;
        opt.device = count > 0 ? local % count : 0;
        rt::Runtime runtime(opt);
        if (!runtime.has_device()) {
            std::fprintf(stderr, "gpu_pressure_bench: %s\n", runtime.no_device_reason().c_str());
            MPI_Finalize();
            return 1;
        }
        nlohmann::json out = {{"benchmark", "gpu_pressure"},
                              {"device", runtime.device().name},
                              {"results", nlohmann::json::array()}};
        const std::vector<int> sizes =
            quick ? std::vector<int>{128, 256} : std::vector<int>{256, 512};
        try {
            for (int n : sizes) {
                out["results"].push_back(bench<float>(runtime, n, 20, nprocs, rank));
                out["results"].push_back(bench<double>(runtime, n, 20, nprocs, rank));
            }
        } catch (const std::exception& e) {
            std::fprintf(stderr, "gpu_pressure_bench: %s\n", e.what());
            rc = 1;
        }
        if (!json_path.empty() && rank == 0) std::ofstream(json_path) << out.dump(1) << "\n";
    }
    MPI_Finalize();
    return rc;
}
