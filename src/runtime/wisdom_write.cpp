// Writing wisdom files: appending one record, and merging records into a file.
#include "runtime/log.h"
#include "runtime/wisdom.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace squall::rt {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A file-level reason not to merge (bad or mismatched header, unreadable file): the
// file stays as it was. merge_wisdom_dirs skips such a file and goes on.
struct MergeRefused : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::string errno_text() {
    return std::strerror(errno);
}

// An exclusive flock on <dir>/.<file>.lock while the object lives. The lock is on a
// file of its own because a merge replaces the wisdom file by a rename.
class FileLock {
public:
    FileLock(const std::string& dir, const std::string& file, bool required) {
        const std::string path = dir + "/." + file + ".lock";
        fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd_ < 0) {
            if (required)
                throw std::runtime_error(
                    fmt::format("cannot open lock file {}: {}", path, errno_text()));
            return;
        }
        while (::flock(fd_, LOCK_EX) != 0) {
            if (errno == EINTR) continue;
            std::string why = errno_text();
            ::close(fd_);
            fd_ = -1;
            if (required) throw std::runtime_error(fmt::format("cannot lock {}: {}", path, why));
            return;
        }
    }
    ~FileLock() {
        if (fd_ >= 0) ::close(fd_); // releases the lock
    }
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;

private:
    int fd_ = -1;
};

void write_all(int fd, const std::string& text, const std::string& path) {
    size_t done = 0;
    while (done < text.size()) {
        ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
            throw std::runtime_error(fmt::format("cannot write {}: {}", path, errno_text()));
        done += static_cast<size_t>(n);
    }
}

// Replaces `path` by `text` so that readers see the old or the new file, never a part.
void write_atomically(const std::string& dir, const std::string& path, const std::string& text,
                      mode_t mode) {
    std::string name = dir + "/." + fs::path(path).filename().string() + ".XXXXXX";
    int fd = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd < 0)
        throw std::runtime_error(
            fmt::format("cannot create a temporary file in {}: {}", dir, errno_text()));
    try {
        write_all(fd, text, name);
        if (::fchmod(fd, mode) != 0 || ::fsync(fd) != 0)
            throw std::runtime_error(fmt::format("cannot write {}: {}", name, errno_text()));
        if (::close(fd) != 0) {
            fd = -1;
            throw std::runtime_error(fmt::format("cannot write {}: {}", name, errno_text()));
        }
        fd = -1;
        if (::rename(name.c_str(), path.c_str()) != 0)
            throw std::runtime_error(
                fmt::format("cannot rename {} to {}: {}", name, path, errno_text()));
    } catch (...) {
        if (fd >= 0) ::close(fd);
        ::unlink(name.c_str());
        throw;
    }
    // The rename itself lives in the directory; flush it too (best effort).
    int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
}

void check_time(double t, const std::string& what) {
    if (!std::isfinite(t) || t < 0)
        throw std::invalid_argument(
            fmt::format("{}: time {} is not a non-negative number", what, t));
}

// One record of a merge, kept as JSON so records of other squall versions (extra
// fields) or read without a ConfigSpace are written back as they came.
struct Entry {
    std::string device;
    ProblemSize problem;
    double time = 0;
    json record;
    bool from_file = false;
};
using EntryKey = std::pair<std::string, std::array<int64_t, 3>>;
// Ordered by device name, then problem size: the order of the written file.
using EntryMap = std::map<EntryKey, Entry>;

// Keeps the faster record; on a tie the one already there.
void insert_faster(EntryMap& m, Entry e) {
    EntryKey k{e.device, e.problem.extent};
    auto [it, inserted] = m.try_emplace(k, e);
    if (!inserted && e.time < it->second.time) it->second = std::move(e);
}

