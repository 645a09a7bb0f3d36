#include "model/core/gpu_session.h"

#include <memory>
#include <stdexcept>

#ifdef SQUALL_HAVE_CUDA
#include <dlfcn.h>
#endif
#ifdef SQUALL_GPU_MODEL
#include "backends/cuda/gpu_launch.h"
#include "model/pressure/pressure_gpu.h"
#endif

namespace squall {

namespace {
std::unique_ptr<rt::Runtime> g_runtime;
std::string g_reason;
bool g_opened = false;
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
    // One rank per GPU: ranks on the same node take consecutive devices.
    int local_rank = 0;
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank);
    MPI_Comm_free(&node);
    rt::RuntimeOptions opt;
    auto& drv = rt::Driver::get();
    if (drv.available()) {
        int count = 0;
        try {
            count = drv.device_count();
        } catch (const std::exception&) {
            count = 0;
        }
        if (count > 0) opt.device = local_rank % count;
    }
    try {
        g_runtime = std::make_unique<rt::Runtime>(opt);
        if (!g_runtime->has_device()) {
            g_reason = g_runtime->no_device_reason();
            if (g_reason.empty()) g_reason = "no GPU found";
            g_runtime.reset();
        }
    } catch (const std::exception& e) {
        g_reason = e.what();
        g_runtime.reset();
    }
    return g_reason;
}

rt::Runtime& gpu_runtime() {
    if (!g_runtime) throw rt::NoDeviceError(g_reason.empty() ? "GPU runtime not opened" : g_reason);
    return *g_runtime;
}

DeviceMemory gpu_memory() {
    DeviceMemory m;
#ifdef SQUALL_HAVE_CUDA
    if (!g_runtime) return m;
    // The driver wrapper has no cuMemGetInfo; the library is already loaded by it.
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!lib) return m;
    using Fn = int (*)(std::size_t*, std::size_t*);
    auto fn = reinterpret_cast<Fn>(dlsym(lib, "cuMemGetInfo_v2"));
    if (fn) {
        rt::Driver::get().make_current();
        if (fn(&m.free, &m.total) != 0) m = {};
    }
    dlclose(lib);
#endif
    return m;
}

std::size_t model_device_bytes(const Config& cfg, const GridDims& d) {
    const std::size_t t = cfg.precision == Precision::single ? 4 : 8;
    int n3d = 7; // u, v, w, their tendencies, p
    if (cfg.thermo != ThermoType::none) n3d += 2;
    if (cfg.diff == DiffType::smag2) n3d += 2;
    std::size_t bytes = std::size_t(n3d) * std::size_t(d.ncells) * t;
    bytes += 8 * std::size_t(d.icells) * d.jcells * t;     // surface arrays
    bytes += 4 * std::size_t(d.kcells) * d.icells * 3 * t; // halo buffers (upper bound)
#ifdef SQUALL_GPU_MODEL
    bytes += t == 4 ? PressureSolverGpu<float>::device_bytes(d)
                    : PressureSolverGpu<double>::device_bytes(d);
#endif
    return bytes;
}

void gpu_dispatch(bool on) {
#ifdef SQUALL_GPU_MODEL
    (void)on; // TODO(G1 API)
#else
    if (on) throw std::runtime_error("this build has no GPU support");
#endif
}

} // namespace squall
