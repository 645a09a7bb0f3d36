// A tuning session: captured launches tuned one after another on this process's GPU
// within a total budget, each result merged into a wisdom directory, a table at the end.
#pragma once

#include "runtime/runtime.h"
#include "tuner/capture_evaluator.h"
#include "tuner/report.h"

#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace squall::tuner {

struct SessionOptions {
    TuneOptions tune; // strategy, seed and the budget per kernel
    Budget total;     // for all kernels together: wall time counted from `started`
    // When the tune began: with --case, before the case's first capture, so that the total
    // time bounds the command's wall time (capturing and loading included), not only the
    // searches.
    std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
    std::string out_dir;       // wisdom written here (merged)
    std::string journal_dir;   // one journal per kernel; empty: in memory
    bool from_default = false; // start from the default, not the current wisdom's choice
    // Keep a kernel whose wisdom already holds a squall tune record for this device and
    // size (the same search rerun would only replace it), instead of tuning it again.
    bool untuned_only = false;
    // When set, every kernel launched or loaded is appended here once as a JSON line: key,
    // size, device, source, whether it was tuned and whether a launch was captured
    // (scripts/tune-shipped lists what the cases launch).
    std::string manifest;
    VerifyPolicy verify;
    TimingOptions timing;
    bool progress = true;
};

// The time budget of the next kernel: the per-kernel budget (0: none), at most the time
// left of a total (0: no total), shared equally with `still_to_come` later kernels; never
// under a second.
double kernel_seconds(double per_kernel, double total, double total_left, size_t still_to_come);

// Throws rt::CaptureError, naming `source`, for a capture another squall version wrote.
void check_capture_version(const rt::Capture& c, const std::string& source);

// The space with start points that try each parameter a record does not name (unnamed),
// one value at a time from the record's configuration `from`: a kernel tuned again because
// its record predates some tunables tries them first (Session, --untuned).
rt::ConfigSpace with_new_tunables_tried(const rt::ConfigSpace& space, const rt::Config& from,
                                        const std::vector<std::string>& unnamed);

// The parameters of `unnamed` that change what the configuration `from` compiles to or how
// it launches (KernelDef::fingerprint) with some other valid value: plane_carry under
// planes = 0 changes nothing, so a record that predates it needs no new search for it.
std::vector<std::string> tunables_that_change(const rt::KernelDef& def, const rt::Config& from,
                                              const std::vector<std::string>& unnamed,
                                              const rt::ProblemSize& p, const rt::DeviceInfo& d,
                                              const std::string& arch);

class Session {
public:
    Session(rt::Runtime& rt, SessionOptions options);
    // Waits for the compiles a tune left running (they hold no reference to the session).
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    // Tunes one captured launch and merges its record into out_dir. Problems with the
    // capture throw rt::CaptureError naming `source`. `still_to_come`: kernels this
    // session will tune after this one, when known; with a total time, this one then gets
    // at most an equal share of the time left (kernel_seconds).
    void tune(const rt::Capture& c, const std::string& source, size_t still_to_come = 0);
    bool budget_left() const;
    // A launch left untuned because the total budget is spent: only noted in the manifest.
    void skip(const rt::Capture& c, const std::string& source);
    // Notes in the manifest every instance the runtime loaded that no capture reached (a
    // kernel launched once, a capture refused), so that its wisdom counts as used.
    void note_loaded(const std::string& source);
    size_t kept() const { return kept_; }
    // The strategy and seed of the next tune (and the budget per kernel).
    TuneOptions& search() { return o_.tune; }

    const std::vector<TableRow>& rows() const { return rows_; }
    const std::vector<std::string>& journals() const { return journals_; }
    // Wall time in all and in the searches, compile throughput and how long the GPU waited
    // for compiles.
    std::string summary() const;
    double copy_ceiling() const { return ceiling_; }

private:
    rt::Runtime* rt_;
    SessionOptions o_;
    double ceiling_ = 0; // copy bandwidth, bytes/s
    ProgressLine line_;
    std::vector<TableRow> rows_;
    std::vector<std::string> journals_;
    double elapsed() const; // since o_.started
    double wall_ = 0, gpu_wait_ = 0, setup_ = 0, drain_ = 0, capture_ = 0;
    double compile_busy_ = 0, compile_capacity_ = 0; // thread-seconds compiling, available
    size_t compiled_ = 0, evaluations_ = 0, tuned_ = 0, same_program_ = 0, kept_ = 0;
    // resume: set to the record when it predates a tunable.
    bool keep_tuned(const rt::Capture& c, const std::string& source,
                    std::optional<rt::WisdomRecord>& resume);
    std::set<std::string> noted_; // launches in the manifest, by Loaded::name()
    void note_launch(const std::string& key, const rt::ProblemSize& p, const std::string& source,
                     bool tuned, bool captured = true);
};

} // namespace squall::tuner
