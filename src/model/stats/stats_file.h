#pragma once
// The statistics file on disk: an HDF5 file whose datasets grow along an unlimited time
// dimension, appended to and flushed at every write, readable during the run through HDF5
// SWMR (layout: docs/output.md). Used by Statistics<T> on rank 0 only; every failure throws
// std::runtime_error with a message that does not yet name the file (the caller adds it).
#include <hdf5.h>

#include <memory>
#include <string>
#include <vector>

#include "model/io/h5.h"

namespace squall::stats_io {

enum class Loc { z, zh, time }; // profile at the centres, at the faces, or a time series

struct VarInfo {
    std::string name;
    Loc loc;
    std::string long_name, units;
};

// What identifies a run's statistics: root attributes and the vertical levels.
struct Header {
    std::string case_name, version, yaml, scalar;
    std::vector<double> z, zh;
};

class StatsFile {
public:
    // A new file; an existing one is an error unless `overwrite` (then it is replaced).
    static std::unique_ptr<StatsFile> create(const std::string& path, const Header& h,
                                             bool overwrite);
    // An existing file written for the same levels and scalar; samples with a time later
    // than `time` are dropped, so that appending continues the time axis.
    static std::unique_ptr<StatsFile> resume(const std::string& path, const Header& h, double time);
    StatsFile(const StatsFile&) = delete;
    StatsFile& operator=(const StatsFile&) = delete;
    // Destruction closes without throwing.
    void close() { file_.close(); } // throws when HDF5 reports an error

    std::size_t nsamples() const { return nt_; }
    double last_time() const { return last_time_; }
    // Datasets in the file, by name (profiles and time series).
    const std::vector<VarInfo>& vars() const { return vars_; }

    // Creates the datasets of `vars` that the file lacks (NaN for the samples already
    // written). With `exact`, the file's variables must be exactly `vars` instead.
    void define(const std::vector<VarInfo>& vars, bool exact);
    // Appends n samples: time and step (n each), then for vars()[i] the n rows in data[i];
    // flushes. On failure the datasets are cut back to the samples of earlier writes and
    // the file is closed.
    void append(const std::vector<double>& time, const std::vector<long long>& step,
                const std::vector<const std::vector<double>*>& data);

private:
    explicit StatsFile(std::string path) : path_(std::move(path)) {}
    void set_extent_all(hsize_t nt);
    void write_reference_lists();

    std::string path_;
    h5::AppendFile file_;
    std::size_t nt_ = 0, nz_ = 0, nzh_ = 0;
    double last_time_;
    std::vector<VarInfo> vars_;
};

} // namespace squall::stats_io
