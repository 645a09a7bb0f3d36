#include "tuner/session.h"

#include "runtime/hash.h"
#include "runtime/log.h"
#include "runtime/wisdom.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <stdexcept>

namespace squall::tuner {

namespace {

std::string problem_text(const rt::ProblemSize& p) {
    return fmt::format("{}x{}x{}", p.extent[0], p.extent[1], p.extent[2]);
}

// The captured data: every saved array's hashes, in order.
std::string capture_hash(const rt::Capture& c) {
    rt::Hasher h;
    h.add(c.kernel.dump());
    for (const auto& a : c.arrays) h.add(a.hash_before).add(a.hash_after);
    return rt::hex64(h.digest());
}

} // namespace

double kernel_seconds(double per_kernel, double total, double total_left, size_t still_to_come) {
    if (total <= 0) return per_kernel;
    const double share = std::max(1.0, total_left / double(still_to_come + 1));
    return per_kernel > 0 ? std::min(per_kernel, share) : share;
}

void check_capture_version(const rt::Capture& c, const std::string& source) {
    if (c.squall_version != rt::squall_version())
        throw rt::CaptureError(fmt::format(
            "capture {} was written by squall {}, this is squall {}: capture it again with "
            "this version",
            source, c.squall_version.empty() ? "older than 0.1" : c.squall_version,
            rt::squall_version()));
    if (c.git_revision != rt::squall_git_revision())
        rt::log_warn("capture {} comes from revision {}, this squall is {}; its kernel "
                     "definition is the captured one",
                     source, c.git_revision.empty() ? "unknown" : c.git_revision,
                     rt::squall_git_revision());
}

Session::Session(rt::Runtime& rt, SessionOptions options) : rt_(&rt), o_(std::move(options)) {
    o_.tune.detach_compiles = true;
    ceiling_ = copy_bandwidth(rt);
}

Session::~Session() {
    wait_for_detached_compiles();
}

double Session::elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - o_.started).count();
}

bool Session::budget_left() const {
    return !(o_.total.seconds > 0 && elapsed() >= o_.total.seconds) &&
           !(o_.total.evaluations > 0 && evaluations_ >= o_.total.evaluations);
}

rt::ConfigSpace with_new_tunables_tried(const rt::ConfigSpace& space, const rt::Config& from,
                                        const std::vector<std::string>& unnamed) {
    rt::ConfigSpace s = space;
    const auto& params = space.params();
    for (const std::string& name : unnamed) {
        const int n = space.param_index(name);
        if (n < 0) continue;
        for (const rt::Value& v : params[size_t(n)].values) {
            if (v == from.values[size_t(n)]) continue;
            std::vector<std::pair<std::string, rt::Value>> start;
            for (size_t q = 0; q < params.size(); ++q)
                start.emplace_back(params[q].name, int(q) == n ? v : from.values[q]);
            s.add_start(start);
        }
    }
    return s;
}

std::vector<std::string> tunables_that_change(const rt::KernelDef& def, const rt::Config& from,
                                              const std::vector<std::string>& unnamed,
                                              const rt::ProblemSize& p, const rt::DeviceInfo& d,
                                              const std::string& arch) {
    uint64_t here = 0;
    try {
        here = def.fingerprint(from, p, d, arch);
    } catch (const std::invalid_argument&) {
        return unnamed; // a record this space no longer allows: every one counts
    }
    std::vector<std::string> changing;
    for (const std::string& name : unnamed) {
        const int n = def.space().param_index(name);
        if (n < 0) continue;
        for (const rt::Value& v : def.space().params()[size_t(n)].values) {
            if (v == from.values[size_t(n)]) continue;
            rt::Config c = from;
            c.values[size_t(n)] = v;
            try {
                if (def.fingerprint(c, p, d, arch) == here) continue;
            } catch (const std::invalid_argument&) {
                continue; // not allowed here
            }
            changing.push_back(name);
            break;
        }
    }
    return changing;
}

