#pragma once
// The device arrays every kernel of one (size, precision) runs on, filled once with random
// values and reset between candidates, so that each candidate's output can be compared
// with the default's; and how a kernel's members are pointed at them.
#include "backends/cuda/gpu_launch.h"
#include "bench/kernel_bench/ceiling_kernels.h"
#include "tests/backends/cuda/kernel_list.h"

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace squall::kernel_bench {

using gpu::testing::blank_kernel;
using gpu::testing::TestGrid;

// Random arrays shared by all kernels of one (size, precision): 3-D fields (each with a
// pristine copy for resets), vertical profiles and 2-D surface arrays.
template <typename T>
struct Pool {
    TestGrid g;
    std::vector<rt::DevicePtr> f3, pristine, ref, z, s2, s2_pristine;
    rt::KernelInstance copy, maxdiff;
    rt::DevicePtr result = 0;
    // Reductions (add_other): second passes, partials of the first, reduced value.
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
        // Profiles: tend_uvw_2i5_smag reads 7 (four metrics, three of the sponge).
        for (int a = 0; a < 10; ++a) z.push_back(fill(size_t(g.kcells()), 200 + a));
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

} // namespace squall::kernel_bench
