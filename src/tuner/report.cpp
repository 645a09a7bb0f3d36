#include "tuner/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <unistd.h>

namespace squall::tuner {

std::string format_progress(const std::string& label, const Progress& p) {
    const double rate = p.elapsed > 0 ? double(p.evaluations - p.from_journal) / p.elapsed : 0;
    std::string s = fmt::format("{}  {} evals ({:.1f}/s)", label, p.evaluations, rate);
    if (p.best > 0 && p.baseline > 0)
        s += fmt::format("  best {:.4g} ms = {:.2f}x default", p.best * 1e3, p.baseline / p.best);
    if (p.rejected) s += fmt::format("  {} rejected", p.rejected);
    if (p.from_journal) s += fmt::format("  {} from journal", p.from_journal);
    if (p.seconds_left >= 0) s += fmt::format("  {:.0f} s left", p.seconds_left);
    return s;
}

ProgressLine::ProgressLine(std::FILE* out) : out_(out), tty_(isatty(fileno(out)) != 0) {}

void ProgressLine::start(std::string label) {
    label_ = std::move(label);
    last_ = {};
    width_ = 0;
}

void ProgressLine::update(const Progress& p) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(tty_ ? 200 : 5000)) return;
    last_ = now;
    const std::string s = format_progress(label_, p);
    if (tty_) {
        fmt::print(out_, "\r{}{}", s, std::string(width_ > s.size() ? width_ - s.size() : 0, ' '));
        width_ = s.size();
    } else {
        fmt::print(out_, "{}\n", s);
    }
    std::fflush(out_);
}

void ProgressLine::finish() {
    if (tty_ && width_) fmt::print(out_, "\n");
    width_ = 0;
}

std::string format_table(const std::vector<TableRow>& rows) {
    size_t w = 6;
    for (const auto& r : rows) w = std::max(w, r.key.size());
    std::string s = fmt::format(
        "{:<{}}  {:>13}  {:>11}  {:>11}  {:>8}  {:>8}  {:>6}  {:>8}  {:>6}\n", "kernel", w, "size",
        "default ms", "best ms", "speed-up", "ceiling", "evals", "rejected", "s");
    for (const auto& r : rows) {
        const std::string ceiling =
            r.ceiling_fraction > 0 ? fmt::format("{:.0f} %", 100 * r.ceiling_fraction) : "-";
        s += fmt::format(
            "{:<{}}  {:>13}  {:>11.4f}  {:>11.4f}  {:>7.2f}x  {:>8}  {:>6}  {:>8}  {:>6.1f}\n",
            r.key, w, r.problem, r.default_seconds * 1e3, r.best_seconds * 1e3,
            r.best_seconds > 0 ? r.default_seconds / r.best_seconds : 0, ceiling, r.evaluations,
            r.rejected, r.seconds);
    }
    return s;
}

} // namespace squall::tuner