// With untuned_only: true (and the launch noted as kept) when this device's wisdom has a
// record of the kernel at exactly this size that squall tune wrote, and that names every
// parameter of the kernel's space that would change its program (tunables_that_change). One
// written before such a tunable existed never tried it: the kernel is tuned again, from that
// record's configuration (resume; under --from-default too), so that a short search does not lose
// what a long one found.
bool Session::keep_tuned(const rt::Capture& c, const std::string& source,
                         std::optional<rt::WisdomRecord>& resume) {
    if (!o_.untuned_only) return false;
    const rt::KernelDef def = c.kernel_def();
    const rt::WisdomSelection sel = rt_->select(def, c.problem);
    if (sel.level != 1 || !sel.record || sel.record->tuning.empty()) return false;
    const std::vector<std::string> untried = tunables_that_change(
        def, sel.record->config, sel.record->unnamed_params, c.problem, rt_->device(), rt_->arch());
    if (!untried.empty()) {
        rt::log_info("{} {}: tuned again from its record in {}, which predates {}", def.key(),
                     problem_text(c.problem), sel.record->origin, fmt::join(untried, ", "));
        resume = *sel.record;
        resume->unnamed_params = untried;
        return false;
    }
    ++kept_;
    rt::log_info("{} {}: kept, tuned by squall tune ({}, {} evaluations) in {}", def.key(),
                 problem_text(c.problem), sel.record->tuning.strategy,
                 sel.record->tuning.evaluations, sel.record->origin);
    note_launch(def.key(), c.problem, source, false);
    return true;
}

void Session::skip(const rt::Capture& c, const std::string& source) {
    note_launch(c.kernel_def().key(), c.problem, source, false);
}

void Session::note_loaded(const std::string& source) {
    for (const rt::Runtime::Loaded& l : rt_->loaded_instances())
        note_launch(l.key, l.problem, source, false, false); // those noted already are skipped
}

void Session::note_launch(const std::string& key, const rt::ProblemSize& p,
                          const std::string& source, bool tuned, bool captured) {
    if (o_.manifest.empty()) return;
    const std::string name = rt::Runtime::Loaded{key, p}.name();
    if (noted_.count(name) && !tuned) return; // noted already
    noted_.insert(name);
    const nlohmann::json j = {
        {"key", key},       {"problem_size", p.extent}, {"device", rt_->device().name},
        {"source", source}, {"tuned", tuned},           {"captured", captured}};
    std::ofstream out(o_.manifest, std::ios::app);
    out << j.dump() << '\n';
    if (!out) throw std::runtime_error("cannot append to the launch manifest " + o_.manifest);
}

