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
// --seed-wisdom: DIR's record for the kernel, size and device is timed and starts the search.
// --config: this configuration is timed too (parameters not named take their defaults).
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
#include "backends/cuda/gpu_launch.h"
#include "bench/bench_sizes.h"
#include "kernels/diagnostics.cuh"
#include "kernels/halo.cuh"
#include "tests/backends/cuda/kernel_list.h"
#include "tuner/capture_evaluator.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace {

using namespace squall;
using namespace squall::gpu::testing;
using nlohmann::json;

constexpr double kCeiling = 3.99e12; // bytes/s, copy kernel on the H200 (GPU.md)

struct Options {
    bool quick = false, unaligned = false;
    std::string json_path, wisdom_dir, precision = "both";
    std::string only;        // comma-separated kernel names; empty: all
    std::string seed_wisdom; // this directory's record for the size is timed and starts the search
    std::string config;      // a configuration (JSON) timed besides
    int evals = 60;          // the search's evaluations: advec_u_2i5 and diff_uvw_smag
    int others = 12;         // every other 3-D kernel
    std::string strategy = "annealing";
    uint64_t seed = 1;
    std::vector<TestGrid> grids{{256, 256, 256}, {512, 512, 512}};
};

// "48x48x48,64x64x48" or "256,512" (cubes).
std::vector<TestGrid> parse_grids(const std::string& text) {
    std::vector<TestGrid> out;
    for (const auto& n : squall::test::parse_grid_sizes(text)) out.push_back({n[0], n[1], n[2]});
    return out;
}

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
// The stream ceiling of a kernel's array mix: the same arrays read, updated and written
// once, point by point, with no stencil (one point per thread). Updated arrays are all
// loaded before any store, so the loads never wait on a possibly aliasing store.
template <typename T>
struct StreamArrays {
    const T* in[12];
    T* rw[6];
    T* w[6];
};
template <typename T, int NIN, int NRW, int NW>
__global__ void bench_stream(StreamArrays<T> a, long long n) {
    const long long p = blockIdx.x * 256ll + threadIdx.x;
    if (p >= n) return;
    T s = 0, r[NRW > 0 ? NRW : 1];
#pragma unroll
    for (int q = 0; q < NIN; ++q) s += a.in[q][p];
#pragma unroll
    for (int q = 0; q < NRW; ++q) r[q] = a.rw[q][p];
#pragma unroll
    for (int q = 0; q < NRW; ++q) a.rw[q][p] = r[q] + s;
#pragma unroll
    for (int q = 0; q < NW; ++q) a.w[q][p] = s;
}
)";

const rt::SourcesPtr& util_sources() {
    static const rt::SourcesPtr src = [] {
        auto s = std::make_shared<rt::SourceSet>();
        s->add("bench_util.cu", kUtilSource);
        return rt::SourcesPtr(s);
    }();
    return src;
}

rt::KernelDef util_def(const char* fn, const std::string& prec) {
    rt::KernelDef d(fn, util_sources(), "bench_util.cu");
    d.tuning_key(fn, prec).tune("block_x", {256}, 256).template_args(prec);
    d.block_size("256").grid_size("1024");
    return d;
}

// An array mix: arrays only read, read and written, only written.
struct Mix {
    int in = 0, rw = 0, w = 0;
    int arrays() const { return in + 2 * rw + w; }
    bool operator<(const Mix& o) const { return std::tie(in, rw, w) < std::tie(o.in, o.rw, o.w); }
};
constexpr int kMaxIn = 12, kMaxOut = 6;

// Host image of StreamArrays<T> in kUtilSource (pointers are 8 bytes on both sides).
struct StreamArraysHost {
    rt::DevicePtr in[kMaxIn]{}, rw[kMaxOut]{}, w[kMaxOut]{};
};

