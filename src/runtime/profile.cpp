#include "runtime/profile.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace squall::rt {

bool profile_from_env() {
    const char* v = std::getenv("SQUALL_PROFILE");
    return v && *v && std::strcmp(v, "0") != 0;
}

LaunchProfiler::~LaunchProfiler() {
    const Driver& drv = Driver::get();
    try {
        harvest(all);
    } catch (...) { // a dying context: the events go with it
    }
    for (void* e : free_events_) drv.event_destroy(e);
    for (size_t p = first_pending_; p < pending_.size(); ++p) {
        drv.event_destroy(pending_[p].start);
        drv.event_destroy(pending_[p].stop);
    }
}

int LaunchProfiler::add_row(std::string key, std::string problem, std::string config) {
    std::lock_guard<std::mutex> lock(mutex_);
    rows_.push_back({std::move(key), std::move(problem), std::move(config), 0, 0.0});
    return int(rows_.size()) - 1;
}

void* LaunchProfiler::take_event() {
    if (free_events_.empty()) return Driver::get().event_create();
    void* e = free_events_.back();
    free_events_.pop_back();
    return e;
}

void LaunchProfiler::time(int row, StreamHandle stream, const std::function<void()>& launch) {
    std::lock_guard<std::mutex> lock(mutex_);
    const Driver& drv = Driver::get();
    Pending p{row, take_event(), nullptr};
    try {
        p.stop = take_event();
        drv.event_record(p.start, stream);
        launch();
        drv.event_record(p.stop, stream);
    } catch (...) { // the events go back to the pool, the error to the caller
        free_events_.push_back(p.start);
        if (p.stop) free_events_.push_back(p.stop);
        throw;
    }
    pending_.push_back(p);
    // Bounded: when far behind the GPU, wait for the oldest launch instead of creating
    // more events.
    harvest(pending_.size() - first_pending_ > max_pending ? 1 : 0);
}

void LaunchProfiler::harvest(size_t wait_for) {
    const Driver& drv = Driver::get();
    for (size_t n = 0; first_pending_ < pending_.size(); ++n) {
        Pending& p = pending_[first_pending_];
        if (n < wait_for)
            drv.event_synchronize(p.stop);
        else if (!drv.event_done(p.stop))
            break;
        ProfileRow& r = rows_[size_t(p.row)];
        r.total_ms += drv.event_elapsed_ms(p.start, p.stop);
        ++r.calls;
        free_events_.insert(free_events_.end(), {p.start, p.stop});
        ++first_pending_;
    }
    if (first_pending_ > 4096 || first_pending_ == pending_.size()) {
        pending_.erase(pending_.begin(), pending_.begin() + long(first_pending_));
        first_pending_ = 0;
    }
}

std::vector<ProfileRow> LaunchProfiler::report() {
    std::lock_guard<std::mutex> lock(mutex_);
    harvest(all);
    std::vector<ProfileRow> out;
    for (const ProfileRow& r : rows_)
        if (r.calls > 0) out.push_back(r);
    std::sort(out.begin(), out.end(),
              [](const ProfileRow& a, const ProfileRow& b) { return a.total_ms > b.total_ms; });
    return out;
}

void LaunchProfiler::reset() {
    std::lock_guard<std::mutex> lock(mutex_);
    harvest(all);
    for (ProfileRow& r : rows_) r.calls = 0, r.total_ms = 0;
}

} // namespace squall::rt