// The header line's checks shared by both merges; throws MergeRefused.
json check_header(const std::string& line, const std::string& where,
                  const std::optional<std::string>& key) {
    json h;
    try {
        h = json::parse(line);
    } catch (const std::exception& e) {
        throw MergeRefused(fmt::format("{}: the header is not JSON ({})", where, e.what()));
    }
    auto refuse = [&](const std::string& why) { return MergeRefused(where + ": " + why); };
    if (!h.is_object() || h.value("type", json()) != "squall-wisdom")
        throw refuse("not a squall-wisdom header");
    if (h.value("version", json()) != wisdom_format_version)
        throw refuse(fmt::format("format version {} (expected {})",
                                 h.value("version", json()).dump(), wisdom_format_version));
    if (!h.contains("key") || !h["key"].is_string()) throw refuse("the header has no key");
    if (key && h["key"] != *key)
        throw refuse(fmt::format("key {} does not match '{}'", h["key"].dump(), *key));
    if (h.value("objective", json("time")) != "time")
        throw refuse(fmt::format("objective {} is not time", h["objective"].dump()));
    const json& names = h.value("param_names", json());
    if (!names.is_array() ||
        !std::all_of(names.begin(), names.end(), [](const json& n) { return n.is_string(); }))
        throw refuse("param_names is not a list of names");
    return h;
}

using RecordParser = std::function<WisdomRecord(const json& record, const json& header)>;

struct WisdomText {
    bool exists = false;
    std::string text;
    mode_t mode = 0644;
    std::optional<json> header; // nullopt for a missing or blank file
    std::vector<Entry> entries;
    int bad_lines = 0;
};

// Reads a wisdom file: the header (checked against `key` when given) and every record
// `parse` accepts; other lines are warned about and counted.
WisdomText read_wisdom_text(const std::string& path, const std::optional<std::string>& key,
                            const RecordParser& parse) {
    WisdomText w;
    std::error_code ec;
    if (!fs::exists(path, ec)) return w;
    struct stat st {};
    if (!fs::is_regular_file(path, ec) || ::stat(path.c_str(), &st) != 0)
        throw MergeRefused(path + " is not a readable file");
    w.exists = true;
    w.mode = st.st_mode & 07777;
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    if (!in || (!(ss << in.rdbuf()) && st.st_size > 0))
        throw MergeRefused(fmt::format("{} is not readable", path));
    w.text = ss.str();
    std::istringstream lines(w.text);
    std::string line;
    for (size_t lineno = 1; std::getline(lines, line); ++lineno) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        const std::string where = fmt::format("{}:{}", path, lineno);
        if (!w.header) {
            w.header = check_header(line, where, key);
            continue;
        }
        try {
            json j = json::parse(line);
            WisdomRecord r = parse(j, *w.header);
            check_time(r.time, "the record");
            w.entries.push_back({r.env.device_name, r.problem, r.time, std::move(j), true});
        } catch (const std::exception& e) {
            log_warn("wisdom {}: record left out of the merge: {}", where, e.what());
            ++w.bad_lines;
        }
    }
    return w;
}

// The header to write, given the existing file's (null when none); throws MergeRefused.
using HeaderChoice = std::function<json(const json* existing)>;

// Merges `incoming` into <dir>/<wisdom_file_name(key)> under the directory's lock.
MergeSummary merge_into(const std::string& dir, const std::string& key,
                        const std::vector<Entry>& incoming, const HeaderChoice& choose_header,
                        const RecordParser& parse) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw std::runtime_error(fmt::format("cannot create {}: {}", dir, ec.message()));
    const std::string file = wisdom_file_name(key);
    const std::string path = dir + "/" + file;
    FileLock lock(dir, file, true);

    WisdomText old = read_wisdom_text(path, key, parse);
    const json header = choose_header(old.header ? &*old.header : nullptr);
    EntryMap merged;
    for (Entry& e : old.entries) insert_faster(merged, std::move(e));
    std::set<EntryKey> in_file;
    for (const auto& [k, e] : merged) in_file.insert(k);
    for (const Entry& e : incoming) insert_faster(merged, e);

    MergeSummary s;
    s.files = 1;
    s.bad_lines = old.bad_lines;
    s.duplicates = static_cast<int>(old.entries.size() - in_file.size());
    std::string text = header.dump() + "\n";
    for (const auto& [k, e] : merged) {
        if (e.from_file)
            ++s.kept;
        else if (in_file.count(k))
            ++s.replaced;
        else
            ++s.added;
        text += e.record.dump() + "\n";
    }
    s.ignored = static_cast<int>(incoming.size()) - s.added - s.replaced;
    if (text != old.text) {
        write_atomically(dir, path, text, old.exists ? old.mode : 0644);
        s.files_written = 1;
    }
    log_debug("wisdom merge into {}: {} added, {} replaced, {} kept, {} ignored", path, s.added,
              s.replaced, s.kept, s.ignored);
    return s;
}