void Session::tune(const rt::Capture& c, const std::string& source, size_t still_to_come) {
    check_capture_version(c, source);
    std::optional<rt::WisdomRecord> resume;
    if (keep_tuned(c, source, resume)) return;
    capture_ += c.take_seconds;
    const auto t0 = std::chrono::steady_clock::now();
    rt::DeviceCapture dc(*rt_, c);
    const rt::KernelDef& def = dc.def();
    const rt::ProblemSize& p = c.problem;
    CaptureEvaluator evaluator(*rt_, dc, o_.verify, o_.timing);
    setup_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    TuneOptions to = o_.tune;
    to.budget.seconds = kernel_seconds(to.budget.seconds, o_.total.seconds,
                                       o_.total.seconds - elapsed(), still_to_come);
    if (o_.total.evaluations > 0)
        to.budget.evaluations =
            std::min(to.budget.evaluations > 0 ? to.budget.evaluations : SIZE_MAX,
                     std::max<size_t>(1, o_.total.evaluations - evaluations_));
    if (resume)
        to.start = resume->config;
    else if (!o_.from_default)
        to.start = rt_->select(def, p).config;
    const rt::ConfigSpace space =
        resume ? with_new_tunables_tried(def.space(), resume->config, resume->unnamed_params)
               : def.space();

    const std::string data_hash = capture_hash(c);
    JournalHeader h{def.key(),
                    rt_->device().name,
                    to.strategy,
                    p,
                    to.seed,
                    default_batch(to),
                    rt::hex64(rt::hash64(c.kernel.dump())),
                    data_hash,
                    batches_in_flight(to)};
    std::unique_ptr<Journal> journal;
    if (o_.journal_dir.empty()) {
        journal = std::make_unique<Journal>(def.space(), h);
    } else {
        // Another number of batches in flight is another search: a journal of its own.
        const std::string in_flight = h.in_flight != 2 ? fmt::format("-if{}", h.in_flight) : "";
        const std::string path = fmt::format("{}/{}_{}_{}{}_s{}.jsonl", o_.journal_dir, def.key(),
                                             problem_text(p), to.strategy, in_flight, to.seed);
        journal = std::make_unique<Journal>(def.space(), h, path);
        journals_.push_back(path);
    }
    const std::string label = fmt::format("[{}] {} {} {} s{} (at {:.0f} s)", ++tuned_, def.key(),
                                          problem_text(p), to.strategy, to.seed, elapsed());
    // The default's deviation from the capture, before the search compares anything with it.
    if (const std::string widened = evaluator.calibrate(space.default_config()); !widened.empty())
        rt::log_info("{}: {}", label, widened);
    line_.start(label);
    if (o_.progress) to.progress = [this](const Progress& pr) { line_.update(pr); };
    const TuneResult r = tuner::tune(space, p, rt_->device(), evaluator, *journal, to);
    line_.finish();

    wall_ += r.wall, gpu_wait_ += r.gpu_wait, compiled_ += r.compiled, drain_ += r.drain;
    same_program_ += r.same_program;
    compile_busy_ += r.compile_busy, compile_capacity_ += r.compile_threads * (r.wall + r.drain);
    evaluations_ += r.evaluations - r.from_journal;
    TableRow row{def.key(), problem_text(p), r.baseline_seconds, r.best_seconds};
    if (r.best_seconds > 0)
        row.ceiling_fraction = double(dc.min_bytes()) / r.best_seconds / ceiling_;
    row.evaluations = r.evaluations, row.rejected = r.rejected, row.failed = r.failed;
    row.from_journal = r.from_journal;
    row.seconds = r.wall + r.drain;
    rows_.push_back(row);
    if (!r.rejection.empty())
        rt::log_info("{}: {} candidate(s) rejected by verification; the first: {}", label,
                     r.rejected, r.rejection);
    if (evaluator.inexact())
        rt::log_info("{}: {} candidate(s) differ from the reference within the tolerance", label,
                     evaluator.inexact());

    rt::WisdomRecord rec;
    rec.problem = p;
    rec.config = r.best;
    rec.time = r.best_seconds;
    rec.default_time = r.baseline_seconds;
    rec.env = rt::current_provenance(rt_->device());
    rec.tuning.capture_hash = data_hash;
    rec.tuning.strategy = to.strategy;
    rec.tuning.evaluations = int(r.evaluations);
    rec.tuning.rejected = int(r.rejected + r.failed);
    rt::merge_wisdom(o_.out_dir, def.key(), def.space(), {rec});
    note_launch(def.key(), p, source, true);
}

std::string Session::summary() const {
    const double all = elapsed();
    const std::string kept =
        kept_ ? fmt::format(" ({} more kept: tuned before, --untuned)", kept_) : "";
    return fmt::format(
        "{} kernel(s){} in {:.1f} s: {:.1f} s searching, {:.1f} s finishing compiles still running "
        "at the end of a search, {:.1f} s copying captured data to the host, {:.1f} s putting it "
        "on the GPU, {:.1f} s loading and running the rest; {} compiled ({:.1f} per second of "
        "search), {} the same program as one measured, GPU waiting for compiles {:.0f} % of the "
        "search, compile threads busy {:.0f} % ({:.2f} s per compile); copy ceiling {:.2f} TB/s",
        rows_.size(), kept, all, wall_, drain_, capture_, setup_,
        std::max(0.0, all - wall_ - drain_ - capture_ - setup_), compiled_,
        wall_ > 0 ? compiled_ / wall_ : 0, same_program_, wall_ > 0 ? 100 * gpu_wait_ / wall_ : 0,
        compile_capacity_ > 0 ? 100 * compile_busy_ / compile_capacity_ : 0,
        compiled_ > 0 ? compile_busy_ / double(compiled_) : 0, ceiling_ * 1e-12);
}

} // namespace squall::tuner
