// `squall tune`: tunes captured launches (CAPTURE.json...) or every tunable kernel a case
// launches (--case), and merges the results into a wisdom directory that `squall run`
// searches.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace squall::app {

struct TuneArgs {
    std::vector<std::string> captures;
    std::string case_file;
    std::vector<std::string> overrides;
    int steps = 2;
    std::string only; // SQUALL_CAPTURE patterns for --case
    // With several (captures only), each capture is tuned once per strategy and seed.
    std::vector<std::string> strategies{"local"}; // docs/performance.md, "Tuning"
    std::vector<uint64_t> seeds{1};
    double seconds = 30, total_seconds = 0;
    size_t evals = 0, total_evals = 0;
    std::string out_dir, journal_dir, plot;
    bool from_default = false, exact = false, tolerant = false, no_journal = false;
    bool untuned = false;
    std::string manifest;
    bool cold_cache = false; // every tune compiles from nothing (strategy comparisons)
    size_t in_flight = 2;    // batches asked before the oldest is told (tuner/tune.h)
};

CLI::App* add_tune_command(CLI::App& app, TuneArgs& args);
int run_tune(TuneArgs args); // the exit code

} // namespace squall::app
