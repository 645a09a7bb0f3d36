// Timing of the GPU pressure solver: ms per solve (median of 20 after 3 warm-up solves,
// CUDA events around each) for 256^3 and 512^3 in float and double on a unit cube.
// Usage: [mpirun -n P] gpu_pressure_bench [--quick] [--json FILE]   (--quick: 128^3, 256^3)
//        gpu_pressure_bench --tune DIR [--sizes 512,48x48x48,...]
// With P ranks the domain is split 1 x P (pencil solve, one GPU per rank on a node); each
// solve starts after a barrier and its time is the slowest rank's.
// --tune searches the solve's kernels (one rank: thomas and the bottom mirror; several ranks, 1 x
// P: the pencil kernels) and appends the best configuration of each to DIR as wisdom (tune());
// --samples N (default 48): the configurations tried per kernel, sampled from the GPU
// backend's space (the same on every rank), besides the default.
// Repeated solves reuse the previous solution as the right-hand side; on a unit cube its
// magnitude shrinks slowly, so nothing overflows and the work per solve is unchanged.
#include <mpi.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

#include "backends/cuda/gpu_launch.h"
#include "bench/bench_sizes.h"
#include "model/decomp.h"
#include "model/pressure/pressure_gpu.h"

using namespace squall;

namespace {

template <typename T>
Grid<T> unit_grid(int nx, int ny, int nz, const Decomposition& decomp, int nprocs) {
    Config cfg;
    cfg.grid.itot = nx, cfg.grid.jtot = ny, cfg.grid.ktot = nz;
    cfg.grid.xsize = cfg.grid.ysize = cfg.grid.zsize = 1.0;
    return Grid<T>::make(cfg, 1, nprocs, decomp.px, decomp.py);
}

// Times `repeats` solves (after 3 warm-up solves, which also compile the kernels) of a
// fixed non-zero right-hand side, on the active GPU backend.
template <typename T>
std::vector<float> time_solves(const Grid<T>& grid, const Decomposition& decomp, int repeats) {
    const GridDims& d = grid.d;
    // The model's layout: the leading pad before ijk = 0 (grid.h).
    std::vector<T> host(std::size_t(d.pad + d.ncells));
    for (std::size_t m = 0; m < host.size(); ++m)
        host[m] = T(std::sin(0.37 * double(m % 1000003)) + 0.1);
    rt::DeviceBuffer dev(sizeof(T) * host.size());
    dev.upload(host.data());
    std::vector<float> ms;
    PressureSolverGpu<T> solver(grid, decomp);
    T* p = reinterpret_cast<T*>(dev.get()) + d.pad;
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
    return ms;
}

double median(std::vector<float> v) {
    std::nth_element(v.begin(), v.begin() + long(v.size() / 2), v.end());
    return v[v.size() / 2];
}

template <typename T>
nlohmann::json bench(int n, int repeats, int nprocs, int rank) {
    Decomposition decomp = Decomposition::make(MPI_COMM_WORLD, 1, nprocs);
    const std::vector<float> ms =
        time_solves(unit_grid<T>(n, n, n, decomp, nprocs), decomp, repeats);
    decomp.free();
    std::vector<float> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    const double med = median(ms);
    // Minimal traffic: field read + write, FFT input and output twice, two Thomas passes
    // over the complex data and the scratch. A yardstick, not a model of cuFFT.
    const double cells = double(n) * n * n;
    const double bytes = sizeof(T) * cells * (2 + 4 + 4 * 2 + 2);
    const char* prec = sizeof(T) == 8 ? "double" : "float";
    if (rank == 0)
        std::printf(
            "gpu_pressure %4d^3 %-6s %d rank(s)  median %8.3f ms  min %8.3f ms  (~%.0f GB/s "
            "moved in all)\n",
            n, prec, nprocs, med, double(sorted.front()), bytes / (med * 1e-3) / 1e9);
    return {{"size", {n, n, n}}, {"ranks", nprocs},          {"precision", prec},
            {"ms_median", med},  {"ms_min", sorted.front()}, {"ms_all", ms}};
}

// True on every rank when `v` is the same on all ranks (collective: every rank gets the
// same answer, so a failed check throws everywhere instead of leaving ranks waiting).
bool same_on_all_ranks(const std::vector<int>& v) {
    std::vector<int> lo = v, hi = v;
    MPI_Allreduce(MPI_IN_PLACE, lo.data(), int(v.size()), MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, hi.data(), int(v.size()), MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi;
}

// The tunable space of each of the solver's kernels by tuning key (the same for every
// range of a kernel), from the GPU backend's definitions; per-column kernels are those
// with operator()(i, j).
template <template <class> class K, class T>
void add_space(std::map<std::string, rt::ConfigSpace>& out) {
    const K<T> f{};
    const gpu::Form form = requires {
        f(0, 0);
    }
    ? gpu::Form::traverse2d : gpu::Form::traverse3d;
    const rt::KernelDef d = gpu::def_for(sq::Range3{0, 1, 0, 1, 0, 1}, f, form);
    out.emplace(d.key(), d.space());
}
template <class T, template <class> class... K>
std::map<std::string, rt::ConfigSpace> pressure_spaces(sq::KernelList<K...>) {
    std::map<std::string, rt::ConfigSpace> out;
    (add_space<K, T>(out), ...);
    return out;
}

// Searches the solve's own kernels in context: the whole solve is timed (median of 15,
// slowest rank) with sampled configurations of one kernel while the others keep the best
// found so far, one kernel after the other. Which kernels the solve uses, and at which
// problem sizes, a first solve tells (one rank: thomas and the bottom mirror; several: the pencil
// kernels, the copies at one size per transpose). Each candidate runs on a fresh backend
// whose user wisdom directory holds one record per instance (a user record for the exact
// size wins over the project's), so the solver itself picks the configurations up. All
// ranks take the same decisions (the times are reduced, the samples seeded alike); rank 0
// appends one record per kernel and size to DIR.
template <typename T>
void tune(const rt::RuntimeOptions& base, const rt::DeviceInfo& device, int nx, int ny, int nz,
          const std::string& out_dir, int samples, int nprocs, int rank) {
    Decomposition decomp = Decomposition::make(MPI_COMM_WORLD, 1, nprocs);
    const Grid<T> grid = unit_grid<T>(nx, ny, nz, decomp, nprocs);
    const std::string prec = sizeof(T) == 8 ? "double" : "float";
    const std::map<std::string, rt::ConfigSpace> spaces =
        pressure_spaces<T>(sq::PressureSpectralKernels{});
    struct Tuned {
        std::string key;
        const rt::ConfigSpace* space;
        std::vector<rt::ProblemSize> problems; // this rank's instances
        rt::Config config;
    };
    std::vector<Tuned> tuned;
    gpu::activate(base);
    time_solves(grid, decomp, 1);
    for (const rt::Runtime::Loaded& l : gpu::backend().runtime().loaded_instances()) {
        auto sp = spaces.find(l.key);
        if (sp == spaces.end()) continue;
        auto it = std::find_if(tuned.begin(), tuned.end(),
                               [&](const Tuned& t) { return t.key == l.key; });
        if (it == tuned.end())
            it = tuned.insert(tuned.end(), {l.key, &sp->second, {}, sp->second.default_config()});
        it->problems.push_back(l.problem);
    }
    // The same kernels, in the same order, on every rank (else the loops below would differ).
    std::vector<int> used;
    for (const auto& [key, space] : spaces)
        used.push_back(
            std::any_of(tuned.begin(), tuned.end(), [&](const Tuned& t) { return t.key == key; }));
    if (!same_on_all_ranks(used)) throw std::runtime_error("ranks use different pressure kernels");
    std::sort(tuned.begin(), tuned.end(), [](auto& a, auto& b) { return a.key < b.key; });

    const std::string tmp = (std::filesystem::temp_directory_path() /
                             ("squall_pressure_tune_" + std::to_string(getpid())))
                                .string();
    auto solve_ms = [&] {
        std::filesystem::remove_all(tmp);
        rt::RuntimeOptions o = base;
        o.wisdom_dirs = {tmp};
        for (const Tuned& t : tuned)
            for (const rt::ProblemSize& p : t.problems)
                rt::append_wisdom(
                    tmp, t.key, *t.space,
                    {p, t.config, 0, 0, rt::current_provenance(device), "", rt::TuningInfo(), {}});
        gpu::activate(o);
        return median(time_solves(grid, decomp, 15));
    };
    const double t_default = solve_ms();
    double t_best = t_default;
    std::mt19937_64 rng(1234);
    for (Tuned& t : tuned) {
        const rt::ConfigSpace& space = *t.space;
        // The same candidates on every rank, each valid at all of the kernel's sizes there.
        std::vector<rt::Config> configs;
        std::string listed;
        for (int n = 0; n < samples; ++n) {
            const auto c = space.sample(rng, t.problems.front(), device);
            if (!c) break;
            bool valid = true;
            for (const rt::ProblemSize& p : t.problems) valid &= space.is_valid(*c, p, device);
            if (!valid) continue;
            configs.push_back(*c);
            listed += space.format(*c) + ";";
        }
        const std::vector<int> digest{int(configs.size()),
                                      int(std::hash<std::string>{}(listed)&0x7fffffff)};
        if (!same_on_all_ranks(digest))
            throw std::runtime_error(t.key + ": the ranks' candidate lists differ");
        const rt::Config keep = t.config;
        rt::Config best = keep;
        for (const rt::Config& c : configs) {
            if (c == keep) continue;
            t.config = c;
            const double ms = solve_ms();
            if (ms < t_best) t_best = ms, best = c;
        }
        t.config = best;
        if (rank == 0)
            std::printf(
                "pressure tune %dx%dx%d %d rank(s) %-6s %-32s solve %8.3f ms (defaults %8.3f "
                "ms)  [%s]\n",
                nx, ny, nz, nprocs, prec.c_str(), t.key.c_str(), t_best, t_default,
                space.format(best).c_str());
        std::fflush(stdout);
    }
    std::filesystem::remove_all(tmp);
    gpu::activate(base);
    // Rank 0 writes one record per kernel and problem size over all ranks.
    std::vector<long long> mine;
    for (size_t n = 0; n < tuned.size(); ++n)
        for (const rt::ProblemSize& p : tuned[n].problems)
            mine.insert(mine.end(), {(long long)n, p.extent[0], p.extent[1], p.extent[2]});
    int len = int(mine.size());
    std::vector<int> lens(static_cast<size_t>(nprocs)), offs(lens);
    MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    int total = 0;
    for (int r = 0; r < nprocs; ++r) offs[size_t(r)] = total, total += lens[size_t(r)];
    std::vector<long long> all(size_t(rank == 0 ? total : 0));
    MPI_Gatherv(mine.data(), len, MPI_LONG_LONG, all.data(), lens.data(), offs.data(),
                MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    std::set<std::array<long long, 4>> written;
    for (size_t m = 0; m + 3 < all.size(); m += 4) {
        if (!written.insert({all[m], all[m + 1], all[m + 2], all[m + 3]}).second) continue;
        const Tuned& t = tuned[size_t(all[m])];
        rt::append_wisdom(out_dir, t.key, *t.space,
                          {rt::ProblemSize(all[m + 1], all[m + 2], all[m + 3]),
                           t.config,
                           t_best * 1e-3,
                           t_default * 1e-3,
                           rt::current_provenance(device),
                           "",
                           rt::TuningInfo(),
                           {}});
    }
    decomp.free();
}

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int nprocs = 1, rank = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    bool quick = false;
    std::string json_path, tune_dir, size_list = "512,256";
    int samples = 48;
    for (int a = 1; a < argc; ++a) {
        const bool more = a + 1 < argc;
        if (!std::strcmp(argv[a], "--quick"))
            quick = true;
        else if (!std::strcmp(argv[a], "--json") && more)
            json_path = argv[++a];
        else if (!std::strcmp(argv[a], "--tune") && more)
            tune_dir = argv[++a];
        else if (!std::strcmp(argv[a], "--sizes") && more)
            size_list = argv[++a];
        else if (!std::strcmp(argv[a], "--samples") && more)
            samples = std::atoi(argv[++a]);
        else {
            if (rank == 0) std::fprintf(stderr, "gpu_pressure_bench: bad argument '%s'\n", argv[a]);
            MPI_Finalize();
            return 2;
        }
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
        rt::DeviceInfo device;
        try {
            device = gpu::activate(opt).runtime().device();
        } catch (const rt::NoDeviceError& e) {
            std::fprintf(stderr, "gpu_pressure_bench: %s\n", e.what());
            MPI_Finalize();
            return 1;
        }
        nlohmann::json out = {{"benchmark", "gpu_pressure"},
                              {"device", device.name},
                              {"results", nlohmann::json::array()}};
        const std::vector<int> sizes =
            quick ? std::vector<int>{128, 256} : std::vector<int>{256, 512};
        try {
            if (!tune_dir.empty())
                for (const auto& n : squall::test::parse_grid_sizes(size_list)) {
                    tune<float>(opt, device, n[0], n[1], n[2], tune_dir, samples, nprocs, rank);
                    tune<double>(opt, device, n[0], n[1], n[2], tune_dir, samples, nprocs, rank);
                }
            for (int n : tune_dir.empty() ? sizes : std::vector<int>{}) {
                out["results"].push_back(bench<float>(n, 20, nprocs, rank));
                out["results"].push_back(bench<double>(n, 20, nprocs, rank));
            }
        } catch (const std::exception& e) {
            std::fprintf(stderr, "gpu_pressure_bench: %s\n", e.what());
            rc = 1;
        }
        if (!json_path.empty() && rank == 0) std::ofstream(json_path) << out.dump(1) << "\n";
        gpu::deactivate();
    }
    MPI_Finalize();
    return rc;
}
