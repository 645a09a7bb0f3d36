#pragma once
// Launch timing: the median of event-timed launches, used alike for the candidates and for
// the stream and copy ceilings they are reported against (timed once per array mix).
#include "bench/kernel_bench/array_pool.h"
#include "bench/kernel_bench/ceiling_kernels.h"
#include "runtime/runtime.h"

#include <functional>
#include <string>

namespace squall::kernel_bench {

// Median of reps event-timed launches, after 3 untimed.
double median_ms(const std::function<void()>& launch, int reps);

// The same for instance k of a Search's kernel, launched as s launches it.
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

// One configuration timed: its median, how far its output lay from the default's, and why it
// was timed ("default", "record" of the seed wisdom, "config" given on the command line,
// "enumerated" of a small space, or "search"), so that a candidate can be told from the
// record in the JSON.
struct Timing {
    rt::Config config;
    double ms = 0, diff = 0;
    std::string origin = "search";
};

} // namespace squall::kernel_bench
