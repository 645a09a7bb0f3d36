// NVRTC throughput for the tuner, no GPU needed: the same candidates of one kernel (sampled
// uniformly from its space with a fixed seed) compiled for sm_90 with T threads of one
// process, and split over P processes. The tuner compiles on threads; if processes scale
// better on many cores, something in the process (NVRTC, the allocator) serialises them.
//   compile_throughput [--kernel advec_u_2i5] [--precision double] [--size 512]
//                      [--count 48] [--threads 1,4,16] [--processes 16] [--json FILE]
//                      [--configs JOURNAL.jsonl]   (a tune's own candidates instead)
//                      [--workers W]   (also W threads, each compiling in a worker process)
#include "backends/cuda/gpu_launch.h"
#include "runtime/compile_workers.h"
#include "tests/backends/cuda/kernel_list.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <thread>

namespace {
using namespace squall;
using namespace squall::gpu::testing;

struct Options {
    std::string kernel = "advec_u_2i5", precision = "double", json;
    std::string configs; // a squall tune journal (.jsonl): its configurations, not samples
    int size = 512, count = 48, processes = 16, workers = 0;
    std::vector<int> threads{1, 4, 16};
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Compiles specs[i] for the i this thread takes from `next` (in this process, or in a
// compile worker when one is installed).
void compile_from(const std::vector<rt::CompileSpec>& specs, std::atomic<size_t>& next) {
    for (size_t i; (i = next++) < specs.size();) rt::compile_now(specs[i]);
}

double with_threads(const std::vector<rt::CompileSpec>& specs, int threads) {
    const auto t0 = std::chrono::steady_clock::now();
    std::atomic<size_t> next{0};
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back([&] { compile_from(specs, next); });
    compile_from(specs, next);
    for (auto& t : pool) t.join();
    return seconds_since(t0);
}

// Process p compiles specs p, p + P, ...; the wall time until all have exited.
double with_processes(const std::vector<rt::CompileSpec>& specs, int processes) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<pid_t> children;
    for (int p = 0; p < processes; ++p) {
        const pid_t pid = fork();
        if (pid < 0) {
            for (pid_t c : children) waitpid(c, nullptr, 0);
            throw std::runtime_error("fork failed");
        }
        if (pid == 0) {
            int status = 0;
            try {
                for (size_t i = size_t(p); i < specs.size(); i += size_t(processes))
                    rt::nvrtc_compile(specs[i]);
            } catch (...) {
                status = 1;
            }
            _exit(status);
        }
        children.push_back(pid);
    }
    bool ok = true;
    for (pid_t pid : children) {
        int status = 0;
        waitpid(pid, &status, 0);
        ok = ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    if (!ok) throw std::runtime_error("a compiling process failed");
    return seconds_since(t0);
}

template <class F>
bool run_kernel(const Options& o, nlohmann::json& out) {
    if (o.kernel != F::name) return false;
    rt::RuntimeOptions ro;
    ro.use_device = false;
    ro.arch = "sm_90";
    ro.cache_dir = "";
    rt::Runtime rt(ro);
    const TestGrid g{o.size, o.size, o.size};
    const F f = blank_kernel<F>(g);
    const sq::Range3 r = g.range<F>();
    const rt::KernelDef def = gpu::def_for(r, f, gpu::Form::traverse3d);
    const rt::ProblemSize p = gpu::problem_of(r);
    std::vector<rt::CompileSpec> specs;
    if (!o.configs.empty()) { // the journal's first `count` configurations, in its order
        std::ifstream in(o.configs);
        if (!in) throw std::runtime_error("cannot read '" + o.configs + "'");
        for (std::string line; int(specs.size()) < o.count && std::getline(in, line);) {
            const auto e = nlohmann::json::parse(line);
            if (!e.contains("config")) continue; // the header, the final record
            specs.push_back(rt.compile_spec(def, def.space().config_from_json(e["config"]), p));
        }
    }
    std::mt19937_64 rng(1);
    while (o.configs.empty() && int(specs.size()) < o.count) {
        const auto c = def.space().sample(rng, p, rt.device());
        if (!c) throw std::runtime_error("no valid configuration sampled");
        specs.push_back(rt.compile_spec(def, *c, p));
    }
    fmt::print("{} {} {}^3: {} candidates ({}), {} cores\n", o.kernel, o.precision, o.size,
               specs.size(), o.configs.empty() ? "sampled" : o.configs,
               std::thread::hardware_concurrency());
    // Processes first: fork before this process has started any thread.
    if (o.processes > 0) {
        const double s = with_processes(specs, o.processes);
        fmt::print("  {:2} processes: {:6.2f} s, {:5.2f} candidates per second\n", o.processes, s,
                   specs.size() / s);
        out["processes"] = {{"processes", o.processes}, {"seconds", s}};
    }
    // The tuner's way with SQUALL_COMPILE_PROCESSES: as many threads, each compile sent to
    // a worker process (this program started again as one).
    if (o.workers > 0) {
        rt::use_compile_workers(std::make_shared<rt::CompileWorkers>(
            std::vector<std::string>{"/proc/self/exe", "--compile-worker"}, unsigned(o.workers)));
        const double s = with_threads(specs, o.workers);
        rt::use_compile_workers(nullptr);
        fmt::print("  {:2} workers:   {:6.2f} s, {:5.2f} candidates per second\n", o.workers, s,
                   specs.size() / s);
        out["workers"] = {{"workers", o.workers}, {"seconds", s}};
    }
    for (int t : o.threads) {
        const double s = with_threads(specs, t);
        fmt::print("  {:2} threads:   {:6.2f} s, {:5.2f} candidates per second\n", t, s,
                   specs.size() / s);
        out["threads"].push_back({{"threads", t}, {"seconds", s}});
    }
    out["kernel"] = o.kernel, out["precision"] = o.precision, out["size"] = o.size;
    out["candidates"] = specs.size(), out["cores"] = std::thread::hardware_concurrency();
    return true;
}

template <class T>
bool dispatch(const Options& o, nlohmann::json& out) {
    return run_kernel<sq::AdvecU2i5<T>>(o, out) || run_kernel<sq::DiffUVWSmag<T>>(o, out) ||
           run_kernel<sq::TendUVW2i5Smag<T>>(o, out);
}

std::vector<int> int_list(const std::string& s) {
    std::vector<int> v;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, ',');) v.push_back(std::stoi(item));
    return v;
}
} // namespace

