#pragma once
// Per-instance GPU time of every launch, for finding where a run's time goes
// (SQUALL_PROFILE=1). Each launch is bracketed by two events on its stream; completed pairs
// are read without blocking at later launches, and all of them when a report is asked for.
// Knows nothing of what the kernels compute: a row is a kernel key and a problem size.
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/driver.h"

namespace squall::rt {

// True when SQUALL_PROFILE is set to something other than "" or "0".
bool profile_from_env();

struct ProfileRow {
    std::string key;     // kernel tuning key
    std::string problem; // problem size, "NxMxK"
    std::string config;  // the configuration that ran
    uint64_t calls = 0;
    double total_ms = 0; // summed event time of all calls
};

class LaunchProfiler {
public:
    LaunchProfiler() = default;
    ~LaunchProfiler();
    LaunchProfiler(const LaunchProfiler&) = delete;
    LaunchProfiler& operator=(const LaunchProfiler&) = delete;

    // A row for an instance; the index is passed to time().
    int add_row(std::string key, std::string problem, std::string config);
    // Runs `launch` (which enqueues one kernel on `stream`) between two events.
    void time(int row, StreamHandle stream, const std::function<void()>& launch);
    // Every row with at least one call, slowest first (waits for pending launches).
    std::vector<ProfileRow> report();
    // Forgets the calls so far (waits for pending launches first).
    void reset();

private:
    struct Pending {
        int row;
        void *start, *stop;
    };
    // Reads completed pairs in launch order, waiting for the first `wait_for` (under mutex_).
    void harvest(size_t wait_for);
    static constexpr size_t all = ~size_t(0), max_pending = 8192;
    void* take_event(); // under mutex_

    std::mutex mutex_;
    std::vector<ProfileRow> rows_;
    std::vector<Pending> pending_; // in launch order
    size_t first_pending_ = 0;
    std::vector<void*> free_events_;
};

} // namespace squall::rt
