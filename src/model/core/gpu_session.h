#pragma once
// The process-wide GPU state of a run: the tunable-kernel runtime opened on this rank's
// GPU (local rank modulo the device count: one rank per GPU), the launch dispatch switch,
// the device-memory check and the parallel precompile before the time loop.
#include <mpi.h>

#include <cstddef>
#include <string>

#include "model/config/config.h"
#include "model/grid.h"
#include "runtime/runtime.h"

namespace squall {

// True when this build contains the GPU model (CUDA toolkit, GPU dispatch, GPU pressure).
bool gpu_model_built();

// Opens the runtime on this rank's device (once; later calls return the same answer).
// Returns an empty string when a device is usable, else why not (the runtime's
// no_device_reason(), or "this build has no GPU support ...").
std::string open_gpu(MPI_Comm comm);
// The runtime opened by open_gpu(); throws when there is none.
rt::Runtime& gpu_runtime();

// Free and total device memory in bytes (0, 0 without a device).
struct DeviceMemory {
    std::size_t free = 0, total = 0;
};
DeviceMemory gpu_memory();
// Device bytes the model of this rank needs: its 3-D fields, surface arrays, metrics,
// halo buffers and the pressure solver's buffers and FFT work areas.
std::size_t model_device_bytes(const Config& cfg, const GridDims& d);

// Switches launch() & co. to the GPU (true) or the CPU (false).
void gpu_dispatch(bool on);

} // namespace squall
