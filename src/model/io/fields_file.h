#pragma once
// 3-D field files: selected fields at one output time in one HDF5 file, global arrays with
// dimension scales that xarray reads (layout: docs/output.md, "3-D fields").
//
//   io::write_fields(path, info, {{"u", "...", "m s-1", &u, io::Stagger::x}, ...}, decomp);
//
// Collective over decomp.comm. Only the serial HDF5 library is used: rank 0 writes, and
// the other ranks send their blocks one at a time, each written as a hyperslab at once, so
// rank 0 holds its own fields plus one other rank's block of one field.
#include <stdexcept>
#include <string>
#include <vector>

#include "model/decomp.h"
#include "model/field.h"

namespace squall::io {

// Any failure to write a fields file; what() names the file.
struct OutputError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Where a field lives: cell centres, or the faces normal to x, y or z.
enum class Stagger { centre, x, y, z };

template <typename T>
struct OutputField {
    std::string name, long_name, units;
    const Field3d<T>* field; // host copy of this rank's field (interior read)
    Stagger stagger;
    double offset = 0; // added to every value (u, v in the ground frame: grid.utrans)
};

struct FieldsInfo {
    std::string case_name, version;
    double time = 0;
    std::vector<double> x, xh, y, yh, z, zh; // global coordinates (zh: ktot + 1 faces)
    bool single = false;                     // store as float32
    bool checksum = true;                    // HDF5's Fletcher-32 checksum per chunk
    bool overwrite = false;                  // replace an existing file
};

// Writes "<path>.tmp.<pid>" and renames it to path; on failure every rank throws
// OutputError naming path, and no file is left at path.
template <typename T>
void write_fields(const std::string& path, const FieldsInfo& info,
                  const std::vector<OutputField<T>>& fields, const Decomposition& decomp);

// "<case>.fields.<itime, 20 digits>.h5": names sort in time order.
std::string fields_name(const std::string& case_name, long long itime);

} // namespace squall::io
