#pragma once
// What the benchmark prints and writes: one line per kernel (default, best, ceilings), its
// JSON record with every configuration timed, its wisdom record, and the JSON file.
#include "bench/kernel_bench/array_pool.h"
#include "bench/kernel_bench/bench_kernels.h"
#include "bench/kernel_bench/ceiling_kernels.h"
#include "bench/kernel_bench/options.h"
#include "bench/kernel_bench/timing.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <vector>

namespace squall::kernel_bench {

using nlohmann::json;

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
        all.push_back(
            {{"config", d.space().config_to_json(t.config)}, {"ms", t.ms}, {"origin", t.origin}});
    // A candidate given with --config against the seed record, in the same process.
    const auto timed = [&](const char* origin) {
        return std::find_if(timings.begin(), timings.end(),
                            [&](const Timing& t) { return t.origin == origin; });
    };
    if (const auto rec = timed("record"), cand = timed("config");
        rec != timings.end() && cand != timings.end())
        std::printf("  --config %.4f ms against the record's %.4f ms: %.3f times\n", cand->ms,
                    rec->ms, cand->ms / rec->ms);
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
                          rt::WisdomRecord{.problem = s.problem,
                                           .config = timings[best].config,
                                           .time = best_ms * 1e-3,
                                           .default_time = t_default * 1e-3,
                                           .env = rt::current_provenance(rt.device()),
                                           .origin = "",
                                           .tuning = rt::TuningInfo(),
                                           .unnamed_params = {}});
}

// Written after every size and precision, so a run cut short keeps what it measured.
inline void write_json(rt::Runtime& rt, const Options& o, const json& out) {
    if (!o.json_path.empty())
        std::ofstream(o.json_path) << json{
            {"ceiling_bytes_per_s", kCeiling},
            {"device", rt.device().name},
            {"kernels", out}}.dump(1);
}

} // namespace squall::kernel_bench
