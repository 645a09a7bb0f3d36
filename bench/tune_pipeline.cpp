// The tuner's pipeline without a GPU: tune() on the real configuration space of
// advec_u_2i5 or diff_uvw_smag (512^3, sm_90) with the synthetic objective of the tuner's
// tests, and an evaluator whose compiles sleep for a modelled NVRTC time and whose
// measurements sleep for a modelled GPU time. For each number of batches in flight it
// prints evaluations per second, how much of the search the measuring thread waited for
// compiles, how busy the compile threads were, and how close the search got: what more
// batches in flight could give, before a GPU run measures it (its figures: the git history
// of docs/performance.md).
//
// The compile-time model: base x (tile points per thread)^0.75, times a lognormal factor
// (sigma 0.3) fixed per configuration. Base 0.5 s gives 0.5 s for one point per thread and
// 6.7 s for 32, the spread seen on the H200 machine's cores (0.57-1.59 s per compile on
// average in annealing top-ups, up to about 14 s for the deepest tiles).
//
// Usage: tune_pipeline [--kernel advec_u_2i5|diff_uvw_smag] [--strategy local]
//                      [--threads 16] [--seconds 30] [--scale 0.1] [--in-flight 2,3,4]
//                      [--seeds 1,2,3] [--compile-base 0.5] [--measure 0.01]
// --scale shrinks every sleep and the budget alike; the figures are in unscaled seconds.
// Not scaled: the strategy's own CPU time and the measuring thread's 200 us polls, so a
// small scale overstates them (forest's model most). The wall time includes the
// finalists' measurements, and the GPU wait the default's compile, for every N alike.
#include "tests/tuner/synthetic.h"
#include "tuner/journal.h"
#include "tuner/tune.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace squall;
using namespace squall::tuner;
using namespace squall::tuner::testing;

struct Args {
    std::string kernel = "advec_u_2i5", strategy = "local";
    unsigned threads = 16;
    double seconds = 30, scale = 0.1, compile_base = 0.5, measure = 0.01;
    std::vector<size_t> in_flight{2, 3, 4};
    std::vector<uint64_t> seeds{1, 2, 3};
};

template <class T>
std::vector<T> list(const std::string& text) {
    std::vector<T> out;
    std::stringstream ss(text);
    for (std::string item; std::getline(ss, item, ',');) out.push_back(T(std::stoull(item)));
    return out;
}

Args parse(int argc, char** argv) {
    Args a;
    for (int n = 1; n < argc; n += 2) {
        const std::string k = argv[n];
        if (n + 1 == argc) {
            std::fprintf(stderr, "tune_pipeline: %s needs a value\n", k.c_str());
            std::exit(2);
        }
        const std::string v = argv[n + 1];
        if (k == "--kernel")
            a.kernel = v;
        else if (k == "--strategy")
            a.strategy = v;
        else if (k == "--threads")
            a.threads = unsigned(std::stoul(v));
        else if (k == "--seconds")
            a.seconds = std::stod(v);
        else if (k == "--scale")
            a.scale = std::stod(v);
        else if (k == "--compile-base")
            a.compile_base = std::stod(v);
        else if (k == "--measure")
            a.measure = std::stod(v);
        else if (k == "--in-flight")
            a.in_flight = list<size_t>(v);
        else if (k == "--seeds")
            a.seeds = list<uint64_t>(v);
        else {
            std::fprintf(stderr, "tune_pipeline: unknown option %s\n", k.c_str());
            std::exit(2);
        }
    }
    if (a.seeds.empty() || a.in_flight.empty() || !(a.scale > 0)) {
        std::fprintf(stderr, "tune_pipeline: give at least one seed and batch count, scale > 0\n");
        std::exit(2);
    }
    return a;
}

void sleep_for(double seconds) {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

// Compiles and measurements that take modelled time and no CPU.
class ModelledEvaluator : public Evaluator {
public:
    ModelledEvaluator(const Case& c, const Args& a) : case_(&c), f_(c), a_(&a) {
        const rt::ConfigSpace& s = c.space();
        for (const char* name : {"tile_x", "tile_y", "tile_z"})
            tile_.push_back(size_t(s.param_index(name)));
    }
    std::string prepare(const rt::Config& c) override {
        sleep_for(compile_seconds(c) * a_->scale);
        return "";
    }
    Measurement measure(const rt::Config& c) override {
        sleep_for(a_->measure * a_->scale);
        return {Status::ok, f_(c) * 1e-3, {}};
    }
    double compile_seconds(const rt::Config& c) const {
        double points = 1;
        for (size_t p : tile_) points *= double(c.values[p].as_int());
        // A lognormal factor fixed by the configuration, so every run compiles it alike.
        std::mt19937_64 rng(std::hash<std::string>()(case_->space().format(c)));
        const double noise = std::exp(0.3 * std::normal_distribution<double>()(rng));
        return a_->compile_base * std::pow(points, 0.75) * noise;
    }
    double ratio(const rt::Config& best) const { return f_(best) / f_(f_.optimum()); }

private:
    const Case* case_;
    Objective f_;
    const Args* a_;
    std::vector<size_t> tile_;
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

} // namespace

int main(int argc, char** argv) {
    const Args a = parse(argc, argv);
    const Case* c = nullptr;
    for (const Case& k : cases())
        if (k.kernel.rfind(a.kernel, 0) == 0) c = &k;
    if (!c) {
        std::fprintf(stderr, "tune_pipeline: no kernel %s (advec_u_2i5, diff_uvw_smag)\n",
                     a.kernel.c_str());
        return 2;
    }
    std::printf("%s 512^3, %s, %u compile threads, %.0f s per run, compile %.2f s x "
                "points^0.75, measurement %.3f s, seeds %zu\n",
                a.kernel.c_str(), a.strategy.c_str(), a.threads, a.seconds, a.compile_base,
                a.measure, a.seeds.size());
    std::printf("%9s %14s %12s %12s %14s\n", "in flight", "evals per s", "GPU waiting", "pool busy",
                "end / optimum");
    for (const size_t in_flight : a.in_flight) {
        std::vector<double> rate, waiting, busy, ratio;
        for (const uint64_t seed : a.seeds) {
            ModelledEvaluator ev(*c, a);
            TuneOptions o;
            o.strategy = a.strategy;
            o.seed = seed;
            o.budget = {0, a.seconds * a.scale};
            o.compile_threads = a.threads;
            o.batches_in_flight = in_flight;
            o.full_budget_above = 0;
            Journal j(c->space(), {c->kernel, "modelled", o.strategy, c->problem, seed,
                                   default_batch(o), "def", "data", batches_in_flight(o)});
            const TuneResult r = tune(c->space(), c->problem, c->device, ev, j, o);
            const double search = r.wall; // scaled seconds
            rate.push_back(double(r.evaluations) / (search / a.scale));
            waiting.push_back(100 * r.gpu_wait / search);
            busy.push_back(100 * r.compile_busy / (double(r.compile_threads) * (r.wall + r.drain)));
            ratio.push_back(ev.ratio(r.best));
        }
        std::printf("%9zu %14.1f %11.0f %% %11.0f %% %14.3f\n", in_flight, median(rate),
                    median(waiting), median(busy), median(ratio));
    }
    return 0;
}
