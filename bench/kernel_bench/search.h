#pragma once
// The configuration search of one kernel: the tuner's evaluator over the pool (verify
// against the default's output, then time), the configurations timed directly, and the
// tuner's search (src/tuner, as `squall tune`) from the seed record or the default.
#include "bench/kernel_bench/array_pool.h"
#include "bench/kernel_bench/bench_kernels.h"
#include "bench/kernel_bench/options.h"
#include "bench/kernel_bench/timing.h"
#include "tuner/capture_evaluator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace squall::kernel_bench {

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

// The configurations timed without a search, each with its Timing::origin: the default,
// every one of a small space, the seed wisdom's record for the size and this device, and
// --config, where valid. One that is two of these is timed once ("record+config").
struct Candidate {
    rt::Config config;
    std::string origin;
};
std::vector<Candidate> direct_candidates(rt::Runtime& rt, const Options& o,
                                         const rt::KernelDef& def, const rt::ProblemSize& p,
                                         bool small, std::optional<rt::Config>& start);

// Times the direct candidates, then searches with the evaluations the kernel is given;
// every verified timing lands in ev.timings. False when the default failed (say so and skip).
template <typename T>
bool search_kernel(rt::Runtime& rt, const Options& o, const rt::KernelDef& def, const Search<T>& s,
                   BenchEvaluator<T>& ev) {
    std::optional<rt::Config> start;
    for (const Candidate& c : direct_candidates(rt, o, def, s.problem, s.small, start)) {
        const tuner::Measurement m = ev.measure(c.config);
        if (m.status == tuner::Status::ok)
            ev.timings.back().origin = c.origin;
        else
            std::fprintf(stderr, "  %s [%s] (%s): %s: %s\n", def.key().c_str(),
                         def.space().format(c.config).c_str(), c.origin.c_str(),
                         tuner::status_name(m.status), m.detail.c_str());
    }
    if (ev.timings.empty() || ev.timings[0].config != def.space().default_config()) {
        std::fprintf(stderr, "  %s: the default configuration failed; skipped\n",
                     def.key().c_str());
        return false;
    }
    const int evals = s.small ? 0 : s.main ? o.evals : o.others;
    if (evals > 0) {
        tuner::TuneOptions to;
        to.strategy = o.strategy;
        to.seed = o.seed;
        to.budget = {size_t(evals), 0};
        to.start = start;
        tuner::Journal journal(def.space(), {def.key(), rt.device().name, to.strategy, s.problem,
                                             to.seed, tuner::default_batch(to), "", ""});
        try {
            tuner::tune(def.space(), s.problem, rt.device(), ev, journal, to);
        } catch (const std::runtime_error& e) { // what was timed is still reported
            std::fprintf(stderr, "  %s: the search stopped: %s\n", def.key().c_str(), e.what());
        }
    }
    return true;
}

} // namespace squall::kernel_bench
