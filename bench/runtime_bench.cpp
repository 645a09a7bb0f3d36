// runtime_bench: first-launch time per kernel with a cold and a warm disk cache, and
// steady-state host overhead per launch against a raw cuLaunchKernel.
//
//   runtime_bench [--quick] [--json FILE]
//
// First launch = wisdom selection + compile or cache read + module load + launch +
// synchronize, for kernels the process has not seen. "Warm" uses a new Runtime (empty
// memory cache) on the disk cache the cold pass filled.
#include "runtime/log.h"
#include "runtime/runtime.h"

#include "tests/runtime/test_kernels.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>
#include <unistd.h>

using namespace squall::rt;
using namespace squall::rt::testing;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

struct Item {
    KernelDef def;
    ProblemSize problem;
    Config config;
};

std::vector<Item> kernel_list(int count, const DeviceInfo& dev) {
    std::vector<Item> items;
    std::mt19937_64 rng(2026);
    KernelDef defs[] = {saxpy_def("float"), saxpy_def("double"), stencil_def("float"),
                        stencil_def("double")};
    ProblemSize sizes[] = {ProblemSize(1 << 20), ProblemSize(1 << 20), ProblemSize(128, 128, 64),
                           ProblemSize(128, 128, 64)};
    std::vector<uint64_t> seen;
    while (static_cast<int>(items.size()) < count) {
        size_t i = items.size() % 4;
        Config c = *defs[i].space().sample(rng, sizes[i], dev);
        uint64_t h = defs[i].compile_spec(c, sizes[i], dev, dev.arch()).hash();
        if (std::find(seen.begin(), seen.end(), h) != seen.end()) continue;
        seen.push_back(h);
        items.push_back({defs[i], sizes[i], c});
    }
    return items;
}

// First launch of each item in a fresh Runtime; returns per-kernel milliseconds.
std::vector<double> first_launches(const fs::path& cache, const std::vector<Item>& items,
                                   DevicePtr a, DevicePtr b, uint64_t* compiles, uint64_t* hits) {
    RuntimeOptions o;
    o.cache_dir = cache.string();
    o.capture = CaptureSettings{};
    Runtime rt(o);
    std::vector<double> out;
    for (const auto& it : items) {
        auto t0 = Clock::now();
        (void)rt.select(it.def, it.problem); // part of a real first launch
        KernelInstance k = rt.instantiate(it.def, it.problem, it.config);
        if (it.def.function_name() == "saxpy") {
            int n = static_cast<int>(it.problem[0]);
            if (it.def.key() == "saxpy_float")
                k.launch(nullptr, n, 1.0f, a, b);
            else
                k.launch(nullptr, n, 1.0, a, b);
        } else {
            k.launch(nullptr, a, b);
        }
        Driver::get().synchronize();
        out.push_back(ms_since(t0));
    }
    *compiles = rt.cache().stats().compiles;
    *hits = rt.cache().stats().disk_hits;
    return out;
}

} // namespace

