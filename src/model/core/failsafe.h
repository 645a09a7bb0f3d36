#pragma once
// Guards of a run against its common failures: an output directory that cannot be
// written, a case too large for host memory, sliver time steps before an output time, and
// a state that holds a NaN or Inf (see docs/failures.md).
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "model/config/config.h"
#include "model/grid.h"

namespace squall {

template <typename T>
class Model;
struct Diagnostics;

// Before the backend and memory checks: where output.dir exists, takes the case's lock in
// it and refuses an earlier run's checkpoints without --overwrite (removing nothing), so that
// a second run of a case is told about the first, not about the memory the first one holds.
// Collective over comm; throws std::runtime_error naming the directory or file on every rank.
void check_output_dir(const Config& cfg, MPI_Comm comm);

// Creates output.dir when it is missing and checks that a file can be created in it; takes
// the case's lock in it for the life of the process (one run at a time); on a fresh run,
// removes an earlier run's checkpoints of the case with --overwrite and refuses without.
// Collective over comm; throws std::runtime_error naming the directory or file on every rank.
void prepare_output_dir(const Config& cfg, MPI_Comm comm);

// The 3-D fields a run of the case allocates (on its backend; an unresolved one counts as
// the CPU): u, v, w, their tendencies, p, the scalar and its tendency, evisc, strain2
// unless the closure is fused, and s_next where the fused scalar kernel takes the RK stage.
int model_fields_3d(const Config& cfg);
// Host bytes the model of one rank allocates: the host copies of its 3-D fields and surface
// arrays (also kept on the GPU), halo buffers and the CPU pressure solver's buffers.
std::size_t model_host_bytes(const Config& cfg, const GridDims& d);
// Memory this process may still use: MemAvailable (/proc/meminfo), capped by a cgroup v2
// memory.max; 0 when neither can be read.
std::size_t host_memory_available();
// Throws, on every rank, when the ranks of a node together need more host memory than
// it has available. Call before the model allocates anything.
void check_host_memory(const Config& cfg, const GridDims& d, MPI_Comm comm);

// The step (in time units) to take when `remaining` units are left to the next output or
// end time and the time-step control allows `idt`: remaining when it fits in one step,
// else, when fewer than two steps are left, remaining spread evenly over ceil(remaining /
// idt) steps, so that the last step before the output time is never a sliver.
std::int64_t spread_step(std::int64_t idt, std::int64_t remaining);

// Estimated wall seconds left: the larger of the fractions done of the model time and of
// the step limit (max_steps < 0: none), counted from where this run started.
double run_eta(double elapsed, std::int64_t itime0, std::int64_t itime, std::int64_t iendtime,
               long nstep0, long nstep, long max_steps);

// The state of the model holds a NaN or an Inf. what() names the field, the step, the
// model time and the first bad point.
struct NumericalFailure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Throws NumericalFailure when a diagnostic is not finite (collective: the diagnostics are
// global, so every rank throws).
template <typename T>
void check_finite(Model<T>& m, const Diagnostics& dg);
// Scans the prognostic fields (copied to the host first) for the first NaN/Inf (or, when
// all are finite, the value of largest magnitude), writes
// <output.dir>/<case>.failed.<step>.txt on rank 0, and throws NumericalFailure.
// `diagnostic` names what found the failure (e.g. "ke = nan"). Collective.
template <typename T>
[[noreturn]] void fail_not_finite(Model<T>& m, const std::string& diagnostic);

} // namespace squall
