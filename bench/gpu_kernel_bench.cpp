// gpu_kernel_bench: time every tunable kernel of the GPU backend (default 256^3 and 512^3,
// float and double) on random fields: the default configuration, the wisdom's record and
// the best that `squall tune`'s search (src/tuner) finds in a budget of evaluations, each
// verified against the default's output. The 3-D kernels are searched; the 2-D kernels
// (ghost levels, surface layer) and the reductions (time-step limits, diagnostics) have at
// most 16 configurations, and every one is timed.
//
//   gpu_kernel_bench [--quick] [--json FILE] [--wisdom DIR] [--evals N] [--others N]
//                    [--strategy S] [--seed N] [--sizes 256,512|48x48x48,...]
//                    [--precision float|double] [--only k1,k2] [--seed-wisdom DIR]
//                    [--config JSON] [--unaligned]
//
// --evals, --others: the search's evaluations for advec_u_2i5 and diff_uvw_smag, and for
// every other 3-D kernel (0: no search). --strategy and --seed as for `squall tune`.
// --seed-wisdom: DIR's record for the kernel, size and device is timed and starts the search
// (only this GPU's own: so that scripts/gpu-compare times the same configurations in both
// trees on a GPU without records).
// --config: this configuration is timed too (parameters not named take their defaults); the
// JSON gives each timing's origin (default, record, config, enumerated, search).
// --unaligned times the unpadded layout (rows of icells, interior not aligned) instead of
// the model's (grid.h row_align), to measure what the alignment gives.
//
// The launches of one kernel, in order: one of the default for the reference output, one
// to verify it and 3 + 15 timed; then each other candidate's verification launch and its
// timed launches (scripts/gpu-profile counts on this order).
//
// Effective bandwidth = the fewest bytes (each 3-D array read once, updated arrays read
// and written, over the interior points) / median time, as a fraction of the 3.99 TB/s
// copy ceiling measured on the H200. Beside it: the same fraction for a stencil-free
// kernel with the same array mix ("stream") and for a plain copy, both timed in the run. Best
// configurations are appended as wisdom records;
// --json also lists every configuration timed with its median.
//
// This file holds the command line and the loop over sizes and kernels; the parts are in
// kernel_bench/: ceiling kernels, array pool, timing, the kernels (bench_kernels.h,
// model_kernels.h), search and report.
#include "bench/bench_sizes.h"
#include "bench/kernel_bench/array_pool.h"
#include "bench/kernel_bench/bench_kernels.h"
#include "bench/kernel_bench/model_kernels.h"
#include "bench/kernel_bench/options.h"
#include "bench/kernel_bench/report.h"
#include "bench/kernel_bench/search.h"
#include "tests/backends/cuda/kernel_list.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace squall;
using namespace squall::kernel_bench;
using nlohmann::json;
using squall::testing::KernelList;
using squall::testing::Kernels3d;

// "48x48x48,64x64x48" or "256,512" (cubes).
std::vector<TestGrid> parse_grids(const std::string& text) {
    std::vector<TestGrid> out;
    for (const auto& n : squall::test::parse_grid_sizes(text)) out.push_back({n[0], n[1], n[2]});
    return out;
}

// Each kernel in turn: the direct candidates, then the tuner's search from the seed
// wisdom's record (or the default), compiling on every core ahead of the measurements.
template <typename T, template <class> class... K>
void run_size(rt::Runtime& rt, const Options& o, const TestGrid& grid, json& out) {
    Pool<T> pool(rt, grid);
    std::vector<rt::KernelDef> defs;
    defs.reserve(sizeof...(K) + 32); // searches keep indices, defs must not move
    std::vector<Search<T>> searches;
    (add_search<K<T>, T>(o, pool, defs, searches), ...);
    add_model_searches(o, pool, defs, searches);
    const int reps = o.quick ? 7 : 15;
    const auto t0 = std::chrono::steady_clock::now();
    size_t timed = 0;
    for (const auto& s : searches) {
        const rt::KernelDef& def = defs[s.def_index];
        BenchEvaluator<T> ev(rt, pool, def, s, reps);
        if (!search_kernel(rt, o, def, s, ev)) continue;
        timed += ev.timings.size();
        report(rt, o, pool, def, s, ev.timings, out);
    }
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("-- %dx%dx%d %s: %zu variants verified and timed in %.1f s\n", grid.itot, grid.jtot,
                grid.ktot, sizeof(T) == 4 ? "float" : "double", timed, secs);
    write_json(rt, o, out);
}

template <template <class> class... K>
void run_all(rt::Runtime& rt, const Options& o, KernelList<K...>, json& out) {
    for (TestGrid g : o.grids) {
        if (o.unaligned) g.align = 1;
        if (o.precision != "float") run_size<double, K...>(rt, o, g, out);
        if (o.precision != "double") run_size<float, K...>(rt, o, g, out);
    }
}

} // namespace

int main(int argc, char** argv) {
    Options o;
    const char* usage =
        "usage: gpu_kernel_bench [--quick] [--json FILE] [--wisdom DIR] [--evals N] [--others N] "
        "[--strategy S] [--seed N] [--sizes 256,512|48x48x48,...] [--precision float|double] "
        "[--only k1,k2] [--seed-wisdom DIR] [--config JSON] [--unaligned]\n";
    try {
        for (int a = 1; a < argc; ++a) {
            const std::string s = argv[a];
            const bool more = a + 1 < argc;
            if (s == "--quick")
                o.quick = true;
            else if (s == "--json" && more)
                o.json_path = argv[++a];
            else if (s == "--wisdom" && more)
                o.wisdom_dir = argv[++a];
            else if (s == "--evals" && more)
                o.evals = std::stoi(argv[++a]);
            else if (s == "--others" && more)
                o.others = std::stoi(argv[++a]);
            else if (s == "--strategy" && more)
                o.strategy = argv[++a];
            else if (s == "--seed" && more)
                o.seed = std::stoull(argv[++a]);
            else if (s == "--sizes" && more)
                o.grids = parse_grids(argv[++a]);
            else if (s == "--precision" && more)
                o.precision = argv[++a];
            else if (s == "--seed-wisdom" && more)
                o.seed_wisdom = argv[++a];
            else if (s == "--config" && more)
                o.config = argv[++a];
            else if (s == "--only" && more)
                o.only = argv[++a];
            else if (s == "--unaligned")
                o.unaligned = true;
            else
                throw std::invalid_argument("unknown argument '" + s + "'");
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gpu_kernel_bench: %s\n%s", e.what(), usage);
        return 2;
    }
    if (o.quick) // a few minutes in all: short searches of the main kernels only
        o.evals = std::min(o.evals, 16), o.others = 0;
    rt::RuntimeOptions ro;
    ro.cache_dir = "";
    rt::Runtime rt(ro);
    if (!rt.has_device()) {
        std::printf("gpu_kernel_bench: skipped (%s)\n", rt.no_device_reason().c_str());
        return 0;
    }
    json out = json::array();
    run_all(rt, o, Kernels3d{}, out);
    return 0;
}
