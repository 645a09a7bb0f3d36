// gpu_kernel_bench: time every tunable 3-D kernel of the GPU backend at 256^3 and 512^3,
// float and double, in the default configuration and the best of a random search of its
// space (compiled in parallel), verified against the default's output.
//
//   gpu_kernel_bench [--quick] [--json FILE] [--wisdom DIR] [--samples N] [--others N]
//
// Effective bandwidth = the fewest bytes (each 3-D array read once, updated arrays read
// and written, over the interior points) / median time, as a fraction of the 3.99 TB/s
// copy ceiling measured on the H200. Best configurations are appended as wisdom records.
#include "backends/cuda/gpu_launch.h"
#include "kernel_list.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace squall;
using namespace squall::gpu::testing;
using nlohmann::json;

constexpr double kCeiling = 3.99e12; // bytes/s, copy kernel on the H200 (GPU.md)

struct Options {
    bool quick = false;
    std::string json_path, wisdom_dir;
    int samples = 80; // advec_u_2i5 and diff_uvw_smag (about 200 s in all on the H200)
    int others = 6;   // every other kernel
};

// Device helpers: copy and max |a - b| (b == nullptr: max |a|), NaN-aware.
const char* kUtilSource = R"(
template <typename T>
__global__ void bench_copy(T* dst, const T* src, long long n) {
    for (long long p = blockIdx.x * 256ll + threadIdx.x; p < n; p += gridDim.x * 256ll) dst[p] = src[p];
}
template <typename T>
__global__ void bench_maxdiff(const T* a, const T* b, long long n, unsigned long long* out) {
    double m = 0;
    for (long long p = blockIdx.x * 256ll + threadIdx.x; p < n; p += gridDim.x * 256ll) {
        const double x = a[p], y = b ? double(b[p]) : 0.0;
        const double d = (x != x) != (y != y) ? 1e300 : (x != x ? 0.0 : fabs(x - y));
        m = d > m ? d : m;
    }
    for (int o = 16; o > 0; o /= 2) {
        const double v = __shfl_down_sync(0xffffffffu, m, o);
        m = v > m ? v : m;
    }
    if ((threadIdx.x & 31) == 0) atomicMax(out, (unsigned long long)__double_as_longlong(m));
}
)";

rt::KernelDef util_def(const char* fn, const std::string& prec) {
    static const rt::SourcesPtr src = [] {
        auto s = std::make_shared<rt::SourceSet>();
        s->add("bench_util.cu", kUtilSource);
        return rt::SourcesPtr(s);
    }();
    rt::KernelDef d(fn, src, "bench_util.cu");
    d.tuning_key(fn, prec).tune("block_x", {256}, 256).template_args(prec);
    d.block_size("256").grid_size("1024");
    return d;
}

// Random arrays shared by all kernels of one (size, precision): 3-D fields (each with a
// pristine copy for resets), vertical profiles and 2-D surface arrays.
template <typename T>
struct Pool {
    TestGrid g;
    std::vector<rt::DevicePtr> f3, pristine, ref, z, s2;
    rt::KernelInstance copy, maxdiff;
    rt::DevicePtr result = 0;

    Pool(rt::Runtime& rt, const TestGrid& grid) : g(grid) {
        const std::string prec = sizeof(T) == 4 ? "float" : "double";
        auto& drv = rt::Driver::get();
        const rt::KernelDef cdef = util_def("bench_copy", prec),
                            mdef = util_def("bench_maxdiff", prec);
        copy = rt.instantiate(cdef, rt::ProblemSize(1));
        maxdiff = rt.instantiate(mdef, rt::ProblemSize(1));
        result = drv.alloc(8);
        auto fill = [&](size_t n, uint64_t seed) {
            std::vector<T> h(n);
#pragma omp parallel for schedule(static)
            for (size_t p = 0; p < n; ++p) {
                uint64_t x = (p + 1) * 0x9E3779B97F4A7C15ull ^ seed * 0xD1B54A32D192ED03ull;
                x ^= x >> 31, x *= 0xBF58476D1CE4E5B9ull, x ^= x >> 29;
                h[p] = T(0.5 + double(x >> 11) * (1.0 / 9007199254740992.0)); // [0.5, 1.5)
            }
            rt::DevicePtr d = drv.alloc(n * sizeof(T));
            drv.upload(d, h.data(), n * sizeof(T));
            return d;
        };
        const size_t n3 = size_t(g.ncells());
        for (int a = 0; a < 8; ++a) {
            f3.push_back(fill(n3, 100 + a));
            pristine.push_back(drv.alloc(n3 * sizeof(T)));
            copy_array(pristine.back(), f3.back());
        }
        for (int a = 0; a < 3; ++a) ref.push_back(drv.alloc(n3 * sizeof(T)));
        for (int a = 0; a < 6; ++a) z.push_back(fill(size_t(g.kcells()), 200 + a));
        for (int a = 0; a < 4; ++a) s2.push_back(fill(size_t(g.kk()), 300 + a));
        drv.synchronize();
    }
    ~Pool() {
        auto& drv = rt::Driver::get();
        for (auto* v : {&f3, &pristine, &ref, &z, &s2})
            for (rt::DevicePtr p : *v) drv.free(p);
        drv.free(result);
    }
    void copy_array(rt::DevicePtr dst, rt::DevicePtr src) const {
        long long n = g.ncells();
        copy.launch(nullptr, dst, src, n);
    }
    double max_diff(rt::DevicePtr a, rt::DevicePtr b) const {
        auto& drv = rt::Driver::get();
        drv.memset8(result, 0, 8);
        long long n = g.ncells();
        maxdiff.launch(nullptr, a, b, n, result);
        double v;
        drv.download(&v, result, 8);
        return v;
    }
};

