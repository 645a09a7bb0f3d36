#include "runtime/wisdom.h"

#include "runtime/capture.h"
#include "runtime/compiler.h"
#include "runtime/log.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <unistd.h>

#ifndef SQUALL_SOURCE_DIR
#define SQUALL_SOURCE_DIR ""
#endif
#ifndef SQUALL_VERSION
#define SQUALL_VERSION "unknown"
#endif

namespace squall::rt {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string cc_string(const DeviceInfo& d) {
    return fmt::format("{}.{}", d.cc_major, d.cc_minor);
}

ProblemSize problem_from_json(const json& j) {
    if (!j.is_array() || j.empty() || j.size() > 3)
        throw std::invalid_argument("problem_size must be a list of 1 to 3 integers");
    ProblemSize p;
    for (size_t i = 0; i < j.size(); ++i) {
        if (!j[i].is_number_integer() || j[i].get<long long>() <= 0)
            throw std::invalid_argument("problem_size entries must be positive integers");
        p.extent[i] = j[i].get<long long>();
    }
    return p;
}

Provenance env_from_json(const json& j) {
    Provenance e;
    if (!j.is_object()) throw std::invalid_argument("environment must be an object");
    e.device_name = j.at("device_name").get<std::string>();
    e.compute_capability = j.at("compute_capability").get<std::string>();
    e.driver_version = j.value("driver_version", 0);
    e.nvrtc_version = j.value("nvrtc_version", 0);
    e.date = j.value("date", "");
    e.host = j.value("host", "");
    e.git_revision = j.value("git_revision", "");
    e.squall_version = j.value("squall_version", "");
    return e;
}

int count_from_json(const json& j, const char* name) {
    if (!j.contains(name)) return 0;
    const json& v = j.at(name);
    if (!v.is_number_integer() || v.get<long long>() < 0 ||
        v.get<long long>() > std::numeric_limits<int>::max())
        throw std::invalid_argument(fmt::format("tuning.{} must be a non-negative integer", name));
    return v.get<int>();
}

TuningInfo tuning_from_json(const json& j) {
    if (!j.is_object()) throw std::invalid_argument("tuning must be an object");
    TuningInfo t;
    t.capture_hash = j.value("capture_hash", "");
    if (t.capture_hash.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
        throw std::invalid_argument("tuning.capture_hash must be hexadecimal");
    t.strategy = j.value("strategy", "");
    t.evaluations = count_from_json(j, "evaluations");
    t.rejected = count_from_json(j, "rejected");
    return t;
}

// Everything of a record but its configuration.
WisdomRecord record_fields_from_json(const json& j) {
    if (!j.is_object()) throw std::invalid_argument("a record must be a JSON object");
    WisdomRecord r;
    r.problem = problem_from_json(j.at("problem_size"));
    r.time = j.at("time").get<double>();
    r.default_time = j.value("default_time", 0.0);
    r.env = env_from_json(j.at("environment"));
    if (j.contains("tuning")) r.tuning = tuning_from_json(j.at("tuning"));
    return r;
}

} // namespace

double problem_distance(const ProblemSize& a, const ProblemSize& b) {
    double sum = 0;
    for (int i = 0; i < 3; ++i) {
        double d = std::log2(static_cast<double>(a[i])) - std::log2(static_cast<double>(b[i]));
        sum += d * d;
    }
    return std::sqrt(sum);
}

std::string wisdom_file_name(const std::string& key) {
    std::string s = key;
    for (char& c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.')
            c = '_';
    return s + ".wisdom";
}

void Wisdom::parse(std::istream& in, const std::string& origin, const std::string& key,
                   const ConfigSpace& space) {
    std::string line;
    size_t lineno = 0;
    bool have_header = false;
    while (std::getline(in, line)) {
        ++lineno;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        const std::string where = fmt::format("{}:{}", origin, lineno);
        try {
            json j = json::parse(line);
            if (!have_header) {
                if (!j.is_object() || j.value("type", "") != "squall-wisdom")
                    throw std::invalid_argument("first line is not a squall-wisdom header");
                int version = j.at("version").get<int>();
                if (version != wisdom_format_version) {
                    log_warn("wisdom {}: format version {} is not supported (expected {}); file "
                             "skipped",
                             where, version, wisdom_format_version);
                    return;
                }
                if (j.at("key").get<std::string>() != key) {
                    log_warn("wisdom {}: key '{}' does not match '{}'; file skipped", where,
                             j.at("key").get<std::string>(), key);
                    return;
                }
                have_header = true;
                continue;
            }
            WisdomRecord r = wisdom_record_from_json(j, space);
            r.origin = where;
            records_.push_back(std::move(r));
        } catch (const std::exception& e) {
            if (!have_header) {
                log_warn("wisdom {}: bad header ({}); file skipped", where, e.what());
                return;
            }
            log_warn("wisdom {}: record skipped: {}", where, e.what());
        }
    }
}

Wisdom Wisdom::load(const std::string& key, const ConfigSpace& space,
                    const std::vector<std::string>& dirs) {
    Wisdom w;
    for (const auto& dir : dirs) {
        std::string path = dir + "/" + wisdom_file_name(key);
        std::error_code ec;
        if (!fs::exists(path, ec)) continue;
        std::ifstream in(path);
        if (!in) {
            log_warn("wisdom file {} is not readable; ignored", path);
            continue;
        }
        w.parse(in, path, key, space);
    }
    return w;
}

WisdomSelection Wisdom::select(const ProblemSize& p, const DeviceInfo& device,
                               const std::string& device_name, const ConfigSpace& space) const {
    const std::string cc = cc_string(device);
    struct Level {
        int level;
        const char* what;
        bool (*match)(const WisdomRecord&, const std::string&, const std::string&);
        bool exact;
    };
    static const Level levels[] = {
        {1, "same device, exact size",
         [](const WisdomRecord& r, const std::string& n, const std::string&) {
             return r.env.device_name == n;
         },
         true},
        {2, "same device, nearest size",
         [](const WisdomRecord& r, const std::string& n, const std::string&) {
             return r.env.device_name == n;
         },
         false},
        {3, "same compute capability, nearest size",
         [](const WisdomRecord& r, const std::string&, const std::string& c) {
             return r.env.compute_capability == c;
         },
         false},
        {4, "any device, nearest size",
         [](const WisdomRecord&, const std::string&, const std::string&) { return true; }, false},
    };
    // Validity depends on the problem (restrictions), so check each record once.
    std::vector<char> usable(records_.size());
    for (size_t i = 0; i < records_.size(); ++i)
        usable[i] = space.is_valid(records_[i].config, p, device);

    for (const Level& lv : levels) {
        const WisdomRecord* best = nullptr;
        double best_d = 0;
        for (size_t i = 0; i < records_.size(); ++i) {
            const WisdomRecord& r = records_[i];
            if (!usable[i] || !lv.match(r, device_name, cc)) continue;
            if (lv.exact && !(r.problem == p)) continue;
            double d = problem_distance(r.problem, p);
            // '<=' with tolerance: on a tie the later record wins.
            if (!best || d <= best_d + 1e-12) {
                best = &r;
                best_d = d;
            }
        }
        if (best) {
            WisdomSelection s;
            s.config = best->config;
            s.level = lv.level;
            s.reason = fmt::format("level {} ({}): record {} tuned on '{}' (cc {}) for {}, log2 "
                                   "distance {:.3f}",
                                   lv.level, lv.what, best->origin, best->env.device_name,
                                   best->env.compute_capability, best->problem.to_string(), best_d);
            s.record = *best;
            return s;
        }
    }
    WisdomSelection s;
    s.config = space.default_config();
    s.level = 5;
    s.reason = records_.empty() ? "level 5 (default configuration): no wisdom records"
                                : fmt::format("level 5 (default configuration): none of {} "
                                              "record(s) is valid for this problem",
                                              records_.size());
    return s;
}

std::string project_wisdom_dir() {
    std::error_code ec;
    if (const char* o = std::getenv("SQUALL_WISDOM_PROJECT_DIR")) {
        if (*o && !fs::is_directory(o, ec))
            log_warn("SQUALL_WISDOM_PROJECT_DIR={} is not a directory", o);
        return o;
    }
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        fs::path dir = exe.parent_path();
        fs::path installed = dir / ".." / "share" / "squall" / "wisdom";
        if (fs::is_directory(installed, ec)) return fs::weakly_canonical(installed, ec).string();
        for (fs::path d = dir; !d.empty() && d != d.root_path(); d = d.parent_path()) {
            if (fs::is_directory(d / "wisdom", ec) && fs::is_directory(d / "kernels", ec))
                return (d / "wisdom").string();
        }
    }
    std::string src = SQUALL_SOURCE_DIR;
    if (!src.empty() && fs::is_directory(src + "/wisdom", ec)) return src + "/wisdom";
    return {};
}

std::string user_wisdom_dir() {
    if (const char* o = std::getenv("SQUALL_WISDOM_USER_DIR")) return o;
    // The XDG base directory rules ignore a relative XDG_DATA_HOME.
    const char* xdg = std::getenv("XDG_DATA_HOME");
    if (xdg && *xdg == '/') return std::string(xdg) + "/squall/wisdom";
    const char* home = std::getenv("HOME");
    if (home && *home) return std::string(home) + "/.local/share/squall/wisdom";
    return {};
}

std::vector<std::string> wisdom_search_path(const std::vector<std::string>& user_dirs) {
    std::vector<std::string> dirs;
    if (std::string p = project_wisdom_dir(); !p.empty()) dirs.push_back(p);
    if (std::string u = user_wisdom_dir(); !u.empty()) dirs.push_back(u);
    for (const auto& d : user_dirs)
        if (!d.empty()) dirs.push_back(d);
    if (const char* env = std::getenv("SQUALL_WISDOM_PATH")) {
        std::stringstream ss(env);
        std::string item;
        while (std::getline(ss, item, ':'))
            if (!item.empty()) dirs.push_back(item);
    }
    return dirs;
}

std::string wisdom_device_name(const DeviceInfo& device) {
    const char* o = std::getenv("SQUALL_WISDOM_DEVICE");
    return o && *o ? std::string(o) : device.name;
}

Provenance current_provenance(const DeviceInfo& device) {
    Provenance e;
    e.device_name = device.name;
    e.compute_capability = cc_string(device);
    e.driver_version = device.driver_version;
    e.nvrtc_version = nvrtc_version();
    std::time_t now = std::time(nullptr);
    char buf[32];
    std::tm tm{};
    gmtime_r(&now, &tm);
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    e.date = buf;
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    e.host = host;
    e.git_revision = squall_git_revision();
    e.squall_version = SQUALL_VERSION;
    return e;
}

json wisdom_header_json(const std::string& key, const ConfigSpace& space,
                        const std::string& objective) {
    json names = json::array();
    for (const auto& p : space.params()) names.push_back(p.name);
    return {{"type", "squall-wisdom"},
            {"version", wisdom_format_version},
            {"key", key},
            {"objective", objective},
            {"param_names", names}};
}

json wisdom_record_json(const WisdomRecord& r, const ConfigSpace& space) {
    json j = {{"problem_size", r.problem.extent},
              {"config", space.config_to_json(r.config)},
              {"time", r.time},
              {"default_time", r.default_time},
              {"environment",
               {{"device_name", r.env.device_name},
                {"compute_capability", r.env.compute_capability},
                {"driver_version", r.env.driver_version},
                {"nvrtc_version", r.env.nvrtc_version},
                {"date", r.env.date},
                {"host", r.env.host},
                {"git_revision", r.env.git_revision},
                {"squall_version", r.env.squall_version}}}};
    if (!r.tuning.empty())
        j["tuning"] = {{"capture_hash", r.tuning.capture_hash},
                       {"strategy", r.tuning.strategy},
                       {"evaluations", r.tuning.evaluations},
                       {"rejected", r.tuning.rejected}};
    return j;
}

WisdomRecord wisdom_record_from_json(const json& j, const ConfigSpace& space) {
    WisdomRecord r = record_fields_from_json(j);
    const json& c = j.at("config");
    r.config = space.config_from_json(c);
    if (c.is_object()) // null: the default configuration, every parameter implied
        for (const auto& p : space.params())
            if (!c.contains(p.name)) r.unnamed_params.push_back(p.name);
    return r;
}

WisdomRecord wisdom_record_from_json(const json& j, const std::vector<std::string>& param_names) {
    WisdomRecord r = record_fields_from_json(j);
    const json& c = j.at("config");
    if (c.is_null()) return r;
    if (!c.is_object()) throw std::invalid_argument("configuration must be a JSON object");
    for (auto it = c.begin(); it != c.end(); ++it) {
        if (std::find(param_names.begin(), param_names.end(), it.key()) == param_names.end())
            throw std::invalid_argument("unknown parameter '" + it.key() + "'");
        if (!it.value().is_primitive() || it.value().is_null())
            throw std::invalid_argument("parameter '" + it.key() + "' has no value");
    }
    return r;
}

} // namespace squall::rt
