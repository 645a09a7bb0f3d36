// The evaluator of a captured launch on the GPU: a candidate is compiled through the
// runtime's cache, launched on the capture's inputs, its outputs compared with the
// capture's reference on the device, and timed with events.
#pragma once

#include "runtime/replay.h"
#include "tuner/tune.h"

namespace squall::tuner {

struct VerifyPolicy {
    // Per-point arrays must match bitwise unless `tolerant`; partial sums (reductions)
    // are compared within the tolerance of their precision, as deviation / max |reference|.
    bool tolerant = false;
    double tolerance_f64 = 1e-12, tolerance_f32 = 1e-5;
};

// How a candidate is timed: one launch to warm up, then the median of repeated launches,
// each between two events, with enough repetitions to fill `target_seconds` (within
// [min_reps, max_reps]). The L2 cache is not flushed between launches (docs/tuning.md).
struct TimingOptions {
    double target_seconds = 0.01;
    int min_reps = 5, max_reps = 100;
};

class CaptureEvaluator : public Evaluator {
public:
    CaptureEvaluator(rt::Runtime& rt, rt::DeviceCapture& capture, VerifyPolicy verify = {},
                     TimingOptions timing = {});
    std::string prepare(const rt::Config& c) override;
    Measurement measure(const rt::Config& c) override;
    std::vector<double> remeasure(const std::vector<rt::Config>& cs, int rounds) override;
    std::optional<uint64_t> fingerprint(const rt::Config& c) override;

    // Candidates whose outputs differ from the reference but lie within the tolerance.
    size_t inexact() const { return inexact_; }

private:
    double time_median(const rt::KernelInstance& k, int reps);

    rt::Runtime* rt_;
    rt::DeviceCapture* capture_;
    VerifyPolicy verify_;
    TimingOptions timing_;
    size_t inexact_ = 0;
};

// The bandwidth of a plain device copy kernel over `bytes` (read plus written bytes per
// second): the ceiling a memory-bound kernel is reported against.
double copy_bandwidth(rt::Runtime& rt, size_t bytes = size_t(1) << 30);

} // namespace squall::tuner
