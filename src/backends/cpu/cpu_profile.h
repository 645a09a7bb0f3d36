#pragma once
// SQUALL_PROFILE on the CPU backend: the wall time of every launch of a named kernel,
// summed by kernel and range (the GPU runtime's LaunchProfiler does the same with events).
// Off, a launch costs one load of a cached flag.
#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/common.cuh"
#include "runtime/device_info.h"
#include "runtime/profile.h"

namespace squall::cpu {

namespace detail {
struct ProfileState {
    std::mutex mutex;
    std::map<std::string, rt::ProfileRow> rows; // by "name size"
};
inline ProfileState& profile_state() {
    static ProfileState s;
    return s;
}
} // namespace detail

inline bool profiling() {
    static const bool on = rt::profile_from_env();
    return on;
}

inline void record_launch(const char* name, const sq::Range3& r, double seconds) {
    const std::string size =
        rt::ProblemSize(r.i1 - r.i0, r.j1 - r.j0, r.k1 - r.k0).to_string(); // as the GPU's
    detail::ProfileState& s = detail::profile_state();
    std::lock_guard<std::mutex> lock(s.mutex);
    rt::ProfileRow& row = s.rows[std::string(name) + " " + size];
    row.key = name, row.problem = size, row.config = "OpenMP";
    ++row.calls;
    row.total_ms += 1e3 * seconds;
}

// Every (kernel, range) launched since the start or the last profile_reset(), slowest first.
inline std::vector<rt::ProfileRow> profile() {
    detail::ProfileState& s = detail::profile_state();
    std::lock_guard<std::mutex> lock(s.mutex);
    std::vector<rt::ProfileRow> out;
    for (const auto& [key, row] : s.rows) out.push_back(row);
    std::sort(out.begin(), out.end(), [](const rt::ProfileRow& a, const rt::ProfileRow& b) {
        return a.total_ms > b.total_ms;
    });
    return out;
}

inline void profile_reset() {
    detail::ProfileState& s = detail::profile_state();
    std::lock_guard<std::mutex> lock(s.mutex);
    s.rows.clear();
}

// Runs `loop`, timed when profiling and F is a named kernel.
template <class F, class Loop>
void timed(const sq::Range3& r, const Loop& loop) {
    if constexpr (requires { F::name; }) {
        if (profiling()) {
            const auto t0 = std::chrono::steady_clock::now();
            loop();
            record_launch(
                F::name, r,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
            return;
        }
    }
    loop();
}

} // namespace squall::cpu