// bench_stream for a mix over n points: one thread per point, grid ceil(n / 256).
rt::KernelDef stream_def(const std::string& prec, const Mix& m) {
    rt::KernelDef d("bench_stream", util_sources(), "bench_util.cu");
    d.tuning_key("bench_stream", prec, std::to_string(m.in), std::to_string(m.rw),
                 std::to_string(m.w));
    d.tune("block_x", {256}, 256).template_args(prec, m.in, m.rw, m.w);
    d.block_size("256");
    return d;
}

// Random arrays shared by all kernels of one (size, precision): 3-D fields (each with a
// pristine copy for resets), vertical profiles and 2-D surface arrays.
template <typename T>
struct Pool {
    TestGrid g;
    std::vector<rt::DevicePtr> f3, pristine, ref, z, s2, s2_pristine;
    rt::KernelInstance copy, maxdiff;
    rt::DevicePtr result = 0;
    // Reductions (add_small): second passes, partials of the first, reduced value.
    rt::KernelInstance final_max, final_sum;
    rt::DevicePtr partial = 0, reduced = 0;
    std::map<Mix, double> stream_ms; // timed stream ceilings (stream_fraction)

    Pool(rt::Runtime& rt, const TestGrid& grid) : g(grid) {
        const std::string prec = sizeof(T) == 4 ? "float" : "double";
        auto& drv = rt::Driver::get();
        const rt::KernelDef cdef = util_def("bench_copy", prec),
                            mdef = util_def("bench_maxdiff", prec);
        copy = rt.instantiate(cdef, rt::ProblemSize(1));
        maxdiff = rt.instantiate(mdef, rt::ProblemSize(1));
        result = drv.alloc(8);
        final_max = rt.instantiate(gpu::make_reduce_final_def(prec, 0), rt::ProblemSize(1));
        final_sum = rt.instantiate(gpu::make_reduce_final_def("double", 1), rt::ProblemSize(1));
        partial = drv.alloc(1024 * sizeof(double)), reduced = drv.alloc(8);
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
        const size_t cells = size_t(n3());
        for (int a = 0; a < 8; ++a) {
            f3.push_back(fill(cells, 100 + a));
            pristine.push_back(drv.alloc(cells * sizeof(T)));
            copy_array(pristine.back(), f3.back(), n3());
        }
        // A reference copy per 3-D array: any of them may be an output (pres_out_rk has 6).
        for (size_t a = 0; a < f3.size(); ++a) ref.push_back(drv.alloc(cells * sizeof(T)));
        for (int a = 0; a < 6; ++a) z.push_back(fill(size_t(g.kcells()), 200 + a));
        for (int a = 0; a < 8; ++a) {
            s2.push_back(fill(size_t(g.kk()), 300 + a));
            s2_pristine.push_back(drv.alloc(size_t(g.kk()) * sizeof(T)));
            copy_array(s2_pristine.back(), s2.back(), g.kk());
        }
        drv.synchronize();
    }
    ~Pool() {
        auto& drv = rt::Driver::get();
        for (auto* v : {&f3, &pristine, &ref, &z, &s2, &s2_pristine})
            for (rt::DevicePtr p : *v) drv.free(p);
        drv.free(result), drv.free(partial), drv.free(reduced);
    }
    long long n3() const {
        return g.pad() + g.ncells();
    }
    void copy_array(rt::DevicePtr dst, rt::DevicePtr src, long long n) const {
        copy.launch(nullptr, dst, src, n);
    }
    // Every array back to its initial random contents.
    void reset() const {
        for (size_t a = 0; a < f3.size(); ++a) copy_array(f3[a], pristine[a], n3());
        for (size_t a = 0; a < s2.size(); ++a) copy_array(s2[a], s2_pristine[a], g.kk());
    }
    double max_diff(rt::DevicePtr a, rt::DevicePtr b, long long n) const {
        auto& drv = rt::Driver::get();
        drv.memset8(result, 0, 8);
        maxdiff.launch(nullptr, a, b, n, result);
        double v;
        drv.download(&v, result, 8);
        return v;
    }
};

