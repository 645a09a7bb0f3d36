#include "model/core/profile_table.h"

#include <fmt/format.h>

namespace squall {

std::string profile_table(const std::vector<rt::ProfileRow>& rows, double loop_seconds, long steps,
                          const std::string& device, const std::string& rest) {
    if (steps <= 0 || loop_seconds <= 0) return "";
    const double loop_ms = 1e3 * loop_seconds / double(steps);
    std::string out = fmt::format(
        "squall: {} time per kernel (SQUALL_PROFILE), {} steps, {:.3f} ms of wall time per "
        "step:\n  {:<34} {:<13} {:>7} {:>10} {:>7}  {}\n",
        device, steps, loop_ms, "kernel", "size", "calls", "ms/step", "share", "configuration");
    double sum = 0;
    for (const rt::ProfileRow& r : rows) {
        const double ms = r.total_ms / double(steps);
        sum += ms;
        out += fmt::format("  {:<34} {:<13} {:>7} {:>10.4f} {:>6.1f}%  {}\n", r.key, r.problem,
                           r.calls, ms, 100 * ms / loop_ms, r.config);
    }
    out += fmt::format("  {:<56} {:>10.4f} {:>6.1f}%\n", "all timed kernels", sum,
                       100 * sum / loop_ms);
    out += fmt::format("  {:<56} {:>10.4f} {:>6.1f}%\n", "rest: " + rest, loop_ms - sum,
                       100 * (loop_ms - sum) / loop_ms);
    return out;
}

} // namespace squall
