#include "tuner/capture_evaluator.h"

#include "runtime/driver.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace squall::tuner {

namespace {

// Unloads a candidate when its measurement is done: a tune loads thousands.
struct Loaded {
    rt::Runtime& rt;
    rt::KernelInstance k;
    ~Loaded() {
        if (k.valid()) rt.unload(k);
    }
};

std::string describe_mismatch(const rt::ReplayResult& v) {
    for (const auto& o : v.outputs)
        if (o.differing)
            return o.partials != rt::Partials::none
                       ? fmt::format("'{}': partial results fold to a value {:.3g} off (of {:.3g})",
                                     o.name, o.max_abs, o.max_ref)
                       : fmt::format("'{}': {} of {} values differ, by up to {:.3g} (largest "
                                     "|reference| {:.3g})",
                                     o.name, o.differing, o.count, o.max_abs, o.max_ref);
    return {};
}

double precision_tolerance(const rt::ReplayCheck& o, const rt::Capture& c, const VerifyPolicy& p) {
    for (const auto& a : c.arrays)
        if (a.name == o.name) return a.dtype == rt::DType::f32 ? p.tolerance_f32 : p.tolerance_f64;
    return 0;
}

// An output's deviation relative to its largest reference value (absolute where that is 0).
double relative_deviation(const rt::ReplayCheck& o) {
    return o.max_ref > 0 ? o.max_abs / o.max_ref : o.max_abs;
}

} // namespace

double tolerance_after_baseline(double tolerance, double baseline_deviation, double span) {
    if (!(baseline_deviation > tolerance) || !(baseline_deviation <= span * tolerance))
        return tolerance;
    return 2 * baseline_deviation;
}

KernelEvaluator::KernelEvaluator(rt::Runtime& rt, const rt::KernelDef& def,
                                 const rt::ProblemSize& problem)
    : rt_(&rt), def_(&def), problem_(problem) {}

std::string KernelEvaluator::prepare(const rt::Config& c) {
    return detached_prepare(c)();
}

// The program is generated here; the job holds it and the runtime's cache, nothing else.
std::function<std::string()> KernelEvaluator::detached_prepare(const rt::Config& c) {
    rt::CompileSpec spec;
    try {
        spec = rt_->compile_spec(*def_, c, problem_);
    } catch (const std::exception& e) {
        return [error = std::string(e.what())] { return error; };
    }
    return [cache = rt_->shared_cache(), spec = std::move(spec)]() -> std::string {
        try {
            cache->get(spec);
            return {};
        } catch (const std::exception& e) {
            return e.what();
        }
    };
}

std::optional<uint64_t> KernelEvaluator::fingerprint(const rt::Config& c) {
    try {
        return def_->fingerprint(c, problem_, rt_->device(), rt_->arch());
    } catch (const std::exception&) {
        return std::nullopt; // invalid here: prepare() reports why
    }
}

std::optional<Measurement> KernelEvaluator::load(const rt::Config& c, rt::KernelInstance& k) {
    try {
        k = rt_->instantiate_candidate(*def_, problem_, c);
    } catch (const rt::CompileError& e) {
        return Measurement{Status::compile, 0, e.what()};
    } catch (const std::invalid_argument& e) {
        return Measurement{Status::invalid, 0, e.what()};
    } catch (const rt::CudaError& e) { // a module the device cannot load
        return Measurement{Status::launch, 0, e.what()};
    }
    return std::nullopt;
}

CaptureEvaluator::CaptureEvaluator(rt::Runtime& rt, rt::DeviceCapture& capture, VerifyPolicy verify,
                                   TimingOptions timing)
    : KernelEvaluator(rt, capture.def(), capture.capture().problem), capture_(&capture),
      verify_(verify), timing_(timing) {}

double CaptureEvaluator::time_median(const rt::KernelInstance& k, int reps) {
    rt::Driver& drv = rt::Driver::get();
    std::vector<void*> events;
    for (int n = 0; n < 2 * reps; ++n) events.push_back(drv.event_create());
    for (int n = 0; n < reps; ++n) {
        drv.event_record(events[size_t(2 * n)], nullptr);
        capture_->launch(k);
        drv.event_record(events[size_t(2 * n + 1)], nullptr);
    }
    drv.event_synchronize(events.back());
    std::vector<double> t;
    for (int n = 0; n < reps; ++n)
        t.push_back(1e-3 * drv.event_elapsed_ms(events[size_t(2 * n)], events[size_t(2 * n + 1)]));
    for (void* e : events) drv.event_destroy(e);
    std::nth_element(t.begin(), t.begin() + reps / 2, t.end());
    return t[size_t(reps / 2)];
}

double CaptureEvaluator::tolerance_of(const rt::ReplayCheck& o) const {
    const auto w = widened_.find(o.name);
    return w != widened_.end() ? w->second : precision_tolerance(o, capture_->capture(), verify_);
}