// An array a kernel writes: allocation base and element count.
struct Output {
    rt::DevicePtr base;
    long long n;
};

// Fills kernel F from the pool; returns the output arrays and the fewest-bytes count.
template <class F, typename T>
F make_kernel(const Pool<T>& pool, std::vector<Output>& outputs, int& arrays, Mix& mix) {
    F f = blank_kernel<F>(pool.g);
    size_t nf = 0, nz = 0, n2 = 0;
    arrays = 0;
    for (const gpu::Member& m : gpu::declared_members<F>()) {
        char* at = reinterpret_cast<char*>(&f) + m.offset;
        rt::DevicePtr p = 0;
        if (m.shape == gpu::Shape::field) {
            const rt::DevicePtr base = pool.f3.at(nf++);
            p = base + pool.g.pad() * sizeof(T); // the aligned layout of Field3d
            arrays += m.use == sq::Use::inout ? 2 : 1;
            ++(m.use == sq::Use::inout ? mix.rw : m.use == sq::Use::out ? mix.w : mix.in);
            if (m.use != sq::Use::in) outputs.push_back({base, pool.n3()});
        } else if (m.shape == gpu::Shape::profile) {
            p = pool.z.at(nz++);
        } else if (m.shape == gpu::Shape::plane) {
            p = pool.s2.at(n2++);
        } else if (m.shape == gpu::Shape::real) {
            const T v = T(0.97);
            std::memcpy(at, &v, sizeof v);
            continue;
        } else {
            if (m.name == "mason") std::memset(at, 1, 1);
            continue;
        }
        std::memcpy(at, &p, sizeof p);
    }
    return f;
}

double median_ms(const std::function<void()>& launch, int reps) {
    auto& drv = rt::Driver::get();
    for (int w = 0; w < 3; ++w) launch();
    void* e0 = drv.event_create();
    void* e1 = drv.event_create();
    std::vector<double> t;
    for (int n = 0; n < reps; ++n) {
        drv.event_record(e0, nullptr);
        launch();
        drv.event_record(e1, nullptr);
        drv.event_synchronize(e1);
        t.push_back(drv.event_elapsed_ms(e0, e1));
    }
    drv.event_destroy(e0);
    drv.event_destroy(e1);
    std::nth_element(t.begin(), t.begin() + reps / 2, t.end());
    return t[size_t(reps / 2)];
}

double median_ms(const rt::KernelInstance& k, const auto& s, int reps) {
    return median_ms([&] { s.launch(k); }, reps);
}

// Fraction of the copy ceiling that bench_stream reaches for mix over the pool's whole
// arrays (ghosts included). Reads come from f3 and pristine, updates and writes go to the
// reference arrays (scratch between checks), so every array is a distinct allocation.
template <typename T>
double stream_fraction(rt::Runtime& rt, Pool<T>& pool, const Mix& m, int reps) {
    const long long n = pool.n3();
    auto it = pool.stream_ms.find(m);
    if (it == pool.stream_ms.end()) {
        if (m.in > kMaxIn || m.rw + m.w > int(pool.ref.size()) || m.rw > kMaxOut || m.w > kMaxOut)
            return 0;
        StreamArraysHost a;
        for (int q = 0; q < m.in; ++q)
            a.in[q] = q < int(pool.f3.size()) ? pool.f3[size_t(q)]
                                              : pool.pristine.at(size_t(q) - pool.f3.size());
        for (int q = 0; q < m.rw; ++q) a.rw[q] = pool.ref.at(size_t(q));
        for (int q = 0; q < m.w; ++q) a.w[q] = pool.ref.at(size_t(m.rw + q));
        const rt::KernelInstance k =
            rt.instantiate(stream_def(sizeof(T) == 4 ? "float" : "double", m), rt::ProblemSize(n));
        it = pool.stream_ms.emplace(m, median_ms([&] { k.launch(nullptr, a, n); }, reps)).first;
    }
    return double(m.arrays()) * double(n) * sizeof(T) / (it->second * 1e-3) / kCeiling;
}

