#include "runtime/driver.h"

#include "runtime/log.h"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>

#ifdef SQUALL_HAVE_CUDA
#include <cuda.h>
#include <dlfcn.h>
#endif

namespace squall::rt {

#ifdef SQUALL_HAVE_CUDA

// cuda.h maps names like cuMemAlloc to versioned symbols (cuMemAlloc_v2) with macros;
// stringifying after expansion gives the symbol the library really exports.
#define SQUALL_STR2(x) #x
#define SQUALL_STR(x) SQUALL_STR2(x)
// clang-format off
#define SQUALL_API_LIST(X) \
    X(cuInit) \
    X(cuDriverGetVersion) \
    X(cuDeviceGetCount) \
    X(cuDeviceGet) \
    X(cuDeviceGetName) \
    X(cuDeviceGetAttribute) \
    X(cuDevicePrimaryCtxRetain) \
    X(cuCtxSetCurrent) \
    X(cuCtxSynchronize) \
    X(cuModuleLoadData) \
    X(cuModuleUnload) \
    X(cuModuleGetFunction) \
    X(cuFuncSetAttribute) \
    X(cuFuncGetAttribute) \
    X(cuLaunchKernel) \
    X(cuMemGetInfo) \
    X(cuMemAlloc) \
    X(cuMemFree) \
    X(cuMemAllocHost) \
    X(cuMemFreeHost) \
    X(cuMemcpyHtoD) \
    X(cuMemcpyDtoH) \
    X(cuMemcpyDtoD) \
    X(cuMemcpyDtoDAsync) \
    X(cuMemGetAddressRange) \
    X(cuIpcGetMemHandle) \
    X(cuIpcOpenMemHandle) \
    X(cuIpcCloseMemHandle) \
    X(cuMemsetD8) \
    X(cuStreamSynchronize) \
    X(cuStreamCreate) \
    X(cuStreamDestroy) \
    X(cuStreamWaitEvent) \
    X(cuEventCreate) \
    X(cuEventDestroy) \
    X(cuEventRecord) \
    X(cuEventSynchronize) \
    X(cuEventQuery) \
    X(cuEventElapsedTime) \
    X(cuTensorMapEncodeTiled) \
    X(cuGetErrorString)
// clang-format on

struct Driver::Api {
#define SQUALL_DECLARE(name) decltype(&name) p_##name = nullptr;
    SQUALL_API_LIST(SQUALL_DECLARE)
#undef SQUALL_DECLARE
};

Driver::Driver() {
    const char* override_path = std::getenv("SQUALL_CUDA_DRIVER");
    const char* path = override_path && *override_path ? override_path : "libcuda.so.1";
    handle_ = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle_) {
        const char* why = dlerror();
        error_ = fmt::format("no CUDA driver/GPU found: cannot load {} ({})", path,
                             why ? why : "unknown reason");
        return;
    }
    api_ = new Api();
    std::string missing;
#define SQUALL_RESOLVE(name)                                                                       \
    api_->p_##name = reinterpret_cast<decltype(api_->p_##name)>(dlsym(handle_, SQUALL_STR(name))); \
    if (!api_->p_##name) missing += std::string(missing.empty() ? "" : ", ") + SQUALL_STR(name);
    SQUALL_API_LIST(SQUALL_RESOLVE)
#undef SQUALL_RESOLVE
    if (!missing.empty()) {
        error_ = fmt::format("no CUDA driver/GPU found: {} lacks {}", path, missing);
        return;
    }
    CUresult rc = api_->p_cuInit(0);
    if (rc != CUDA_SUCCESS) {
        error_ = fmt::format("no CUDA driver/GPU found: cuInit failed ({})", error_string(rc));
        return;
    }
    int count = 0;
    if (api_->p_cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
        error_ = "no CUDA driver/GPU found: the driver reports no devices";
        return;
    }
    api_->p_cuDriverGetVersion(&driver_version_);
    launch_ = reinterpret_cast<LaunchFn>(api_->p_cuLaunchKernel);
    available_ = true;
}

std::string Driver::error_string(int result) const {
    const char* s = nullptr;
    if (api_ && api_->p_cuGetErrorString)
        api_->p_cuGetErrorString(static_cast<CUresult>(result), &s);
    return s ? fmt::format("{} (code {})", s, result) : fmt::format("CUDA error {}", result);
}

void Driver::check(int result, const char* call) const {
    if (result != CUDA_SUCCESS)
        throw CudaError(fmt::format("{} failed: {}", call, error_string(result)), result);
}

int Driver::device_count() const {
    int n = 0;
    if (available_) api_->p_cuDeviceGetCount(&n);
    return n;
}

DeviceInfo Driver::open_device(int ordinal) {
    require();
    CUdevice dev;
    if (api_->p_cuDeviceGet(&dev, ordinal) != CUDA_SUCCESS)
        throw NoDeviceError(fmt::format("no CUDA driver/GPU found: device {} does not exist "
                                        "({} device(s))",
                                        ordinal, device_count()));
    CUcontext ctx;
    check(api_->p_cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check(api_->p_cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    context_ = ctx;
    device_ = ordinal;

    DeviceInfo d;
    char name[256] = {};
    check(api_->p_cuDeviceGetName(name, sizeof name, dev), "cuDeviceGetName");
    d.name = name;
    auto attr = [&](CUdevice_attribute a) {
        int v = 0;
        check(api_->p_cuDeviceGetAttribute(&v, a, dev), "cuDeviceGetAttribute");
        return v;
    };
    d.cc_major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    d.cc_minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    d.driver_version = driver_version_;
    d.max_threads_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    d.max_shared_memory_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    d.max_shared_memory_per_block_optin =
        attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    d.multiprocessor_count = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    d.max_threads_per_multiprocessor = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    d.max_blocks_per_multiprocessor = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
    d.max_registers_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
    d.warp_size = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    d.l2_cache_size = attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    return d;
}

void Driver::make_current() const {
    require();
    if (context_)
        check(api_->p_cuCtxSetCurrent(static_cast<CUcontext>(context_)), "cuCtxSetCurrent");
}

void* Driver::module_load(const std::string& image) const {
    make_current();
    CUmodule m;
    check(api_->p_cuModuleLoadData(&m, image.data()), "cuModuleLoadData");
    return m;
}

void Driver::module_unload(void* module) const {
    if (available_ && module) api_->p_cuModuleUnload(static_cast<CUmodule>(module));
}

void* Driver::module_function(void* module, const std::string& name) const {
    CUfunction f;
    check(api_->p_cuModuleGetFunction(&f, static_cast<CUmodule>(module), name.c_str()),
          "cuModuleGetFunction");
    return f;
}

void Driver::set_max_dynamic_shared(void* function, unsigned bytes) const {
    check(api_->p_cuFuncSetAttribute(static_cast<CUfunction>(function),
                                     CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                     static_cast<int>(bytes)),
          "cuFuncSetAttribute");
}

void Driver::set_preferred_carveout(void* function, int percent) const {
    check(api_->p_cuFuncSetAttribute(static_cast<CUfunction>(function),
                                     CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, percent),
          "cuFuncSetAttribute");
}

int Driver::function_attribute_registers(void* function) const {
    int v = 0;
    check(api_->p_cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS,
                                     static_cast<CUfunction>(function)),
          "cuFuncGetAttribute");
    return v;
}

MemoryInfo Driver::memory_info() const {
    make_current();
    MemoryInfo m;
    check(api_->p_cuMemGetInfo(&m.free, &m.total), "cuMemGetInfo");
    return m;
}

DevicePtr Driver::alloc(size_t bytes) const {
    make_current();
    CUdeviceptr p = 0;
    check(api_->p_cuMemAlloc(&p, bytes ? bytes : 1), "cuMemAlloc");
    return p;
}

void Driver::free(DevicePtr p) const {
    if (available_ && p) api_->p_cuMemFree(p);
}

void* Driver::host_alloc(size_t bytes) const {
    make_current();
    void* p = nullptr;
    check(api_->p_cuMemAllocHost(&p, bytes ? bytes : 1), "cuMemAllocHost");
    return p;
}

void Driver::host_free(void* p) const {
    if (available_ && p) api_->p_cuMemFreeHost(p);
}

void Driver::upload(DevicePtr dst, const void* src, size_t bytes) const {
    check(api_->p_cuMemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD");
}

void Driver::download(void* dst, DevicePtr src, size_t bytes) const {
    check(api_->p_cuMemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH");
}

void Driver::copy_device(DevicePtr dst, DevicePtr src, size_t bytes) const {
    require();
    check(api_->p_cuMemcpyDtoD(dst, src, bytes), "cuMemcpyDtoD");
}

void Driver::copy_device_async(DevicePtr dst, DevicePtr src, size_t bytes, StreamHandle s) const {
    require();
    check(api_->p_cuMemcpyDtoDAsync(dst, src, bytes, static_cast<CUstream>(s)),
          "cuMemcpyDtoDAsync");
}

std::pair<DevicePtr, size_t> Driver::allocation_of(DevicePtr p) const {
    require();
    CUdeviceptr base = 0;
    size_t bytes = 0;
    check(api_->p_cuMemGetAddressRange(&base, &bytes, p), "cuMemGetAddressRange");
    return {base, bytes};
}

IpcHandle Driver::ipc_handle(DevicePtr p) const {
    static_assert(sizeof(CUipcMemHandle) == sizeof(IpcHandle));
    make_current();
    CUipcMemHandle h;
    check(api_->p_cuIpcGetMemHandle(&h, p), "cuIpcGetMemHandle");
    IpcHandle out;
    std::memcpy(out.bytes.data(), &h, sizeof(h));
    return out;
}

DevicePtr Driver::ipc_open(const IpcHandle& handle) const {
    make_current();
    CUipcMemHandle h;
    std::memcpy(&h, handle.bytes.data(), sizeof(h));
    CUdeviceptr p = 0;
    check(api_->p_cuIpcOpenMemHandle(&p, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
          "cuIpcOpenMemHandle");
    return p;
}

void Driver::ipc_close(DevicePtr p) const {
    if (available_ && p) api_->p_cuIpcCloseMemHandle(p);
}

void Driver::memset8(DevicePtr dst, unsigned char value, size_t bytes) const {
    check(api_->p_cuMemsetD8(dst, value, bytes), "cuMemsetD8");
}

void Driver::synchronize() const {
    check(api_->p_cuCtxSynchronize(), "cuCtxSynchronize");
}

void Driver::stream_synchronize(StreamHandle s) const {
    check(api_->p_cuStreamSynchronize(static_cast<CUstream>(s)), "cuStreamSynchronize");
}

StreamHandle Driver::stream_create() const {
    require();
    make_current();
    CUstream st = nullptr;
    check(api_->p_cuStreamCreate(&st, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    return st;
}

void Driver::stream_destroy(StreamHandle s) const {
    if (available_ && s) api_->p_cuStreamDestroy(static_cast<CUstream>(s));
}

void Driver::stream_wait_event(StreamHandle s, void* e) const {
    check(api_->p_cuStreamWaitEvent(static_cast<CUstream>(s), static_cast<CUevent>(e), 0),
          "cuStreamWaitEvent");
}

void* Driver::event_create() const {
    CUevent e;
    check(api_->p_cuEventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate");
    return e;
}

void Driver::event_destroy(void* e) const {
    if (available_ && e) api_->p_cuEventDestroy(static_cast<CUevent>(e));
}

void Driver::event_record(void* e, StreamHandle s) const {
    check(api_->p_cuEventRecord(static_cast<CUevent>(e), static_cast<CUstream>(s)),
          "cuEventRecord");
}

void Driver::event_synchronize(void* e) const {
    check(api_->p_cuEventSynchronize(static_cast<CUevent>(e)), "cuEventSynchronize");
}

bool Driver::event_done(void* e) const {
    const CUresult rc = api_->p_cuEventQuery(static_cast<CUevent>(e));
    if (rc == CUDA_ERROR_NOT_READY) return false;
    check(rc, "cuEventQuery");
    return true;
}

float Driver::event_elapsed_ms(void* start, void* end) const {
    float ms = 0;
    check(api_->p_cuEventElapsedTime(&ms, static_cast<CUevent>(start), static_cast<CUevent>(end)),
          "cuEventElapsedTime");
    return ms;
}

void Driver::encode_tensor_map(void* out, DevicePtr base, size_t elem_bytes,
                               const std::array<long long, 3>& dims,
                               const std::array<unsigned, 3>& box) const {
    require();
    const size_t e = elem_bytes;
    const cuuint64_t extent[3] = {cuuint64_t(dims[0]), cuuint64_t(dims[1]), cuuint64_t(dims[2])};
    const cuuint64_t stride[2] = {extent[0] * e, extent[0] * extent[1] * e};
    const cuuint32_t boxdim[3] = {box[0], box[1], box[2]}, step[3] = {1, 1, 1};
    const CUresult rc = api_->p_cuTensorMapEncodeTiled(
        static_cast<CUtensorMap*>(out),
        e == 8 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT64 : CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3,
        reinterpret_cast<void*>(base), extent, stride, boxdim, step, CU_TENSOR_MAP_INTERLEAVE_NONE,
        CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (rc != CUDA_SUCCESS)
        throw CudaError(fmt::format("cuTensorMapEncodeTiled failed for an array at {:#x} of {} x "
                                    "{} x {} elements of {} bytes, box {} x {} x {}: {}",
                                    base, dims[0], dims[1], dims[2], e, box[0], box[1], box[2],
                                    error_string(rc)),
                        rc);
}

#else // CPU-only build: every device operation reports that CUDA is not built.

struct Driver::Api {};

Driver::Driver() {
    error_ = "CUDA support not built (configure with the CUDA toolkit)";
}

std::string Driver::error_string(int result) const {
    return fmt::format("CUDA error {}", result);
}
void Driver::check(int result, const char* call) const {
    if (result != 0) throw CudaError(fmt::format("{} failed", call), result);
}
int Driver::device_count() const {
    return 0;
}
DeviceInfo Driver::open_device(int) {
    throw NoDeviceError(error_);
}
void Driver::make_current() const {
    require();
}
void* Driver::module_load(const std::string&) const {
    throw NoDeviceError(error_);
}
void Driver::module_unload(void*) const {}
void* Driver::module_function(void*, const std::string&) const {
    throw NoDeviceError(error_);
}
void Driver::set_max_dynamic_shared(void*, unsigned) const {
    require();
}
void Driver::set_preferred_carveout(void*, int) const {
    require();
}
int Driver::function_attribute_registers(void*) const {
    throw NoDeviceError(error_);
}
MemoryInfo Driver::memory_info() const {
    throw NoDeviceError(error_);
}
DevicePtr Driver::alloc(size_t) const {
    throw NoDeviceError(error_);
}
void Driver::free(DevicePtr) const {}
void* Driver::host_alloc(size_t) const {
    throw NoDeviceError(error_);
}
void Driver::host_free(void*) const {}
void Driver::upload(DevicePtr, const void*, size_t) const {
    require();
}
void Driver::download(void*, DevicePtr, size_t) const {
    require();
}
void Driver::copy_device(DevicePtr, DevicePtr, size_t) const {
    require();
}
void Driver::copy_device_async(DevicePtr, DevicePtr, size_t, StreamHandle) const {
    require();
}
std::pair<DevicePtr, size_t> Driver::allocation_of(DevicePtr) const {
    throw NoDeviceError(error_);
}
IpcHandle Driver::ipc_handle(DevicePtr) const {
    throw NoDeviceError(error_);
}
DevicePtr Driver::ipc_open(const IpcHandle&) const {
    throw NoDeviceError(error_);
}
void Driver::ipc_close(DevicePtr) const {}
void Driver::memset8(DevicePtr, unsigned char, size_t) const {
    require();
}
void Driver::synchronize() const {
    require();
}
void Driver::stream_synchronize(StreamHandle) const {
    require();
}
StreamHandle Driver::stream_create() const {
    throw NoDeviceError(error_);
}
void Driver::stream_destroy(StreamHandle) const {}
void Driver::stream_wait_event(StreamHandle, void*) const {
    require();
}
void* Driver::event_create() const {
    throw NoDeviceError(error_);
}
void Driver::event_destroy(void*) const {}
void Driver::event_record(void*, StreamHandle) const {
    require();
}
void Driver::event_synchronize(void*) const {
    require();
}
bool Driver::event_done(void*) const {
    throw NoDeviceError(error_);
}
float Driver::event_elapsed_ms(void*, void*) const {
    throw NoDeviceError(error_);
}
void Driver::encode_tensor_map(void*, DevicePtr, size_t, const std::array<long long, 3>&,
                               const std::array<unsigned, 3>&) const {
    require();
}

#endif

void Driver::require() const {
    if (!available_) throw NoDeviceError(error_);
}

Driver& Driver::get() {
    static Driver driver; // thread-safe one-time load
    return driver;
}

} // namespace squall::rt
