// Helpers shared by the wisdom tests: a small configuration space, records, a warning
// catcher, environment and temporary-directory guards.
#pragma once

#include "runtime/log.h"
#include "runtime/wisdom.h"

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace squall::rt::wisdom_test {

inline ConfigSpace space() {
    ConfigSpace s;
    s.add_param("bx", {32, 64, 128, 256}, 256);
    s.add_param("by", {1, 2, 4}, 1);
    s.add_restriction("bx * by <= 512");
    return s;
}

inline DeviceInfo h200() {
    DeviceInfo d = DeviceInfo::for_arch("sm_90");
    d.name = "NVIDIA H200";
    return d;
}

inline WisdomRecord rec(const std::string& device, const std::string& cc, ProblemSize p, int bx,
                        int by, const std::string& origin) {
    WisdomRecord r;
    r.problem = p;
    r.config.values = {Value(bx), Value(by)};
    r.time = 1e-3;
    r.env.device_name = device;
    r.env.compute_capability = cc;
    r.origin = origin;
    return r;
}

// Captures warnings so tests can check that bad input is reported, not fatal.
struct WarningCatcher {
    std::vector<std::string> messages;
    WarningCatcher() {
        set_log_sink([this](LogLevel l, const std::string& m) {
            if (l == LogLevel::warn) messages.push_back(m);
        });
    }
    ~WarningCatcher() { set_log_sink(nullptr); }
    bool any(const std::string& needle) const {
        for (const auto& m : messages)
            if (m.find(needle) != std::string::npos) return true;
        return false;
    }
};

// Sets (or, with nullptr, unsets) an environment variable for the life of the object,
// then restores what was there.
class EnvGuard {
public:
    EnvGuard(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        if (value)
            setenv(name, value, 1);
        else
            unsetenv(name);
    }
    ~EnvGuard() {
        if (old_)
            setenv(name_.c_str(), old_->c_str(), 1);
        else
            unsetenv(name_.c_str());
    }
    EnvGuard(const EnvGuard&) = delete;
    EnvGuard& operator=(const EnvGuard&) = delete;

private:
    std::string name_;
    std::optional<std::string> old_;
};

// A fresh, empty directory under the system temporary directory.
inline std::filesystem::path temp_dir(const std::string& name) {
    namespace fs = std::filesystem;
    fs::path p =
        fs::temp_directory_path() / ("squall_rt_test_" + name + "_" + std::to_string(getpid()));
    fs::remove_all(p);
    fs::create_directories(p);
    return p;
}

// A header of key "k" for space().
inline constexpr const char* header_line =
    R"({"type":"squall-wisdom","version":1,"key":"k","objective":"time","param_names":["bx","by"]})";
// A record line of space() at 512^3 on an H200, with bx as given.
inline std::string good_line(int bx) {
    return R"({"problem_size":[512,512,512],"config":{"bx":)" + std::to_string(bx) +
           R"(,"by":1},"time":0.001,"default_time":0.002,"environment":{"device_name":"NVIDIA H200","compute_capability":"9.0"}})";
}
// The number of records Wisdom::parse keeps from `text`.
inline size_t parse_records(const std::string& text, WarningCatcher& w) {
    Wisdom wis;
    std::istringstream in(text);
    wis.parse(in, "test.wisdom", "k", space());
    (void)w;
    return wis.records().size();
}

} // namespace squall::rt::wisdom_test