// One kernel of the benchmark: how it runs on the pool's arrays and what it writes.
template <typename T>
struct Search {
    std::string name;
    bool main = false;  // advec_u_2i5, diff_uvw_smag: the longer search
    bool small = false; // 2-D kernels and reductions: every configuration is timed
    sq::Range3 range;
    rt::ProblemSize problem;
    size_t def_index = 0;
    std::function<void(const rt::KernelInstance&)> launch; // on the pool's arrays
    std::vector<Output> outputs;
    std::function<double()> result; // reductions: the reduced value of the last launch
    int arrays = 0;                 // fewest bytes = arrays x points x sizeof(T)
    Mix mix;                        // how the arrays are accessed (3-D kernels only)
};

bool wanted(const Options& o, std::string_view name) {
    return o.only.empty() ||
           ("," + o.only + ",").find("," + std::string(name) + ",") != std::string::npos;
}

template <class F, typename T>
void add_search(const Options& o, Pool<T>& pool, std::vector<rt::KernelDef>& defs,
                std::vector<Search<T>>& searches) {
    if (!wanted(o, F::name)) return;
    Search<T> s;
    s.name = F::name;
    s.main = s.name == "advec_u_2i5" || s.name == "diff_uvw_smag";
    s.range = pool.g.template range<F>();
    s.problem = gpu::problem_of(s.range);
    const F f = make_kernel<F>(pool, s.outputs, s.arrays, s.mix);
    defs.push_back(gpu::def_for(s.range, f));
    s.def_index = defs.size() - 1;
    s.launch = [r = s.range, f](const rt::KernelInstance& k) { gpu::launch_instance(k, r, f); };
    searches.push_back(std::move(s));
}

// A kernel of the model that is not in Kernels3d, filled by hand (add_model_searches). The
// 2-D kernels and the reductions have small spaces (at most 16 configurations), every one
// of which is timed; the halo kernels (3-D traversals) are searched like the 3-D kernels. A
// reduction's launch is both passes, as in the model (Backend::reduce); its result is read back for
// the check against the default.
template <typename T, class F>
void add_other(const Options& o, Pool<T>& pool, std::vector<rt::KernelDef>& defs,
               std::vector<Search<T>>& searches, const F& f, gpu::Form form, sq::Range3 range,
               std::vector<Output> outputs, int arrays) {
    if (!wanted(o, F::name)) return;
    Search<T> s;
    s.name = F::name;
    s.range = range;
    s.problem = gpu::problem_of(range);
    s.outputs = std::move(outputs);
    s.arrays = arrays;
    defs.push_back(gpu::def_for(range, f, form));
    s.def_index = defs.size() - 1;
    if (form == gpu::Form::traverse3d) {
        s.launch = [range, f](const rt::KernelInstance& k) { gpu::launch_instance(k, range, f); };
    } else if (form == gpu::Form::traverse2d) {
        s.launch = [f](const rt::KernelInstance& k) { k.launch(nullptr, f); };
    } else {
        const bool sum = form == gpu::Form::reduce_sum;
        const rt::KernelInstance* fin = sum ? &pool.final_sum : &pool.final_max;
        s.launch = [f, fin, p = &pool](const rt::KernelInstance& k) {
            void* p1[2] = {const_cast<F*>(&f), const_cast<rt::DevicePtr*>(&p->partial)};
            k.launch_args(nullptr, p1, 2);
            int n = int(k.geometry().grid[0]);
            void* p2[3] = {const_cast<rt::DevicePtr*>(&p->partial), &n,
                           const_cast<rt::DevicePtr*>(&p->reduced)};
            fin->launch_args(nullptr, p2, 3);
        };
        s.result = [sum, p = &pool] {
            double v = 0;
            T t = 0;
            if (sum)
                rt::Driver::get().download(&v, p->reduced, sizeof v);
            else
                rt::Driver::get().download(&t, p->reduced, sizeof t), v = double(t);
            return v;
        };
    }
    s.small = form != gpu::Form::traverse3d;
    searches.push_back(std::move(s));
}

