#include "model/core/gpu_session.h"

#include <memory>
#include <stdexcept>

#include "model/core/failsafe.h"

#ifdef SQUALL_GPU_MODEL
#include "backends/cuda/gpu_launch.h"
#include "model/pressure/pressure_gpu.h"
#endif

namespace squall {

namespace {
std::string g_reason;
bool g_opened = false;
[[maybe_unused]] bool g_have = false; // unused in a build without CUDA
} // namespace

bool gpu_model_built() {
#ifdef SQUALL_GPU_MODEL
    return true;
#else
    return false;
#endif
}

std::string open_gpu(MPI_Comm comm) {
    if (g_opened) return g_reason;
    g_opened = true;
    if (!gpu_model_built()) {
        g_reason = "this build has no GPU support (the CUDA toolkit was not found at build time)";
        return g_reason;
    }
#ifdef SQUALL_GPU_MODEL
    // One rank per GPU: ranks on the same node take consecutive devices.
    int local_rank = 0;
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank);
    MPI_Comm_free(&node);
    auto& drv = rt::Driver::get();
    if (!drv.available()) {
        g_reason = drv.error();
        return g_reason;
    }
    int count = 0;
    try {
        count = drv.device_count();
    } catch (const std::exception& e) {
        g_reason = e.what();
        return g_reason;
    }
    if (count <= 0) {
        g_reason = "no CUDA device found by the driver";
        return g_reason;
    }
    rt::RuntimeOptions opt;
    opt.device = local_rank % count;
    try {
        gpu::activate(opt);
        gpu::set_enabled(false); // dispatch stays off until a model runs on it
        g_have = true;
    } catch (const std::exception& e) {
        g_reason = e.what();
    }
#else
    (void)comm;
#endif
    return g_reason;
}

rt::Runtime& gpu_runtime() {
#ifdef SQUALL_GPU_MODEL
    if (g_have) return gpu::backend().runtime();
#endif
    throw rt::NoDeviceError(g_reason.empty() ? "GPU runtime not opened" : g_reason);
}

DeviceMemory gpu_memory() {
    DeviceMemory m;
#ifdef SQUALL_GPU_MODEL
    if (!g_have) return m;
    try {
        const rt::MemoryInfo info = rt::Driver::get().memory_info();
        m.free = info.free, m.total = info.total;
    } catch (const rt::CudaError&) {
        // Unknown: the caller then skips its memory check.
    }
#endif
    return m;
}

std::size_t model_device_bytes(const Config& cfg, const GridDims& d) {
    const std::size_t t = cfg.precision == Precision::single ? 4 : 8;
    Config on_gpu = cfg; // the backend may still be auto here: the estimate is the GPU's
    on_gpu.backend = Backend::gpu;
    const int n3d = model_fields_3d(on_gpu);
    std::size_t bytes = std::size_t(n3d) * std::size_t(d.pad + d.ncells) * t; // as Field3d
    bytes += 8 * std::size_t(d.nplane()) * t;                                 // surface arrays
    bytes += 4 * std::size_t(d.kcells) * d.jj * 3 * t; // halo buffers (upper bound)
#ifdef SQUALL_GPU_MODEL
    bytes += t == 4 ? PressureSolverGpu<float>::device_bytes(d)
                    : PressureSolverGpu<double>::device_bytes(d);
#endif
    return bytes;
}

void gpu_dispatch(bool on) {
#ifdef SQUALL_GPU_MODEL
    if (on && !g_have) throw rt::NoDeviceError(g_reason.empty() ? "no GPU opened" : g_reason);
    gpu::set_enabled(on && g_have);
#else
    if (on) throw std::runtime_error("this build has no GPU support");
#endif
}

} // namespace squall
