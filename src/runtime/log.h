// Minimal leveled logging for the runtime. The threshold comes from SQUALL_LOG_LEVEL
// (debug, info, warn, error, off); the default is info. Tests can install a sink to
// observe warnings instead of scraping stderr.
#pragma once

#include <fmt/format.h>

#include <functional>
#include <string>
#include <string_view>

namespace squall::rt {

enum class LogLevel { debug = 0, info = 1, warn = 2, error = 3, off = 4 };

LogLevel log_level();
void set_log_level(LogLevel level);
// Parses "debug", "info", "warn"/"warning", "error", "off"; returns fallback otherwise.
LogLevel parse_log_level(std::string_view text, LogLevel fallback);

using LogSink = std::function<void(LogLevel, const std::string&)>;
// Replaces the sink (stderr by default); pass nullptr to restore stderr.
void set_log_sink(LogSink sink);

void log_message(LogLevel level, const std::string& message);

template <typename... Args>
void log_at(LogLevel level, fmt::format_string<Args...> f, Args&&... args) {
    if (level < log_level()) return;
    log_message(level, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void log_debug(fmt::format_string<Args...> f, Args&&... args) {
    log_at(LogLevel::debug, f, std::forward<Args>(args)...);
}
template <typename... Args>
void log_info(fmt::format_string<Args...> f, Args&&... args) {
    log_at(LogLevel::info, f, std::forward<Args>(args)...);
}
template <typename... Args>
void log_warn(fmt::format_string<Args...> f, Args&&... args) {
    log_at(LogLevel::warn, f, std::forward<Args>(args)...);
}
template <typename... Args>
void log_error(fmt::format_string<Args...> f, Args&&... args) {
    log_at(LogLevel::error, f, std::forward<Args>(args)...);
}

} // namespace squall::rt
