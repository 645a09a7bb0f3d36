#pragma once
// A growing HDF5 file of 2-D sections: root-group variables (time, z-ish, y-ish, x-ish)
// along an unlimited time dimension, with dimension scales that xarray reads, appended
// and flushed at every sample and readable during the run through HDF5 SWMR (layout:
// docs/output.md, "Cross-sections"). Used on rank 0 only; failures throw h5::Error with a
// message that does not yet name the file (the caller adds it).
#include <hdf5.h>

#include <memory>
#include <string>
#include <vector>

#include "model/io/h5.h"

namespace squall::io {

struct Axis {
    std::string name; // dimension name: x, xh, y, yh, z, zh
    std::vector<double> values;
    std::string long_name;
};

struct CrossVar {
    std::string name, long_name, units;
    std::string zdim, ydim, xdim; // names of its axes, e.g. "zh", "y", "x" for w
};

struct CrossHeader {
    std::string case_name, version, title;
    std::vector<Axis> axes; // each a dimension scale in the root group
    std::vector<CrossVar> vars;
    bool single = false; // variables stored as float32 (else float64)
};

class CrossFile {
public:
    // A new file; an existing one is an error unless `overwrite` (then it is replaced).
    static std::unique_ptr<CrossFile> create(const std::string& path, const CrossHeader& h,
                                             bool overwrite);
    // An existing file with the same axes and variables; samples later than `time` are
    // dropped, so that appending continues the time axis.
    static std::unique_ptr<CrossFile> resume(const std::string& path, const CrossHeader& h,
                                             double time);
    CrossFile(const CrossFile&) = delete;
    CrossFile& operator=(const CrossFile&) = delete;
    // Destruction closes without throwing.
    void close() { file_.close(); } // throws when HDF5 reports an error

    std::size_t nsamples() const { return nt_; }
    // One sample: data[v] holds vars[v] as (z, y, x) with x fastest, in the memory type
    // of `single` (float or double); flushes. A sample that would not fit on the disk is
    // refused before the file is touched; on any failure the datasets are cut back to the
    // samples before (as far as HDF5 still can) and the file is closed.
    void append(double time, const std::vector<const void*>& data);

private:
    CrossFile(std::string path, const CrossHeader& h) : path_(std::move(path)), h_(h) {}
    std::size_t axis_size(const std::string& name) const;
    void roll_back() noexcept; // every dataset back to nt_ samples, unchecked

    std::string path_;
    h5::AppendFile file_;
    CrossHeader h_;
    std::size_t nt_ = 0;
};

} // namespace squall::io