// The model's 2-D kernels (boundary ghost levels, surface layer), reductions (time step
// limits, diagnostics) and halo kernels, on the pool's arrays. arrays: the planes (2-D) or
// fields (3-D) each reads or writes once, or the values each halo point moves.
template <typename T>
void add_model_searches(const Options& o, Pool<T>& pool, std::vector<rt::KernelDef>& defs,
                        std::vector<Search<T>>& searches) {
    using gpu::Form;
    const TestGrid& g = pool.g;
    const int jj = g.jj(), kk = g.kk(), ks = g.kstart(), ke = g.kend();
    auto f3 = [&](int a) { return reinterpret_cast<T*>(pool.f3[a] + g.pad() * sizeof(T)); };
    auto s2 = [&](int a) { return reinterpret_cast<T*>(pool.s2[a]); };
    auto z = [&](int a) { return reinterpret_cast<const T*>(pool.z[a]); };
    const Output field0{pool.f3[0], pool.n3()};
    auto plane = [&](int a) { return Output{pool.s2[a], g.kk()}; };
    const sq::Range3 r2 = g.range_2d(), rc = g.range<sq::Cfl<T>>();
    const sq::Range3 r2_ext{r2.i0 - 1, r2.i1, r2.j0 - 1, r2.j1, 0, 1}; // as surface_layer()
    const T dxi = T(0.9), dyi = T(1.1), z1 = T(0.6), z0m = T(0.1);
    auto add = [&](const auto& f, Form form, sq::Range3 r, std::vector<Output> out, int n) {
        add_other(o, pool, defs, searches, f, form, r, std::move(out), n);
    };
    add(sq::GhostBottom<T>{f3(0), s2(0), T(0), T(0.5), 0, ks, jj, kk}, Form::traverse2d, r2,
        {field0}, 3);
    add(sq::GhostTop<T>{f3(0), T(0.3), T(0.5), 1, ke, jj, kk}, Form::traverse2d, r2, {field0}, 2);
    add(sq::GhostW<T>{f3(0), ks, ke, jj, kk}, Form::traverse2d, r2, {field0}, 4);
    add(sq::GhostMirror<T>{f3(0), ks, ke, jj, kk}, Form::traverse2d, r2, {field0}, 4);
    add(sq::SurfaceMost<T>{s2(0), s2(1), f3(1), f3(2), s2(2), T(0.03), T(0), T(0), z1, z0m,
                           sq::most::umin_default<T>(), ks, jj, kk},
        Form::traverse2d, r2_ext, {plane(0), plane(1)}, 5);
    add(sq::SurfaceMomentumFlux<T>{s2(0), s2(1), s2(2), s2(3), f3(1), f3(2), s2(4), s2(5), T(0),
                                   T(0), z1, z0m, ks, jj, kk},
        Form::traverse2d, r2, {plane(0), plane(1), plane(2), plane(3)}, 8);
    add(sq::SurfaceScalar<T>{s2(0), s2(1), s2(4), s2(5), z1, jj}, Form::traverse2d, r2, {plane(0)},
        4);
    add(sq::Cfl<T>{f3(1), f3(2), f3(3), z(0), dxi, dyi, jj, kk}, Form::reduce_max, rc, {}, 3);
    add(sq::DnSmag<T>{f3(4), z(0), dxi, dyi, T(1.0 / 3), jj, kk}, Form::reduce_max, rc, {}, 1);
    add(sq::DnConst<T>{T(0.7), z(0), dxi, dyi}, Form::reduce_max, rc, {}, 0);
    add(sq::AbsDivergence<T>{f3(1), f3(2), f3(3), z(0), z(1), z(2), dxi, dyi, jj, kk},
        Form::reduce_max, rc, {}, 3);
    add(sq::KineticEnergyDz<T>{f3(1), f3(2), f3(3), z(3), jj, kk}, Form::reduce_sum, rc, {}, 3);
    add(sq::ValueDz<T>{f3(1), z(3), jj, kk}, Form::reduce_sum, rc, {}, 1);
    add(sq::SurfaceStableLimit<T>{s2(5), z1, z0m, jj}, Form::reduce_sum, r2, {}, 1);
    // Halos of a 3-D field (Halo::exchange_x, exchange_y: one rank wraps, several pack,
    // exchange and unpack). Each halo point moves 4 values (2 sides, read and write).
    const int gc = g.igc, nk = g.kcells(), i0 = g.igc, i1 = g.igc + g.itot, j0 = g.igc,
              j1 = g.igc + g.jtot;
    const sq::Range3 rx{0, gc, j0, j1, 0, nk}, ry{0, g.icells(), 0, gc, 0, nk};
    const long nx = long(gc) * g.jtot * nk, ny = long(gc) * g.icells() * nk;
    T* const buf = f3(5);
    const T* const recv = f3(6);
    const Output sent_x{pool.f3[5], g.pad() + 2 * nx}, sent_y{pool.f3[5], g.pad() + 2 * ny};
    add(sq::HaloWrapX<T>{f3(0), i0, i1, g.itot, jj, kk}, Form::traverse3d, rx, {field0}, 4);
    add(sq::HaloWrapY<T>{f3(0), j0, j1, g.jtot, jj, kk}, Form::traverse3d, ry, {field0}, 4);
    add(sq::HaloPackX<T>{buf, buf + nx, f3(0), i0, i1, j0, g.jtot, gc, jj, kk}, Form::traverse3d,
        rx, {sent_x}, 4);
    add(sq::HaloUnpackX<T>{f3(0), recv, recv + nx, i0, i1, j0, g.jtot, gc, jj, kk},
        Form::traverse3d, rx, {field0}, 4);
    add(sq::HaloPackY<T>{buf, buf + ny, f3(0), j0, j1, gc, g.icells(), jj, kk}, Form::traverse3d,
        ry, {sent_y}, 4);
    add(sq::HaloUnpackY<T>{f3(0), recv, recv + ny, j0, j1, gc, g.icells(), jj, kk},
        Form::traverse3d, ry, {field0}, 4);
}

