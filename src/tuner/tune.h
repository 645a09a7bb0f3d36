// One kernel's tune: a strategy's candidates compiled on every core ahead of the GPU,
// measured one at a time on the measuring thread, every result in the journal, and the
// leading candidates measured again before the winner is chosen.
//
// The schedule is fixed: ask batches until `batches_in_flight` are out, compile them while
// the oldest is measured, tell the oldest in order once all of it is measured, ask the
// next. So for one seed the same measurements give the same search, and a resumed tune
// (journal.h) repeats an interrupted one.
#pragma once

#include "tuner/journal.h"
#include "tuner/strategy.h"

#include <functional>
#include <optional>
#include <string>

namespace squall::tuner {

// What measuring one candidate gave.
struct Measurement {
    Status status = Status::ok;
    double seconds = 0;
    std::string detail;
};

// Compiles and measures candidates; the tuner knows nothing else about them.
class Evaluator {
public:
    virtual ~Evaluator() = default;
    // On a compile worker, any thread: prepares c (an NVRTC compile through the cache).
    // Returns the error, empty on success.
    virtual std::string prepare(const rt::Config& c) = 0;
    // prepare(c) as a job that holds everything it needs, so that it may still be running
    // after the tune and this evaluator are gone (an NVRTC compile cannot be interrupted;
    // the next kernel's tune need not wait for it). Empty: not offered; the tune then
    // waits for its compiles before it returns.
    virtual std::function<std::string()> detached_prepare(const rt::Config&) { return {}; }
    // On the measuring thread, after prepare succeeded: verifies c's outputs and times it.
    virtual Measurement measure(const rt::Config& c) = 0;
    // The median of `rounds` further measurements of each of cs, interleaved (the
    // finalists; all verified before). Default: measure() again.
    virtual std::vector<double> remeasure(const std::vector<rt::Config>& cs, int rounds);
    // Equal for configurations that run the same code the same way (KernelDef::fingerprint);
    // the tuner measures one of each. nullopt: every configuration is its own.
    virtual std::optional<uint64_t> fingerprint(const rt::Config&) { return std::nullopt; }
};

struct Budget {
    size_t evaluations = 0; // 0: no limit
    double seconds = 0;     // wall time, 0: no limit
    bool limited() const { return evaluations > 0 || seconds > 0; }
};

// The state shown while a tune runs.
struct Progress {
    size_t evaluations = 0, rejected = 0, from_journal = 0;
    double elapsed = 0;            // wall seconds, including earlier runs from the journal
    double best = 0, baseline = 0; // seconds; 0 while unknown
    double seconds_left = -1;      // -1: no time budget
};

struct TuneOptions {
    std::string strategy = "local";
    uint64_t seed = 1;
    Budget budget{0, 30};
    size_t batch = 0; // candidates per batch; 0: twice the compile threads
    // Batches asked before the oldest is told (at least 2): more keep the compile threads
    // busy while one batch waits for its slowest compile, at the price of a strategy that
    // proposes from older results.
    size_t batches_in_flight = 2;
    unsigned compile_threads = 0; // 0: hardware concurrency
    // With compile_threads 0: compile on the process's workers (hardware concurrency) and
    // leave the evaluator's detached_prepare jobs still running at the end to finish beside
    // the next tune. The caller calls wait_for_detached_compiles() before the process
    // finalizes MPI or ends.
    bool detach_compiles = false;
    // A kernel whose default runs shorter than this gets the time budget scaled down in
    // proportion (at least a tenth of it): a few microseconds cannot gain much. 0: off.
    double full_budget_above = 50e-6;
    size_t finalists = 3; // leading candidates measured again
    int final_rounds = 5;
    std::optional<rt::Config> start; // the current wisdom's configuration
    std::function<void(const Progress&)> progress;
};

struct TuneResult {
    rt::Config best, baseline; // baseline: the space's default
    double best_seconds = 0, baseline_seconds = 0;
    size_t evaluations = 0, rejected = 0, failed = 0, from_journal = 0;
    size_t same_program = 0; // evaluations answered by an equivalent one, unmeasured
    double wall = 0;         // seconds of this run (not the journal's earlier ones)
    double gpu_wait = 0;     // seconds the measuring thread waited for a compile
    // Seconds after the search spent finishing the compiles still running when it ended
    // (NVRTC cannot be interrupted; the ones not started are dropped); with detach_compiles
    // only those of an evaluator without detached_prepare. Not in `wall`.
    double drain = 0;
    size_t compiled = 0; // candidates compiled in this run
    // Seconds the compile tasks of this run took (NVRTC and module load; with fewer compile
    // processes than threads, also the wait for a free one), summed over the pool's
    // threads: against threads x (wall + drain), how busy the pool was, which tells
    // compiles that are slow from a pool left waiting for the strategy.
    double compile_busy = 0;
    unsigned compile_threads = 0;
    bool complete_from_journal = false;
    std::string rejection; // the first verification failure, for the report
};

// Returns once no compile of a tune with detach_compiles is queued or running.
void wait_for_detached_compiles();

// The batch size a tune uses by default.
size_t default_batch(const TuneOptions& o);
// The batches in flight a tune runs with: batches_in_flight, at least 2.
size_t batches_in_flight(const TuneOptions& o);

// Throws JournalError, std::invalid_argument (an unknown strategy) and whatever the
// evaluator throws for a reason that is not the candidate's (a lost device). No valid
// configuration at all, or a default that fails, throws std::runtime_error.
TuneResult tune(const rt::ConfigSpace& space, const rt::ProblemSize& problem,
                const rt::DeviceInfo& device, Evaluator& evaluator, Journal& journal,
                const TuneOptions& options);

} // namespace squall::tuner
