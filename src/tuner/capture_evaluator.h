// The evaluator of a captured launch on the GPU: a candidate is compiled through the
// runtime's cache, launched on the capture's inputs, its outputs compared with the
// capture's reference on the device, and timed with events.
#pragma once

#include "runtime/replay.h"
#include "tuner/tune.h"

#include <map>
#include <optional>
#include <string>

namespace squall::tuner {

struct VerifyPolicy {
    // Outputs must match the reference within round-off: deviation / max |reference| at most
    // the tolerance of their precision. Configurations of one kernel do not all give the
    // same bits: the compiler fuses a point's multiplies and adds differently with deferred
    // stores or another traversal (docs/tuning.md). With `exact`, per-point arrays must
    // match bitwise (partial sums of reductions still within the tolerance).
    bool exact = false;
    double tolerance_f64 = 1e-12, tolerance_f32 = 1e-5;
    // A default configuration that misses the tolerance by at most this factor differs by
    // round-off that cancellation amplified (tolerance_after_baseline).
    double roundoff_span = 100;
};

// An output's tolerance once the default configuration's deviation from the capture is
// known (both relative to the output's largest reference value). A capture made by a
// configuration whose compiler fused multiply-adds differently differs from the default's
// result by round-off, and where the output is a small difference of large terms (the
// advective tendency of th, about 300 K, in float) that round-off exceeds the tolerance.
// A deviation within `span` times the tolerance is taken for it: the candidates are then
// held to twice the default's deviation. A larger one (or NaN) leaves the tolerance: the
// default itself is then refused, as a wrong kernel would be.
double tolerance_after_baseline(double tolerance, double baseline_deviation, double span);

// How a candidate is timed: one launch to warm up, then the median of repeated launches,
// each between two events, with enough repetitions to fill `target_seconds` (within
// [min_reps, max_reps]). The L2 cache is not flushed between launches (docs/tuning.md).
struct TimingOptions {
    double target_seconds = 0.01;
    int min_reps = 5, max_reps = 100;
};

// An evaluator of one kernel definition at one problem size on a runtime's device: what
// every such evaluator shares, the compile through the runtime's cache (prepare), the
// fingerprint and loading a candidate. measure() is the derived class's (CaptureEvaluator,
// the kernel benchmark's).
class KernelEvaluator : public Evaluator {
public:
    KernelEvaluator(rt::Runtime& rt, const rt::KernelDef& def, const rt::ProblemSize& problem);
    std::string prepare(const rt::Config& c) override;
    std::function<std::string()> detached_prepare(const rt::Config& c) override;
    std::optional<uint64_t> fingerprint(const rt::Config& c) override;

protected:
    // Loads c into k, or returns the measurement that says why it cannot be (a compile
    // error, an invalid configuration, a module the device cannot load).
    std::optional<Measurement> load(const rt::Config& c, rt::KernelInstance& k);
    rt::Runtime& runtime() const { return *rt_; }

private:
    rt::Runtime* rt_;
    const rt::KernelDef* def_;
    rt::ProblemSize problem_;
};

class CaptureEvaluator : public KernelEvaluator {
public:
    CaptureEvaluator(rt::Runtime& rt, rt::DeviceCapture& capture, VerifyPolicy verify = {},
                     TimingOptions timing = {});
    // Compares `baseline` (the tune's default configuration) with the capture and widens
    // each output's tolerance by its deviation (tolerance_after_baseline; not with
    // `exact`). Returns a line for the log when it widened one, else empty. Before measure().
    std::string calibrate(const rt::Config& baseline);
    Measurement measure(const rt::Config& c) override;
    std::vector<double> remeasure(const std::vector<rt::Config>& cs, int rounds) override;

    // Candidates whose outputs differ from the reference but lie within the tolerance.
    size_t inexact() const { return inexact_; }

private:
    double time_median(const rt::KernelInstance& k, int reps);
    // Launches k on the capture's inputs and compares its outputs (nullopt), or says why it
    // could not be launched.
    std::optional<Measurement> replay(const rt::KernelInstance& k, rt::ReplayResult& v);
    double tolerance_of(const rt::ReplayCheck& o) const;

    rt::DeviceCapture* capture_;
    VerifyPolicy verify_;
    TimingOptions timing_;
    size_t inexact_ = 0;
    std::map<std::string, double> widened_; // output -> calibrated tolerance
};

// The bandwidth of a plain device copy kernel over `bytes` (read plus written bytes per
// second): the ceiling a memory-bound kernel is reported against.
double copy_bandwidth(rt::Runtime& rt, size_t bytes = size_t(1) << 30);

} // namespace squall::tuner