std::vector<std::string> param_names_of(const json& header) {
    return header.at("param_names").get<std::vector<std::string>>();
}

bool starts_with(const std::vector<std::string>& a, const std::vector<std::string>& prefix) {
    return prefix.size() <= a.size() && std::equal(prefix.begin(), prefix.end(), a.begin());
}

} // namespace

MergeSummary& MergeSummary::operator+=(const MergeSummary& o) {
    added += o.added;
    replaced += o.replaced;
    kept += o.kept;
    ignored += o.ignored;
    duplicates += o.duplicates;
    bad_lines += o.bad_lines;
    files += o.files;
    files_written += o.files_written;
    files_skipped += o.files_skipped;
    return *this;
}

void append_wisdom(const std::string& dir, const std::string& key, const ConfigSpace& space,
                   const WisdomRecord& record) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    const std::string file = wisdom_file_name(key);
    const std::string path = dir + "/" + file;
    // Not required: appending still works in a directory that is not writable.
    FileLock dir_lock(dir, file, false);
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
    write_all(fd, text, path);
}

MergeSummary merge_wisdom(const std::string& dir, const std::string& key, const ConfigSpace& space,
                          const std::vector<WisdomRecord>& records) {
    std::vector<Entry> incoming;
    incoming.reserve(records.size());
    for (const WisdomRecord& r : records) {
        check_time(r.time, fmt::format("new record for '{}' at {} on '{}'", key,
                                       r.problem.to_string(), r.env.device_name));
        incoming.push_back(
            {r.env.device_name, r.problem, r.time, wisdom_record_json(r, space), false});
    }
    return merge_into(
        dir, key, incoming, [&](const json*) { return wisdom_header_json(key, space); },
        [&](const json& j, const json&) { return wisdom_record_from_json(j, space); });
}

MergeSummary merge_wisdom_dirs(const std::string& src_dir, const std::string& dst_dir) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (fs::directory_iterator it(src_dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".wisdom") files.push_back(it->path());
    if (ec) throw std::runtime_error(fmt::format("cannot list {}: {}", src_dir, ec.message()));
    std::sort(files.begin(), files.end());

    const RecordParser by_header_names = [](const json& j, const json& header) {
        return wisdom_record_from_json(j, param_names_of(header));
    };
    MergeSummary total;
    for (const fs::path& src : files) {
        try {
            WisdomText in = read_wisdom_text(src.string(), std::nullopt, by_header_names);
            total.bad_lines += in.bad_lines;
            if (!in.header) throw MergeRefused("no header");
            const std::string key = in.header->at("key").get<std::string>();
            if (wisdom_file_name(key) != src.filename().string())
                throw MergeRefused(
                    fmt::format("the key '{}' belongs in {}", key, wisdom_file_name(key)));
            const json src_header = *in.header;
            const HeaderChoice longer_header = [&](const json* existing) {
                if (!existing) return src_header;
                auto have = param_names_of(*existing), add = param_names_of(src_header);
                if (starts_with(add, have)) return src_header;
                if (starts_with(have, add)) return *existing;
                throw MergeRefused("the parameters differ from those of " + dst_dir + "/" +
                                   src.filename().string());
            };
            for (Entry& e : in.entries) e.from_file = false;
            total += merge_into(dst_dir, key, in.entries, longer_header, by_header_names);
        } catch (const MergeRefused& e) {
            log_warn("wisdom merge: {} skipped: {}", src.string(), e.what());
            ++total.files_skipped;
        }
    }
    return total;
}

} // namespace squall::rt