// Fills kernel F from the pool; returns the output arrays and the fewest-bytes count.
template <class F, typename T>
F make_kernel(const Pool<T>& pool, std::vector<rt::DevicePtr>& outputs, int& arrays) {
    F f = blank_kernel<F>(pool.g);
    const auto members = gpu::table_members(F::name);
    const auto* layout = gpu::flat_layout(gpu::detail::kernel_type<F>(gpu::Form::traverse3d));
    size_t n3 = 0, nz = 0, n2 = 0;
    arrays = 0;
    for (size_t n = 0; n < members.size(); ++n) {
        char* at = reinterpret_cast<char*>(&f) + layout->offsets[n];
        const std::string& kind = members[n].kind;
        rt::DevicePtr p = 0;
        if (kind[0] == '3') {
            p = pool.f3.at(n3++);
            arrays += kind == "3o" ? 2 : 1;
            if (kind == "3o" || kind == "3w") outputs.push_back(p);
        } else if (kind == "zi") {
            p = pool.z.at(nz++);
        } else if (kind == "2i") {
            p = pool.s2.at(n2++);
        } else if (kind == "T") {
            const T v = T(0.97);
            std::memcpy(at, &v, sizeof v);
            continue;
        } else {
            if (members[n].name == "mason") std::memset(at, 1, 1);
            continue;
        }
        std::memcpy(at, &p, sizeof p);
    }
    return f;
}

double median_ms(const rt::KernelInstance& k, const sq::Range3& r, const auto& f, int reps) {
    auto& drv = rt::Driver::get();
    for (int w = 0; w < 3; ++w) gpu::launch_instance(k, r, f);
    void* e0 = drv.event_create();
    void* e1 = drv.event_create();
    std::vector<double> t;
    for (int n = 0; n < reps; ++n) {
        drv.event_record(e0, nullptr);
        gpu::launch_instance(k, r, f);
        drv.event_record(e1, nullptr);
        drv.event_synchronize(e1);
        t.push_back(drv.event_elapsed_ms(e0, e1));
    }
    drv.event_destroy(e0);
    drv.event_destroy(e1);
    std::nth_element(t.begin(), t.begin() + reps / 2, t.end());
    return t[size_t(reps / 2)];
}

struct Job {
    size_t first = 0, count = 0; // its requests
    std::function<void(const std::vector<rt::KernelInstance>&)> run;
};