int main(int argc, char** argv) {
    bool quick = false;
    std::string json_path;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--quick"))
            quick = true;
        else if (!std::strcmp(argv[i], "--json") && i + 1 < argc)
            json_path = argv[++i];
    }
    set_log_level(LogLevel::warn);
    nlohmann::json result;

    auto t_init = Clock::now();
    Driver& drv = Driver::get();
    if (!drv.available()) {
        fmt::print(stderr, "runtime_bench: {}\n", drv.error());
        return 1;
    }
    DeviceInfo dev = drv.open_device(0);
    double init_ms = ms_since(t_init);
    fmt::print("device: {} ({}), driver {}, NVRTC {}\n", dev.name, dev.arch(), dev.driver_version,
               nvrtc_version());
    fmt::print("cuInit + primary context: {:.1f} ms (once per process, not per kernel)\n", init_ms);
    result["device"] = dev.name;
    result["init_ms"] = init_ms;

    const int nkernels = quick ? 8 : 16;
    auto items = kernel_list(nkernels, dev);
    DeviceBuffer a(sizeof(double) * (1 << 20) * 2), b(sizeof(double) * (1 << 20) * 2);
    drv.memset8(a.get(), 0, a.size());
    drv.memset8(b.get(), 0, b.size());

    fs::path cache = fs::temp_directory_path() / fmt::format("squall_bench_cache_{}", getpid());
    fs::remove_all(cache);
    uint64_t compiles = 0, hits = 0;
    auto cold = first_launches(cache, items, a.get(), b.get(), &compiles, &hits);
    fmt::print(
        "cold disk cache: {} kernels, {} compiled, median {:.1f} ms, max {:.1f} ms per kernel\n",
        cold.size(), compiles, median(cold), *std::max_element(cold.begin(), cold.end()));
    result["cold_ms"] = cold;
    result["cold_compiles"] = compiles;
    auto warm = first_launches(cache, items, a.get(), b.get(), &compiles, &hits);
    fmt::print(
        "warm disk cache: {} kernels, {} disk hits, {} compiled, median {:.2f} ms, max {:.2f} "
        "ms per kernel (goal < 20 ms)\n",
        warm.size(), hits, compiles, median(warm), *std::max_element(warm.begin(), warm.end()));
    result["warm_ms"] = warm;
    result["warm_disk_hits"] = hits;
    result["warm_compiles"] = compiles;
    fs::remove_all(cache);

    // Parallel cold compile of the same list (new cache dir).
    {
        fs::path pcache = cache.string() + "_par";
        RuntimeOptions o;
        o.cache_dir = pcache.string();
        o.capture = CaptureSettings{};
        Runtime rt(o);
        std::vector<Runtime::Request> reqs;
        for (const auto& it : items) reqs.push_back({&it.def, it.problem, it.config});
        auto t0 = Clock::now();
        auto inst = rt.instantiate_all(reqs);
        double ms = ms_since(t0);
        fmt::print("parallel cold compile+load of {} kernels on {} threads: {:.0f} ms ({:.1f} ms "
                   "per kernel)\n",
                   inst.size(), std::thread::hardware_concurrency(), ms,
                   ms / static_cast<double>(inst.size()));
        result["parallel_cold_total_ms"] = ms;
        result["parallel_threads"] = std::thread::hardware_concurrency();
        fs::remove_all(pcache);
    }

    // Launch overhead: host time of batches of launches of an empty kernel, synchronizing
    // (untimed) between batches so the launch queue never fills.
    {
        RuntimeOptions o;
        o.cache_dir = "";
        o.capture = CaptureSettings{};
        Runtime rt(o);
        KernelInstance k = rt.instantiate(empty_def(), ProblemSize(1));
        const int batch = 256, batches = quick ? 200 : 1000;
        int arg0 = 7;
        DevicePtr arg1 = a.get();
        void* params[] = {&arg0, &arg1};
        LaunchFn raw = drv.launch_fn();
        void* fn = k.function();
        const auto& g = k.geometry();
        std::vector<double> raw_ns, ours_ns;
        for (int rep = 0; rep < batches + 20; ++rep) {
            for (int variant = 0; variant < 2; ++variant) {
                auto t0 = Clock::now();
                if (variant == 0) {
                    for (int i = 0; i < batch; ++i)
                        raw(fn, g.grid[0], g.grid[1], g.grid[2], g.block[0], g.block[1], g.block[2],
                            g.shared_mem, nullptr, params, nullptr);
                } else {
                    for (int i = 0; i < batch; ++i) k.launch(nullptr, arg0, arg1);
                }
                double ns =
                    std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / batch;
                drv.synchronize();
                if (rep >= 20) (variant == 0 ? raw_ns : ours_ns).push_back(ns); // warm-up first
            }
        }
        double r = median(raw_ns), o2 = median(ours_ns);
        fmt::print(
            "launch overhead: raw cuLaunchKernel {:.0f} ns, KernelInstance::launch {:.0f} ns, "
            "difference {:+.0f} ns (goal within 1000 ns)\n",
            r, o2, o2 - r);
        result["launch_raw_ns"] = r;
        result["launch_runtime_ns"] = o2;
        result["launch_overhead_ns"] = o2 - r;
    }

    result["warm_median_ms"] = median(warm);
    result["cold_median_ms"] = median(cold);
    if (!json_path.empty()) std::ofstream(json_path) << result.dump(2) << '\n';
    return 0;
}
