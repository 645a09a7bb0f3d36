#pragma once
// Checkpoint files: the complete model state in one HDF5 file (layout: docs/output.md,
// "Checkpoints and restart"). Fields are stored as global interior arrays (z, y, x), so a
// checkpoint can be read back on any rank layout and backend.
//
//   io::write_checkpoint(path, info, {{"u", &u}, ...}, decomp);  // collective, atomic
//   io::CheckpointInfo info = io::read_checkpoint_info(path);     // any rank
//   io::read_checkpoint_fields(path, {{"u", &u}, ...}, decomp);   // each rank its block
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/decomp.h"
#include "model/field.h"

namespace squall::io {

// Any failure to write or read a checkpoint; what() names the file.
struct CheckpointError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Everything but the fields: the time-integration state and what the run was made of.
struct CheckpointInfo {
    std::int64_t itime = 0; // model time in units of time_unit
    std::int64_t idt = 0;   // the last step's size (a fixed-dt run continues with it)
    long nstep = 0;         // steps taken since the start of the run
    double time = 0;        // itime in seconds, for readers
    std::string precision;  // "float" or "double"
    std::string backend;    // "cpu" or "gpu": where it was written
    int itot = 0, jtot = 0, ktot = 0;
    int npx = 1, npy = 1;            // the decomposition it was written with
    std::vector<double> z;           // cell-centre heights (ktot)
    std::string resolved_yaml;       // the resolved case of the run
    std::vector<std::string> fields; // names of the stored fields
};

template <typename T>
struct CheckpointField {
    std::string name;
    Field3d<T>* field; // host copy of this rank's field (interior read/written)
};

// Writes "<path>.tmp.<pid>" in the same directory, with a checksum of each field (an
// attribute, independent of the rank layout), checks every HDF5 call, fsyncs and
// renames it to path. Collective over decomp.comm: rank 0 writes, the other ranks send
// their blocks one at a time. On failure the temporary file is removed, any previous file
// at path is left untouched, and every rank throws CheckpointError naming path.
template <typename T>
void write_checkpoint(const std::string& path, const CheckpointInfo& info,
                      const std::vector<CheckpointField<T>>& fields, const Decomposition& decomp);

CheckpointInfo read_checkpoint_info(const std::string& path);

// Each rank reads its own block of every field (interior only; ghosts are left alone) and
// checks each field against the checksum the file stores (CheckpointError when one
// differs: the file is corrupt). Collective over decomp.comm. Returns the number of fields
// the file has no checksum for (written by a squall before checksums).
template <typename T>
std::size_t read_checkpoint_fields(const std::string& path,
                                   const std::vector<CheckpointField<T>>& fields,
                                   const Decomposition& decomp);

// "<case>.chk.<itime, 20 digits>.h5": names sort in time order.
std::string checkpoint_name(const std::string& case_name, std::int64_t itime);
// Checkpoints of a case in dir, oldest first.
std::vector<std::string> list_checkpoints(const std::string& dir, const std::string& case_name);
// The newest checkpoint of a case; throws CheckpointError when there is none.
std::string latest_checkpoint(const std::string& dir, const std::string& case_name);
// Removes all but the newest `keep` checkpoints of a case.
void prune_checkpoints(const std::string& dir, const std::string& case_name, int keep);

// Keys of two resolved cases that differ, as "key: checkpoint A, case B", leaving out the
// keys a restart may change (restart_mutable_key).
std::vector<std::string> case_differences(const std::string& checkpoint_yaml,
                                          const std::string& case_yaml);
bool restart_mutable_key(const std::string& dotted_key);

// Tests only: make the n-th checked HDF5 call of the next checkpoint writes fail
// (n >= 1; 0 = off), as a full disk would.
void fail_hdf5_call_for_testing(long n);

} // namespace squall::io