// One configuration timed: its median and how far its output lay from the default's.
struct Timing {
    rt::Config config;
    double ms = 0, diff = 0;
};

// The tuner's view of one kernel of the benchmark: a candidate is compiled through the
// runtime's cache, run once from the pool's initial data, compared with the default's
// output (relative to it, within 1e-12 in double and 1e-5 in float: a max is exact, a sum
// changes with the block size only by its rounding) and timed. Every verified candidate
// is kept in `timings`, the default first.
template <typename T>
class BenchEvaluator : public tuner::KernelEvaluator {
public:
    BenchEvaluator(rt::Runtime& rt, Pool<T>& pool, const rt::KernelDef& def, const Search<T>& s,
                   int reps)
        : KernelEvaluator(rt, def, s.problem), pool_(pool), s_(s), reps_(reps) {
        const rt::KernelInstance k =
            rt.instantiate_candidate(def, s.problem, def.space().default_config());
        pool.reset();
        s.launch(k);
        for (size_t a = 0; a < s.outputs.size(); ++a)
            pool.copy_array(pool.ref.at(a), s.outputs[a].base, s.outputs[a].n);
        ref_result_ = s.result ? s.result() : 0;
        rt.unload(k);
    }
    tuner::Measurement measure(const rt::Config& c) override {
        rt::KernelInstance k;
        if (const auto failed = load(c, k)) return *failed;
        pool_.reset();
        s_.launch(k);
        const double diff = difference();
        const double tol = sizeof(T) == 8 ? 1e-12 : 1e-5;
        tuner::Measurement m{tuner::Status::verify, 0, fmt::format("differs by {:.3g}", diff)};
        if (diff <= tol) {
            const double ms = median_ms(k, s_, reps_);
            timings.push_back({c, ms, diff});
            m = {tuner::Status::ok, ms * 1e-3, {}};
        }
        runtime().unload(k);
        return m;
    }

