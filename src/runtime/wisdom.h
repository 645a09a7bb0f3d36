// Wisdom files: tuning results, one file per tuning key, line-oriented JSON.
//
//   {"type":"squall-wisdom","version":1,"key":"advec_u_double","objective":"time",
//    "param_names":["block_x",...]}
//   {"problem_size":[512,512,512],"config":{"block_x":32,...},"time":0.00187,
//    "default_time":0.00256,"environment":{"device_name":"NVIDIA H200",
//    "compute_capability":"9.0","driver_version":13000,"nvrtc_version":13000,
//    "date":"2026-11-30T10:00:00Z","host":"gpu01","git_revision":"abc1234",
//    "squall_version":"0.1"},"tuning":{"capture_hash":"9f0c...","strategy":"annealing",
//    "evaluations":200,"rejected":3}}
//
// "tuning" (written by `squall tune`) and "squall_version" are optional, so older
// records still load.
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
//
// Directories, in load order (see wisdom_search_path):
//   1. the project's wisdom/, or SQUALL_WISDOM_PROJECT_DIR when set (empty: none);
//   2. the user's directory: SQUALL_WISDOM_USER_DIR when set (empty: none), else
//      $XDG_DATA_HOME/squall/wisdom, else $HOME/.local/share/squall/wisdom;
//   3. the directories given by the caller (RuntimeOptions::wisdom_dirs);
//   4. the ':'-separated SQUALL_WISDOM_PATH.
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
    std::string squall_version; // empty in records older than the field
};

// How a record was tuned (absent from records not written by the tuner).
struct TuningInfo {
    std::string capture_hash; // hex hash of the capture measured on
    std::string strategy;     // search strategy name
    int evaluations = 0;      // configurations measured
    int rejected = 0;         // configurations that failed (compile, launch, verification)
    bool empty() const {
        return capture_hash.empty() && strategy.empty() && evaluations == 0 && rejected == 0;
    }
};

struct WisdomRecord {
    ProblemSize problem;
    Config config;
    double time = 0;         // seconds
    double default_time = 0; // seconds, the default configuration on the same problem
    Provenance env;
    std::string origin; // "file:line", for log messages
    TuningInfo tuning;
    // The space's parameters the record's configuration does not name (they take their
    // defaults): it was written before they existed, so no search tried them.
    std::vector<std::string> unnamed_params;
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

// The project's wisdom/ directory: SQUALL_WISDOM_PROJECT_DIR when set (empty: none, so
// a test can run without or with a modified copy of the shipped wisdom), else
// <exe>/../share/squall/wisdom when installed, else the nearest ancestor of the
// executable's directory holding wisdom/ and kernels/, else SQUALL_SOURCE_DIR/wisdom.
// Empty when none exists.
std::string project_wisdom_dir();

// The user's wisdom directory (where `squall tune` writes by default):
// SQUALL_WISDOM_USER_DIR when set (empty: none), else $XDG_DATA_HOME/squall/wisdom (an
// absolute XDG_DATA_HOME), else $HOME/.local/share/squall/wisdom. It need not exist.
std::string user_wisdom_dir();

// The project directory, then the user directory, then `user_dirs`, then the
// ':'-separated SQUALL_WISDOM_PATH; empty entries left out.
std::vector<std::string> wisdom_search_path(const std::vector<std::string>& user_dirs = {});

// Device name used for matching: SQUALL_WISDOM_DEVICE when set, else device.name.
std::string wisdom_device_name(const DeviceInfo& device);

// Provenance for a new record measured now on `device`.
Provenance current_provenance(const DeviceInfo& device);

nlohmann::json wisdom_header_json(const std::string& key, const ConfigSpace& space,
                                  const std::string& objective = "time");
// "tuning" is written only when r.tuning is not empty; `origin` is never written.
nlohmann::json wisdom_record_json(const WisdomRecord& r, const ConfigSpace& space);
// The inverse of wisdom_record_json. Throws (std::invalid_argument or a JSON error, with
// a message) on a malformed record, an unknown parameter or a value not allowed.
WisdomRecord wisdom_record_from_json(const nlohmann::json& j, const ConfigSpace& space);
// The same without a ConfigSpace, for moving records of kernels not at hand: `config`
// stays empty, and the record's configuration must be an object (or null) whose names
// are in `param_names`.
WisdomRecord wisdom_record_from_json(const nlohmann::json& j,
                                     const std::vector<std::string>& param_names);

// Appends a record to <dir>/<wisdom_file_name(key)>, writing the header first when the
// file is new. Uses an exclusive lock and O_APPEND so concurrent tuners do not
// interleave lines. Throws std::runtime_error when the file cannot be written.
void append_wisdom(const std::string& dir, const std::string& key, const ConfigSpace& space,
                   const WisdomRecord& record);

// What a merge did to one wisdom file (or, from merge_wisdom_dirs, to all of them).
// The merged file holds kept + replaced + added records.
struct MergeSummary {
    int added = 0;         // records for a (device, size) the file did not have
    int replaced = 0;      // records of the file replaced by a faster new one
    int kept = 0;          // records of the file that stay
    int ignored = 0;       // new records not taken: not faster than the one kept
    int duplicates = 0;    // slower records of the file for a (device, size) it holds twice
    int bad_lines = 0;     // unreadable lines, each warned about and left out
    int files = 0;         // files merged
    int files_written = 0; // files whose contents changed
    int files_skipped = 0; // merge_wisdom_dirs: files left alone (warned)
    MergeSummary& operator+=(const MergeSummary& o);
};

// Merges `records` into <dir>/<wisdom_file_name(key)> (dir and file created when
// missing). The file keeps exactly one record per (device name, problem size): the
// fastest (lowest time); on a tie the record already in the file stays, so merging is
// idempotent. Records are written sorted by device name, then problem size, with the
// header of `space`, and the file is only rewritten when its contents change, so
// merging the same records twice leaves it byte for byte the same. The file is
// replaced atomically (temporary file, fsync, rename) while an exclusive flock on
// <dir>/.<file>.lock is held, which append_wisdom takes too, so concurrent tuners do
// not lose records. Unreadable lines of the file are left out with a warning. Throws
// std::runtime_error, leaving the file as it was, when the file cannot be read or
// written or its header is not a squall-wisdom header of this key and version, and
// std::invalid_argument for a new record with a negative time.
MergeSummary merge_wisdom(const std::string& dir, const std::string& key, const ConfigSpace& space,
                          const std::vector<WisdomRecord>& records);

// Merges every <src_dir>/*.wisdom into the file of the same name in dst_dir, as
// merge_wisdom does, without the kernels' ConfigSpaces: records are checked against
// the headers' param_names and copied as they are. When both files exist, one header's
// parameters must extend the other's (a space that gained parameters at the end; the
// longer header is written); otherwise, or when a source file is unreadable or its
// header bad, that file is skipped with a warning. Throws std::runtime_error when
// src_dir cannot be listed or dst_dir cannot be written.
MergeSummary merge_wisdom_dirs(const std::string& src_dir, const std::string& dst_dir);

} // namespace squall::rt
