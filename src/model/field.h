#pragma once
// Arrays of the model: a host copy, plus a device copy when the run uses the GPU.
// data() is the pointer kernels take (the device copy when there is one); host() and the
// index operators touch the host copy only, and to_device()/to_host() move data between
// them explicitly, so a CPU run never pays for the device and a GPU run never copies
// behind the caller's back. Device memory comes from the runtime's driver wrapper.
#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "model/grid.h"
#include "runtime/driver.h"

namespace squall {

template <typename T>
class DeviceArray {
public:
    static constexpr std::size_t npos = std::size_t(-1);
    DeviceArray() = default;
    explicit DeviceArray(std::size_t n, bool on_device = false, T value = T(0)) {
        assign(n, value, on_device);
    }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
    DeviceArray(DeviceArray&& o) noexcept : host_(std::move(o.host_)), dev_(o.dev_) { o.dev_ = 0; }
    DeviceArray& operator=(DeviceArray&& o) noexcept {
        std::swap(host_, o.host_);
        std::swap(dev_, o.dev_);
        return *this;
    }
    ~DeviceArray() { release(); }

    // (Re)allocates n elements set to value on the host and, with on_device, on the device.
    void assign(std::size_t n, T value, bool on_device) {
        release();
        host_.assign(n, value);
        if (on_device) {
            dev_ = rt::Driver::get().alloc(n * sizeof(T));
            to_device();
        }
    }

    T* data() { return dev_ ? reinterpret_cast<T*>(dev_) : host_.data(); }
    const T* data() const { return dev_ ? reinterpret_cast<const T*>(dev_) : host_.data(); }
    T* host() { return host_.data(); }
    const T* host() const { return host_.data(); }
    T& operator[](std::size_t i) { return host_[i]; }
    T operator[](std::size_t i) const { return host_[i]; }
    std::size_t size() const { return host_.size(); }
    bool empty() const { return host_.empty(); }
    bool on_device() const { return dev_ != 0; }
    rt::DevicePtr device() const { return dev_; } // 0 for host-only arrays

    // Host -> device and device -> host (no-ops for host-only arrays). Synchronous: the
    // context is synchronised first so that no kernel still writes what is copied.
    // `count` limits the copy to the first elements.
    void to_device(std::size_t count = npos) const {
        if (!dev_ || host_.empty()) return;
        rt::Driver::get().synchronize();
        rt::Driver::get().upload(dev_, host_.data(), std::min(count, host_.size()) * sizeof(T));
    }
    void to_host() {
        if (dev_) copy_to_host(host_.data());
    }
    // Device (or host) contents into any host buffer of size() elements.
    void copy_to_host(T* dst, std::size_t count = npos) const {
        count = std::min(count, host_.size());
        if (!dev_) {
            if (dst != host_.data()) std::copy(host_.begin(), host_.begin() + count, dst);
            return;
        }
        rt::Driver::get().synchronize();
        rt::Driver::get().download(dst, dev_, count * sizeof(T));
    }
    // Elements [first, first + count) from the device into the host copy (no-op on the host).
    void range_to_host(std::size_t first, std::size_t count) {
        if (!dev_ || count == 0) return;
        rt::Driver::get().synchronize();
        rt::Driver::get().download(host_.data() + first, dev_ + first * sizeof(T),
                                   count * sizeof(T));
    }
    // Sets every element on the host and, where present, on the device.
    void fill(T v) {
        std::fill(host_.begin(), host_.end(), v);
        if (!dev_) return;
        if (v == T(0)) {
            rt::Driver::get().synchronize();
            rt::Driver::get().memset8(dev_, 0, host_.size() * sizeof(T));
        } else {
            to_device();
        }
    }

private:
    std::vector<T> host_;
    rt::DevicePtr dev_ = 0;
    void release() {
        if (dev_) rt::Driver::get().free(dev_);
        dev_ = 0;
    }
};

// A 3-D field on the local grid, including ghost cells. The allocation starts d.pad
// elements before ijk = 0 (see row_align in grid.h); data() and host() point at ijk = 0.
template <typename T>
class Field3d {
public:
    Field3d() = default;
    explicit Field3d(const GridDims& d, bool on_device = false)
        : d_(d), a_(static_cast<std::size_t>(d.pad + d.ncells), on_device) {}

    T* data() { return a_.data() + d_.pad; }
    const T* data() const { return a_.data() + d_.pad; }
    T* host() { return a_.host() + d_.pad; }
    const T* host() const { return a_.host() + d_.pad; }
    std::size_t size() const { return a_.empty() ? 0 : static_cast<std::size_t>(d_.ncells); }
    const GridDims& dims() const { return d_; }
    bool on_device() const { return a_.on_device(); }

    T& operator()(int i, int j, int k) { return a_[d_.pad + i * d_.ii + j * d_.jj + k * d_.kk]; }
    T operator()(int i, int j, int k) const {
        return a_[d_.pad + i * d_.ii + j * d_.jj + k * d_.kk];
    }

    void fill(T v) { a_.fill(v); }
    void to_device() const { a_.to_device(); }
    void to_host() { a_.to_host(); }
    // Linear indices [ijk, ijk + count) to the host copy: e.g. one xy plane (count = kk).
    void range_to_host(long ijk, long count) {
        a_.range_to_host(std::size_t(d_.pad + ijk), std::size_t(count));
    }

private:
    GridDims d_{};
    DeviceArray<T> a_;
};

} // namespace squall
