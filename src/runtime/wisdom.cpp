#include "runtime/wisdom.h"

#include "runtime/compiler.h"
#include "runtime/log.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <ctime>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/file.h>
#include <unistd.h>

#ifndef SQUALL_SOURCE_DIR
#define SQUALL_SOURCE_DIR ""
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
    return e;
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
            WisdomRecord r;
            r.problem = problem_from_json(j.at("problem_size"));
            r.config = space.config_from_json(j.at("config"));
            r.time = j.at("time").get<double>();
            r.default_time = j.value("default_time", 0.0);
            r.env = env_from_json(j.at("environment"));
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

std::vector<std::string> wisdom_search_path(const std::vector<std::string>& user_dirs) {
    std::vector<std::string> dirs;
    if (std::string p = project_wisdom_dir(); !p.empty()) dirs.push_back(p);
    dirs.insert(dirs.end(), user_dirs.begin(), user_dirs.end());
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
    const char* rev = std::getenv("SQUALL_GIT_REVISION");
#ifdef SQUALL_GIT_REVISION_BUILT
    e.git_revision = rev && *rev ? rev : SQUALL_GIT_REVISION_BUILT;
#else
    e.git_revision = rev && *rev ? rev : "unknown";
#endif
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
    return {{"problem_size", r.problem.extent},
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
              {"git_revision", r.env.git_revision}}}};
}

void append_wisdom(const std::string& dir, const std::string& key, const ConfigSpace& space,
                   const WisdomRecord& record) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    std::string path = dir + "/" + wisdom_file_name(key);
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error("cannot open wisdom file " + path + " for appending");
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    flock(fd, LOCK_EX); // released on close
    std::string text;
    if (lseek(fd, 0, SEEK_END) == 0) text = wisdom_header_json(key, space).dump() + "\n";
    text += wisdom_record_json(record, space).dump() + "\n";
    size_t done = 0;
    while (done < text.size()) {
        ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n <= 0) throw std::runtime_error("cannot write wisdom file " + path);
        done += static_cast<size_t>(n);
    }
}

} // namespace squall::rt
