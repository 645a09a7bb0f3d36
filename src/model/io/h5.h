#pragma once
// Shared HDF5 helpers of the output files (checkpoints, statistics, cross-sections, 3-D
// fields): every call's result checked, owned identifiers, string attributes, dimension
// scales that xarray/netCDF-4 read, and a file-access list for the latest format (SWMR).
// Failures throw h5::Error with a message naming the step; callers add the file's name.
#include <hdf5.h>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace squall::h5 {

struct Error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Tests: while `on`, the `at`-th checked call (counting from `count` = 0) fails, as a full
// disk would. Only checkpoint writes turn it on.
struct FailInjection {
    long at = 0, count = 0;
    bool on = false;
};
FailInjection& fail_injection();

// Whether HDF5 calls may come from several threads (the library serialises them).
bool library_threadsafe();

// A negative id or status is a failure.
template <typename R>
R check(R r, const std::string& what) {
    if (r < 0) throw Error(what);
    if (FailInjection& f = fail_injection(); f.on && f.at > 0 && ++f.count == f.at)
        throw Error(what + " (injected failure)");
    return r;
}

// Closing files, and the library's end. A file whose close failed (a write error: a full
// disk, a file system turned read-only) stays open inside HDF5, and the library's own exit
// handler then crashed closing it again. So the program ends the library itself:
// take_over_shutdown() first thing in main, shutdown() last; shutdown() leaves the library
// alone once a close has failed (the files that closed are complete; the failed one cannot
// be saved by a second try).
herr_t close_file(hid_t fid); // H5Fclose, remembering a failure
void take_over_shutdown();
void shutdown();

// Owns an HDF5 id; the destructor closes it without checking (error paths, where a second
// failure cannot make things worse). close() closes it with the result checked.
class Id {
public:
    Id(hid_t id, herr_t (*close)(hid_t), const std::string& what)
        : id_(check(id, what)), close_(close) {}
    Id(const Id&) = delete;
    Id& operator=(const Id&) = delete;
    ~Id() {
        if (id_ >= 0) close_(id_);
    }
    operator hid_t() const { return id_; }
    void close(const std::string& what) {
        const hid_t id = id_;
        id_ = -1;
        check(close_(id), what);
    }

private:
    hid_t id_;
    herr_t (*close_)(hid_t);
};

// Silences HDF5's own error-stack printing while alive; failures are reported by check().
class Quiet {
public:
    Quiet() {
        H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    }
    ~Quiet() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }
    Quiet(const Quiet&) = delete;
    Quiet& operator=(const Quiet&) = delete;

private:
    H5E_auto2_t func_ = nullptr;
    void* data_ = nullptr;
};

// A file appended to during a run (statistics, cross-sections), in the latest format so that
// readers can follow it in SWMR mode. The destructor closes it without checking.
class AppendFile {
public:
    AppendFile() = default;
    AppendFile(const AppendFile&) = delete;
    AppendFile& operator=(const AppendFile&) = delete;
    ~AppendFile();
    // A new file; an existing one is an error unless `overwrite` (then it is replaced).
    void create(const std::string& path, bool overwrite);
    // An existing file, for appending; one left marked as open by a killed run is taken over.
    void open(const std::string& path);
    void close();   // with the result checked; nothing when already closed
    void abandon(); // after a failure: closes without checking
    void flush();
    void start_swmr(); // flushes, then single-writer/multiple-reader mode
    bool is_open() const { return fid_ >= 0; }
    bool swmr() const { return swmr_; }
    // Throws when closed after an earlier error, or when the path no longer names the file
    // it opened (deleted or replaced during the run: what it wrote since would be lost).
    void require_open() const;
    operator hid_t() const { return fid_; }

private:
    hid_t fid_ = -1;
    bool swmr_ = false;
    std::string path_;
    unsigned long long dev_ = 0, ino_ = 0; // the file's identity when opened
    void remember(const std::string& path);
};

void write_string_attr(hid_t loc, const char* name, const std::string& value);
void write_int_attr(hid_t loc, const char* name, std::int64_t value);
void write_real_attr(hid_t loc, const char* name, double value);
std::string read_string_attr(hid_t loc, const char* name); // fixed-length strings
std::int64_t read_int_attr(hid_t loc, const char* name);
void write_uint_attr(hid_t loc, const char* name, std::uint64_t value);
std::uint64_t read_uint_attr(hid_t loc, const char* name);
bool has_attr(hid_t loc, const char* name);

// Bytes the file at path can still grow by: free space on its filesystem and the
// process's file size limit. Appending writers refuse a sample that would not fit, so
// that a full disk leaves the file as its last flush left it.
std::uintmax_t free_bytes(const std::string& path);

// A file-access property list for the latest format, which SWMR needs (readers: HDF5 1.10+).
hid_t latest_fapl();
// The whole dataset, as doubles.
std::vector<double> read_doubles(hid_t ds, const std::string& what);

template <typename T>
hid_t mem_type() {
    return sizeof(T) == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
}
template <typename T>
hid_t file_type() {
    return sizeof(T) == 4 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE;
}

// Dimension scales written with the core library, following the HDF5 Dimension Scale
// specification that H5DS (hdf5_hl) implements, so that H5DS, netCDF-4 and xarray read them
// (the build has no hdf5_hl):
//   scale:   CLASS = "DIMENSION_SCALE", NAME = <dim name>,
//            REFERENCE_LIST = [{dataset: object ref, dimension: int}, ...];
//   dataset: DIMENSION_LIST = one vlen of object refs per dimension.
void make_scale(hid_t ds, const std::string& dimname);
// DIMENSION_LIST of ds: scales[d] (paths in `file`) for its dimension d.
void attach(hid_t file, hid_t ds, const std::vector<std::string>& scales);
// REFERENCE_LIST of each scale: {scale path: [(dataset path, dimension), ...]}; replaces
// existing lists.
void write_reference_lists(
    hid_t file, const std::map<std::string, std::vector<std::pair<std::string, int>>>& refs);
// A fixed 1-D coordinate dataset made a dimension scale of its own name.
void write_scale(hid_t loc, const std::string& name, const std::vector<double>& values,
                 const std::string& units, const std::string& long_name);

} // namespace squall::h5