    std::vector<Timing> timings;

private:
    // The largest deviation of the last launch's outputs from the default's, relative.
    double difference() const {
        double worst = 0;
        for (size_t a = 0; a < s_.outputs.size(); ++a) {
            const Output& out = s_.outputs[a];
            worst = std::max(worst, pool_.max_diff(out.base, pool_.ref.at(a), out.n) /
                                        pool_.max_diff(pool_.ref.at(a), 0, out.n));
        }
        if (s_.result) // relative, or absolute when the reference is zero
            worst = std::max(worst, std::abs(s_.result() - ref_result_) /
                                        std::max(std::abs(ref_result_), 1e-300));
        return worst;
    }

    Pool<T>& pool_;
    const Search<T>& s_;
    int reps_;
    double ref_result_ = 0;
};

// The configurations timed without a search: every one of a small space; otherwise the
// default, the seed wisdom's record for the size and --config, where valid.
std::vector<rt::Config> direct_candidates(rt::Runtime& rt, const Options& o,
                                          const rt::KernelDef& def, const rt::ProblemSize& p,
                                          bool small, std::optional<rt::Config>& start) {
    const rt::ConfigSpace& space = def.space();
    std::vector<rt::Config> out{space.default_config()};
    auto add = [&](rt::Config c) {
        if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(std::move(c));
    };
    if (small)
        for (rt::Config& c : space.enumerate(p, rt.device())) add(std::move(c));
    if (!o.seed_wisdom.empty()) {
        const auto w = rt::Wisdom::load(def.key(), space, {o.seed_wisdom});
        for (const auto& r : w.records())
            if (r.problem == p && r.env.device_name == rt.device().name &&
                space.is_valid(r.config, p, rt.device()))
                start = r.config;
        if (start) add(*start);
    }
    if (!o.config.empty()) {
        std::string why;
        try {
            rt::Config c = space.config_from_json(json::parse(o.config));
            if (space.is_valid(c, p, rt.device(), &why)) add(std::move(c));
        } catch (const std::exception& e) {
            why = e.what();
        }
        if (!why.empty())
            std::fprintf(stderr, "  %s: --config not valid here: %s\n", def.key().c_str(),
                         why.c_str());
    }
    return out;
}

