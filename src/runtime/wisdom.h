// Wisdom files: tuning results, one file per tuning key, line-oriented JSON.
//
//   {"type":"squall-wisdom","version":1,"key":"advec_u_double","objective":"time",
//    "param_names":["block_x",...]}
//   {"problem_size":[512,512,512],"config":{"block_x":32,...},"time":0.00187,
//    "default_time":0.00256,"environment":{"device_name":"NVIDIA H200",
//    "compute_capability":"9.0","driver_version":13000,"nvrtc_version":13000,
//    "date":"2026-11-30T10:00:00Z","host":"gpu01","git_revision":"abc1234"}}
//
// Selection, per problem size:
//   1. same device, exact size;  2. same device, nearest size;
//   3. same compute capability, nearest size;  4. any device, nearest size;
//   5. the default configuration.
// "Nearest" is the Euclidean norm of the per-axis differences of log2(extent). Ties
// (equal distance, or several exact matches) go to the record loaded last: later
// directories win over earlier ones and later lines over earlier lines, so appending
// a newer tuning result overrides an older one. Records whose configuration is not
// valid for the current problem and device are passed over.
#pragma once

#include "runtime/config_space.h"
#include "runtime/device_info.h"

#include <nlohmann/json_fwd.hpp>

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace squall::rt {

constexpr int wisdom_format_version = 1;

struct Provenance {
    std::string device_name;
    std::string compute_capability; // "9.0"
    int driver_version = 0;
    int nvrtc_version = 0;
    std::string date; // ISO 8601 UTC
    std::string host;
    std::string git_revision;
};

struct WisdomRecord {
    ProblemSize problem;
    Config config;
    double time = 0;         // seconds
    double default_time = 0; // seconds, the default configuration on the same problem
    Provenance env;
    std::string origin; // "file:line", for log messages
};

struct WisdomSelection {
    Config config;
    int level = 5; // 1..5 as above
    std::string reason;
    std::optional<WisdomRecord> record; // absent at level 5
};

class Wisdom {
public:
    // Reads <dir>/<wisdom_file_name(key)> from every directory, in order. Missing files
    // are silent; unreadable files, bad lines, unknown parameters and a wrong version
    // are warnings and are skipped.
    static Wisdom load(const std::string& key, const ConfigSpace& space,
                       const std::vector<std::string>& dirs);
    // Parses one file's contents; `origin` names it in warnings.
    void parse(std::istream& in, const std::string& origin, const std::string& key,
               const ConfigSpace& space);
    void add(WisdomRecord r) { records_.push_back(std::move(r)); }
    const std::vector<WisdomRecord>& records() const { return records_; }

    // device_name: the name to match (the actual device, or SQUALL_WISDOM_DEVICE).
    WisdomSelection select(const ProblemSize& p, const DeviceInfo& device,
                           const std::string& device_name, const ConfigSpace& space) const;

private:
    std::vector<WisdomRecord> records_;
};

// log2-space distance used by selection.
double problem_distance(const ProblemSize& a, const ProblemSize& b);

// "advec_u_double" -> "advec_u_double.wisdom" (characters outside [A-Za-z0-9_.-] become '_').
std::string wisdom_file_name(const std::string& key);

// The project's wisdom/ directory: <exe>/../share/squall/wisdom when installed, else the
// nearest ancestor of the executable's directory holding wisdom/ and kernels/, else
// SQUALL_SOURCE_DIR/wisdom. Empty when none exists.
std::string project_wisdom_dir();

// Project directory first, then `user_dirs`, then the ':'-separated SQUALL_WISDOM_PATH.
std::vector<std::string> wisdom_search_path(const std::vector<std::string>& user_dirs = {});

// Device name used for matching: SQUALL_WISDOM_DEVICE when set, else device.name.
std::string wisdom_device_name(const DeviceInfo& device);

// Provenance for a new record measured now on `device`.
Provenance current_provenance(const DeviceInfo& device);

nlohmann::json wisdom_header_json(const std::string& key, const ConfigSpace& space,
                                  const std::string& objective = "time");
nlohmann::json wisdom_record_json(const WisdomRecord& r, const ConfigSpace& space);

// Appends a record to <dir>/<wisdom_file_name(key)>, writing the header first when the
// file is new. Uses an exclusive lock and O_APPEND so concurrent tuners do not
// interleave lines. Throws std::runtime_error when the file cannot be written.
void append_wisdom(const std::string& dir, const std::string& key, const ConfigSpace& space,
                   const WisdomRecord& record);

} // namespace squall::rt
