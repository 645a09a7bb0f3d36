// The CUDA driver API, loaded at run time with dlopen("libcuda.so.1"), so that a
// CUDA-enabled binary starts, and runs on the CPU, on machines without a GPU or
// driver. Nothing here links against libcuda. SQUALL_CUDA_DRIVER overrides the
// library path (used by tests to simulate a missing driver).
#pragma once

#include "runtime/device_info.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace squall::rt {

// No driver, no device, or CUDA support not compiled in.
class NoDeviceError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A driver call failed; the message names the call and the driver's error string.
class CudaError : public std::runtime_error {
public:
    CudaError(const std::string& what, int code) : std::runtime_error(what), code_(code) {}
    int code() const { return code_; }

private:
    int code_;
};

using DevicePtr = uint64_t; // CUdeviceptr

// The bytes of a CUipcMemHandle, which can travel through MPI.
struct IpcHandle {
    std::array<char, 64> bytes{};
};
using StreamHandle = void*; // CUstream; nullptr is the legacy default stream

// Device memory of the opened device, in bytes.
struct MemoryInfo {
    size_t free = 0, total = 0;
};

// Same ABI as cuLaunchKernel (handles are pointers, CUresult is an int-sized enum).
using LaunchFn = int (*)(void* function, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                         unsigned by, unsigned bz, unsigned shared_mem, void* stream, void** params,
                         void** extra);

class Driver {
public:
    // Loads the library and resolves entry points once; never throws.
    static Driver& get();

    bool available() const { return available_; }
    // Why the driver is unavailable: "no CUDA driver/GPU found: ..." or
    // "CUDA support not built".
    const std::string& error() const { return error_; }
    // Throws NoDeviceError with error() when unavailable.
    void require() const;

    int driver_version() const { return driver_version_; }
    int device_count() const;

    // Retains the primary context of a device and makes it current on this thread.
    // Throws NoDeviceError when there is no such device.
    DeviceInfo open_device(int ordinal);
    // Makes the opened device's context current on the calling thread.
    void make_current() const;

    void* module_load(const std::string& image) const;
    void module_unload(void* module) const;
    void* module_function(void* module, const std::string& name) const;
    void set_max_dynamic_shared(void* function, unsigned bytes) const;
    // PREFERRED_SHARED_MEMORY_CARVEOUT of a function, in percent (0: the largest L1).
    void set_preferred_carveout(void* function, int percent) const;
    int function_attribute_registers(void* function) const;

    // Free and total memory of the opened device (cuMemGetInfo).
    MemoryInfo memory_info() const;
    DevicePtr alloc(size_t bytes) const;
    void free(DevicePtr p) const;
    // Page-locked host memory: copies to and from it run at full bus speed.
    void* host_alloc(size_t bytes) const;
    void host_free(void* p) const;
    void upload(DevicePtr dst, const void* src, size_t bytes) const;
    void download(void* dst, DevicePtr src, size_t bytes) const;
    void memset8(DevicePtr dst, unsigned char value, size_t bytes) const;
    // Device to device, also into memory of another device or process (IPC-mapped).
    void copy_device(DevicePtr dst, DevicePtr src, size_t bytes) const;
    // The same on stream s, asynchronous to the host.
    void copy_device_async(DevicePtr dst, DevicePtr src, size_t bytes, StreamHandle s) const;
    // The allocation (base, bytes) a device pointer lies in; throws CudaError for a
    // pointer that is not in one.
    std::pair<DevicePtr, size_t> allocation_of(DevicePtr p) const;
    // CUDA IPC: a handle another process of this node can open to map an allocation
    // (peer access between devices is enabled as needed); close what ipc_open mapped.
    IpcHandle ipc_handle(DevicePtr p) const;
    DevicePtr ipc_open(const IpcHandle& handle) const;
    void ipc_close(DevicePtr p) const;
    void synchronize() const; // the whole context
    void stream_synchronize(StreamHandle s) const;
    // A stream that does not wait for the legacy default stream (CU_STREAM_NON_BLOCKING),
    // so work on it runs beside the kernels; order it with events.
    StreamHandle stream_create() const;
    void stream_destroy(StreamHandle s) const;
    // Work queued on s after this waits until event e has completed.
    void stream_wait_event(StreamHandle s, void* e) const;

    void* event_create() const;
    void event_destroy(void* e) const;
    void event_record(void* e, StreamHandle s) const;
    void event_synchronize(void* e) const;
    bool event_done(void* e) const; // cuEventQuery: true once the event has completed
    float event_elapsed_ms(void* start, void* end) const;

    // Encodes a tiled tensor map (CUtensorMap, 128 bytes at `out`, 64-byte aligned) of a
    // 3-D array of 4- or 8-byte reals at `base`: extents dims in elements (x fastest, rows
    // packed), box the extents of one copy; zeros outside the array, no swizzle.
    void encode_tensor_map(void* out, DevicePtr base, size_t elem_bytes,
                           const std::array<long long, 3>& dims,
                           const std::array<unsigned, 3>& box) const;

    LaunchFn launch_fn() const { return launch_; }
    // Throws CudaError for a non-zero result.
    void check(int result, const char* call) const;
    std::string error_string(int result) const;

    Driver(const Driver&) = delete;
    Driver& operator=(const Driver&) = delete;

private:
    Driver();
    struct Api;
    Api* api_ = nullptr;
    void* handle_ = nullptr;
    void* context_ = nullptr;
    int device_ = -1;
    bool available_ = false;
    int driver_version_ = 0;
    std::string error_;
    LaunchFn launch_ = nullptr;
};

// RAII device buffer for tests, benchmarks and capture.
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(size_t bytes) : ptr_(Driver::get().alloc(bytes)), bytes_(bytes) {}
    ~DeviceBuffer() {
        if (ptr_) Driver::get().free(ptr_);
    }
    DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) { o.ptr_ = 0; }
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        std::swap(ptr_, o.ptr_);
        std::swap(bytes_, o.bytes_);
        return *this;
    }
    DevicePtr get() const { return ptr_; }
    size_t size() const { return bytes_; }
    void upload(const void* src) const { Driver::get().upload(ptr_, src, bytes_); }
    void download(void* dst) const { Driver::get().download(dst, ptr_, bytes_); }

private:
    DevicePtr ptr_ = 0;
    size_t bytes_ = 0;
};

// RAII page-locked host array of n values of T.
template <typename T>
class PinnedArray {
public:
    PinnedArray() = default;
    explicit PinnedArray(size_t n)
        : ptr_(static_cast<T*>(Driver::get().host_alloc(n * sizeof(T)))), n_(n) {}
    ~PinnedArray() { Driver::get().host_free(ptr_); }
    PinnedArray(PinnedArray&& o) noexcept : ptr_(o.ptr_), n_(o.n_) { o.ptr_ = nullptr; }
    PinnedArray& operator=(PinnedArray&& o) noexcept {
        std::swap(ptr_, o.ptr_);
        std::swap(n_, o.n_);
        return *this;
    }
    T* data() const { return ptr_; }
    size_t size() const { return n_; }

private:
    T* ptr_ = nullptr;
    size_t n_ = 0;
};

} // namespace squall::rt