// Prints and records one kernel's default and best (the fastest verified timing).
template <typename T>
void report(rt::Runtime& rt, const Options& o, Pool<T>& pool, const rt::KernelDef& d,
            const Search<T>& s, const std::vector<Timing>& timings, json& out) {
    const double points = double(s.problem[0]) * double(s.problem[1]) * double(s.problem[2]);
    const double bytes = s.arrays * points * sizeof(T);
    size_t best = 0;
    for (size_t n = 1; n < timings.size(); ++n)
        if (timings[n].ms < timings[best].ms) best = n;
    const double t_default = timings[0].ms, best_ms = timings[best].ms;
    const double frac_d = bytes / (t_default * 1e-3) / kCeiling;
    const double frac_b = bytes / (best_ms * 1e-3) / kCeiling;
    // What the same array mix reaches with no stencil, and a plain copy, in this process
    // (machines differ by up to 25 %: compare the best against these, not only 3.99 TB/s).
    const int reps = o.quick ? 7 : 15;
    const bool mixed = s.mix.arrays() == s.arrays && s.arrays > 0;
    const double frac_stream = mixed ? stream_fraction(rt, pool, s.mix, reps) : 0;
    const double frac_copy = stream_fraction(rt, pool, Mix{1, 0, 1}, reps);
    char stream[16] = "     -"; // not measured: not a 3-D kernel, or a mix the pool lacks
    if (frac_stream > 0) std::snprintf(stream, sizeof stream, "%5.1f%%", 100 * frac_stream);
    std::printf("%-22s %4lldx%-4lldx%-4lld %2d arr  default %8.4f ms %5.1f%%   best %8.4f ms "
                "%5.1f%%  stream %s  copy %5.1f%%  (%zu configs)  [%s]\n",
                d.key().c_str(), (long long)s.problem[0], (long long)s.problem[1],
                (long long)s.problem[2], s.arrays, t_default, 100 * frac_d, best_ms, 100 * frac_b,
                stream, 100 * frac_copy, timings.size(),
                d.space().format(timings[best].config).c_str());
    std::fflush(stdout);
    // Every configuration timed, so that a search's landscape can be studied afterwards.
    json all = json::array();
    for (const Timing& t : timings)
        all.push_back({{"config", d.space().config_to_json(t.config)}, {"ms", t.ms}});
    out.push_back({{"key", d.key()},
                   {"problem", {s.problem[0], s.problem[1], s.problem[2]}},
                   {"arrays", s.arrays},
                   {"bytes", bytes},
                   {"default_ms", t_default},
                   {"default_fraction", frac_d},
                   {"best_ms", best_ms},
                   {"best_fraction", frac_b},
                   {"best_config", d.space().config_to_json(timings[best].config)},
                   {"best_vs_default_diff", timings[best].diff},
                   {"mix", {s.mix.in, s.mix.rw, s.mix.w}},
                   {"stream_fraction", frac_stream > 0 ? json(frac_stream) : json(nullptr)},
                   {"copy_fraction", frac_copy},
                   {"configs", timings.size()},
                   {"layout_align", pool.g.align},
                   {"timings", std::move(all)}});
    if (!o.wisdom_dir.empty())
        rt::append_wisdom(o.wisdom_dir, d.key(), d.space(),
                          rt::WisdomRecord{s.problem, timings[best].config, best_ms * 1e-3,
                                           t_default * 1e-3, rt::current_provenance(rt.device()),
                                           "", rt::TuningInfo()});
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
        std::optional<rt::Config> start;
        for (const rt::Config& c : direct_candidates(rt, o, def, s.problem, s.small, start)) {
            const tuner::Measurement m = ev.measure(c);
            if (m.status != tuner::Status::ok)
                std::fprintf(stderr, "  %s [%s]: %s: %s\n", def.key().c_str(),
                             def.space().format(c).c_str(), tuner::status_name(m.status),
                             m.detail.c_str());
        }
        if (ev.timings.empty() || ev.timings[0].config != def.space().default_config()) {
            std::fprintf(stderr, "  %s: the default configuration failed; skipped\n",
                         def.key().c_str());
            continue;
        }
        const int evals = s.small ? 0 : s.main ? o.evals : o.others;
        if (evals > 0) {
            tuner::TuneOptions to;
            to.strategy = o.strategy;
            to.seed = o.seed;
            to.budget = {size_t(evals), 0};
            to.start = start;
            tuner::Journal journal(def.space(),
                                   {def.key(), rt.device().name, to.strategy, s.problem, to.seed,
                                    tuner::default_batch(to), "", ""});
            try {
                tuner::tune(def.space(), s.problem, rt.device(), ev, journal, to);
            } catch (const std::runtime_error& e) { // what was timed is still reported
                std::fprintf(stderr, "  %s: the search stopped: %s\n", def.key().c_str(), e.what());
            }
        }
        timed += ev.timings.size();
        report(rt, o, pool, def, s, ev.timings, out);
    }
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("-- %dx%dx%d %s: %zu variants verified and timed in %.1f s\n", grid.itot, grid.jtot,
                grid.ktot, sizeof(T) == 4 ? "float" : "double", timed, secs);
    // Written after every size and precision, so a run cut short keeps what it measured.
    if (!o.json_path.empty())
        std::ofstream(o.json_path) << json{
            {"ceiling_bytes_per_s", kCeiling},
            {"device", rt.device().name},
            {"kernels", out}}.dump(1);
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