std::optional<Measurement> CaptureEvaluator::replay(const rt::KernelInstance& k,
                                                    rt::ReplayResult& v) {
    rt::Driver& drv = rt::Driver::get();
    try {
        capture_->restore();
        capture_->launch(k);
        drv.synchronize();
    } catch (const rt::CudaError& e) {
        // A launch refused (resources) leaves the context usable; a fault does not, and
        // then nothing more can be measured.
        drv.synchronize();
        return Measurement{Status::launch, 0, e.what()};
    }
    v = capture_->compare(k);
    return std::nullopt;
}

std::string CaptureEvaluator::calibrate(const rt::Config& baseline) {
    widened_.clear();
    if (verify_.exact) return {};
    Loaded loaded{runtime(), {}};
    rt::ReplayResult v;
    // A failure here is measure()'s to report.
    if (load(baseline, loaded.k) || replay(loaded.k, v)) return {};
    std::string said;
    for (const auto& o : v.outputs) {
        if (!o.differing || o.partials != rt::Partials::none) continue;
        const double tol = precision_tolerance(o, capture_->capture(), verify_);
        const double dev = relative_deviation(o);
        const double widened = tolerance_after_baseline(tol, dev, verify_.roundoff_span);
        if (widened == tol) continue;
        widened_[o.name] = widened;
        said += fmt::format("{}'{}': the default configuration differs from the capture by {:.2g} "
                            "of its largest value, above the tolerance {:.2g}: round-off that "
                            "cancellation amplified (the capture's configuration fused "
                            "multiply-adds differently); candidates are held to {:.2g}",
                            said.empty() ? "" : "; ", o.name, dev, tol, widened);
    }
    return said;
}

Measurement CaptureEvaluator::measure(const rt::Config& c) {
    Loaded loaded{runtime(), {}};
    if (const auto failed = load(c, loaded.k)) return *failed;
    rt::ReplayResult v;
    if (const auto failed = replay(loaded.k, v)) return *failed;
    if (!v.identical()) {
        bool within = true;
        for (const auto& o : v.outputs) {
            if (!o.differing) continue;
            const bool tolerated = !verify_.exact || o.partials == rt::Partials::sum;
            if (!tolerated || !(relative_deviation(o) <= tolerance_of(o))) within = false;
        }
        if (!within) return {Status::verify, 0, describe_mismatch(v)};
        ++inexact_;
    }
    const double once = time_median(loaded.k, 1);
    const int reps = std::clamp(int(std::ceil(timing_.target_seconds / std::max(once, 1e-7))),
                                timing_.min_reps, timing_.max_reps);
    return {Status::ok, time_median(loaded.k, reps), {}};
}

std::vector<double> CaptureEvaluator::remeasure(const std::vector<rt::Config>& cs, int rounds) {
    // Longer measurements than the search's: these decide the winner.
    const TimingOptions search = timing_;
    timing_.target_seconds *= 3, timing_.min_reps *= 2, timing_.max_reps *= 3;
    std::vector<double> out = Evaluator::remeasure(cs, rounds);
    timing_ = search;
    return out;
}

double copy_bandwidth(rt::Runtime& rt, size_t bytes) {
    static const char* source = R"(
__global__ void sq_copy(double* dst, const double* src, unsigned long long n) {
    for (unsigned long long p = blockIdx.x * 256ull + threadIdx.x; p < n; p += gridDim.x * 256ull)
        dst[p] = src[p];
}
)";
    auto sources = std::make_shared<rt::SourceSet>();
    sources->add("sq_copy.cu", source);
    rt::KernelDef d("sq_copy", sources, "sq_copy.cu");
    d.tuning_key("sq_copy").tune("block_x", {256}, 256);
    d.block_size("256").grid_size("8192");
    const rt::KernelInstance k =
        rt.instantiate_candidate(d, rt::ProblemSize(1), d.space().default_config());
    rt::Driver& drv = rt::Driver::get();
    const unsigned long long n = bytes / 2 / sizeof(double);
    rt::DeviceBuffer a(n * sizeof(double)), b(n * sizeof(double));
    drv.memset8(a.get(), 0, a.size());
    void* e0 = drv.event_create();
    void* e1 = drv.event_create();
    std::vector<double> t;
    for (int r = 0; r < 12; ++r) {
        drv.event_record(e0, nullptr);
        k.launch(nullptr, b.get(), a.get(), n);
        drv.event_record(e1, nullptr);
        drv.event_synchronize(e1);
        if (r >= 2) t.push_back(1e-3 * drv.event_elapsed_ms(e0, e1));
    }
    drv.event_destroy(e0), drv.event_destroy(e1);
    std::sort(t.begin(), t.end());
    return 2.0 * double(n) * sizeof(double) / t[t.size() / 2];
}

} // namespace squall::tuner