template <class F, typename T>
void add_kernel(rt::Runtime& rt, const Options& o, Pool<T>& pool, std::vector<rt::KernelDef>& defs,
                std::vector<rt::Runtime::Request>& reqs, std::vector<Job>& jobs, json& out) {
    const std::string name = F::name;
    const bool main = name == "advec_u_2i5" || name == "diff_uvw_smag";
    const int samples = main ? o.samples : o.others;
    const sq::Range3 r = pool.g.range(name);
    const rt::ProblemSize problem = gpu::problem_of(r);
    auto outputs = std::make_shared<std::vector<rt::DevicePtr>>();
    int arrays = 0;
    const F f = make_kernel<F>(pool, *outputs, arrays);
    defs.push_back(gpu::def_for(r, f));
    const size_t def_index = defs.size() - 1;
    const rt::KernelDef& def = defs.back();
    std::vector<rt::Config> configs{def.space().default_config()};
    std::mt19937_64 rng(std::hash<std::string>()(def.key()) + problem[0]);
    for (int n = 0; n < samples * 4 && int(configs.size()) < samples + 1; ++n) {
        auto c = def.space().sample(rng, problem, rt.device());
        if (c && std::find(configs.begin(), configs.end(), *c) == configs.end())
            configs.push_back(*c);
    }
    const size_t first = reqs.size();
    for (const auto& c : configs) reqs.push_back({nullptr, problem, c});
    jobs.push_back(
        {first, configs.size(),
         [&, first, configs, r, f, outputs, arrays, def_index,
          problem](const std::vector<rt::KernelInstance>& ks) {
             const rt::KernelDef& d = defs[def_index];
             const int reps = o.quick ? 7 : 15;
             const double points = double(problem[0]) * double(problem[1]) * double(problem[2]);
             const double bytes = arrays * points * sizeof(T);
             auto reset = [&] {
                 for (size_t a = 0; a < pool.f3.size(); ++a)
                     pool.copy_array(pool.f3[a], pool.pristine[a]);
             };
             // Reference: the default configuration from pristine data.
             reset();
             gpu::launch_instance(ks[first], r, f);
             for (size_t a = 0; a < outputs->size(); ++a)
                 pool.copy_array(pool.ref[a], (*outputs)[a]);
             std::vector<std::pair<double, size_t>> times;
             for (size_t n = 0; n < configs.size(); ++n)
                 times.push_back({median_ms(ks[first + n], r, f, reps), n});
             const double t_default = times[0].first;
             std::sort(times.begin(), times.end());
             // The fastest configuration whose output matches the default's.
             const double tol = sizeof(T) == 8 ? 1e-12 : 1e-5;
             size_t best = 0;
             double best_ms = t_default, diff = 0;
             for (const auto& [ms, n] : times) {
                 reset();
                 gpu::launch_instance(ks[first + n], r, f);
                 double worst = 0;
                 for (size_t a = 0; a < outputs->size(); ++a)
                     worst = std::max(worst, pool.max_diff((*outputs)[a], pool.ref[a]) /
                                                 pool.max_diff(pool.ref[a], 0));
                 if (worst <= tol) {
                     best = n, best_ms = ms, diff = worst;
                     break;
                 }
                 std::fprintf(stderr, "  %s [%s]: differs from the default by %.3g, skipped\n",
                              d.key().c_str(), d.space().format(configs[n]).c_str(), worst);
             }
             const double frac_d = bytes / (t_default * 1e-3) / kCeiling;
             const double frac_b = bytes / (best_ms * 1e-3) / kCeiling;
             std::printf(
                 "%-22s %4lldx%-4lldx%-4lld %2d arr  default %8.3f ms %5.1f%%   best %8.3f ms "
                 "%5.1f%%  (%zu configs)  [%s]\n",
                 d.key().c_str(), (long long)problem[0], (long long)problem[1],
                 (long long)problem[2], arrays, t_default, 100 * frac_d, best_ms, 100 * frac_b,
                 configs.size(), d.space().format(configs[best]).c_str());
             std::fflush(stdout);
             out.push_back({{"key", d.key()},
                            {"problem", {problem[0], problem[1], problem[2]}},
                            {"arrays", arrays},
                            {"bytes", bytes},
                            {"default_ms", t_default},
                            {"default_fraction", frac_d},
                            {"best_ms", best_ms},
                            {"best_fraction", frac_b},
                            {"best_config", d.space().config_to_json(configs[best])},
                            {"best_vs_default_diff", diff},
                            {"configs", configs.size()}});
             if (!o.wisdom_dir.empty())
                 rt::append_wisdom(o.wisdom_dir, d.key(), d.space(),
                                   rt::WisdomRecord{problem, configs[best], best_ms * 1e-3,
                                                    t_default * 1e-3,
                                                    rt::current_provenance(rt.device()), ""});
         }});
}

template <typename T, template <class> class... K>
void run_size(rt::Runtime& rt, const Options& o, int n, json& out) {
    Pool<T> pool(rt, TestGrid{n, n, n});
    std::vector<rt::KernelDef> defs;
    defs.reserve(sizeof...(K));
    std::vector<rt::Runtime::Request> reqs;
    std::vector<Job> jobs;
    (add_kernel<K<T>, T>(rt, o, pool, defs, reqs, jobs, out), ...);
    for (size_t j = 0; j < jobs.size(); ++j) // defs no longer moves
        for (size_t q = jobs[j].first; q < jobs[j].first + jobs[j].count; ++q)
            reqs[q].def = &defs[j];
    const auto t0 = std::chrono::steady_clock::now();
    const auto ks = rt.instantiate_all(reqs);
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("-- %d^3 %s: %zu variants compiled in %.1f s\n", n,
                sizeof(T) == 4 ? "float" : "double", reqs.size(), secs);
    for (auto& j : jobs) j.run(ks);
    // Written after every size and precision, so a run cut short keeps what it measured.
    if (!o.json_path.empty())
        std::ofstream(o.json_path) << json{
            {"ceiling_bytes_per_s", kCeiling},
            {"device", rt.device().name},
            {"kernels", out}}.dump(1);
}

template <template <class> class... K>
void run_all(rt::Runtime& rt, const Options& o, KernelList<K...>, json& out) {
    for (int n : {256, 512}) {
        run_size<double, K...>(rt, o, n, out);
        run_size<float, K...>(rt, o, n, out);
    }
}

} // namespace

int main(int argc, char** argv) {
    Options o;
    for (int a = 1; a < argc; ++a) {
        const std::string s = argv[a];
        if (s == "--quick")
            o.quick = true, o.samples = 16, o.others = 0;
        else if (s == "--json" && a + 1 < argc)
            o.json_path = argv[++a];
        else if (s == "--wisdom" && a + 1 < argc)
            o.wisdom_dir = argv[++a];
        else if (s == "--samples" && a + 1 < argc)
            o.samples = std::atoi(argv[++a]);
        else if (s == "--others" && a + 1 < argc)
            o.others = std::atoi(argv[++a]);
        else {
            std::fprintf(stderr, "usage: gpu_kernel_bench [--quick] [--json FILE] [--wisdom DIR] "
                                 "[--samples N] [--others N]\n");
            return 2;
        }
    }
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
