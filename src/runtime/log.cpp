#include "runtime/log.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace squall::rt {
namespace {

std::atomic<int>& level_storage() {
    static std::atomic<int> level{[] {
        const char* env = std::getenv("SQUALL_LOG_LEVEL");
        return static_cast<int>(env ? parse_log_level(env, LogLevel::info) : LogLevel::info);
    }()};
    return level;
}

std::mutex& sink_mutex() {
    static std::mutex m;
    return m;
}

LogSink& sink_storage() {
    static LogSink sink;
    return sink;
}

const char* level_name(LogLevel level) {
    switch (level) {
    case LogLevel::debug:
        return "debug";
    case LogLevel::info:
        return "info";
    case LogLevel::warn:
        return "warning";
    case LogLevel::error:
        return "error";
    default:
        return "";
    }
}

} // namespace

LogLevel log_level() {
    return static_cast<LogLevel>(level_storage().load());
}
void set_log_level(LogLevel level) {
    level_storage().store(static_cast<int>(level));
}

LogLevel parse_log_level(std::string_view text, LogLevel fallback) {
    if (text == "debug") return LogLevel::debug;
    if (text == "info") return LogLevel::info;
    if (text == "warn" || text == "warning") return LogLevel::warn;
    if (text == "error") return LogLevel::error;
    if (text == "off" || text == "none") return LogLevel::off;
    return fallback;
}

void set_log_sink(LogSink sink) {
    std::lock_guard<std::mutex> lock(sink_mutex());
    sink_storage() = std::move(sink);
}

void log_message(LogLevel level, const std::string& message) {
    if (level < log_level()) return;
    std::lock_guard<std::mutex> lock(sink_mutex());
    if (sink_storage()) {
        sink_storage()(level, message);
        return;
    }
    // The prefix of every squall message: "squall: error: ...", "squall: info: ...".
    std::fprintf(stderr, "squall: %s: %s\n", level_name(level), message.c_str());
}

} // namespace squall::rt