int main(int argc, char** argv) {
    if (argc == 2 && std::string(argv[1]) == "--compile-worker") return rt::compile_worker_main(3);
    Options o;
    try {
        for (int a = 1; a < argc; ++a) {
            const std::string arg = argv[a];
            const bool more = a + 1 < argc;
            if (arg == "--kernel" && more)
                o.kernel = argv[++a];
            else if (arg == "--precision" && more)
                o.precision = argv[++a];
            else if (arg == "--size" && more)
                o.size = std::atoi(argv[++a]);
            else if (arg == "--count" && more)
                o.count = std::atoi(argv[++a]);
            else if (arg == "--threads" && more)
                o.threads = int_list(argv[++a]);
            else if (arg == "--processes" && more)
                o.processes = std::atoi(argv[++a]);
            else if (arg == "--json" && more)
                o.json = argv[++a];
            else if (arg == "--configs" && more)
                o.configs = argv[++a];
            else if (arg == "--workers" && more)
                o.workers = std::atoi(argv[++a]);
            else {
                std::cerr
                    << "usage: compile_throughput [--kernel advec_u_2i5|diff_uvw_smag|"
                       "tend_uvw_2i5_smag] [--precision float|double] [--size N] "
                       "[--count C] [--configs JOURNAL.jsonl] [--threads 1,4,16] [--processes P] "
                       "[--workers W] "
                       "[--json FILE]\n";
                return 2;
            }
        }
        nlohmann::json out;
        const bool ok = o.precision == "float" ? dispatch<float>(o, out) : dispatch<double>(o, out);
        if (!ok) {
            std::cerr << "compile_throughput: unknown kernel '" << o.kernel << "'\n";
            return 1;
        }
        if (!o.json.empty()) std::ofstream(o.json) << out.dump(1) << "\n";
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "compile_throughput: " << e.what() << "\n";
        return 1;
    }
}
