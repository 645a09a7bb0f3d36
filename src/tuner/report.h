// What a tune shows: a progress line while it runs, a table per kernel at the end.
#pragma once

#include "tuner/tune.h"

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace squall::tuner {

// Rewrites one line on a terminal; elsewhere (a log file) prints a line every few seconds.
class ProgressLine {
public:
    explicit ProgressLine(std::FILE* out = stderr);
    void start(std::string label); // "[3/31] advec_u_2i5_double 256x256x256"
    void update(const Progress& p);
    void finish(); // ends the line

private:
    std::FILE* out_;
    bool tty_;
    std::string label_;
    std::chrono::steady_clock::time_point last_{};
    size_t width_ = 0;
};

std::string format_progress(const std::string& label, const Progress& p);

struct TableRow {
    std::string key, problem;
    double default_seconds = 0, best_seconds = 0;
    double ceiling_fraction = 0; // fewest bytes / best time / copy bandwidth; 0: unknown
    size_t evaluations = 0, rejected = 0, failed = 0, from_journal = 0;
    double seconds = 0; // the tune's wall time, its last compiles included
};

// Columns: kernel, size, default, best, speed-up, ceiling, evaluations, rejected, seconds.
std::string format_table(const std::vector<TableRow>& rows);

} // namespace squall::tuner
